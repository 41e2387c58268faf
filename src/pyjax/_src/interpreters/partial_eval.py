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

import contextlib
import contextvars
from typing import Callable, Sequence

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate, tangent_aval
from pyjax._src.ad_util import instantiate as instantiate_zeros
from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.interpreters.jvp import JVPTrace, JVPTracer, jvp_jaxpr
from pyjax._src.interpreters.staging import DynamicJaxprTrace, DynamicJaxprTracer, trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr


# Whether the partial evaluation running is linearize's (JAX's direct
# linearization: a call splits with its residuals first) rather than a
# standalone split (remat's recomputation: known outputs first).
_linearizing: contextvars.ContextVar = contextvars.ContextVar("pyjax_linearizing", default=False)


def linearizing() -> bool:
    """Whether partial evaluation is running for linearize."""
    return _linearizing.get()


@contextlib.contextmanager
def set_linearizing(value: bool):
    """Within the block, `linearizing()` is `value`."""
    token = _linearizing.set(value)
    try:
        yield
    finally:
        _linearizing.reset(token)


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


def linearize_flat(fun: Callable, primals: Sequence, aux_store: list | None = None,
                   nonzeros: Sequence[bool] | None = None) -> tuple[list, Jaxpr, list]:
    """(primal outputs, linear jaxpr, which outputs have nonzero tangents).

    The linear jaxpr takes one tangent per primal input (per input flagged
    in `nonzeros`, when given: the others are symbolic zeros); its
    constvars are the residuals (values of the enclosing trace); its outputs
    are the output tangents (symbolic zeros are left out and reported as
    False)."""
    parent = core.current_trace()
    pe_trace = PartialEvalTrace(parent)
    nonzeros = [True] * len(primals) if nonzeros is None else list(nonzeros)
    tangent_ins = [pe_trace.new_arg(tangent_aval(core.get_aval(p))) if nz else Zero(tangent_aval(core.get_aval(p)))
                   for p, nz in zip(primals, nonzeros, strict=True)]
    jvp_trace = JVPTrace(pe_trace)
    try:
        ins = [JVPTracer(jvp_trace, p, t) for p, t in zip(primals, tangent_ins, strict=True)]
        with core.set_current_trace(jvp_trace), set_linearizing(True):
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


def _zeros_known(jaxpr: Jaxpr, known_trace) -> Jaxpr:
    # The scalar zeros autodiff instantiated (Literal.zero) read as values of
    # the known trace: an unknown equation reading one takes it as a residual
    # (JAX's are known constants, not literals, so its known side returns them).
    if not any(type(v) is Literal and v.zero for e in jaxpr.eqns for v in e.invars):
        return jaxpr
    constvars, consts, eqns = list(jaxpr.constvars), list(jaxpr.consts), []
    for eqn in jaxpr.eqns:
        invars = list(eqn.invars)
        for k, v in enumerate(invars):
            if type(v) is Literal and v.zero:
                invars[k] = Var(v.aval)
                constvars.append(invars[k])
                consts.append(known_trace.lift_constant(v.val, v.aval))
        eqns.append(eqn.replace(invars=invars) if invars != eqn.invars else eqn)
    return jaxpr.replace(constvars=constvars, consts=consts, eqns=eqns)


def partial_eval_jaxpr(jaxpr: Jaxpr, unknowns: Sequence[bool], zeros_known: bool = True):
    """Splits a closed jaxpr by which inputs are unknown.

    Returns (known_jaxpr, unknown_jaxpr, out_unknowns, residual_sources):
    known_jaxpr maps the known inputs to the known outputs followed by the
    residuals it computes; unknown_jaxpr maps (residuals, unknown inputs) to
    the unknown outputs. residual_sources says, for each residual, either
    ("out", k) — the k-th extra output of known_jaxpr — or ("in", i) — the
    i-th known input itself, forwarded rather than recomputed.
    `zeros_known=False` keeps autodiff's scalar zeros literals (as JAX's
    JaxprTrace does, splitting a jit) rather than known values.
    """
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
        if zeros_known:
            jaxpr = _zeros_known(jaxpr, known_trace)
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


