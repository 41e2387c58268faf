"""cond's `partial_eval_custom` rule: how remat (checkpoint) splits a cond.

As JAX 0.11's rule does: an output is unknown if it is in any branch; each
branch is split by policy into a known and a staged branch, their residuals
merged into one signature (a branch fills the slots it does not compute with
empty values). The known cond returns the known outputs and the residuals;
the staged cond takes the index, the residuals and every operand.
"""

from __future__ import annotations

from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr_custom
from pyjax._src.jaxpr import JaxprEqn, Var
from pyjax._src.lax.control_flow.cond import _join_inputs, _join_outputs, _merge_branch_residuals, cond_p

__all__: list[str] = []


def _cond_partial_eval_custom(saveable, unks_in: list, inst_in: list, eqn: JaxprEqn):
    index_uk, *ops_uk = unks_in
    branches = eqn.params["branches"]
    new_inst = [x for x, inst in zip(eqn.invars, inst_in, strict=True) if type(x) is Var and not inst]
    n_out = len(eqn.outvars)
    if index_uk:  # (JAX stages the whole cond then)
        return None, eqn, [True] * n_out, [True] * n_out, new_inst

    def split(jaxpr, ensure_uk):
        return partial_eval_jaxpr_custom(jaxpr, ops_uk, [True] * len(ops_uk), saveable,
                                         ensure_out_unknowns=ensure_uk, ensure_out_inst=[True] * n_out)

    unks_out = [False] * n_out
    for jaxpr in branches:
        unks_out = [a or b for a, b in zip(unks_out, split(jaxpr, [False] * n_out)[2], strict=True)]
    splits = [split(jaxpr, unks_out) for jaxpr in branches]
    inst_out = splits[-1][3]
    res_avals = [[v.aval for v in s[1].invars[:s[4]]] for s in splits]
    all_res, indices = _merge_branch_residuals(res_avals)
    n_known_outs = unks_out.count(False)
    known = _join_outputs([s[0] for s in splits], all_res, indices, n_known_outs)
    staged = _join_inputs([s[1] for s in splits], all_res, indices)
    res_binders = [Var(a) for a in all_res]
    ins_known = [x for x, u in zip(eqn.invars, unks_in, strict=True) if not u]
    eqn_known = eqn.replace(invars=ins_known,
                            outvars=[*(v for v, u in zip(eqn.outvars, unks_out, strict=True) if not u), *res_binders],
                            params=dict(eqn.params, branches=known))
    eqn_staged = eqn.replace(invars=[eqn.invars[0], *res_binders, *eqn.invars[1:]],
                             outvars=[v for v, i in zip(eqn.outvars, inst_out, strict=True) if i],
                             params=dict(eqn.params, branches=staged))
    return eqn_known, eqn_staged, unks_out, inst_out, [*new_inst, *res_binders]


cond_p.partial_eval_custom = _cond_partial_eval_custom
