"""custom_vjp: functions that bring their own reverse-mode rule (fwd, bwd).

Outside any transformation a custom_vjp function just runs. Under a trace it
is one `custom_vjp_call` equation holding the traced body and the two rules.

Differentiating it (the JVP rule of custom_vjp_call) runs `fwd` on the
primals in the enclosing trace (so its work is done, or staged, at once) and
binds `custom_lin` on the residuals and the input tangents. Under
linearize/grad the tangents are unknown, so `custom_lin` lands in the linear
jaxpr with the residuals as its known operands; transposing it calls `bwd`.
Anywhere else (plain forward mode) `custom_lin` reaching evaluation raises
JAX's "can't apply forward-mode autodiff (jvp) to a custom_vjp function."

vmap keeps the equation: the body is batched, and fwd/bwd become their
vmapped versions (a cotangent of an unbatched input is summed over the batch).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.rules import unimplemented, SHARDING_OF_CALL
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.core import Primitive
from pyjax._src.custom_derivatives import (
    SymbolicZero,
    _fun_name,
    _ListParam,
    _RuleRef,
    _short_tree,
    _to_rule_tangent,
    batch_rule_call,
    live_and_dims,
    match_out,
    nondiff_args,
    refill_zeros,
    resolve_kwargs,
    trace_body,
    unflatten_dyn,
)
from pyjax._src.interpreters import batching
from pyjax._src.jaxpr import Jaxpr, body_effects
from pyjax._src.tree_util import (
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_map,
    tree_unflatten,
    treedef_children,
)

_JVP_ERROR = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


class CustomVJPPrimal:
    """A primal input handed to a fwd rule defined with symbolic_zeros=True.

    Attributes:
      value: the primal value.
      perturbed: whether the input's tangent is nonzero (False: the
        cotangent bwd returns for it is not used).
    """

    def __init__(self, value, perturbed: bool):
        self.value = value
        self.perturbed = perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


class CustomVJPException(Exception):
    def __init__(self):
        super().__init__(
            "Detected differentiation of a custom_vjp function with respect to a closed-over value. That isn't "
            "supported because the custom VJP rule only specifies how to differentiate the custom_vjp function "
            "with respect to explicit input parameters. Try passing the closed-over value into the custom_vjp "
            "function as an argument, and adapting the custom_vjp fwd and bwd rules."
        )


# ---------------------------------------------------------------------------
# custom_lin: the linear stand-in for bwd (exists only inside autodiff)


class _CustomLinPrimitive(Primitive):
    """Evaluating custom_lin means forward mode reached a custom_vjp function."""

    def bind(self, *args, **params):
        if core.current_trace() is core._default_trace[0]:
            raise TypeError(_JVP_ERROR)
        return super().bind(*args, **params)


custom_lin_p = _CustomLinPrimitive("custom_lin", multiple_results=True)
custom_lin_p.declare(sharding_reason=SHARDING_OF_CALL)
custom_lin_p.pp_param_order = ("bwd", "in_zeros", "num_res", "symbolic_zeros")


@custom_lin_p.def_abstract_eval
def _custom_lin_abstract_eval(*avals, out_avals, **params):
    return list(out_avals)


def custom_lin_impl(*args, **params):
    """The backend 'impl' of custom_lin: only forward mode evaluates it."""
    raise TypeError(_JVP_ERROR)


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, symbolic_zeros, in_zeros):
    # bwd gives one cotangent per differentiable input; the tangent operands
    # here are the nonzero ones only.
    cts_in = bwd.rule(list(args[:num_res]), list(cts))
    nonzero_cts = [ct for ct, zero in zip(cts_in, in_zeros, strict=True) if not zero]
    return [None] * num_res + nonzero_cts


def _custom_lin_batch(axis_data, args, dims, **params):
    raise TypeError(_JVP_ERROR)


custom_lin_p.def_transpose(_custom_lin_transpose)
custom_lin_p.def_batch(_custom_lin_batch)
custom_lin_p.def_jvp(unimplemented(""))  # (JAX 0.11 has none either)


# ---------------------------------------------------------------------------
# The custom_vjp_call primitive

custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True).declare(
    body_params=("call_jaxpr",), call_body="call_jaxpr")
custom_vjp_call_p.declare(sharding_reason=SHARDING_OF_CALL)
custom_vjp_call_p.effects_of = body_effects("call_jaxpr")
custom_vjp_call_p.pp_param_order = ("name", "bwd", "call_jaxpr", "fwd", "num_consts", "symbolic_zeros")
custom_vjp_call_p.pp_hidden = lambda key, value: key == "num_consts" and not value


@custom_vjp_call_p.def_abstract_eval
def _custom_vjp_call_abstract_eval(*avals, call_jaxpr: Jaxpr, **params):
    return call_jaxpr.out_avals


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, num_consts, symbolic_zeros, name):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise CustomVJPException()
    primals, tangents = list(primals[num_consts:]), list(tangents[num_consts:])
    in_zeros = [type(t) is Zero for t in tangents]
    outs, res, res_tree = fwd.rule(primals, [not z for z in in_zeros])
    out_avals = tuple(tangent_aval(core.get_aval(o)) for o in outs)
    tangents_out = custom_lin_p.bind(
        *res, *[t for t in tangents if type(t) is not Zero], num_res=len(res),
        bwd=_RuleRef(functools.partial(bwd.rule, res_tree), bwd.name), out_avals=out_avals,
        symbolic_zeros=symbolic_zeros, in_zeros=_ListParam(in_zeros),
    )
    return outs, tangents_out


custom_vjp_call_p.def_jvp(_custom_vjp_call_jvp)


def _custom_vjp_call_batch(axis_data, args, dims, *, call_jaxpr, fwd, bwd, num_consts, symbolic_zeros, name):
    from pyjax._src.interpreters.batching import not_mapped
    from pyjax._src.lax.reductions import reduce_sum

    body, out_dims = batching.batch_jaxpr_axes(call_jaxpr, axis_data, dims)
    in_dims = dims[num_consts:]
    size = axis_data.size
    res_dims: list = []  # set by the batched fwd, read by the batched bwd

    def batched_fwd(primals, perturbed):
        box: list = []

        def per_example(*xs):
            outs, res, res_tree = fwd.rule(list(xs), perturbed)
            box[:] = [len(outs), res_tree]
            return list(outs) + list(res)

        values, vdims = batch_rule_call(axis_data, per_example, primals, in_dims)
        n_out, res_tree = box
        outs = [match_out(v, d, od, size, "custom_vjp fwd rule")
                for v, d, od in zip(values[:n_out], vdims[:n_out], out_dims, strict=True)]
        res_dims[:] = vdims[n_out:]
        return outs, values[n_out:], res_tree

    def batched_bwd(res_tree, res, cts):
        n_res = len(res)

        def per_example(*xs):
            return bwd.rule(res_tree, list(xs[:n_res]), refill_zeros(xs[n_res:], cts, out_dims))

        live, live_dims = live_and_dims(cts, out_dims)
        values, vdims = batch_rule_call(axis_data, per_example, [*res, *live], [*res_dims, *live_dims])
        out = []
        for v, d, target in zip(values, vdims, in_dims, strict=True):
            if type(v) is not Zero and target is not_mapped and d is not not_mapped:
                v = reduce_sum(v, (d,))  # an unbatched input's cotangent sums over the batch
            else:
                v = match_out(v, d, target, size, "custom_vjp bwd rule")
            out.append(v)
        return out

    outs = custom_vjp_call_p.bind(
        *args, call_jaxpr=body, fwd=_RuleRef(batched_fwd, fwd.name), bwd=_RuleRef(batched_bwd, bwd.name),
        num_consts=num_consts, symbolic_zeros=symbolic_zeros, name=name,
    )
    return outs, out_dims


custom_vjp_call_p.def_batch(_custom_vjp_call_batch)


# ---------------------------------------------------------------------------
# Checking what the user's rules return


def check_fwd_pair(pair, fwd_name: str, name: str) -> None:
    """JAX's error for a custom_vjp forward rule that returned no (output, residuals) pair."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(
            f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair (list or tuple of length two) "
            "where the first element represents the primal output (equal to those of the custom_vjp-decorated "
            f"function {name}) and the second element represents residuals (i.e. values stored from the forward "
            f"pass for use on the backward pass), but instead of a pair the fwd rule {fwd_name} produced {pair}."
        )