# ---------------------------------------------------------------------------
# Splitting a whole jaxpr with flags per output (the control-flow rules)


def partial_eval_jaxpr_nounits(jaxpr: Jaxpr, unknowns: Sequence[bool], instantiate: bool | Sequence[bool],
                               fwd: Sequence[bool] | None = None):
    """Splits a closed jaxpr by which inputs are unknown.

    Returns (known, unknown, out_unknowns, res_avals, in_fwd_res): `known`
    maps the known inputs to the known outputs and the residuals it
    computes; `unknown` maps (residuals, unknown inputs) to the unknown
    outputs. `in_fwd_res` has one entry per residual: None for a computed
    one (in order), or the index (among the known inputs) of the input it
    is, when `fwd` allows that input to be forwarded rather than returned.
    Outputs flagged in `instantiate` are unknown even if they could be
    known (their values become residuals).
    """
    n_out = len(jaxpr.outvars)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    jaxpr = _inline_calls_on_unknowns(jaxpr, unknowns)
    known, unknown, out_uk, sources = partial_eval_jaxpr(jaxpr, unknowns)
    n_known_out = sum(not u for u in out_uk)
    known_outs, computed = known.outvars[:n_known_out], known.outvars[n_known_out:]
    in_fwd_res, res_outs = [], []
    for kind, i in sources:
        if kind == "in" and fwd is not None and fwd[i]:
            in_fwd_res.append(i)
        else:
            in_fwd_res.append(None)
            res_outs.append(known.invars[i] if kind == "in" else computed[i])
    res_vars = list(unknown.invars[:len(sources)])
    kept_known, extra_vars = [], []
    known_it = iter(known_outs)
    unknown_it = iter(unknown.outvars)
    new_outvars = []
    for uk, i in zip(out_uk, inst, strict=True):
        if uk:
            new_outvars.append(next(unknown_it))
            continue
        value = next(known_it)
        if i:
            var = Var(value.aval)
            in_fwd_res.append(None)
            res_outs.append(value)
            extra_vars.append(var)
            new_outvars.append(var)
        else:
            kept_known.append(value)
    out_unknowns = [uk or i for uk, i in zip(out_uk, inst, strict=True)]
    known = known.replace(outvars=kept_known + res_outs)
    unknown = unknown.replace(invars=res_vars + extra_vars + unknown.invars[len(sources):], outvars=new_outvars)
    res_avals = [v.aval for v in res_vars + extra_vars]
    return known, unknown, out_unknowns, res_avals, in_fwd_res


def _inline_calls_on_unknowns(jaxpr: Jaxpr, unknowns: Sequence[bool]) -> Jaxpr:
    """`jaxpr` with each equation that reads an unknown input replaced by its
    body, where its primitive declares `inline_when_unknown` (the name of
    the param holding the body).

    custom_jvp_call declares it: JAX's partial evaluation keeps no custom
    JVP rule for such a call (only linear functions are partially evaluated
    with unknowns): under grad of a scan, the relu in the known body is its
    inner jit, not a custom_jvp_call.
    """
    unknown_vars = {v for v, uk in zip(jaxpr.invars, unknowns, strict=True) if uk}
    inline = set()
    for i, eqn in enumerate(jaxpr.eqns):
        if any(type(v) is not Literal and v in unknown_vars for v in eqn.invars):
            unknown_vars.update(eqn.outvars)
            if getattr(eqn.primitive, "inline_when_unknown", None) is not None:
                inline.add(i)
    if not inline:
        return jaxpr

    def inlined(*args):
        env = dict(zip(jaxpr.constvars, jaxpr.consts, strict=True))
        env.update(zip(jaxpr.invars, args, strict=True))
        read = lambda v: v.val if type(v) is Literal else env[v]
        for i, eqn in enumerate(jaxpr.eqns):
            ins = [read(v) for v in eqn.invars]
            if i in inline:
                body = eqn.params[eqn.primitive.inline_when_unknown]
                outs = eval_jaxpr(body, body.consts, *ins)
            else:
                outs = eqn.primitive.bind(*ins, **eqn.params)
                outs = outs if eqn.primitive.multiple_results else [outs]
            env.update(zip(eqn.outvars, outs, strict=True))
        return [read(v) for v in jaxpr.outvars]

    return trace_to_jaxpr(inlined, jaxpr.in_avals, jaxpr.debug_info)[0]


