"""Forward-mode autodiff: the JVP trace and the helpers rules are built from.

A JVPTracer is a pair (primal, tangent). Processing a primitive unpacks
the pairs (values of other traces are constants: their tangent is a
symbolic Zero), then runs the primitive's JVP rule under the parent trace,
so the rule's own operations go wherever the enclosing computation goes
(executed eagerly, staged into a jaxpr, or split by partial evaluation).
If every tangent is zero the primitive is just bound on the primals.

Rule signature (rules.py): `jvp(primals, tangents, **params) -> (primal_out,
tangent_out)`; tangents may be `Zero`. `defjvp` builds one from a rule per
operand, `defjvp_zero` declares a zero derivative, `deflinear` a linear one.
"""

from __future__ import annotations

import itertools
from typing import Callable, Sequence

from pyjax._src import core
from pyjax._src.ad_util import Zero, add_tangents, instantiate, tangent_aval
from pyjax._src.ad_util import instantiate as instantiate_zeros
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr, eval_jaxpr
from pyjax._src.rules import NOT_DIFFERENTIABLE

_tags = itertools.count()


class JVPTracer(core.Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        return core.get_aval(self.primal)

    def __repr__(self):
        return f"JVPTracer(primal={self.primal!r}, tangent={self.tangent!r})"


class JVPTrace(core.Trace):
    """Pushes tangents forward through every primitive."""

    def __init__(self, parent: core.Trace):
        self.parent = parent
        self.tag = next(_tags)
        self.valid = True

    def is_valid(self) -> bool:
        return self.valid

    def to_primal_tangent(self, x):
        if type(x) is JVPTracer and x._trace is self:
            return x.primal, x.tangent
        return x, Zero(tangent_aval(core.get_aval(x)))

    def process_primitive(self, primitive, args, params):
        primals, tangents = [], []
        for x in args:
            if type(x) is JVPTracer and x._trace is self:
                primals.append(x.primal)
                tangents.append(x.tangent)
            else:
                primals.append(x)
                tangents.append(Zero(tangent_aval(core.get_aval(x))))
        token = core._trace_ctx.set(self.parent)  # (a `with` block costs more on this hot path)
        try:
            if all(type(t) is Zero for t in tangents) and not primitive.ref_primitive:
                # (a reference made under jvp gets a tangent reference, even from a constant)
                return primitive.bind(*primals, **params)
            rule = primitive.jvp
            if rule is NOT_DIFFERENTIABLE:
                out = primitive.bind(*primals, **params)
                return out  # outputs carry zero tangents: no tracer needed
            rule = rule if callable(rule) else primitive.rule("jvp")  # a missing rule raises JAX's error
            out, tangent_out = rule(primals, tangents, **params)
        finally:
            core._trace_ctx.reset(token)
        if primitive.multiple_results:
            return [self.pair(p, t) for p, t in zip(out, tangent_out, strict=True)]
        return self.pair(out, tangent_out)

    def lift_constant(self, value, aval):
        # A constant made under this trace has no tangent: it belongs to the parent.
        lift = getattr(self.parent, "lift_constant", None)
        if lift is not None:
            return lift(value, aval)
        from pyjax._src.array import Array

        return Array(value, aval)

    def pair(self, primal, tangent):
        if type(tangent) is Zero:
            return primal
        return JVPTracer(self, primal, tangent)


def jvp_flat(fun: Callable, primals: Sequence, tangents: Sequence) -> tuple[list, list]:
    """Runs fun(*primals) pushing `tangents` forward; returns flat (outs, tangents_out)."""
    trace = JVPTrace(core.current_trace())
    try:
        ins = [JVPTracer(trace, p, t) if type(t) is not Zero else p for p, t in zip(primals, tangents, strict=True)]
        with core.set_current_trace(trace):
            outs = fun(*ins)
        pairs = [trace.to_primal_tangent(o) for o in outs]
    finally:
        trace.valid = False
    return [p for p, _ in pairs], [t for _, t in pairs]


def jvp_jaxpr(jaxpr: Jaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool] = False,
              evaluate: Callable = eval_jaxpr) -> tuple[Jaxpr, list[bool]]:
    """The JVP of a closed jaxpr, as a jaxpr.

    Its inputs are the primals followed by the tangents marked in
    `nonzeros`; its outputs are the primal outputs followed by the output
    tangents that are not symbolic zeros. Outputs flagged in `instantiate`
    get a tangent even when it is zero (a loop carry keeps its type).
    `evaluate(jaxpr, consts, *args)` runs the body (remat's keeps each
    equation's source line). Returns the jaxpr and, per output, whether it
    has a tangent.
    """
    n_out = len(jaxpr.outvars)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    in_avals = jaxpr.in_avals
    num_primals = len(in_avals)
    tangent_avals = [tangent_aval(a) for a in in_avals]
    live_tangent_avals = [t for t, nz in zip(tangent_avals, nonzeros, strict=True) if nz]
    out_nonzeros: list = []

    def body(*args):
        live = iter(args[num_primals:])
        tangents = [next(live) if nz else Zero(t) for t, nz in zip(tangent_avals, nonzeros, strict=True)]
        outs, out_tangents = jvp_flat(lambda *a: evaluate(jaxpr, jaxpr.consts, *a), args[:num_primals], tangents)
        out_tangents = [instantiate_zeros(t) if i and type(t) is Zero else t for t, i in zip(out_tangents, inst, strict=True)]
        out_nonzeros[:] = [type(t) is not Zero for t in out_tangents]
        return [*outs, *(t for t in out_tangents if type(t) is not Zero)]

    new_jaxpr, _ = trace_to_jaxpr(body, list(in_avals) + live_tangent_avals, jaxpr.debug_info)
    return new_jaxpr, out_nonzeros


