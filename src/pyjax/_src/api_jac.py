"""Jacobians and friends, built from the autodiff entry points of api_ad.py:
jacfwd (vmap of jvp over the standard basis), jacrev and jacobian (vmap of
the VJP function), hessian (jacfwd of jacrev), linear_transpose (transpose
a function promised to be linear) and closure_convert (hoist the traced
values a function closes over into explicit arguments).

They are built the way JAX 0.11 builds them — the same basis (`jnp.eye`
split into the input pytree), the same vmap out_axes, the same unravelling
(split, reshape, dtype cast) — so make_jaxpr prints the same equations.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.api_ad import (
    _wraps,
    argnums_partial,
    as_array,
    check_arg,
    check_callable,
    check_input_dtype_revderiv,
    check_output_dtype_revderiv,
    ensure_index,
    jvp_unchecked,
    vjp,
)
from pyjax._src.tree_util import (
    Partial,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_transpose,
    tree_unflatten,
)

_JAC_DOC = (
    "Jacobian of {fun} with respect to positional argument(s) {argnums}. Takes the same arguments "
    "as {fun} but returns the jacobian of the output with respect to the arguments at positions {argnums}."
)


# ---------------------------------------------------------------------------
# The standard basis and unravelling flat Jacobian blocks into pytrees


def _split(arr, sizes: list[int], axis: int) -> list:
    """Splits `arr` along `axis` into consecutive pieces of these sizes (one
    `split` equation even for a single piece, as JAX emits it)."""
    import pyjax.numpy as jnp

    return jnp.split(arr, np.cumsum(sizes[:-1]), axis)


def _cast_like(x, example, always: bool):
    """x cast to the dtype and weak type of `example` (complex values to a
    real example lose their imaginary part). JAX's cast carries a sharding
    that makes it a no-op equation only when nothing changes, except for the
    standard basis, whose sharding spec never matches (`always`)."""
    import pyjax.numpy as jnp
    from pyjax._src.lax.elementwise import convert_element_type_p

    aval = core.get_aval(example)
    if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) and not dtypes.issubdtype(aval.dtype, np.complexfloating):
        x = jnp.real(x)
    x_aval = core.get_aval(x)
    if not always and x_aval.dtype == aval.dtype and x_aval.weak_type == aval.weak_type:
        return x
    return convert_element_type_p.bind(x, new_dtype=aval.dtype, weak_type=aval.weak_type, sharding=None)


def _unravel_array_into_pytree(pytree, axis: int, example, arr, always_cast: bool = False):
    """Splits `arr` along `axis` into one block per leaf of `pytree`, each
    reshaped to (arr's dims before axis, leaf shape, arr's dims after axis)
    and cast to the dtype of `example` (or of the leaf when example is None)."""
    import pyjax.numpy as jnp

    leaves, treedef = tree_flatten(pytree)
    leaf_avals = [core.get_aval(leaf) for leaf in leaves]
    arr_shape = core.get_aval(arr).shape
    parts = _split(arr, [a.size for a in leaf_avals], axis)
    blocks = []
    for part, leaf, leaf_aval in zip(parts, leaves, leaf_avals, strict=True):
        shape = arr_shape[:axis] + leaf_aval.shape + arr_shape[axis + 1:]
        blocks.append(_cast_like(jnp.reshape(part, shape), leaf if example is None else example, always_cast))
    return tree_unflatten(treedef, blocks)


def _std_basis(pytree):
    """The identity matrix for the flattened leaves of `pytree`, split back
    into the pytree along axis 1: one basis vector per row."""
    import pyjax.numpy as jnp

    leaves = tree_leaves(pytree)
    n = sum(core.get_aval(leaf).size for leaf in leaves)
    dtype = dtypes.result_type(*leaves)
    return _unravel_array_into_pytree(pytree, 1, None, jnp.eye(n, dtype=dtype), always_cast=True)


def _jacfwd_unravel(input_pytree, output_leaf, arr):
    return _unravel_array_into_pytree(input_pytree, -1 % core.get_aval(arr).ndim, output_leaf, arr)


def _jacrev_unravel(output_pytree, input_leaf, arr):
    return _unravel_array_into_pytree(output_pytree, 0, input_leaf, arr)


# ---------------------------------------------------------------------------
# jacfwd, jacrev, jacobian, hessian


def _selected(argnums, per_argument):
    # a single int argnums differentiates one argument, which is not wrapped in a tuple
    return per_argument[0] if isinstance(argnums, int) else per_argument


def _check_input_dtype_jacfwd(holomorphic: bool, x) -> None:
    check_arg(x)
    dtype = core.get_aval(x).dtype
    if dtypes.issubdtype(dtype, dtypes.extended):
        raise TypeError(f"jacfwd with input element type {dtype.name}")
    if holomorphic:
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise TypeError(f"jacfwd with holomorphic=True requires inputs with complex dtype, but got {dtype.name}.")
    elif not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(
            "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got "
            f"{dtype.name}. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            "non-holomorphic functions involving complex inputs or integer inputs, use jax.jvp directly."
        )


def _check_output_dtype_jacfwd(holomorphic: bool, x) -> None:
    dtype = core.get_aval(x).dtype
    if holomorphic and not dtypes.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"jacfwd with holomorphic=True requires outputs with complex dtype, but got {dtype.name}.")


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """Build the Jacobian of ``fun`` one input direction at a time, in forward mode.

    Forward mode pushes the whole standard basis of the inputs through
    :func:`jax.jvp` under :func:`jax.vmap`, so it suits functions with fewer inputs
    than outputs.

    Args:
      fun: the function to differentiate; the differentiated arguments and its
        outputs are arrays, scalars or pytrees of them.
      argnums: which positional argument(s) to differentiate with respect to, an
        integer or a sequence of integers (default 0).
      has_aux: when ``True``, ``fun`` returns ``(output, aux)`` and ``aux`` is
        passed through undifferentiated (default ``False``).
      holomorphic: when ``True``, ``fun`` is promised to be complex-differentiable
        and complex inputs and outputs are allowed (default ``False``).

    Returns:
      A function taking ``fun``'s arguments and returning the Jacobian, or
      ``(jacobian, aux)`` when ``has_aux`` is set. For an output leaf of shape
      ``out`` and an input leaf of shape ``in`` the block has shape ``out + in``.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jax.jacfwd(lambda x: jnp.stack([x[0] * x[1], x[1] ** 2]))(jnp.array([2., 3.]))
      Array([[3., 2.],
             [0., 6.]], dtype=float32)
    """
    from pyjax._src.api import vmap

    check_callable(fun)
    argnums = ensure_index(argnums)

    @_wraps(fun, _JAC_DOC, argnums)
    def jacfun(*args, **kwargs):
        f_partial, dyn_args = argnums_partial(fun, argnums, args, kwargs)
        tree_map(functools.partial(_check_input_dtype_jacfwd, holomorphic), dyn_args)
        dyn_args = tree_map(as_array, dyn_args)
        push_forward = functools.partial(jvp_unchecked, f_partial, dyn_args, has_aux=has_aux)
        # the primal output (and aux) is the same for every basis vector
        batched_out_axes = (None, -1, None) if has_aux else (None, -1)
        out, columns, *aux = vmap(push_forward, out_axes=batched_out_axes)(_std_basis(dyn_args))
        tree_map(functools.partial(_check_output_dtype_jacfwd, holomorphic), out)
        jac_tree = tree_map(functools.partial(_jacfwd_unravel, _selected(argnums, dyn_args)), out, columns)
        return (jac_tree, *aux) if has_aux else jac_tree

    return jacfun


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """Build the Jacobian of ``fun`` one output direction at a time, in reverse mode.

    Reverse mode pulls the whole standard basis of the outputs back through the
    :func:`jax.vjp` function under :func:`jax.vmap`, so it suits functions with more
    inputs than outputs.

    Args:
      fun, argnums, has_aux, holomorphic: as for :func:`jacfwd`.
      allow_int: when ``True``, integer inputs are accepted and get ``float0``
        derivatives (default ``False``).

    Returns:
      A function returning the Jacobian in the same layout as :func:`jacfwd`.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jac = jax.jacrev(lambda p: p["w"] * p["b"])({"w": jnp.ones(2), "b": 3.0})
      >>> jac["w"]
      Array([[3., 0.],
             [0., 3.]], dtype=float32)
    """
    from pyjax._src.api import vmap

    check_callable(fun)
    argnums = ensure_index(argnums)

    @_wraps(fun, _JAC_DOC, argnums)
    def jacfun(*args, **kwargs):
        f_partial, dyn_args = argnums_partial(fun, argnums, args, kwargs)
        tree_map(functools.partial(check_input_dtype_revderiv, "jacrev", holomorphic, allow_int), dyn_args)
        out, pull_back, *aux = vjp(f_partial, *dyn_args, has_aux=has_aux)
        tree_map(functools.partial(check_output_dtype_revderiv, "jacrev", holomorphic), out)
        rows = _selected(argnums, vmap(pull_back)(_std_basis(out)))
        inputs = _selected(argnums, dyn_args)
        # blocks come out grouped by input; the result groups them by output
        by_input = tree_map(functools.partial(_jacrev_unravel, out), inputs, rows)
        jac_tree = tree_transpose(tree_structure(inputs), tree_structure(out), by_input)
        return (jac_tree, *aux) if has_aux else jac_tree

    return jacfun


def jacobian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
             holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """Same as :func:`jacrev`."""
    options = dict(argnums=argnums, has_aux=has_aux, holomorphic=holomorphic, allow_int=allow_int)
    return jacrev(fun, **options)


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """Build the matrix of second derivatives of ``fun``, as ``jacfwd(jacrev(fun))``.

    For an output leaf of shape ``out`` and input leaves of shapes ``in1`` and
    ``in2``, the corresponding block has shape ``out + in1 + in2``; the result's
    tree nests the output's structure around two copies of the input's.

    Args:
      fun, argnums, has_aux, holomorphic: as for :func:`jacfwd`.

    Returns:
      A function taking ``fun``'s arguments and returning the Hessian, or
      ``(hessian, aux)`` when ``has_aux`` is set.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jax.hessian(lambda x: x[0] ** 2 * x[1])(jnp.array([1., 2.]))
      Array([[4., 2.],
             [2., 0.]], dtype=float32)
    """
    options = dict(argnums=argnums, has_aux=has_aux, holomorphic=holomorphic)
    return jacfwd(jacrev(fun, **options), **options)


# ---------------------------------------------------------------------------
# linear_transpose


def _abstractify(x) -> core.ShapedArray:
    """The aval of an example argument (arrays, scalars, or anything with
    shape and dtype, such as ShapeDtypeStruct)."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, core.ShapedArray):
        return aval
    if not isinstance(x, (np.ndarray, np.generic)) and hasattr(x, "shape") and hasattr(x, "dtype"):
        return core.ShapedArray(tuple(x.shape), dtypes.canonicalize_dtype(x.dtype), bool(getattr(x, "weak_type", False)))
    return core.get_aval(x)


