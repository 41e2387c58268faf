"""`jax.pure_callback`: a Python function called on NumPy values from inside
a traced program.

The `pure_callback` primitive carries the flattened callback and the result
types the user promised; its NumPy impl calls the callback and checks what
comes back against those types (JAX's messages). The NumPy jit compiler
calls impls, so under jit the callback runs at run time, as in JAX. A pure
callback has no derivative (JAX's errors suggest custom_jvp / custom_vjp);
under vmap it follows `vmap_method`: a scan of per-example calls
('sequential'), one call on the batched values ('expand_dims',
'broadcast_all', 'legacy_vectorized'), or an error (None).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.lax._standard import as_array
from pyjax._src.tree_util import (
    PyTreeDef,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_unflatten,
)

__all__ = ["pure_callback", "pure_callback_p"]

_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized", None]


@dataclasses.dataclass(frozen=True)
class _FlatCallback:
    """The user's callback, callable on flat arguments with flat results.

    Two calls of one function on one argument structure give equal params,
    so jit caches and equation printing treat them alike.
    """

    callback_func: Callable[..., Any]
    in_tree: PyTreeDef  # the (args, kwargs) structure of the call

    def __call__(self, *flat_args) -> list:
        args, kwargs = tree_unflatten(self.in_tree, flat_args)
        return tree_leaves(self.callback_func(*args, **kwargs))


pure_callback_p = Primitive("pure_callback", multiple_results=True)
pure_callback_p.declare(sharding_reason='host callback: results typed by the declared result shapes')


@pure_callback_p.def_abstract_eval
def _pure_callback_abstract_eval(*avals, callback, result_avals, sharding, vmap_method):
    return list(result_avals)


def checked_results(values, result_avals, what: str = "callback") -> list:
    """The callback's results as NumPy arrays of the promised types (JAX's
    errors when the count, a shape or a dtype differs)."""
    if len(values) != len(result_avals):
        raise RuntimeError("Mismatched number of outputs from callback. "
                           f"Expected: {len(result_avals)}, Actual: {len(values)}")
    outs = []
    for i, (value, aval) in enumerate(zip(values, result_avals, strict=True)):
        arr = np.asarray(value)
        arr = arr.astype(dtypes.canonicalize_dtype(arr.dtype), copy=False)
        if arr.shape != aval.shape:
            raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                               f"Expected: {aval.shape}, Actual: {arr.shape}")
        if arr.dtype != aval.dtype:
            raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                               f"Expected: {aval.dtype}, Actual: {arr.dtype}")
        outs.append(arr)
    return outs


def host_arrays(values) -> list:
    """The operands as the Arrays a host callback receives (JAX hands it
    arrays placed on the CPU device, not NumPy arrays)."""
    from pyjax._src.array import device_put_numpy

    return [device_put_numpy(np.asarray(v)) for v in values]


def pure_callback_impl(*args, callback, result_avals, sharding, vmap_method) -> list:
    """Calls the callback on NumPy values (eagerly, or from jit's compiled code)."""
    return checked_results(callback(*host_arrays(args)), result_avals)


def _check_shape_dtype(shape_dtype) -> None:
    dt = np.dtype(shape_dtype.dtype)
    if dtypes.canonicalize_dtype(dt) != dt:
        raise ValueError(
            "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled")


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  sharding: Any = None, vmap_method: str | None = None, **kwargs: Any) -> Any:
    """Calls a pure Python callback. Works under :func:`jax.jit` and :func:`jax.vmap`.

    The callback is called on NumPy arrays and must return values matching
    ``result_shape_dtypes``. It must be free of side effects: the call may be
    skipped when its results are unused, or repeated.

    Args:
      callback: function to execute on the host. It is called with NumPy
        arrays for ``args`` and ``kwargs`` and must return a pytree of arrays
        with the structure, shapes and dtypes of ``result_shape_dtypes``.
      result_shape_dtypes: a pytree of objects with ``shape`` and ``dtype``
        (e.g. :class:`jax.ShapeDtypeStruct`) describing the results.
      *args: the positional arguments to the callback.
      sharding: optional sharding of the outputs (one device: unused).
      vmap_method: how the callback behaves under :func:`jax.vmap`:
        ``"sequential"`` (a loop of per-example calls), ``"sequential_unrolled"``,
        ``"expand_dims"`` (unbatched inputs get a leading axis of size 1),
        ``"broadcast_all"`` (unbatched inputs are broadcast to the batch size),
        ``"legacy_vectorized"``; None (the default) makes vmap raise.
      **kwargs: the keyword arguments to the callback.

    Returns:
      the callback's results, with the structure of ``result_shape_dtypes``.

    Examples:
      >>> def host_sin(x): return np.sin(x)
      >>> f = jax.jit(lambda x: jax.pure_callback(host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x))
      >>> f(jnp.zeros(2))
      Array([0., 0.], dtype=float32)
    """
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {_VMAP_METHODS}, "
                         f"but got: {vmap_method}")
    flat_args, in_tree = tree_flatten((args, kwargs))
    tree_map(_check_shape_dtype, result_shape_dtypes)
    result_avals = tree_map(lambda s: ShapedArray(tuple(s.shape), np.dtype(s.dtype)), result_shape_dtypes)
    flat_result_avals, out_tree = tree_flatten(result_avals)
    outs = pure_callback_p.bind(*[as_array(a) for a in flat_args], callback=_FlatCallback(callback, in_tree),
                                result_avals=tuple(flat_result_avals), sharding=sharding, vmap_method=vmap_method)
    return tree_unflatten(out_tree, outs)


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. "
                     "Please use `jax.custom_jvp` to use callbacks while taking gradients.")