# ---------------------------------------------------------------------------
# Rule builders


def defjvp(primitive, *operand_rules: Callable | None) -> None:
    """A JVP from one rule per operand: `rule(g, *primals, **params)` is that
    operand's contribution to the output tangent (None: no contribution).
    The primal output is `primitive.bind(*primals)`."""

    def rule(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        tangent_out = Zero(tangent_aval(core.get_aval(out)))
        for operand_rule, g in zip(operand_rules, tangents, strict=True):
            if operand_rule is None or type(g) is Zero:
                continue
            tangent_out = add_tangents(tangent_out, operand_rule(g, *primals, **params))
        return out, tangent_out

    primitive.def_jvp(rule)


def defjvp2(primitive, *operand_rules: Callable | None) -> None:
    """Like defjvp, but each operand rule also sees the primal output:
    `rule(g, ans, *primals, **params)` (max/min use the chosen value)."""

    def rule(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        tangent_out = Zero(tangent_aval(core.get_aval(out)))
        for operand_rule, g in zip(operand_rules, tangents, strict=True):
            if operand_rule is None or type(g) is Zero:
                continue
            tangent_out = add_tangents(tangent_out, operand_rule(g, out, *primals, **params))
        return out, tangent_out

    primitive.def_jvp(rule)


def defjvp_with_output(primitive, tangent_rule: Callable) -> None:
    """A JVP whose tangent uses the primal output: `rule(g, ans, *primals)`
    for a unary primitive (e.g. exp: g * ans)."""

    def rule(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        return out, tangent_rule(tangents[0], out, *primals, **params)

    primitive.def_jvp(rule)


def defjvp_zero(primitive) -> None:
    """Declares a zero derivative (comparisons, iota, argmax...)."""
    primitive.def_jvp(NOT_DIFFERENTIABLE)


def deflinear(primitive, transpose_rule: Callable) -> None:
    """A primitive linear in all its operands: its JVP applies it to the
    tangents (zeros instantiated), and `transpose_rule(ct, *operands, **params)`
    gives the cotangents."""

    def rule(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        tangent_out = primitive.bind(*[instantiate(t) for t in tangents], **params)
        return out, tangent_out

    primitive.def_jvp(rule)
    primitive.def_transpose(transpose_rule)


__all__ = ["JVPTrace", "JVPTracer", "Zero", "defjvp", "defjvp2", "defjvp_with_output", "defjvp_zero", "deflinear", "jvp_flat", "jvp_jaxpr"]