def linearize_jaxpr(jaxpr: Jaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool],
                    allow_fwds: Sequence[bool]):
    """Splits a jaxpr's JVP into a primal and a tangent jaxpr.

    Returns (primal_jaxpr, num_res_out, out_nonzeros, in_fwd_res, tangent_jaxpr):
    primal_jaxpr maps primals to (primal outputs, computed residuals);
    in_fwd_res has one entry per residual, None for a computed one (in
    order) or the index of the primal input it is; tangent_jaxpr maps
    (residuals, nonzero tangents) to the nonzero output tangents. A
    residual that is an input is forwarded only where `allow_fwds` says so;
    outputs flagged in `instantiate` get a (zero) tangent made by the
    tangent jaxpr.
    """
    n_in, n_out = len(jaxpr.invars), len(jaxpr.outvars)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    jvp, natural_nz = jvp_jaxpr(jaxpr, nonzeros, False)
    n_t = sum(nonzeros)
    known, unknown, _, res_avals, in_fwd_res = partial_eval_jaxpr_nounits(
        jvp, [False] * n_in + [True] * n_t, [False] * n_out + [True] * sum(natural_nz), list(allow_fwds) + [False] * n_t)
    out_nz = [a or b for a, b in zip(natural_nz, inst, strict=True)]
    num_res_out = len(known.outvars) - n_out
    if out_nz == natural_nz:
        return known, num_res_out, out_nz, in_fwd_res, unknown
    # Zero tangents asked for are made by the tangent jaxpr itself.
    out_avals = jaxpr.out_avals

    def tangent_fun(*args):
        outs = iter(eval_jaxpr(unknown, unknown.consts, *args))
        return [next(outs) if nz else instantiate_zeros(Zero(tangent_aval(a)))
                for a, nz, want in zip(out_avals, natural_nz, out_nz, strict=True) if want]

    tangent_jaxpr, _ = trace_to_jaxpr(tangent_fun, [v.aval for v in unknown.invars], jaxpr.debug_info)
    return known, num_res_out, out_nz, in_fwd_res, tangent_jaxpr


# ---------------------------------------------------------------------------
# Policy-driven partial evaluation (remat)