def _pure_callback_transpose(cts, *args, **params):
    raise ValueError("Pure callbacks do not support transpose. "
                     "Please use `jax.custom_vjp` to use callbacks while taking gradients.")


def callback_batch_rule(primitive, axis_data, args, dims, *, vmap_method, result_avals, **params):
    """vmap of a callback primitive per `vmap_method` (shared with the FFI-style
    callbacks): every output is batched on axis 0."""
    from pyjax._src.lax.batching_util import moveaxis
    from pyjax._src.lax.control_flow import scan
    from pyjax._src.lax.shapes import broadcast

    size = axis_data.size
    mapped = [d is not batching.not_mapped for d in dims]
    args = [moveaxis(x, d, 0) if m else x for x, d, m in zip(args, dims, mapped, strict=True)]
    batched_avals = tuple(ShapedArray((size,) + a.shape, a.dtype, a.weak_type) for a in result_avals)
    if vmap_method == "legacy_vectorized":
        outs = primitive.bind(*args, vmap_method=vmap_method, result_avals=batched_avals, **params)
    elif vmap_method in ("expand_dims", "broadcast_all"):
        lead = size if vmap_method == "broadcast_all" else 1
        args = [x if m else broadcast(x, (lead,)) for x, m in zip(args, mapped, strict=True)]
        outs = primitive.bind(*args, vmap_method=vmap_method, result_avals=batched_avals, **params)
    elif vmap_method in ("sequential", "sequential_unrolled"):
        unbatched = [x for x, m in zip(args, mapped, strict=True) if not m]
        batched = [x for x, m in zip(args, mapped, strict=True) if m]

        def body(carry, xs):
            fixed, per_example = iter(unbatched), iter(xs)
            merged = [next(per_example) if m else next(fixed) for m in mapped]
            return carry, primitive.bind(*merged, vmap_method=vmap_method, result_avals=result_avals, **params)

        _, outs = scan(body, (), batched, unroll=vmap_method == "sequential_unrolled")
    else:
        raise NotImplementedError(
            f"vmap is only supported for the {primitive.name} primitive when vmap_method "
            "is one of 'sequential', 'sequential_unrolled', 'expand_dims', "
            f"'broadcast_all', or 'legacy_vectorized'. Got vmap_method={vmap_method!r}.")
    return list(outs), [0] * len(outs)


pure_callback_p.def_jvp(_pure_callback_jvp)
pure_callback_p.def_transpose(_pure_callback_transpose)
pure_callback_p.def_batch(lambda axis_data, args, dims, **params:
                          callback_batch_rule(pure_callback_p, axis_data, args, dims, **params))
