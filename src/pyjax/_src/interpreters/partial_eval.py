"""Partial evaluation: split a computation into what is known now and a
linear program over what is not.

`PartialEvalTrace` is a staging trace that records only equations with at
least one unknown input (one of its own tracers). An equation whose inputs
are all known is handed to the parent trace at once — executed eagerly, or
staged into the enclosing jaxpr. Known values an unknown equation needs
become constvars of the recorded jaxpr: the residuals.

`linearize` runs the JVP trace under a PartialEvalTrace whose unknowns are
the input tangents: primal computations are known and happen now; tangent
computations are recorded. The result is the primal output and a linear
jaxpr from input tangents to output tangents — which transpose.py turns
into a VJP.
"""

from __future__ import annotations

from typing import Callable, Sequence

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate, tangent_aval
from pyjax._src.interpreters.jvp import JVPTrace, JVPTracer
from pyjax._src.interpreters.staging import DynamicJaxprTrace, DynamicJaxprTracer
from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.jaxpr import Jaxpr


class PartialEvalTrace(DynamicJaxprTrace):
    """Records equations on unknown values; forwards the known ones."""

    # The recorded (linear) jaxpr is transposed or evaluated, and the
    # equations that come out of that are staged afresh with their own
    # source lines; the known work goes to the parent trace, which keeps its.
    records_source_info = False

    def __init__(self, parent: core.Trace, debug_info=None):
        super().__init__(debug_info)
        self.parent = parent

    def process_primitive(self, primitive, args, params):
        for x in args:
            if type(x) is DynamicJaxprTracer and x._trace is self:
                rule = getattr(primitive, "partial_eval", None)
                if rule is not None:  # a call: split its body into known and unknown parts
                    return rule(self, args, params)
                return super().process_primitive(primitive, args, params)
        token = core._trace_ctx.set(self.parent)  # (a `with` block costs more on this hot path)
        try:
            return primitive.bind(*args, **params)
        finally:
            core._trace_ctx.reset(token)

    def is_unknown(self, x) -> bool:
        return type(x) is DynamicJaxprTracer and x._trace is self

    def record(self, primitive, args, params):
        """Records `primitive` on these arguments (known ones become residuals)."""
        return DynamicJaxprTrace.process_primitive(self, primitive, args, params)

    def lift_constant(self, value, aval):
        # A constant made during linearization is known: it belongs to the parent.
        lift = getattr(self.parent, "lift_constant", None)
        if lift is not None:
            return lift(value, aval)
        from pyjax._src.array import Array

        return Array(value, aval)


def linearize_flat(fun: Callable, primals: Sequence, aux_store: list | None = None) -> tuple[list, Jaxpr, list]:
    """(primal outputs, linear jaxpr, which outputs have nonzero tangents).

    The linear jaxpr takes one tangent per primal input; its constvars are
    the residuals (values of the enclosing trace); its outputs are the output
    tangents (symbolic zeros are left out and reported as False)."""
    parent = core.current_trace()
    pe_trace = PartialEvalTrace(parent)
    tangent_ins = [pe_trace.new_arg(tangent_aval(core.get_aval(p))) for p in primals]
    jvp_trace = JVPTrace(pe_trace)
    try:
        ins = [JVPTracer(jvp_trace, p, t) for p, t in zip(primals, tangent_ins, strict=True)]
        with core.set_current_trace(jvp_trace):
            outs = fun(*ins)
        pairs = [jvp_trace.to_primal_tangent(o) for o in outs]
        primal_outs = [p for p, _ in pairs]
        nonzero = [type(t) is not Zero for _, t in pairs]
        with core.set_current_trace(pe_trace):
            tangent_outs = [instantiate(t) for t, nz in ((t, nz) for (_, t), nz in zip(pairs, nonzero, strict=True)) if nz]
        linear = pe_trace.to_jaxpr(tangent_outs)
        if aux_store:
            # Auxiliary outputs are returned as primal values, not tracers.
            from pyjax._src.tree_util import tree_map

            out_tree, aux = aux_store[0]
            aux_store[0] = (out_tree, tree_map(lambda x: jvp_trace.to_primal_tangent(x)[0], aux))
    finally:
        jvp_trace.valid = False
        pe_trace.valid = False
    return primal_outs, linear, nonzero


