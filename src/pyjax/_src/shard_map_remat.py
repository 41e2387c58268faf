"""shard_map under a rematerialisation policy (`jax.checkpoint`): its
`partial_eval_custom` rule, as JAX 0.11 splits it.

The body is split by the policy (interpreters/partial_eval.py's
`partial_eval_jaxpr_custom`) into a known shard_map, computing the known
outputs and then the residuals the policy saves, and a staged shard_map
recomputing the rest from them. A residual that is a known input or a
known output is passed as that value; the others leave the body joined on
their leading axis over the axes they vary over (a scalar given a leading
axis of 1), as in shard_map_ad.py.
"""

from __future__ import annotations

from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr_custom
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import JaxprEqn, Var, eval_jaxpr
from pyjax._src.lax import shapes
from pyjax._src.shard_map import _out_aval, body_context, shard_map_p
from pyjax._src.shard_map_ad import _residual_spec


def _forwarding(known, n_out: int) -> tuple[list, list]:
    # Per residual of the known body: the known input it is, or the known
    # output it is (None: a value computed for it).
    ins = {id(v): i for i, v in enumerate(known.invars)}
    outs = {id(v): j for j, v in reversed(list(enumerate(known.outvars[:n_out])))}
    res = known.outvars[n_out:]
    return [ins.get(id(v)) for v in res], [None if id(v) in ins else outs.get(id(v)) for v in res]


def _with_promoted_scalars(known, staged, n_out: int, which: list):
    # Scalar residuals the known body computes leave it with a leading axis
    # of 1; the staged body squeezes it again.
    promoted = [w and not v.aval.shape for w, v in zip(which, staged.invars[:len(which)])]
    if not any(promoted):
        return known, staged
    kept = [p for p, w in zip(promoted, which) if w]

    def known_fun(*xs):
        outs = eval_jaxpr(known, known.consts, *xs)
        return outs[:n_out] + [shapes.expand_dims(r, (0,)) if p else r for r, p in zip(outs[n_out:], kept)]

    def staged_fun(*xs):
        res = [shapes.squeeze(r, (0,)) if p else r for r, p in zip(xs[:len(which)], promoted)]
        return eval_jaxpr(staged, staged.consts, *res, *xs[len(which):])

    staged_avals = [v.aval.update(shape=(1,)) if p else v.aval for v, p in zip(staged.invars[:len(which)], promoted)]
    known, _ = trace_to_jaxpr(known_fun, known.in_avals, known.debug_info)
    staged, _ = trace_to_jaxpr(staged_fun, staged_avals + list(staged.in_avals[len(which):]), staged.debug_info)
    return known, staged


def partial_eval_custom(saveable, unks_in: list, inst_in: list, eqn: JaxprEqn):
    """Splits a shard_map equation by `saveable` (remat's policy): returns
    (known_eqn, staged_eqn, out_unknowns, out_inst, residuals)."""
    params = eqn.params
    mesh, manual = params["mesh"], params["newly_manual_axes"]
    with body_context(mesh, manual, params["check_vma"]):
        known, staged, unks_out, inst_out, num_res = partial_eval_jaxpr_custom(params["jaxpr"], unks_in, inst_in,
                                                                               saveable)
        n_out = len(known.outvars) - num_res
        in_fwd, out_fwd = _forwarding(known, n_out)
        which = [f1 is None and f2 is None for f1, f2 in zip(in_fwd, out_fwd)]
        known = known.replace(outvars=known.outvars[:n_out] + [v for v, w in zip(known.outvars[n_out:], which) if w])
        known, _ = dce_jaxpr(known, prune_bodies=True)  # (what only the staged part needed goes)
        known, staged = _with_promoted_scalars(known, staged, n_out, which)
    res_avals = [v.aval for v, w in zip(staged.invars[:num_res], which) if w]
    res_specs = [_residual_spec(a, params) for a in res_avals]
    residuals = [Var(_out_aval(a, s, mesh, manual)) for a, s in zip(res_avals, res_specs)]
    ins_known = [v for v, u in zip(eqn.invars, unks_in) if not u]
    outs_known = [v for v, u in zip(eqn.outvars, unks_out) if not u]
    in_specs_known = tuple(s for s, u in zip(params["in_specs"], unks_in) if not u)
    out_specs_known = tuple(s for s, u in zip(params["out_specs"], unks_out) if not u)
    known_eqn = eqn.replace(invars=ins_known, outvars=outs_known + residuals,
                            params=dict(params, jaxpr=known, in_specs=in_specs_known,
                                        out_specs=out_specs_known + tuple(res_specs)))
    computed, specs = iter(zip(residuals, res_specs)), []
    full_res = []
    for f1, f2 in zip(in_fwd, out_fwd):
        value, spec = ((ins_known[f1], in_specs_known[f1]) if f1 is not None else
                       (outs_known[f2], out_specs_known[f2]) if f2 is not None else next(computed))
        full_res.append(value)
        specs.append(spec)
    staged_eqn = eqn.replace(
        invars=full_res + [v for v, i in zip(eqn.invars, inst_in) if i],
        outvars=[v for v, i in zip(eqn.outvars, inst_out) if i],
        params=dict(params, jaxpr=staged,
                    in_specs=tuple(specs) + tuple(s for s, i in zip(params["in_specs"], inst_in) if i),
                    out_specs=tuple(s for s, i in zip(params["out_specs"], inst_out) if i)))
    new_inst = [x for x, i in zip(eqn.invars, inst_in) if type(x) is Var and not i]
    new_inst += [outs_known[f] for f in sorted({f for f in out_fwd if f is not None})]
    return known_eqn, staged_eqn, unks_out, inst_out, new_inst + residuals


def dce_rule(eqn: JaxprEqn, used_outputs: list) -> JaxprEqn:
    """The shard_map with its unused outputs (and the operands its body no
    longer reads) dropped, with their specs."""
    params = eqn.params
    with body_context(params["mesh"], params["newly_manual_axes"], params["check_vma"]):
        body, used_inputs = dce_jaxpr(params["jaxpr"], used_outputs, prune_invars=True, prune_bodies=True)
    return eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
        params=dict(params, jaxpr=body, in_specs=tuple(s for s, u in zip(params["in_specs"], used_inputs) if u),
                    out_specs=tuple(s for s, u in zip(params["out_specs"], used_outputs) if u)))


shard_map_p.partial_eval_custom = partial_eval_custom
shard_map_p.dce_rule = dce_rule