def _trace_linear(fun: Callable, in_avals: Sequence[core.ShapedArray]):
    """Traces `fun` with every input unknown: the equations that depend on
    an input are recorded (the linear jaxpr); the others are handed to the
    enclosing trace at once and their results become the jaxpr's consts."""
    from pyjax._src.interpreters.partial_eval import PartialEvalTrace
    from pyjax._src.interpreters.dce import dce_jaxpr

    trace = PartialEvalTrace(core.current_trace())
    args = [trace.new_arg(a) for a in in_avals]
    try:
        with core.set_current_trace(trace):
            outs = fun(*args)
            outs = [o if trace.is_unknown(o) else _instantiate_known(trace, o) for o in outs]
        jaxpr = trace.to_jaxpr(outs)
    finally:
        trace.valid = False
    jaxpr, _ = dce_jaxpr(jaxpr)
    return jaxpr


def _instantiate_known(trace, x):
    """A known output made unknown (JAX's instantiate=True): recorded as a
    copy of the known value, which becomes a const of the linear jaxpr."""
    from pyjax._src.lax.elementwise import copy_p

    return trace.record(copy_p, [x], {})


def linear_transpose(fun: Callable, *primals, reduce_axes=()) -> Callable:
    """Return the transpose of a function that is promised to be linear.

    For a linear ``fun`` this gives what :func:`jax.vjp` would, without running a
    forward pass first. The results keep the dtypes of ``primals``; integer
    dtypes are allowed only when every input and output is an integer.

    Args:
      fun: the linear function.
      *primals: example arguments (arrays, scalars, pytrees of them, or anything
        with ``shape`` and ``dtype`` such as :class:`jax.ShapeDtypeStruct`); only
        their shapes and dtypes are used.

    Returns:
      A function from a cotangent shaped like ``fun(*primals)`` to a tuple shaped
      like ``primals``.

    Example:
      >>> import numpy as np
      >>> import pyjax as jax
      >>> s = jax.ShapeDtypeStruct((), np.dtype(np.float32))
      >>> jax.linear_transpose(lambda x, y: 2.0 * x + y, s, s)(1.0)
      (Array(2., dtype=float32), Array(1., dtype=float32, weak_type=True))
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    primals_flat, in_tree = tree_flatten(primals)
    in_avals = [_abstractify(x) for x in primals_flat]
    out_store: list = []

    def flat_fun(*leaves):
        out_flat, out_tree = tree_flatten(fun(*tree_unflatten(in_tree, leaves)))
        out_store.append(out_tree)
        return out_flat

    jaxpr = _trace_linear(flat_fun, in_avals)
    out_tree = out_store[0]
    out_avals = tuple(jaxpr.out_avals)
    in_dtypes = [a.dtype for a in in_avals]
    out_dtypes = [a.dtype for a in out_avals]
    if not (all(dtypes.issubdtype(d, np.inexact) for d in in_dtypes + out_dtypes)
            or all(dtypes.issubdtype(d, np.integer) for d in in_dtypes + out_dtypes)):
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and integer -> "
            f"integer functions, but got {in_dtypes} -> {out_dtypes}."
        )

    def transposed_fun(consts, out_cotangent):
        from pyjax._src.ad_util import instantiate
        from pyjax._src.interpreters.transpose import backward_pass

        out_cts, ct_tree = tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"cotangent tree does not match function output, expected {out_tree} but got {ct_tree}")
        if not all(_typecheck(aval, ct) for aval, ct in zip(out_avals, out_cts, strict=True)):
            raise TypeError(f"cotangent type does not match function output, expected {out_avals} but got {out_cts}")
        in_cts = backward_pass(jaxpr, consts, [as_array(ct) for ct in out_cts])
        return tree_unflatten(in_tree, [as_array(instantiate(ct)) for ct in in_cts])

    # A Partial, so the transposed function is a pytree (its consts are traced
    # when it is passed through jit).
    return Partial(transposed_fun, list(jaxpr.consts))


def _typecheck(aval: core.ShapedArray, x) -> bool:
    """Whether `x` has the shape and dtype of `aval` (weak types aside)."""
    try:
        x_aval = core.get_aval(x)
    except TypeError:
        return False
    return x_aval.shape == aval.shape and x_aval.dtype == aval.dtype


# ---------------------------------------------------------------------------
# closure_convert


def _maybe_perturbed(x) -> bool:
    """Whether `x` may carry a nonzero tangent (JAX's heuristic): only
    tracers can, and a staged value only if its tangent type is not float0."""
    from pyjax._src.ad_util import Zero, tangent_aval
    from pyjax._src.interpreters.jvp import JVPTracer
    from pyjax._src.interpreters.staging import DynamicJaxprTracer

    if not isinstance(x, core.Tracer):
        return False
    if type(x) is JVPTracer:
        return type(x.tangent) is not Zero or _maybe_perturbed(x.primal)
    if isinstance(x, DynamicJaxprTracer):
        return tangent_aval(x.aval).dtype != dtypes.float0
    inner = [getattr(x, name) for name in ("val", "primal") if hasattr(x, name)]
    return any(_maybe_perturbed(v) for v in inner) if inner else True


def closure_convert(fun: Callable, *example_args) -> tuple[Callable, list[Any]]:
    """Turn the differentiable values ``fun`` closes over into explicit arguments.

    Custom-derivative rules (:func:`jax.custom_vjp` and friends) may not close
    over tracers; tracing ``fun`` once on the types of ``example_args`` finds the
    tracers it captures so that they can be passed in instead.

    Args:
      fun: a pure Python function.
      *example_args: arrays, scalars or pytrees of them giving the types of
        ``fun``'s arguments.

    Returns:
      ``(converted, hoisted)``: ``converted`` takes ``fun``'s arguments followed by
      the hoisted values, and ``hoisted`` is the list of those values.

    Example:
      >>> import pyjax as jax
      >>> converted, hoisted = jax.closure_convert(lambda x: x * 2.0, 1.0)
      >>> hoisted, converted(3.0)
      ([], Array(6., dtype=float32, weak_type=True))
    """
    from pyjax._src.interpreters.staging import DebugInfo, func_src_info, trace_to_jaxpr
    from pyjax._src.jaxpr import eval_jaxpr

    flat_args, in_tree = tree_flatten(example_args)
    in_avals = [core.get_aval(x) for x in flat_args]
    out_store: list = []

    def flat_fun(*leaves):
        out_flat, out_tree = tree_flatten(fun(*tree_unflatten(in_tree, leaves)))
        out_store.append(out_tree)
        return out_flat

    jaxpr, _ = trace_to_jaxpr(flat_fun, in_avals, DebugInfo("closure_convert", func_src_info(fun), None))
    out_tree = out_store[0]
    which = [_maybe_perturbed(c) for c in jaxpr.consts]
    closure_consts = [c for c, hoisted in zip(jaxpr.consts, which, strict=True) if not hoisted]
    hoisted_consts = [c for c, hoisted in zip(jaxpr.consts, which, strict=True) if hoisted]
    num_hoisted = len(hoisted_consts)

    def converted_fun(*args_and_consts):
        num_args = len(args_and_consts) - num_hoisted
        args, hoisted = args_and_consts[:num_args], args_and_consts[num_args:]
        kept, given = iter(closure_consts), iter(hoisted)
        consts = [next(given) if h else next(kept) for h in which]
        all_args, in_tree2 = tree_flatten(tuple(args))
        if in_tree != in_tree2:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have the same Pytree "
                f"structure as the example arguments passed when closure_convert was called. "
                f"Expected {in_tree}, but got {in_tree2}"
            )
        return tree_unflatten(out_tree, [as_array(o) for o in eval_jaxpr(jaxpr, consts, *all_args)])

    return converted_fun, hoisted_consts


__all__ = ["closure_convert", "hessian", "jacfwd", "jacobian", "jacrev", "linear_transpose"]