def partial_eval_jaxpr(jaxpr: Jaxpr, unknowns: Sequence[bool]):
    """Splits a closed jaxpr by which inputs are unknown.

    Returns (known_jaxpr, unknown_jaxpr, out_unknowns, residual_sources):
    known_jaxpr maps the known inputs to the known outputs followed by the
    residuals it computes; unknown_jaxpr maps (residuals, unknown inputs) to
    the unknown outputs. residual_sources says, for each residual, either
    ("out", k) — the k-th extra output of known_jaxpr — or ("in", i) — the
    i-th known input itself, forwarded rather than recomputed.
    """
    from pyjax._src.jaxpr import eval_jaxpr

    known_trace = DynamicJaxprTrace(jaxpr.debug_info)
    pe_trace = PartialEvalTrace(known_trace)
    args, known_inputs = [], []
    for aval, unknown in zip(jaxpr.in_avals, unknowns, strict=True):
        if unknown:
            args.append(pe_trace.new_arg(aval))
        else:
            tracer = known_trace.new_arg(aval)
            known_inputs.append(tracer)
            args.append(tracer)
    try:
        with core.set_current_trace(pe_trace):
            outs = eval_jaxpr(jaxpr, jaxpr.consts, *args)
        out_unknowns = [pe_trace.is_unknown(o) for o in outs]
        unknown_jaxpr = pe_trace.to_jaxpr([o for o, u in zip(outs, out_unknowns, strict=True) if u])
        # Residuals: the unknown part's constvars whose values are known tracers.
        residual_vars, residual_sources, computed = [], [], []
        kept_constvars, kept_consts = [], []
        input_index = {id(t): i for i, t in enumerate(known_inputs)}
        for var, value in zip(unknown_jaxpr.constvars, unknown_jaxpr.consts, strict=True):
            if type(value) is DynamicJaxprTracer and value._trace is known_trace:
                residual_vars.append(var)
                if id(value) in input_index:
                    residual_sources.append(("in", input_index[id(value)]))
                else:
                    residual_sources.append(("out", len(computed)))
                    computed.append(value)
            else:
                kept_constvars.append(var)
                kept_consts.append(value)
        unknown_jaxpr = unknown_jaxpr.replace(
            constvars=kept_constvars, consts=kept_consts, invars=residual_vars + unknown_jaxpr.invars
        )
        # Dead code: unknown equations whose results nobody needs (e.g. a
        # tangent later cut by stop_gradient) go, and with them the residuals
        # only they used, and then the known equations computing those.
        unknown_jaxpr, used_inputs = dce_jaxpr(unknown_jaxpr)
        n_res = len(residual_vars)
        keep = used_inputs[:n_res]
        unknown_jaxpr = unknown_jaxpr.replace(
            invars=[v for v, k in zip(residual_vars, keep, strict=True) if k] + unknown_jaxpr.invars[n_res:]
        )
        kept_sources = [s for s, k in zip(residual_sources, keep, strict=True) if k]
        needed = sorted({i for kind, i in kept_sources if kind == "out"})
        renumber = {old: new for new, old in enumerate(needed)}
        residual_sources = [(kind, renumber[i] if kind == "out" else i) for kind, i in kept_sources]
        computed = [computed[i] for i in needed]
        known_jaxpr = known_trace.to_jaxpr([o for o, u in zip(outs, out_unknowns, strict=True) if not u] + computed)
        known_jaxpr, _ = dce_jaxpr(known_jaxpr)
    finally:
        pe_trace.valid = False
        known_trace.valid = False
    return known_jaxpr, unknown_jaxpr, out_unknowns, residual_sources


__all__ = ["PartialEvalTrace", "linearize_flat", "partial_eval_jaxpr"]
