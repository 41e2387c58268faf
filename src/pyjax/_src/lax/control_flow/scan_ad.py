"""Reverse mode for scan: linearization, partial evaluation, transpose.

Linearizing a scan (what `grad` does first) splits it into two scans:

- a *primal* scan computing the primal outputs and, as extra stacked
  outputs, the per-iteration residuals the tangent computation needs
  (values that depend only on the consts are *hoisted*: computed once,
  before the loop; residuals that are the scan's own consts or xs are
  *forwarded*, not copied);
- a *tangent* scan, linear in the tangents, reading those residuals
  (loop-invariant ones as consts, per-iteration ones as xs).

Transposing the tangent scan gives a scan running in the opposite
direction: the carry cotangents are its carry, the consts' cotangents
accumulate in extra carries, the xs' cotangents are its stacked outputs.

pyjax linearizes with a JVP trace under partial evaluation; the JVP rule
sees that and splits the original scan the way JAX 0.11's linearize rule
does, so the jaxprs read the same. A JVP scan that is partially evaluated
later (inside a jit body, as JAX does there) is split generically.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.ad_util import Zero, tangent_aval, zeros_like_aval
from pyjax._src.ad_util import instantiate as instantiate_zeros
from pyjax._src.interpreters.transpose import (
    UndefinedPrimal,
    backward_pass,
    is_undefined_primal,
)
from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.interpreters.linearize import linearize_jaxpr_direct
from pyjax._src.interpreters.partial_eval import linearize_jaxpr, partial_eval_jaxpr_nounits
from pyjax._src.jaxpr import Jaxpr, Var, eval_jaxpr
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.control_flow import common
from pyjax._src.lax.control_flow import flattree as ft
from pyjax._src.lax.control_flow.scan import scan_p

__all__: list[str] = []


def _params(jaxpr, ft_in, ft_out, reverse, length, unroll) -> dict:
    return {"reverse": reverse, "length": length, "jaxpr": jaxpr, "ft_in": ft_in, "ft_out": ft_out, "unroll": unroll}


def _ft_with_residuals(ft_in, mask, n_int_res: int, n_ext_res: int):
    # The input layout of a scan split off another: loop-invariant residuals
    # ahead of the kept consts, per-step residuals after the kept xs.
    consts, carry, xs = ft_in.filter_with_mask(mask).unpack()
    return ft.pack(((ft.nones(n_int_res), consts), carry, (xs, ft.nones(n_ext_res))))


def _zeros_in(trace, aval):
    # A zero tangent made by the tangent program itself (as JAX's linearized
    # program does), rather than computed now and passed as a residual.
    scalar = np.zeros((), aval.dtype)[()]
    if not aval.shape:
        return scalar
    from pyjax._src.lax.shapes import broadcast_in_dim_p

    return trace.record(broadcast_in_dim_p, [scalar], {"shape": aval.shape, "broadcast_dimensions": (), "sharding": None})


def _known_hoisting(jaxpr_known: Jaxpr, known_consts: list, num_res: int):
    """Hoists out of the loop what depends on the consts only.

    Evaluates, now, the part of `jaxpr_known` that reads only its leading
    `len(known_consts)` inputs; returns (new jaxpr, its new consts, which
    residual outputs were hoisted, the hoisted residual values)."""
    n_c = len(known_consts)
    n_in = len(jaxpr_known.invars)
    num_known_outs = len(jaxpr_known.outvars) - num_res
    known, staged, out_uk, _, in_fwd = partial_eval_jaxpr_nounits(
        jaxpr_known, [False] * n_c + [True] * (n_in - n_c), [True] * num_known_outs + [False] * num_res,
        [True] * n_c)
    values = eval_jaxpr(known, known.consts, *known_consts)
    n_known_vals = sum(not u for u in out_uk)
    hoisted_vals, computed = values[:n_known_vals], iter(values[n_known_vals:])
    new_consts = [known_consts[f] if f is not None else next(computed) for f in in_fwd]
    which_hoisted = [not u for u in out_uk[num_known_outs:]]
    return staged, new_consts, which_hoisted, list(hoisted_vals)


def _linearize_body(jaxpr, nzs, instantiate, allow_fwds):
    # JAX linearizes the body directly (a scan inside splits by its own rule).
    split = None if jaxpr.consts else linearize_jaxpr_direct(jaxpr, nzs, instantiate, allow_fwds)
    return split if split is not None else linearize_jaxpr(jaxpr, nzs, instantiate, allow_fwds)


def scan_linearize(trace, primals, tangents, nzs, *, reverse, length, jaxpr, ft_in, ft_out, unroll):
    """JAX's direct linearization of a scan, run by the JVP rule when the
    JVP is being partially evaluated: the primal scan is evaluated now (by
    the enclosing trace), the tangent scan is staged into `trace`. Returns
    (primal outputs, output tangents) as a JVP rule does."""
    const_nz, init_nz, xs_nz = (list(t) for t in ft_in.update(nzs).unpack())
    num_consts, num_carry = map(len, (const_nz, init_nz))
    num_ys = len(jaxpr.outvars) - num_carry
    c_ok, k_ok, xs_ok = ft_in.update([not isinstance(x, np.ndarray) for x in primals]).unpack()
    allow_fwds = list(ft.pack((c_ok, k_ok.map(lambda _: False), xs_ok)))
    carry_nz = init_nz
    for _ in range(1 + num_carry):
        nzs = const_nz + carry_nz + xs_nz
        primal_jaxpr, num_res_out, nzs_out, in_fwd_res, tangent_jaxpr = _linearize_body(
            jaxpr, nzs, carry_nz + [False] * num_ys, allow_fwds)
        carry_nz_out = nzs_out[:num_carry]
        if carry_nz_out == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, carry_nz_out, strict=True)]
    num_res_in = len(in_fwd_res)
    num_primals_out = len(primal_jaxpr.outvars) - num_res_out
    const_primals, carry_ext_primals = primals[:num_consts], primals[num_consts:]
    with core.set_current_trace(trace.parent):
        primal_jaxpr, consts_, which_hoisted, hoisted_res = _known_hoisting(primal_jaxpr, list(const_primals), num_res_out)
    hoisted_it = iter(which_hoisted)
    res_to_move = [not next(hoisted_it) if f is None else f >= num_consts + num_carry for f in in_fwd_res]
    num_tangents_in = len(tangent_jaxpr.invars) - num_res_in
    tangent_jaxpr = common.move_binders_to_back(tangent_jaxpr, res_to_move + [False] * num_tangents_in)
    _, carry_g, xs_g = ft_in.unpack()
    if primal_jaxpr.outvars:
        with core.set_current_trace(trace.parent):
            out = scan_p.bind(*consts_, *carry_ext_primals, **_params(
                primal_jaxpr, ft.pack((ft.nones(len(consts_)), carry_g, xs_g)),
                ft.pack((carry_g, (ft_out.unpack()[1], ft.nones(which_hoisted.count(False))))), reverse, length, unroll))
    else:
        out = []
    primals_out, ext_res = out[:num_primals_out], out[num_primals_out:]
    non_fwd = iter(common.merge_lists(which_hoisted, ext_res, hoisted_res))
    res = [next(non_fwd) if f is None else primals[f] for f in in_fwd_res]
    int_res, ext_res = common.partition_list(res_to_move, res)
    nz_tangents = []
    for t, nz, p in zip(tangents, nzs, primals, strict=True):
        if nz:
            nz_tangents.append(_zeros_in(trace, tangent_aval(core.get_aval(p))) if type(t) is Zero else t)
    tangents_out = trace.record(scan_p, [*int_res, *nz_tangents, *ext_res], _params(
        tangent_jaxpr, _ft_with_residuals(ft_in, nzs, len(int_res), len(ext_res)),
        ft_out.filter_with_mask(nzs_out), reverse, length, unroll))
    tangents_it = iter(tangents_out)
    tangents_out = [next(tangents_it) if nz else Zero(tangent_aval(core.get_aval(p)))
                    for p, nz in zip(primals_out, nzs_out, strict=True)]
    return list(primals_out), tangents_out


def _scan_partial_eval(trace, args, params):
    unknowns = [trace.is_unknown(x) for x in args]
    return _generic_partial_eval(trace, args, unknowns, **params)


def _generic_partial_eval(trace, args, unknowns, *, reverse, length, jaxpr, ft_in, ft_out, unroll):
    # JAX's partial evaluation of a scan: a known scan now, an unknown scan
    # staged, residuals flowing from one to the other.
    const_uk, init_uk, xs_uk = (list(t) for t in ft_in.update(unknowns).unpack())
    num_carry = len(init_uk)
    num_ys = len(jaxpr.outvars) - num_carry
    c_ok, k_ok, xs_ok = ft_in.update([not isinstance(x, np.ndarray) for x in args]).unpack()
    fwd_all = list(ft.pack((c_ok, k_ok.map(lambda _: False), xs_ok)))
    carry_uk = init_uk
    for _ in range(1 + num_carry):
        unknowns = const_uk + carry_uk + xs_uk
        known_ins_fwd = [f for f, uk in zip(fwd_all, unknowns, strict=True) if not uk]
        jaxpr_known, jaxpr_unknown, out_uk, _res_avals, in_fwd_res = partial_eval_jaxpr_nounits(
            jaxpr, unknowns, carry_uk + [False] * num_ys, known_ins_fwd)
        if out_uk[:num_carry] == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uk[:num_carry], strict=True)]
    num_res_out = len(jaxpr_known.outvars) - (len(out_uk) - sum(out_uk))
    num_knowns_out = len(jaxpr_known.outvars) - num_res_out
    num_consts_known = const_uk.count(False)
    num_carry_known = carry_uk.count(False)
    known_ins = [x for x, uk in zip(args, unknowns, strict=True) if not uk]
    known_consts, known_ins = known_ins[:num_consts_known], known_ins[num_consts_known:]
    with core.set_current_trace(trace.parent):
        jaxpr_known, consts_, which_hoisted, hoisted_res = _known_hoisting(jaxpr_known, known_consts, num_res_out)
    hoisted_it = iter(which_hoisted)
    res_to_move = [not next(hoisted_it) if f is None else f >= num_consts_known + num_carry_known for f in in_fwd_res]
    num_unk_in = len(jaxpr_unknown.invars) - len(in_fwd_res)
    jaxpr_unknown = common.move_binders_to_back(jaxpr_unknown, res_to_move + [False] * num_unk_in)
    known_mask = [not u for u in unknowns]
    if jaxpr_known.outvars:
        _, known_carry_g, known_xs_g = ft_in.filter_with_mask(known_mask).unpack()
        _, known_ys_g = ft_out.filter_with_mask([not u for u in out_uk]).unpack()
        with core.set_current_trace(trace.parent):
            known_outs = scan_p.bind(*consts_, *known_ins, **_params(
                jaxpr_known, ft.pack((ft.nones(len(consts_)), known_carry_g, known_xs_g)),
                ft.pack((known_carry_g, (known_ys_g, ft.nones(which_hoisted.count(False))))), reverse, length, unroll))
    else:
        known_outs = []
    known_outs, ext_res = known_outs[:num_knowns_out], known_outs[num_knowns_out:]
    non_fwd = iter(common.merge_lists(which_hoisted, ext_res, hoisted_res))
    all_known = [*known_consts, *known_ins]
    res = [next(non_fwd) if f is None else all_known[f] for f in in_fwd_res]
    int_res, ext_res = common.partition_list(res_to_move, res)
    unknown_inputs = [x for x, uk in zip(args, unknowns, strict=True) if uk]
    # Inputs that became unknown in the fixpoint are passed as they are.
    staged = trace.record(scan_p, [*int_res, *unknown_inputs, *ext_res], _params(
        jaxpr_unknown, _ft_with_residuals(ft_in, unknowns, len(int_res), len(ext_res)),
        ft_out.filter_with_mask(out_uk), reverse, length, unroll))
    return common.merge_lists(out_uk, known_outs, staged)


scan_p.partial_eval = _scan_partial_eval


# ---------------------------------------------------------------------------
# Transpose


def _scan_transpose(cts, *args, reverse, length, jaxpr, ft_in, ft_out, unroll):
    consts, carry_dot, xs = (list(t) for t in ft_in.update(args).unpack())
    num_consts, num_carry = len(consts), len(carry_dot)
    # Every carry is linear; a carry that is a known value (a zero tangent
    # made by the linear program) gets a cotangent nobody collects.
    carry_lin = [is_undefined_primal(c) for c in carry_dot]
    carry_dot = [c if lin else UndefinedPrimal(core.get_aval(c)) for c, lin in zip(carry_dot, carry_lin, strict=True)]
    ct_carry, ct_ys = list(cts[:num_carry]), list(cts[num_carry:])
    # A stacked output whose cotangent is zero is not computed (JAX removes
    # it from the linear program before transposing).
    ys_used = [type(ct) is not Zero for ct in ct_ys]
    if not all(ys_used):
        jaxpr = common.prune_outputs(jaxpr, [True] * num_carry + ys_used)
        ct_ys = [ct for ct in ct_ys if type(ct) is not Zero]
    jaxpr, consts, xs, keep_consts, keep_xs = _drop_unused_residuals(jaxpr, consts, carry_dot, xs)
    const_lin = [is_undefined_primal(c) for c in consts]
    xs_lin = [is_undefined_primal(x) for x in xs]
    ires = [c for c, lin in zip(consts, const_lin, strict=True) if not lin]
    consts_dot = [c for c, lin in zip(consts, const_lin, strict=True) if lin]
    xs_dot = [x for x, lin in zip(xs, xs_lin, strict=True) if lin]
    eres = [x for x, lin in zip(xs, xs_lin, strict=True) if not lin]
    # Binders grouped as (residual consts, linear consts, carry, linear xs,
    # residual xs), the order of the transposed scan's operands.
    cv, kv, xv = common.split_list(jaxpr.invars, [num_consts, num_carry])[:3]
    invars = ([v for v, lin in zip(cv, const_lin, strict=True) if not lin] + [v for v, lin in zip(cv, const_lin, strict=True) if lin]
              + kv + [v for v, lin in zip(xv, xs_lin, strict=True) if lin] + [v for v, lin in zip(xv, xs_lin, strict=True) if not lin])
    # The linear consts are also outputs, whose cotangent is the running
    # accumulator: a const's cotangents then add into it as they arrive.
    lin_const_vars = [v for v, lin in zip(cv, const_lin, strict=True) if lin]
    jaxpr = jaxpr.replace(invars=invars, outvars=jaxpr.outvars + lin_const_vars)
    ct_carry = [instantiate_zeros(ct) for ct in ct_carry]
    jaxpr = _carry_typed_as_cotangents(jaxpr, kv, common.avals_of(ct_carry))
    ct_consts = [zeros_like_aval(c.aval) for c in consts_dot]
    trans_in = [*ires, *ct_consts, *ct_carry, *ct_ys, *eres]
    n_head = len(ires) + len(ct_consts) + len(ct_carry)
    trans_avals = common.avals_of(trans_in[:n_head]) + [
        sharding_rules.unstacked(a) for a in common.avals_of(trans_in[n_head:])]
    xs_dot_avals = [sharding_rules.unstacked(x.aval) for x in xs_dot]
    n_ires, n_cc, n_k, n_ys = len(ires), len(ct_consts), len(ct_carry), len(ct_ys)

    def transposed(*flat):
        res_c, acc, ctc, cty, res_x = common.split_list(flat, [n_ires, n_cc, n_k, n_ys])
        primals = ([*res_c] + [UndefinedPrimal(c.aval) for c in consts_dot] + [UndefinedPrimal(core.get_aval(c)) for c in ctc]
                   + [UndefinedPrimal(a) for a in xs_dot_avals] + [*res_x])
        in_cts = backward_pass(jaxpr, jaxpr.consts, [*ctc, *cty, *acc], primals)
        lin_cts = in_cts[n_ires:n_ires + n_cc + n_k + len(xs_dot)]
        return [instantiate_zeros(ct) for ct in lin_cts]

    jaxpr_trans = common.close_over(transposed, trans_avals, jaxpr.debug_info)
    ft_in_t = ft.flatten(((ires, []), (ct_consts, ct_carry), ([], ct_ys, eres))).void()
    ft_out_t = ft.flatten(((ct_consts, ct_carry), xs_dot)).void()
    outs = scan_p.bind(*trans_in, **_params(jaxpr_trans, ft_in_t, ft_out_t, not reverse, length, unroll))
    cts_consts, cts_carry, cts_xs = common.split_list(outs, [n_cc, n_k])[:3]
    consts_it, xs_it = iter(cts_consts), iter(cts_xs)
    lin_consts = iter([next(consts_it) if lin else None for lin in const_lin])
    lin_xs = iter([next(xs_it) if lin else None for lin in xs_lin])
    # Cotangents in the order of the scan's operands (None for residuals,
    # including those dropped as unused).
    return ([next(lin_consts) if k else None for k in keep_consts]
            + [ct if lin else None for ct, lin in zip(cts_carry, carry_lin, strict=True)]
            + [next(lin_xs) if k else None for k in keep_xs])


def _carry_typed_as_cotangents(jaxpr, carry_vars, ct_avals):
    # A carry's cotangent takes the type of the cotangent coming in, not of the
    # body's binder (as in JAX): a weak carry the body makes strong transposes
    # without a convert back to weak, and its gradient is strong.
    rename = {v: Var(a) for v, a in zip(carry_vars, ct_avals, strict=True)
              if v.aval is not a and v.aval.update(weak_type=a.weak_type) == a}
    if not rename:
        return jaxpr
    return common._rename(jaxpr, rename, [rename.get(v, v) for v in jaxpr.invars])


def _drop_unused_residuals(jaxpr, consts, carry, xs):
    # Inputs the (pruned) linear body does not read are not passed.
    _, used = dce_jaxpr(jaxpr)
    nc, nk = len(consts), len(carry)
    keep = list(used)
    keep[nc:nc + nk] = [True] * nk
    kc, kx = keep[:nc], keep[nc + nk:]
    if all(keep):
        return jaxpr, consts, xs, kc, kx
    jaxpr = jaxpr.replace(invars=[v for v, k in zip(jaxpr.invars, keep, strict=True) if k])
    return (jaxpr, [c for c, k in zip(consts, kc, strict=True) if k], [x for x, k in zip(xs, kx, strict=True) if k],
            kc, kx)


scan_p.def_transpose(_scan_transpose)