def partial_eval_jaxpr_custom(jaxpr: Jaxpr, in_unknowns: Sequence[bool], in_inst: Sequence[bool],
                              saveable: Callable, ensure_out_unknowns: Sequence[bool] | None = None,
                              ensure_out_inst: Sequence[bool] | None = None) -> tuple[Jaxpr, Jaxpr, list, list, int]:
    """Splits `jaxpr` into a known and a staged jaxpr, asking
    `saveable(primitive, *in_avals, **params) -> bool` which known values
    may be kept as residuals (an effectful equation's always are).

    Returns (known, staged, out_unknowns, out_inst, num_res): `known` maps the
    known inputs to the known outputs and then the residuals; `staged` maps
    (residuals, instantiated inputs) to the instantiated outputs. A known
    equation whose outputs may not be saved is in both: run now, and
    recomputed by the staged jaxpr. `inst` says a value is available in the
    staged jaxpr; a known, not instantiated value it needs becomes a residual.
    `ensure_out_unknowns`/`ensure_out_inst` force outputs unknown/staged (a
    loop's carries must be split alike on the way in and out).
    """
    env: dict = {}
    residuals: dict = {}  # an ordered set

    def read(x):
        return env[x] if type(x) is Var else (False, True)

    def instantiated(inst: bool, x):
        if type(x) is Var and not inst:
            residuals[x] = None
        return x

    for v, unknown, inst in zip(jaxpr.invars, in_unknowns, in_inst, strict=True):
        env[v] = (unknown, inst)
    for v in jaxpr.constvars:
        env[v] = (False, True)
    known_eqns, staged_eqns = [], []
    for eqn in jaxpr.eqns:
        unks_in, inst_in = zip(*map(read, eqn.invars)) if eqn.invars else ((), ())
        rule = getattr(eqn.primitive, "partial_eval_custom", None)
        if rule is not None:
            known_eqn, staged_eqn, unks_out, inst_out, res = rule(saveable, list(unks_in), list(inst_in), eqn)
            if known_eqn is not None:
                known_eqns.append(known_eqn)
            if staged_eqn is not None:
                staged_eqns.append(staged_eqn)
            residuals.update((r, None) for r in res)
            for v, u, i in zip(eqn.outvars, unks_out, inst_out, strict=True):
                env[v] = (u, i)
        elif any(unks_in):
            staged_eqns.append(eqn.replace(invars=[instantiated(i, x) for i, x in zip(inst_in, eqn.invars, strict=True)]))
            env.update((v, (True, True)) for v in eqn.outvars)
        else:
            known_eqns.append(eqn)
            # The policy is asked even about an effectful equation (which is
            # always saved): a policy answering badly raises there too.
            saved = saveable(eqn.primitive, *[x.aval for x in eqn.invars], **eqn.params)
            if eqn.effects or saved:
                # Saved (an offload is a save on this single-memory backend).
                env.update((v, (False, False)) for v in eqn.outvars)
            else:
                staged_eqns.append(eqn.replace(invars=[instantiated(i, x) for i, x in zip(inst_in, eqn.invars, strict=True)]))
                env.update((v, (False, True)) for v in eqn.outvars)
    outs = [read(v) for v in jaxpr.outvars]
    out_unknowns = [u for u, _ in outs]
    out_inst = [i for _, i in outs]
    if ensure_out_inst is not None:
        for x, inst, ensure in zip(jaxpr.outvars, out_inst, ensure_out_inst, strict=True):
            if ensure:
                instantiated(inst, x)
        out_inst = [a or b for a, b in zip(out_inst, ensure_out_inst, strict=True)]
    if ensure_out_unknowns is not None:
        out_unknowns = [a or b for a, b in zip(out_unknowns, ensure_out_unknowns, strict=True)]
    residual_vars = list(residuals)
    known = jaxpr.replace(
        invars=[v for v, u in zip(jaxpr.invars, in_unknowns, strict=True) if not u],
        outvars=[v for v, u in zip(jaxpr.outvars, out_unknowns, strict=True) if not u] + residual_vars,
        eqns=known_eqns,
    )
    staged = jaxpr.replace(
        invars=residual_vars + [v for v, i in zip(jaxpr.invars, in_inst, strict=True) if i],
        outvars=[v for v, i in zip(jaxpr.outvars, out_inst, strict=True) if i],
        eqns=staged_eqns,
    )
    return known, staged, out_unknowns, out_inst, len(residual_vars)


def call_partial_eval_custom_rule(saveable: Callable, unks_in: list, inst_in: list, eqn: JaxprEqn,
                                  **staged_params):
    """The `partial_eval_custom` rule of a call whose `jaxpr` param is its
    body (jit, remat): the body is split the same way, into a known call
    that also returns residuals and a staged call (whose params are updated
    with `staged_params`).

    A rule returns (known_eqn, staged_eqn, out_unknowns, out_inst, residuals).
    """
    body = eqn.params["jaxpr"]
    known, staged, unks_out, inst_out, num_res = partial_eval_jaxpr_custom(body, unks_in, inst_in, saveable)
    residuals = [Var(v.aval) for v in staged.invars[:num_res]]
    ins_known = [v for v, u in zip(eqn.invars, unks_in, strict=True) if not u]
    ins_staged = [v for v, i in zip(eqn.invars, inst_in, strict=True) if i]
    params_known = _call_params(eqn, known, [u for u in unks_in if not u])
    params_staged = _call_params(eqn, staged, [False] * num_res + [i for i in inst_in if i])
    params_staged.update(staged_params)
    known_eqn = eqn.replace(invars=ins_known, params=params_known,
                            outvars=[v for v, u in zip(eqn.outvars, unks_out, strict=True) if not u] + residuals)
    staged_eqn = eqn.replace(invars=residuals + ins_staged, params=params_staged,
                             outvars=[v for v, i in zip(eqn.outvars, inst_out, strict=True) if i])
    new_inst = [x for x, i in zip(eqn.invars, inst_in, strict=True) if type(x) is Var and not i]
    return known_eqn, staged_eqn, unks_out, inst_out, new_inst + residuals


