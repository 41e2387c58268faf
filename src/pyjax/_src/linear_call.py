"""`jax.custom_derivatives.linear_call`: a linear function with its own transpose.

`linear_call(fun, fun_transpose, residual_args, linear_args)` computes
`fun(residual_args, linear_args)`, a function linear in `linear_args`, and
tells autodiff that its transpose is `fun_transpose(residual_args, ct)`.
It binds the `linear_call` primitive, whose params are the traced callee
(`callee`, a closed jaxpr), the number of its constants and residuals, and
a thunk tracing the transpose on first use (`transpose_thunk`), as JAX
0.11 prints them. Its JVP is itself applied to the tangents (the residuals'
tangents must be zero); its transpose is a `linear_call` of the traced
transpose, whose own transpose is the callee again.

The primitive is defined through the extension API (`def_impl`,
`ad.primitive_jvps`, `ad.primitive_transposes`): the evaluation rule runs
the callee under the eval trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.core import Primitive
from pyjax._src.interpreters.staging import DebugInfo, func_src_info, trace_to_jaxpr
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.jaxpr import body_effects, eval_jaxpr
from pyjax._src.rules import unimplemented, SHARDING_OF_CALL
from pyjax._src.tree_util import tree_flatten, tree_unflatten

linear_call_p = Primitive("linear_call", multiple_results=True).declare(body_params=("callee",),
                                                                         call_body="callee")
linear_call_p.declare(sharding_reason=SHARDING_OF_CALL)
linear_call_p.effects_of = body_effects("callee")
linear_call_p.pp_param_order = ("callee", "num_callee_consts", "num_res", "transpose_thunk")


def _memoize(thunk: Callable[[], Any]) -> Callable[[], Any]:
    # The transpose is traced once, on first use (JAX's memoized thunk).
    cell: list = []

    def memoized():
        if not cell:
            cell.append(thunk())
        return cell[0]

    return memoized


def _trace(fun: Callable, in_tree, avals, what: str):
    def flat(*leaves):
        args = tree_unflatten(in_tree, list(leaves))
        out = fun(*args)
        out_leaves, out_tree = tree_flatten(out)
        trees.append(out_tree)
        return out_leaves

    trees: list = []
    jaxpr, _ = trace_to_jaxpr(flat, list(avals), DebugInfo(what, func_src_info(fun), None))
    return jaxpr, trees[0]


def linear_call(fun: Callable, fun_transpose: Callable, residual_args, linear_args):
    """Calls a linear function, with a custom implementation for its transpose.

    `fun(residual_args, linear_args)` must be linear in `linear_args`;
    `fun_transpose(residual_args, ct_out)` gives the cotangent of
    `linear_args`. Differentiating, `jax.linear_transpose` and `jax.vjp`
    use `fun_transpose` instead of transposing `fun`.

    Args:
      fun: a Python callable `(residual_args, linear_args) -> outputs`.
      fun_transpose: a Python callable `(residual_args, out_cts) -> linear_cts`.
      residual_args: a pytree of arguments `fun` is not linear in.
      linear_args: a pytree of arguments `fun` is linear in.

    Returns:
      The outputs of `fun(residual_args, linear_args)`.
    """
    operands_res, res_tree = tree_flatten(residual_args)
    operands_lin, lin_tree = tree_flatten(linear_args)
    res_avals = [core.get_aval(x) for x in operands_res]
    lin_avals = [core.get_aval(x) for x in operands_lin]
    (_, in_tree) = tree_flatten((residual_args, linear_args))
    callee, out_tree = _trace(fun, in_tree, res_avals + lin_avals, "linear_call")
    out_avals = callee.out_avals

    def transpose_thunk():
        (_, t_in_tree) = tree_flatten((tree_unflatten(res_tree, res_avals), tree_unflatten(out_tree, out_avals)))
        t_jaxpr, t_out_tree = _trace(fun_transpose, t_in_tree, res_avals + list(out_avals), "linear_call_transpose")
        if t_out_tree != lin_tree:
            raise TypeError(
                "transpose output pytree structure must match that of linear inputs, "
                f"got output structure {t_out_tree} and input structure {lin_tree}.")
        return t_jaxpr

    outs = linear_call_p.bind(*callee.consts, *operands_res, *operands_lin, callee=callee.replace(
        constvars=[], invars=callee.constvars + callee.invars, consts=[]), transpose_thunk=_memoize(transpose_thunk),
        num_callee_consts=len(callee.consts), num_res=len(operands_res))
    return tree_unflatten(out_tree, outs)


def _abstract_eval(*avals, callee, transpose_thunk, num_callee_consts, num_res):
    return list(callee.out_avals)


def _impl(*args, callee, transpose_thunk, num_callee_consts, num_res):
    return eval_jaxpr(callee, (), *args)


def _jvp(primals, tangents, *, callee, transpose_thunk, num_callee_consts, num_res):
    n = num_callee_consts + num_res
    if not all(type(t) is Zero for t in tangents[:n]):
        raise NotImplementedError("linear_call: differentiating with respect to the residual arguments "
                                  "(they are constants of the linear function) is not supported")
    params = dict(callee=callee, transpose_thunk=transpose_thunk, num_callee_consts=num_callee_consts,
                  num_res=num_res)
    outs = linear_call_p.bind(*primals, **params)
    tangents_out = linear_call_p.bind(*primals[:n], *[instantiate(t) for t in tangents[n:]], **params)
    return outs, tangents_out


def _linear_call_transpose_rule(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
    n = num_callee_consts + num_res
    consts_and_res, linear = args[:n], args[n:]
    if any(is_undefined_primal(x) for x in consts_and_res):
        raise NotImplementedError("linear_call: the residual arguments must be known when transposing")
    transpose = transpose_thunk()
    cts = [instantiate(ct) for ct in cts]

    def new_transpose_thunk():  # the transpose of the transpose: the callee, closed over its constants
        return callee.replace(constvars=callee.invars[:num_callee_consts], invars=callee.invars[num_callee_consts:],
                              consts=list(consts_and_res[:num_callee_consts]))

    cts_in = linear_call_p.bind(*transpose.consts, *consts_and_res[num_callee_consts:], *cts,
                                callee=transpose.replace(constvars=[], invars=transpose.constvars + transpose.invars,
                                                         consts=[]),
                                transpose_thunk=new_transpose_thunk, num_callee_consts=len(transpose.consts),
                                num_res=num_res)
    return [None] * n + list(cts_in)


linear_call_p.def_abstract_eval(_abstract_eval)
linear_call_p.def_impl(_impl)
linear_call_p.def_jvp(_jvp)
linear_call_p.def_transpose(_linear_call_transpose_rule)
linear_call_p.def_batch(unimplemented(""))  # (JAX 0.11 has no batching rule either: its plain message)

__all__ = ["linear_call", "linear_call_p"]