def _check_fwd_output(pair, fwd_name: str, name: str, out_tree, out_avals):
    check_fwd_pair(pair, fwd_name, name)
    outs, tree = tree_flatten(pair[0])
    avals = [core.get_aval(o) for o in outs]
    prefix = (f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair (list or tuple of length "
              "two) where the first element represents the primal output (equal to the output of the "
              f"custom_vjp-decorated function {name}) and the second element represents residuals (i.e. values "
              "stored from the forward pass for use on the backward pass), but instead the fwd rule output's "
              "first element had ")
    if tree != out_tree:
        raise TypeError(prefix + f"container/pytree structure:\n    {_short_tree(tree, avals)}\nwhile the "
                        f"custom_vjp-decorated function {name} had output container/pytree structure:\n"
                        f"    {_short_tree(out_tree, out_avals)}.")
    if any(a.strip_weak_type() != b.strip_weak_type() for a, b in zip(avals, out_avals, strict=True)):
        raise TypeError(prefix + f"shapes/dtypes of:\n    {_short_tree(tree, avals)}\nwhile the "
                        f"custom_vjp-decorated function {name} had output shapes/dtypes of:\n"
                        f"    {_short_tree(out_tree, out_avals)}")
    res, res_tree = tree_flatten(pair[1])
    return outs, res, res_tree


def _flatten_bwd_output(cts_in, in_tree, in_avals) -> list:
    """One cotangent per flat input (Zero where bwd said None), or JAX's errors."""
    n_args = len(treedef_children(treedef_children(in_tree)[0]))
    if isinstance(cts_in, list) and len(cts_in) == n_args:
        cts_in = tuple(cts_in)
    dummy = tuple(tree_unflatten(in_tree, [object()] * len(in_avals))[0])
    keypaths = [kp for kp, _ in tree_flatten_with_path(dummy)[0]]
    flat: list = []

    def append(x, d):
        n = len(tree_flatten(d)[0])
        flat.extend([None] * n if x is None else [x] * n)
        return x

    def structure_error() -> TypeError:
        _, got = tree_flatten(cts_in)
        _, expected = tree_flatten(dummy)
        return TypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args "
            "tuple of the primal function, and in particular must produce a tuple of length equal to the number "
            f"of arguments to the primal function, but got bwd output structure {got} for primal input "
            f"structure {expected}."
        )

    if not isinstance(cts_in, tuple):
        raise structure_error()
    try:
        tree_map(append, cts_in, dummy, is_leaf=lambda x: x is None)
    except ValueError:
        raise structure_error() from None
    results = []
    for kp, aval, ct in zip(keypaths, in_avals, flat, strict=True):
        ct_aval = tangent_aval(aval)
        if ct is None or ct_aval.dtype == dtypes.float0:
            results.append(Zero(ct_aval))
        elif type(ct) is SymbolicZero:
            if (ct.aval.shape, ct.aval.dtype) != (ct_aval.shape, ct_aval.dtype):
                raise ValueError(
                    "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does not match the "
                    f"corresponding input tangent shape/dtype: at output{keystr(kp)} the SymbolicZero had "
                    f"shape/dtype {ct.aval.str_short(short_dtypes=False)} while the corresponding input had "
                    f"shape/dtype {aval.str_short(short_dtypes=False)}. Consider just returning a None here "
                    "instead of a SymbolicZero object."
                )
            results.append(Zero(ct_aval))
        else:
            got = core.get_aval(ct)
            same_shape = got.shape == ct_aval.shape
            if not (same_shape and (got.dtype == ct_aval.dtype or dtypes.issubdtype(ct_aval.dtype, np.inexact))):
                why = [m for m, bad in (("the dtypes do not match", got.dtype != ct_aval.dtype),
                                        ("the shapes do not match", not same_shape)) if bad]
                raise ValueError(
                    "Custom VJP bwd rule must produce an output with the same type as the args tuple of the "
                    f"primal function, but at output{keystr(kp)} the bwd rule produced an output of type "
                    f"{got.str_short(short_dtypes=False)} corresponding to an input of type "
                    f"{aval.str_short(short_dtypes=False)}, so {' and '.join(why)}"
                )
            results.append(ct)
    return results


