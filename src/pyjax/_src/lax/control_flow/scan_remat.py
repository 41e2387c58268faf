"""scan's `partial_eval_custom` rule: how remat (checkpoint) splits a scan.

As JAX 0.11's rule does: the body is split by policy (the carries to a
fixpoint, so a carry is unknown on the way in iff on the way out) into a
known and a staged body. The known part becomes a `closed_call` that first
computes what depends on the known consts only (loop-invariant residuals,
hoisted) and then scans the rest, stacking the per-step residuals; the
staged scan takes every operand of the original, the loop-invariant
residuals as leading consts and the per-step ones as trailing xs.
"""

from __future__ import annotations

from pyjax._src.closed_call import closed_call_p
from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr_custom, partial_eval_jaxpr_nounits
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import JaxprEqn, Var, eval_jaxpr
from pyjax._src.lax.control_flow import flattree as ft
from pyjax._src.lax.control_flow.scan import scan_p

__all__: list[str] = []


def _split_body(jaxpr, ft_in, ft_out, unks_in, saveable):
    # A carry unknown on the way out is made unknown on the way in, until
    # nothing changes.
    const_uk, carry_uk, xs_uk = (list(g) for g in ft_in.update(unks_in).unpack())
    n_ys = len(ft_out.unpack()[1])
    for _ in range(1 + len(carry_uk)):
        unks = const_uk + carry_uk + xs_uk
        split = partial_eval_jaxpr_custom(jaxpr, unks, [True] * len(unks), saveable,
                                          ensure_out_unknowns=carry_uk + [False] * n_ys,
                                          ensure_out_inst=[True] * len(jaxpr.outvars))
        carry_uk_out = list(ft_out.update(split[2]).unpack()[0])
        if carry_uk_out == carry_uk:
            return unks, const_uk, split
        carry_uk = [a or b for a, b in zip(carry_uk, carry_uk_out, strict=True)]
    raise AssertionError("scan partial_eval_custom: no fixpoint")


def _scan_partial_eval_custom(saveable, unks_in: list, inst_in: list, eqn: JaxprEqn):
    params = eqn.params
    jaxpr, ft_in, ft_out, length = params["jaxpr"], params["ft_in"], params["ft_out"], params["length"]
    unks_in, const_uk, (known, staged, unks_out, inst_out, num_res) = _split_body(
        jaxpr, ft_in, ft_out, unks_in, saveable)
    res_avals = [v.aval for v in staged.invars[:num_res]]
    new_inst = [x for x, inst in zip(eqn.invars, inst_in, strict=True) if type(x) is Var and not inst]

    # Hoist what depends on the known consts only out of the loop.
    n_const_known = len(const_uk) - sum(const_uk)
    n_known_in = len(known.invars)
    n_known_out = len(unks_out) - sum(unks_out)
    hoist, loop, loop_dep, _, _ = partial_eval_jaxpr_nounits(
        known, [False] * n_const_known + [True] * (n_known_in - n_const_known),
        [True] * n_known_out + [False] * num_res)
    loop_dep_res = loop_dep[len(loop_dep) - num_res:]
    n_int = loop_dep_res.count(False)
    res_in = staged.invars[:num_res]
    staged = staged.replace(invars=[v for v, d in zip(res_in, loop_dep_res, strict=True) if not d]
                            + staged.invars[num_res:] + [v for v, d in zip(res_in, loop_dep_res, strict=True) if d])
    intensive_res = [Var(a) for a, d in zip(res_avals, loop_dep_res, strict=True) if not d]
    extensive_res = [Var(a.update(shape=(length, *a.shape))) for a, d in zip(res_avals, loop_dep_res, strict=True) if d]

    ins_known = [x for x, u in zip(eqn.invars, unks_in, strict=True) if not u]
    known_mask = [not u for u in unks_in]
    _, known_carry_g, known_xs_g = ft_in.filter_with_mask(known_mask).unpack()
    _, known_ys_g = ft_out.filter_with_mask([not u for u in unks_out]).unpack()

    def known_fun(*args):
        out_hoist = eval_jaxpr(hoist, hoist.consts, *args[:n_const_known])
        int_res, consts_lp = out_hoist[:n_int], out_hoist[n_int:]
        ft_in_k = ft.pack((ft.nones(len(consts_lp)), known_carry_g, known_xs_g))
        ft_out_k = ft.pack((known_carry_g, (known_ys_g, ft.nones(sum(loop_dep_res)))))
        outs = scan_p.bind(*consts_lp, *args[n_const_known:], **dict(params, jaxpr=loop, ft_in=ft_in_k, ft_out=ft_out_k))
        return [*int_res, *outs]

    call_jaxpr, _ = trace_to_jaxpr(known_fun, [x.aval for x in ins_known], hoist.debug_info)
    outs_known = [v for v, u in zip(eqn.outvars, unks_out, strict=True) if not u]
    eqn_known = eqn.replace(primitive=closed_call_p, invars=ins_known,
                            outvars=[*intensive_res, *outs_known, *extensive_res],
                            params={"call_jaxpr": call_jaxpr})

    consts_g, carry_g, xs_g = ft_in.unpack()
    ft_in_s = ft.pack(((ft.nones(n_int), consts_g), carry_g, (xs_g, ft.nones(len(extensive_res)))))
    eqn_staged = eqn.replace(invars=[*intensive_res, *eqn.invars, *extensive_res],
                             outvars=[v for v, i in zip(eqn.outvars, inst_out, strict=True) if i],
                             params=dict(params, jaxpr=staged, ft_in=ft_in_s))
    return eqn_known, eqn_staged, unks_out, inst_out, [*new_inst, *intensive_res, *extensive_res]


scan_p.partial_eval_custom = _scan_partial_eval_custom
