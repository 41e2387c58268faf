"""Transformations of shard_map: its JVP, partial evaluation, transpose and batching rules.

Each rule rewrites the body with the whole-jaxpr transformation of
interpreters/ (jvp_jaxpr, partial_eval_jaxpr, transpose_jaxpr) re-traced in
the body's context (its named axes, its vma types), and binds one new
shard_map whose specs follow the body's inputs and outputs. Transposing
the body turns psum_invariant into pvary and back (lax/parallel_vma.py).
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src import core
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.interpreters.batching import batch_jaxpr_axes, not_mapped
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.partial_eval import (PartialEvalTrace, linearize_flat, linearizing, partial_eval_jaxpr,
                                                 residual_toposort_order)
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.interpreters.transpose import is_undefined_primal, transpose_jaxpr
from pyjax._src.jaxpr import Var, eval_jaxpr
from pyjax._src.lax import shapes
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.shard_map import body_context, shard_map_p


def _context(params):
    return body_context(params["mesh"], params["newly_manual_axes"], params["check_vma"])


def _jvp(primals, tangents, **params):
    trace = core.current_trace()
    if isinstance(trace, PartialEvalTrace) and not any(trace.is_unknown(p) for p in primals):
        return _linearize(trace, primals, tangents, params)  # (linearizing: split directly, as JAX does)
    nonzeros = [type(t) is not Zero for t in tangents]
    with _context(params):
        body, out_nonzeros = jvp_jaxpr(params["jaxpr"], nonzeros)
    in_specs = params["in_specs"] + tuple(s for s, nz in zip(params["in_specs"], nonzeros) if nz)
    out_specs = params["out_specs"] + tuple(s for s, nz in zip(params["out_specs"], out_nonzeros) if nz)
    outs = shard_map_p.bind(*primals, *(t for t in tangents if type(t) is not Zero),
                            **dict(params, jaxpr=body, in_specs=in_specs, out_specs=out_specs))
    n = len(params["out_specs"])
    it = iter(outs[n:])
    out_avals = shard_map_p.out_avals(tuple(core.get_aval(p) for p in primals), params)
    return outs[:n], [next(it) if nz else Zero(tangent_aval(a)) for a, nz in zip(out_avals, out_nonzeros)]


def _linearize(trace, primals, tangents, params):
    """JAX's direct linearization of a shard_map: the body is linearized as
    it is traced (a scan inside splits as under linearize), into a known
    shard_map returning the residuals first, then the primal outputs, bound
    now, and a tangent shard_map taking the residuals, then the nonzero
    tangents, recorded into `trace`."""
    nonzeros = [type(t) is not Zero for t in tangents]
    body, found = params["jaxpr"], {}

    def forward(*xs):
        outs, linear, out_nz = linearize_flat(lambda *a: eval_jaxpr(body, body.consts, *a), list(xs),
                                              nonzeros=nonzeros)
        sources = _residual_sources(linear, xs, outs)
        computed = [c for c, (kind, _) in zip(linear.consts, sources) if kind == "out"]
        found.update(linear=linear, out_nz=out_nz, sources=sources)
        return [shapes.expand_dims(r, (0,)) if not core.get_aval(r).shape else r for r in computed] + list(outs)

    with _context(params):
        known, _ = trace_to_jaxpr(forward, body.in_avals, body.debug_info)
        tangent = _tangent_body(found["linear"], found["sources"])
    sources = [s for s in found["sources"] if s is not None]
    n_res = sum(kind == "out" for kind, _ in sources)
    res_specs_out = tuple(_residual_spec(a, params) for a in known.out_avals[:n_res])
    with core.set_current_trace(trace.parent):
        outs = shard_map_p.bind(*primals, **dict(params, jaxpr=known, out_specs=res_specs_out + params["out_specs"]))
    computed, primal_outs = outs[:n_res], outs[n_res:]
    pick = {"in": (primals, params["in_specs"]), "out": (computed, res_specs_out),
            "known": (primal_outs, params["out_specs"])}
    residuals = [pick[kind][0][i] for kind, i in sources]
    res_specs = tuple(pick[kind][1][i] for kind, i in sources)
    out_nz = found["out_nz"]
    tangent_params = dict(params, jaxpr=tangent,
                          in_specs=res_specs + tuple(s for s, nz in zip(params["in_specs"], nonzeros) if nz),
                          out_specs=tuple(s for s, nz in zip(params["out_specs"], out_nz) if nz))
    tangent_outs = iter(trace.record(shard_map_p, residuals + [t for t in tangents if type(t) is not Zero],
                                     tangent_params))
    out_avals = shard_map_p.out_avals(tuple(core.get_aval(p) for p in primals), params)
    return primal_outs, [next(tangent_outs) if nz else Zero(tangent_aval(a)) for a, nz in zip(out_avals, out_nz)]


def _residual_sources(linear, xs, outs) -> list:
    # Per const of the linear jaxpr: ("in", i) an input, ("known", j) a
    # primal output, ("out", k) a value computed in the body, None a
    # constant that is no value of the body (it stays in the tangent body).
    ins = {id(x): i for i, x in enumerate(xs)}
    known = {id(o): j for j, o in enumerate(outs)}
    sources, k = [], 0
    for c in linear.consts:
        if not isinstance(c, core.Tracer):
            sources.append(None)
        elif id(c) in ins:
            sources.append(("in", ins[id(c)]))
        elif id(c) in known:
            sources.append(("known", known[id(c)]))
        else:
            sources.append(("out", k))
            k += 1
    return sources


def _tangent_body(linear, sources):
    # The linear jaxpr with its residual constvars as leading inputs (a
    # computed scalar one arriving with a leading axis of 1).
    res_vars = [v for v, s in zip(linear.constvars, sources) if s is not None]
    kept = [(v, c) for v, c, s in zip(linear.constvars, linear.consts, sources) if s is None]
    jaxpr = linear.replace(constvars=[v for v, _ in kept], consts=[c for _, c in kept],
                           invars=res_vars + list(linear.invars))
    return _with_residuals_squeezed(jaxpr, len(res_vars), [s for s in sources if s is not None])


def _residual_spec(aval, params) -> PartitionSpec:
    # A residual leaves the body as it is, its leading axis joined over the
    # manual axes it varies over (an invariant one is one value: P()), as JAX
    # lays it out; unchecked (check_vma=False), any value may vary over every
    # newly manual axis. A scalar residual is first given a leading axis of 1.
    vma = tuple(aval.vma) if params["check_vma"] else _manual(params)
    return PartitionSpec(vma) if vma else PartitionSpec()


def _manual(params) -> tuple:
    return tuple(n for n in params["mesh"].axis_names if n in params["newly_manual_axes"])


def _unmentioned(spec: PartitionSpec, params) -> tuple:
    named = {n for e in spec if e is not None for n in (e if isinstance(e, tuple) else (e,))}
    return tuple(n for n in _manual(params) if n not in named)


def _partial_eval(trace, args, params):
    """Splits a shard_map into a known one, computing the residuals and the
    known outputs, and an unknown one taking the residuals first. Under
    linearize (a jit being linearized) the residuals come first, as JAX's
    direct linearization returns them; otherwise (remat's recomputation)
    the known outputs do, as JAX's standalone split."""
    res_first = linearizing()
    unknowns = [trace.is_unknown(x) for x in args]
    with _context(params):
        known, unknown, out_unknowns, sources = partial_eval_jaxpr(params["jaxpr"], unknowns)
        n_known = sum(not u for u in out_unknowns)
        if not res_first:
            known, unknown, sources = _traced_residual_order(known, unknown, n_known, sources)
        # A computed residual that is also a known output is read from that output.
        out_fwd = [_forwarded(known, n_known, k) for k in range(len(known.outvars) - n_known)]
        sources = [("known", out_fwd[i]) if kind == "out" and out_fwd[i] is not None else (kind, i)
                   for kind, i in sources]
        kept = [k for k, f in enumerate(out_fwd) if f is None]
        res_avals = [known.out_avals[n_known + k] for k in kept]
        position = {k: j for j, k in enumerate(kept)}
        sources = [("out", position[i]) if kind == "out" else (kind, i) for kind, i in sources]
        known = _known_body(known, n_known, kept, res_first)
        unknown = _with_residuals_squeezed(unknown, len(sources), sources)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    known_in_specs = tuple(s for s, u in zip(params["in_specs"], unknowns) if not u)
    out_specs_known = tuple(s for s, u in zip(params["out_specs"], out_unknowns) if not u)
    res_specs_out = tuple(_residual_spec(a, params) for a in res_avals)
    with core.set_current_trace(trace.parent):
        known_outs = shard_map_p.bind(*known_args, **dict(
            params, jaxpr=known, in_specs=known_in_specs,
            out_specs=res_specs_out + out_specs_known if res_first else out_specs_known + res_specs_out))
    if res_first:
        computed, known_outs = known_outs[:len(res_avals)], known_outs[len(res_avals):]
    else:
        known_outs, computed = known_outs[:n_known], known_outs[n_known:]
    pick = {"in": (known_args, known_in_specs), "out": (computed, res_specs_out), "known": (known_outs, out_specs_known)}
    residuals = [pick[kind][0][i] for kind, i in sources]
    res_specs = tuple(pick[kind][1][i] for kind, i in sources)
    unknown_args = residuals + [x for x, u in zip(args, unknowns) if u]
    unknown_params = dict(params, jaxpr=unknown,
                          in_specs=res_specs + tuple(s for s, u in zip(params["in_specs"], unknowns) if u),
                          out_specs=tuple(s for s, u in zip(params["out_specs"], out_unknowns) if u))
    unknown_outs = trace.record(shard_map_p, unknown_args, unknown_params)
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


def _traced_residual_order(known, unknown, n_known: int, sources):
    # JAX splits a shard_map by tracing its body (JaxprTrace): the unknown
    # body's residuals come in the order its tracer graph's topological sort
    # meets them, not in order of first use. The known body returns its
    # computed residuals in that order too.
    n_res = len(sources)
    order = residual_toposort_order(unknown, n_res)
    sources = [sources[i] for i in order]
    unknown = unknown.replace(invars=[unknown.invars[i] for i in order] + unknown.invars[n_res:])
    computed = [i for kind, i in sources if kind == "out"]
    known = known.replace(outvars=known.outvars[:n_known] + [known.outvars[n_known + i] for i in computed])
    renumber = {old: new for new, old in enumerate(computed)}
    return known, unknown, [(kind, renumber[i]) if kind == "out" else (kind, i) for kind, i in sources]


def _forwarded(known, n_known: int, k: int):
    # The known output the k-th computed residual is, if any.
    v = known.outvars[n_known + k]
    if type(v) is not Var:
        return None
    return next((j for j in range(n_known) if known.outvars[j] is v), None)


def _known_body(known, n_known: int, kept: list, res_first: bool):
    # The known body returning its kept residuals (a scalar one given a
    # leading axis of 1, to be joined over the devices) and its outputs.
    def body(*xs):
        outs = eval_jaxpr(known, known.consts, *xs)
        res = [outs[n_known + k] for k in kept]
        res = [shapes.expand_dims(r, (0,)) if not core.get_aval(r).shape else r for r in res]
        return res + outs[:n_known] if res_first else outs[:n_known] + res

    return trace_to_jaxpr(body, known.in_avals, known.debug_info)[0]


def _with_residuals_squeezed(unknown, n_res: int, sources):
    # The unknown body taking a computed scalar residual with its leading axis.
    promoted = [kind == "out" and not a.shape for a, (kind, _) in zip(unknown.in_avals[:n_res], sources)]
    if not any(promoted):
        return unknown
    avals = [a.update(shape=(1,)) if p else a for a, p in zip(unknown.in_avals[:n_res], promoted)]

    def body(*xs):
        res = [shapes.squeeze(r, (0,)) if p else r for r, p in zip(xs[:n_res], promoted)]
        return eval_jaxpr(unknown, unknown.consts, *res, *xs[n_res:])

    return trace_to_jaxpr(body, avals + list(unknown.in_avals[n_res:]), unknown.debug_info)[0]


def _transpose(cts, *args, **params):
    """The transpose: one shard_map taking the nonzero output cotangents
    first, then the residuals (JAX's order)."""
    body = params["jaxpr"]
    undefined = [is_undefined_primal(x) for x in args]
    residuals = [x for x, u in zip(args, undefined) if not u]
    nonzero = [type(ct) is not Zero for ct in cts]
    ct_avals = [a for a, nz in zip(body.out_avals, nonzero) if nz]
    res_avals = [a for a, u in zip(body.in_avals, undefined) if not u]
    with _context(params):
        new_body, _ = transpose_jaxpr(body, [a if u else None for a, u in zip(body.in_avals, undefined)],
                                      res_avals, nonzero, ct_avals)
    ct_specs = tuple(s for s, nz in zip(params["out_specs"], nonzero) if nz)
    res_specs = tuple(s for s, u in zip(params["in_specs"], undefined) if not u)
    out_specs = tuple(s for s, u in zip(params["in_specs"], undefined) if u)
    nz_cts = [ct for ct in cts if type(ct) is not Zero]
    if not params["check_vma"]:
        nz_cts = _shared_cts(nz_cts, ct_specs, params)
        with _context(params):
            new_body = _unchecked_transpose(new_body, len(residuals), out_specs, params)
    n = len(residuals)
    new_body = new_body.replace(invars=new_body.invars[n:] + new_body.invars[:n])
    outs = iter(shard_map_p.bind(*nz_cts, *residuals, **dict(params, jaxpr=new_body, in_specs=ct_specs + res_specs,
                                                             out_specs=out_specs)))
    return [next(outs) if u else None for u in undefined]


def _shared_cts(cts: list, ct_specs, params) -> list:
    # Unchecked, an output replicated over axes its spec does not name
    # stands for one value: each device's copy of its cotangent takes a
    # share (JAX's convention, so gradients agree with JAX's).
    from pyjax._src.lax.elementwise import div

    out = []
    for ct, spec in zip(cts, ct_specs):
        k = math.prod(params["mesh"].shape[n] for n in _unmentioned(spec, params))
        dtype = core.get_aval(ct).dtype
        out.append(ct if k == 1 or not np.issubdtype(dtype, np.inexact) else div(ct, np.array(k, dtype)))
    return out


def _unchecked_transpose(body, n_res: int, out_specs, params):
    # ... and an input's cotangent is summed over the axes its spec does not name.
    from pyjax._src.lax.parallel import psum

    sums = [_unmentioned(s, params) for s in out_specs]

    def transposed(*xs):
        outs = eval_jaxpr(body, body.consts, *xs)
        return [psum(o, axes) if axes and not isinstance(o, Zero) else o for o, axes in zip(outs, sums)]

    return trace_to_jaxpr(transposed, body.in_avals, body.debug_info)[0]


shard_map_p.def_jvp(_jvp)
shard_map_p.partial_eval = _partial_eval
shard_map_p.def_transpose(_transpose)


# ---------------------------------------------------------------------------
# vmap of a shard_map: the batch axis is a whole (unsharded) axis of every
# device's block, so the body is batched as is and the specs get a None there.


def _spec_with_batch_axis(spec: PartitionSpec, dim) -> PartitionSpec:
    if dim is not_mapped:
        return spec
    entries = list(spec) + [None] * max(0, dim - len(spec))
    entries.insert(dim, None)
    return PartitionSpec(*entries)


def _batch(axis_data, args, dims, **params):
    with _context(params):
        body, out_dims = batch_jaxpr_axes(params["jaxpr"], axis_data, dims)
    in_specs = tuple(_spec_with_batch_axis(s, d) for s, d in zip(params["in_specs"], dims))
    out_specs = tuple(_spec_with_batch_axis(s, d) for s, d in zip(params["out_specs"], out_dims))
    outs = shard_map_p.bind(*args, **dict(params, jaxpr=body, in_specs=in_specs, out_specs=out_specs))
    return outs, out_dims


shard_map_p.def_batch(_batch)