# ---------------------------------------------------------------------------
# custom_vjp


class custom_vjp:
    """Give a function a hand-written reverse-mode derivative.

    Use it as a decorator. The decorated object calls ``fun`` as usual;
    under reverse-mode differentiation (:py:func:`jax.grad`, :py:func:`jax.vjp`)
    the pair registered with :meth:`defvjp` takes over: ``fwd`` computes the
    output and the residuals to keep, ``bwd`` maps residuals and the output
    cotangent to input cotangents. There is no forward-mode rule, so
    :py:func:`jax.jvp` of such a function raises a TypeError.

    Args:
      fun: the function to decorate.
      nondiff_argnums: positions of arguments that are not differentiated
        (they must not be tracers); they are passed to `bwd` first.

    Example:
      >>> @jax.custom_vjp
      ... def clip_gradient(x):
      ...   return x
      >>> def clip_fwd(x):
      ...   return x, None
      >>> def clip_bwd(_, g):
      ...   return (jnp.clip(g, -1., 1.),)
      >>> clip_gradient.defvjp(clip_fwd, clip_bwd)
      >>> jax.grad(lambda x: 5. * clip_gradient(x))(2.)
      Array(1., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False
        self.optimize_remat = False

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return functools.partial(self, instance)

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        """Register the forward and backward functions of this function's VJP.

        Args:
          fwd: `fwd(*args) -> (primal_out, residuals)`, called with the same
            arguments as the function (CustomVJPPrimal objects when
            symbolic_zeros=True).
          bwd: `bwd(*nondiff_args, residuals, cotangent_out) -> tuple` with one
            cotangent (or None, for zero) per differentiable argument.
          symbolic_zeros: pass zero output cotangents to bwd as SymbolicZero
            objects, and primal inputs to fwd as CustomVJPPrimal objects.
          optimize_remat: run fwd as one `remat_opt` equation, which dead-code
            elimination turns back into the plain function where its residuals
            go unused (a rematerialised forward pass need not run fwd).
        """
        if symbolic_zeros and optimize_remat:
            raise NotImplementedError("remat optimization for custom_vjp does not support symbolic zeros")
        if optimize_remat:
            from pyjax._src.remat_opt import optimize_remat_fwd

            fwd = optimize_remat_fwd(self.fun, fwd, self.nondiff_argnums)
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros = symbolic_zeros
        self.optimize_remat = optimize_remat

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = getattr(self, "__name__", None) or _fun_name(self.fun)
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = resolve_kwargs(self.fun, args, kwargs, "custom_vjp")
        if core.current_trace() is core._default_trace[0]:
            return self.fun(*args)
        for i in self.nondiff_argnums:
            _check_for_tracers(args[i])
        nondiff = nondiff_args(args, self.nondiff_argnums)
        call_jaxpr, consts, flat_args, in_tree, out_tree = trace_body(self.fun, args, self.nondiff_argnums)
        in_avals = call_jaxpr.in_avals[len(consts):]
        user_fwd, user_bwd, symbolic_zeros = self.fwd, self.bwd, self.symbolic_zeros
        fwd_name, bwd_name = _fun_name(user_fwd), _fun_name(user_bwd)
        nondiff_argnums = self.nondiff_argnums

        def fwd_rule(primals, perturbed):
            if symbolic_zeros:
                primals = [CustomVJPPrimal(p, z) for p, z in zip(primals, perturbed, strict=True)]
            dyn = iter(unflatten_dyn(in_tree, primals))
            full = [a if i in nondiff_argnums else next(dyn) for i, a in enumerate(args)]
            pair = user_fwd(*full)
            return _check_fwd_output(pair, fwd_name, name, out_tree, call_jaxpr.out_avals)

        def bwd_rule(res_tree, res, cts):
            py_res = tree_unflatten(res_tree, res)
            py_cts = tree_unflatten(out_tree, [_to_rule_tangent(ct, symbolic_zeros) for ct in cts])
            return _flatten_bwd_output(user_bwd(*nondiff, py_res, py_cts), in_tree, in_avals)

        outs = custom_vjp_call_p.bind(
            *consts, *flat_args, call_jaxpr=call_jaxpr, fwd=_RuleRef(fwd_rule, fwd_name),
            bwd=_RuleRef(bwd_rule, bwd_name), num_consts=len(consts), symbolic_zeros=symbolic_zeros, name=name,
        )
        return tree_unflatten(out_tree, outs)


def _check_for_tracers(x) -> None:
    from pyjax._src import errors

    for leaf in tree_flatten(x)[0]:
        if isinstance(leaf, core.Tracer):
            raise errors.UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to a custom_vjp function in a position indicated "
                "by nondiff_argnums as non-differentiable. Tracers cannot be passed as non-differentiable arguments "
                "to custom_vjp functions; instead, nondiff_argnums should only be used for arguments that can't be "
                "or contain JAX tracers, e.g. function-valued arguments. In particular, array-valued arguments "
                "should typically not be indicated as nondiff_argnums.\n"
                f"See {errors._DOCS}#jax.errors.UnexpectedTracerError"
            )


__all__ = ["CustomVJPException", "CustomVJPPrimal", "custom_lin_p", "custom_vjp", "custom_vjp_call_p"]
