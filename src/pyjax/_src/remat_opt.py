"""`remat_opt`: custom_vjp's remat optimisation (`defvjp(..., optimize_remat=True)`).

With the option, a custom_vjp function's forward rule runs as one
`remat_opt` equation: its operands are the body's constants and the
arguments, its `fwd_jaxpr` computes the residuals and then the primal
outputs, and `fun_jaxpr_thunk` traces the plain function when asked. When
dead-code elimination finds the residuals unused (a rematerialised
forward pass, whose residuals the backward pass recomputes), the equation
becomes a `closed_call` of the plain function; when only some outputs are
used, `fwd_jaxpr` is pruned. It differentiates forward (the JVP of both
jaxprs) and batches, but is not transposed (higher-order reverse mode
goes through the user's bwd rule instead).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.closed_call import closed_call_p
from pyjax._src.core import Primitive
from pyjax._src.interpreters.batching import batch_jaxpr, not_mapped
from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, body_effects, eval_jaxpr
from pyjax._src.lax.batching_util import moveaxis
from pyjax._src.rules import SHARDING_OF_CALL
from pyjax._src.tree_util import tree_flatten, tree_unflatten

remat_opt_p = Primitive("remat_opt", multiple_results=True).declare(
    body_params=("fwd_jaxpr",), call_body="fwd_jaxpr", sharding_reason=SHARDING_OF_CALL,
    effects_of=body_effects("fwd_jaxpr"))


class Memoized:
    """A thunk computed once (the plain function's jaxpr, traced only if
    dead-code elimination needs it). Printed as JAX prints its thunk."""

    __slots__ = ("_fun", "_value")

    def __init__(self, fun: Callable[[], Any]):
        self._fun = fun
        self._value = None

    def __call__(self):
        if self._value is None:
            self._value = self._fun()
        return self._value

    def __repr__(self):
        return "<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>"


def _open(jaxpr: Jaxpr) -> tuple[Jaxpr, list]:
    """A closed jaxpr with its constants turned into leading inputs, and the constants."""
    consts = list(jaxpr.consts)
    if not jaxpr.constvars:
        return jaxpr, consts
    return jaxpr.replace(invars=[*jaxpr.constvars, *jaxpr.invars], constvars=[], consts=[]), consts


def optimize_remat_fwd(fun: Callable, fwd: Callable, nondiff_argnums: Sequence[int]) -> Callable:
    """The forward rule `fwd` of custom_vjp function `fun`, run as one
    `remat_opt` equation (the residuals forwarded from inputs are not its outputs)."""
    from pyjax._src.custom_derivatives import resolve_kwargs
    from pyjax._src.custom_vjp import check_fwd_pair

    nondiff = set(nondiff_argnums)
    fwd_name, name = (getattr(h, "__name__", repr(h)) for h in (fwd, fun))

    @functools.wraps(fwd)
    def wrapped(*args, **kwargs):
        args = resolve_kwargs(fun, args, kwargs, "custom_vjp")
        flat, in_tree = tree_flatten([a for i, a in enumerate(args) if i not in nondiff])

        def full(xs):
            dyn = iter(tree_unflatten(in_tree, list(xs)))
            return [a if i in nondiff else next(dyn) for i, a in enumerate(args)]

        trees = {}

        def flat_fwd(*xs):
            pair = fwd(*full(xs))
            check_fwd_pair(pair, fwd_name, name)
            (outs, trees["out"]), (res, trees["res"]) = tree_flatten(pair[0]), tree_flatten(pair[1])
            return [*res, *outs]

        def flat_fun(*xs):
            return tree_flatten(fun(*full(xs)))[0]

        avals = [core.get_aval(x) for x in flat]
        traced, _ = trace_to_jaxpr(flat_fwd, avals)
        num_res_all = trees["res"].num_leaves
        position = {v: i for i, v in enumerate(traced.invars)}
        forwarded = [position.get(v) for v in traced.outvars[:num_res_all]]
        kept = [v for v, f in zip(traced.outvars[:num_res_all], forwarded, strict=True) if f is None]
        fwd_jaxpr, consts = _open(traced.replace(outvars=[*kept, *traced.outvars[num_res_all:]]))
        outs = remat_opt_p.bind(*consts, *flat, num_consts=len(consts), num_res=len(kept), fwd_jaxpr=fwd_jaxpr,
                                fun_jaxpr_thunk=Memoized(lambda: trace_to_jaxpr(flat_fun, avals)[0]))
        res_iter = iter(outs[:len(kept)])
        res = [next(res_iter) if f is None else flat[f] for f in forwarded]
        return tree_unflatten(trees["out"], outs[len(kept):]), tree_unflatten(trees["res"], res)

    return wrapped


# ---------------------------------------------------------------------------
# Rules


def _abstract_eval(*avals, fwd_jaxpr: Jaxpr, **_):
    return list(fwd_jaxpr.out_avals)


def _impl(*args, fwd_jaxpr: Jaxpr, **_):
    return eval_jaxpr(fwd_jaxpr, fwd_jaxpr.consts, *args)


def _permute(jaxpr: Jaxpr, in_groups: Sequence[int], in_order: Sequence[int], out_groups: Sequence[int],
             out_order: Sequence[int]) -> Jaxpr:
    def regroup(vs, sizes, order):
        groups, start = [], 0
        for n in sizes:
            groups.append(vs[start:start + n])
            start += n
        return [v for g in order for v in groups[g]]

    return jaxpr.replace(invars=regroup(jaxpr.invars, in_groups, in_order),
                         outvars=regroup(jaxpr.outvars, out_groups, out_order))


def _jvp(primals, tangents, *, num_consts, num_res, fwd_jaxpr, fun_jaxpr_thunk):
    consts, args = list(primals[:num_consts]), list(primals[num_consts:])
    consts_dot = [t for t in tangents[:num_consts] if type(t) is not Zero]
    args_dot = [instantiate(t) for t in tangents[num_consts:]]  # (instantiated: a later DCE may need them)
    nonzeros = [type(t) is not Zero for t in tangents[:num_consts]] + [True] * len(args)
    jvp, _ = jvp_jaxpr(fwd_jaxpr, nonzeros, instantiate=True)
    num_out = len(fwd_jaxpr.outvars) - num_res
    # (consts, args, consts_dot, args_dot) -> (consts, consts_dot, args, args_dot); outputs
    # (res, outs, res_dot, outs_dot) -> (res, res_dot, outs, outs_dot).
    jvp = _permute(jvp, [num_consts, len(args), len(consts_dot), len(args_dot)], [0, 2, 1, 3],
                   [num_res, num_out, num_res, num_out], [0, 2, 1, 3])
    jvp, jvp_consts = _open(jvp)

    def fun_jvp():
        fun = fun_jaxpr_thunk()
        return jvp_jaxpr(fun, [True] * len(fun.invars), instantiate=True)[0]

    outs = remat_opt_p.bind(*jvp_consts, *consts, *consts_dot, *args, *args_dot,
                            num_consts=len(jvp_consts) + num_consts + len(consts_dot), num_res=2 * num_res,
                            fwd_jaxpr=jvp, fun_jaxpr_thunk=Memoized(fun_jvp))
    res, res_dot = outs[:num_res], outs[num_res:2 * num_res]
    out, out_dot = outs[2 * num_res:2 * num_res + num_out], outs[2 * num_res + num_out:]
    return [*res, *out], [*res_dot, *out_dot]


def _transpose(cts, *args, **params):
    raise NotImplementedError("remat optimization for custom_vjp does not support higher-order AD")


def _batch(axis_data, args, dims, *, num_consts, num_res, fwd_jaxpr, fun_jaxpr_thunk):
    args = [moveaxis(x, d, 0) if d is not not_mapped and d != 0 else x for x, d in zip(args, dims, strict=True)]
    batched = [d is not not_mapped for d in dims]
    fwd, out_batched = batch_jaxpr(fwd_jaxpr, axis_data, batched, False)
    fwd, extra = _open(fwd)

    def batched_fun():
        # (the plain function's outputs batched as the forward rule's are)
        return batch_jaxpr(fun_jaxpr_thunk(), axis_data, batched[num_consts:], out_batched[num_res:])[0]

    outs = remat_opt_p.bind(*extra, *args, num_consts=len(extra) + num_consts, num_res=num_res, fwd_jaxpr=fwd,
                            fun_jaxpr_thunk=Memoized(batched_fun))
    return outs, [0 if b else not_mapped for b in out_batched]


def _dce(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    p = eqn.params
    num_consts, num_res = p["num_consts"], p["num_res"]
    outvars = [v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u]
    if any(used_outputs[:num_res]):
        # Residuals still wanted: the forward rule runs, pruned (its arguments all kept).
        fwd, used_inputs = dce_jaxpr(p["fwd_jaxpr"], used_outputs)
        keep = [i >= num_consts or u for i, u in enumerate(used_inputs)]
        fwd = fwd.replace(invars=[v for v, k in zip(fwd.invars, keep, strict=True) if k])
        params = dict(p, fwd_jaxpr=fwd, num_consts=sum(keep[:num_consts]), num_res=sum(used_outputs[:num_res]))
        return eqn.replace(invars=[v for v, k in zip(eqn.invars, keep, strict=True) if k], outvars=outvars,
                           params=params)
    # No residuals: the plain function instead of the forward rule.
    fun, used_inputs = dce_jaxpr(p["fun_jaxpr_thunk"](), used_outputs[num_res:], prune_invars=True)
    invars = [v for v, u in zip(eqn.invars[num_consts:], used_inputs, strict=True) if u]
    return eqn.replace(primitive=closed_call_p, invars=invars, outvars=outvars, params={"call_jaxpr": fun},
                       effects=fun.effects)


remat_opt_p.def_abstract_eval(_abstract_eval)
remat_opt_p.def_impl(_impl)
remat_opt_p.def_jvp(_jvp)
remat_opt_p.def_transpose(_transpose)
remat_opt_p.def_batch(_batch)
remat_opt_p.dce_rule = _dce

__all__ = ["optimize_remat_fwd", "remat_opt_p"]