def _call_params(eqn: JaxprEqn, body: Jaxpr, kept_mask: list) -> dict:
    # Per-operand params follow the new operand list (residual operands are
    # neither donated nor CSE-protected).
    params = dict(eqn.params, jaxpr=body)
    if "donated_invars" in params:
        params["donated_invars"] = (False,) * len(body.invars)
    if isinstance(params.get("prevent_cse"), tuple):
        params["prevent_cse"] = (True,) * len(body.invars)
    return params


# ---------------------------------------------------------------------------
# The order JAX's tracing partial evaluation (JaxprTrace) gives residuals


class _Node:
    __slots__ = ("parents", "residual")

    def __init__(self, parents=(), residual=None):
        self.parents, self.residual = parents, residual


def _toposort(end_nodes: list) -> list:
    # JAX's topological sort of a tracer graph (parents before children):
    # count each node's children depth first from the end nodes, then take
    # the nodes whose children are all taken, last found first; reversed.
    seen, ends = set(), []
    for n in end_nodes:
        if id(n) not in seen:
            seen.add(id(n))
            ends.append(n)
    counts: dict = {}
    stack = list(ends)
    while stack:
        node = stack.pop()
        if id(node) in counts:
            counts[id(node)] += 1
        else:
            counts[id(node)] = 1
            stack.extend(node.parents)
    for n in ends:
        counts[id(n)] -= 1
    ready = [n for n in ends if counts[id(n)] == 0]
    out = []
    while ready:
        node = ready.pop()
        out.append(node)
        for parent in node.parents:
            if counts[id(parent)] == 1:
                ready.append(parent)
            else:
                counts[id(parent)] -= 1
    return out[::-1]


def residual_toposort_order(unknown: Jaxpr, n_res: int) -> list:
    """The positions of `unknown`'s first `n_res` inputs (its residuals) in
    the order JAX's JaxprTrace would make them constvars: the order its
    topological sort of the tracer graph meets them, where each use of a
    known value is a tracer of its own and each equation's outputs have its
    operands as parents."""
    res = {v: i for i, v in enumerate(unknown.invars[:n_res])}
    env = {v: _Node() for v in unknown.invars[n_res:]}

    def node(atom):
        if type(atom) is Var and atom in res:
            return _Node(residual=res[atom])  # (a use of a known value)
        return env.get(atom) or _Node()  # (a literal, a constant: no residual)

    for eqn in unknown.eqns:
        parents = [node(a) for a in eqn.invars]
        for v in eqn.outvars:
            env[v] = _Node(parents)
    ends = [env[v] for v in unknown.invars[n_res:]] + [node(a) for a in unknown.outvars]
    order, taken = [], set()
    for n in _toposort(ends):
        if n.residual is not None and n.residual not in taken:
            taken.add(n.residual)
            order.append(n.residual)
    return order + [i for i in range(n_res) if i not in taken]


__all__ = ["PartialEvalTrace", "call_partial_eval_custom_rule", "linearize_flat", "linearize_jaxpr", "linearizing",
           "partial_eval_jaxpr", "set_linearizing",
           "partial_eval_jaxpr_custom", "partial_eval_jaxpr_nounits", "residual_toposort_order"]
