"""The jit primitive's JVP, linearize, partial-evaluation, transpose and
batching rules (jit.py imports this module once jit_p exists).

Under linearize (a JVP whose primals are known, run under partial
evaluation) a jit splits as JAX 0.11's jit linearize rule splits it: its
body is linearized directly (interpreters/linearize.py), into a known jit
returning the primal outputs and then the residuals it computes, bound now,
and a tangent jit taking the residuals first, recorded. Elsewhere it is one
jit of the JVP body.
"""

from __future__ import annotations

import collections

from pyjax._src import config, core
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.linearize import linearize_jaxpr_direct
from pyjax._src.interpreters.partial_eval import PartialEvalTrace
from pyjax._src.interpreters.staging import register_staging_cache
from pyjax._src.interpreters.transpose import is_undefined_primal, transpose_jaxpr
from pyjax._src.jit import jit_p
from pyjax._src.sharding import jit_params
from pyjax._src.sharding.jit_params import UNSPECIFIED
from pyjax._src.sharding.mesh import get_mesh


def _placed(in_shardings, out_shardings) -> dict:
    return {} if in_shardings is None else {"in_shardings": in_shardings, "out_shardings": out_shardings}


def _jit_jvp(primals, tangents, *, jaxpr, name, donated_invars, keep_unused, inline, in_shardings=None,
             out_shardings=None, **mesh):
    # One jit equation whose body is the JVP of the original body.
    trace = core.current_trace()
    if isinstance(trace, PartialEvalTrace) and not any(trace.is_unknown(p) for p in primals):
        common = dict(name=name, keep_unused=keep_unused, inline=inline, **mesh)
        outs = _jit_linearize(trace, primals, tangents, jaxpr, donated_invars, common,
                              _placed(in_shardings, out_shardings))
        if outs is not None:
            return outs
    nonzeros = [type(t) is not Zero for t in tangents]
    body, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    nonzero_tangents = [t for t in tangents if type(t) is not Zero]
    placement = jit_params.jvp_params(_placed(in_shardings, out_shardings), nonzeros, out_nonzeros)
    outs = jit_p.bind(*primals, *nonzero_tangents, jaxpr=body, name=name,
                      donated_invars=(False,) * len(body.invars), keep_unused=keep_unused, inline=inline, **mesh,
                      **placement)
    n_out = len(jaxpr.outvars)
    primal_outs, it = outs[:n_out], iter(outs[n_out:])
    tangent_outs = [next(it) if nz else Zero(tangent_aval(a)) for a, nz in zip(jaxpr.out_avals, out_nonzeros, strict=True)]
    return primal_outs, tangent_outs


def _pick(entries, mask) -> tuple:
    return tuple(e for e, keep in zip(entries, mask, strict=True) if keep)


def _jit_linearize(trace, primals, tangents, jaxpr, donated_invars, common, placed):
    """JAX's jit linearize rule: a known jit of the directly linearized body
    (primal outputs, then computed residuals; an output that is an input,
    or a residual that is an output, is not returned twice) bound now, and a
    tangent jit of (residuals, nonzero tangents) recorded into `trace`.
    None where the body cannot be split so (the JVP jit is split instead)."""
    nzs = [type(t) is not Zero for t in tangents]
    n_out = len(jaxpr.outvars)
    outs_placed = placed.get("out_shardings", (UNSPECIFIED,) * n_out)
    split = _split(jaxpr, nzs, [s is UNSPECIFIED for s in outs_placed])
    if split is None:
        return None
    primal_jaxpr, in_fwd, out_fwd, fwds, nzs_out, tangent_jaxpr = split
    out_placed = _pick(_pick((*outs_placed, *(UNSPECIFIED,) * (len(in_fwd) - n_out)), [f is None for f in in_fwd]),
                       [f is None for f in out_fwd])
    known_placed = {} if not placed else {"in_shardings": placed["in_shardings"], "out_shardings": out_placed}
    with core.set_current_trace(trace.parent):
        known = jit_p.bind(*primals, jaxpr=primal_jaxpr, donated_invars=donated_invars, **common, **known_placed)
    it = iter(known)
    ans = [next(it) if f is None else None for f in out_fwd]
    ans = [ans[f] if f is not None else a for a, f in zip(ans, out_fwd)]
    it = iter(ans)
    ans = [primals[f] if f is not None else next(it) for f in in_fwd]
    primal_outs, computed = ans[:n_out], iter(ans[n_out:])
    inputs = [*jaxpr.consts, *primals]
    residuals = [next(computed) if f is None else inputs[f] for f in fwds]
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    tangent_placed = {} if not placed else {
        "in_shardings": (*(UNSPECIFIED,) * len(residuals), *_pick(placed["in_shardings"], nzs)),
        "out_shardings": _pick(outs_placed, nzs_out)}
    args = residuals + nz_tangents
    tangent_outs = iter(trace.record(jit_p, args, dict(jaxpr=tangent_jaxpr, donated_invars=(False,) * len(args),
                                                       **common, **tangent_placed)))
    return primal_outs, [next(tangent_outs) if nz else Zero(tangent_aval(a))
                         for a, nz in zip(jaxpr.out_avals, nzs_out, strict=True)]


# The splits made, per body and options (JAX caches its linearization per
# jaxpr: one jit linearized twice holds one known body, which the printer
# then shares with a `let`). A few recent ones, each holding its body.
_SPLITS: collections.OrderedDict = register_staging_cache(collections.OrderedDict())


def _split(jaxpr, nzs, free_outs):
    key = (id(jaxpr), tuple(nzs), tuple(free_outs), config.trace_context_id(), get_mesh())
    entry = _SPLITS.get(key)
    if entry is None or entry[0] is not jaxpr:
        entry = (jaxpr, _split_uncached(jaxpr, nzs, free_outs))
        _SPLITS[key] = entry
        if len(_SPLITS) > 128:
            _SPLITS.popitem(last=False)
    return entry[1]


def _split_uncached(jaxpr, nzs, free_outs):
    # (primal jaxpr, in_fwd, out_fwd, fwds, nonzero output tangents, tangent
    # jaxpr), the primal jaxpr's forwarded outputs pruned; None: no split.
    from pyjax._src.lax.control_flow.common import jaxpr_forwarding

    split = linearize_jaxpr_direct(jaxpr, nzs)
    if split is None:
        return None
    primal_jaxpr, num_res, nzs_out, fwds, tangent_jaxpr = split
    n_out = len(jaxpr.outvars)
    # Input-to-output forwarding (of the outputs whose placement is free).
    in_fwd = [f if free else None for f, free in zip(jaxpr_forwarding(primal_jaxpr)[:n_out], free_outs)]
    in_fwd += [None] * num_res
    primal_jaxpr = primal_jaxpr.replace(outvars=list(_pick(primal_jaxpr.outvars, [f is None for f in in_fwd])))
    # Output-to-output forwarding: a residual that is a (kept) primal output.
    n_kept = len(primal_jaxpr.outvars) - num_res
    out_vars, res_vars = primal_jaxpr.outvars[:n_kept], primal_jaxpr.outvars[n_kept:]
    index = {id(v): i for i, v in enumerate(out_vars)}
    out_fwd = [None] * n_kept + [index.get(id(v)) for v in res_vars]
    primal_jaxpr = primal_jaxpr.replace(outvars=list(_pick(primal_jaxpr.outvars, [f is None for f in out_fwd])))
    return primal_jaxpr, in_fwd, out_fwd, fwds, nzs_out, tangent_jaxpr


def _jit_partial_eval(trace, args, params):
    # Known inputs run the known part of the body now (as a jit equation of
    # the enclosing trace); the unknown part is recorded as a second jit
    # equation taking the residuals first.
    from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr

    unknowns = [trace.is_unknown(x) for x in args]
    # (JAX splits it with its JaxprTrace: autodiff's scalar zeros stay literals, not residuals.)
    known_jaxpr, unknown_jaxpr, out_unknowns, sources = partial_eval_jaxpr(params["jaxpr"], unknowns,
                                                                           zeros_known=False)
    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    common = dict(name=params["name"], keep_unused=params["keep_unused"], inline=params["inline"])
    if "ctx_mesh" in params:
        common["ctx_mesh"] = params["ctx_mesh"]
    n_known = sum(not u for u in out_unknowns)
    known_placed, unknown_placed = jit_params.partial_eval_params(params, unknowns, out_unknowns,
                                                                  len(known_jaxpr.outvars), len(sources))
    with core.set_current_trace(trace.parent):
        known_outs = jit_p.bind(*known_args, jaxpr=known_jaxpr, donated_invars=(False,) * len(known_args), **common,
                                **known_placed)
    computed = known_outs[n_known:]
    residuals = [known_args[i] if kind == "in" else computed[i] for kind, i in sources]
    unknown_args = residuals + [x for x, u in zip(args, unknowns, strict=True) if u]
    unknown_outs = trace.record(jit_p, unknown_args, dict(jaxpr=unknown_jaxpr, donated_invars=(False,) * len(unknown_args),
                                                          **common, **unknown_placed))
    known_it, unknown_it = iter(known_outs[:n_known]), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


def _jit_transpose(cts, *args, jaxpr, name, donated_invars, keep_unused, inline, in_shardings=None,
                   out_shardings=None, **mesh):
    # One jit equation whose body is the transposed body: (residuals, nonzero
    # cotangents) -> cotangents of the linear inputs.
    undefined = [is_undefined_primal(x) for x in args]
    residuals = [x for x, u in zip(args, undefined, strict=True) if not u]
    nonzero_cts = [ct for ct in cts if type(ct) is not Zero]
    body, _ = transpose_jaxpr(jaxpr, [x.aval if u else None for x, u in zip(args, undefined, strict=True)],
                              [core.get_aval(r) for r in residuals], [type(ct) is not Zero for ct in cts],
                              [core.get_aval(ct) for ct in nonzero_cts])
    operands = residuals + nonzero_cts
    placement = jit_params.transpose_params(_placed(in_shardings, out_shardings), undefined,
                                            [type(ct) is not Zero for ct in cts])
    outs = iter(jit_p.bind(*operands, jaxpr=body, name=name, donated_invars=(False,) * len(operands),
                           keep_unused=keep_unused, inline=inline, **mesh, **placement))
    return [next(outs) if u else None for u in undefined]


jit_p.def_jvp(_jit_jvp)
jit_p.partial_eval = _jit_partial_eval
jit_p.def_transpose(_jit_transpose)


# ---------------------------------------------------------------------------
# vmap of a jit call: one jit equation whose body is the batched body.


def _jit_batch(axis_data, args, dims, *, jaxpr, **params):
    # Also runs with no operand batched when the body holds a collective over
    # the vmapped name (BatchTrace.process_primitive checks the params).
    body, out_dims = batching.batch_jaxpr_axes(jaxpr, axis_data, dims)
    params.update(jit_params.batch_params(params, dims, out_dims, axis_data.spmd_name))
    outs = jit_p.bind(*args, jaxpr=body, **params)
    return outs, out_dims


jit_p.def_batch(_jit_batch)
