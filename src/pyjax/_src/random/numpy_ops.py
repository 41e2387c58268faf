"""The few jax.numpy / lax helpers the samplers need that pyjax.numpy does
not offer yet, each written to stage the same equations as JAX's own.

When pyjax.numpy grows the public function (``jnp.clip``, ``jnp.take``,
``jnp.cumsum`` ...), the samplers should call it and the helper here can go.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import gather_scatter as lax_gather
from pyjax._src.lax import reductions as lax_reductions
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.creation import asarray
from pyjax._src.numpy.ufuncs import maximum, minimum
from pyjax._src.numpy.where import where


def shape_of(x) -> tuple:
    """``np.shape`` that also reads tracers and Arrays."""
    aval = getattr(x, "aval", None)
    return tuple(aval.shape) if aval is not None else np.shape(x)


def ndim_of(x) -> int:
    return len(shape_of(x))


def dtype_of(x):
    """lax's dtype of a value: Python scalars give their canonical default."""
    return dtypes.dtype(x, canonicalize=True)


def const(example, value):
    """``value`` as a constant of ``example``'s dtype (lax's ``_const``): a
    Python scalar stays one (a weak literal) when its type already matches."""
    dtype = dtype_of(example)
    if dtypes.is_python_scalar(example):
        value = dtypes.scalar_type_of(example)(value)
        return value if dtype == dtype_of(value) else np.array(value, dtype)
    return np.array(value, dtype)


def broadcast_to_rank(x, rank: int):
    """Adds leading size-1 axes up to ``rank`` (lax's ``broadcast_to_rank``)."""
    ndim = ndim_of(x)
    if ndim == rank:
        return asarray(x)
    return lax_shapes.broadcast(x, (1,) * (rank - ndim))


@jit
def clip(arr=None, /, min=None, max=None):
    """``jnp.clip``: ``minimum(max, maximum(min, arr))``, as one jitted call."""
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)


def _normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % max(ndim, 1)


@jit(static_argnames=("axis", "unique_indices"))
def _take(a, indices, axis, unique_indices=False):
    # jnp.take's default: negative indices wrap once, others out of range fill.
    size = shape_of(a)[axis]
    indices = where(lax.lt(indices, const(indices, 0)), lax.add(indices, const(indices, size)), indices)
    index_dims = ndim_of(indices)
    slice_sizes = list(shape_of(a))
    slice_sizes[axis] = 1
    offset_dims = tuple(range(axis)) + tuple(range(axis + index_dims, ndim_of(a) + index_dims - 1))
    dnums = lax_gather.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                              start_index_map=(axis,))
    indices = lax_shapes.broadcast_in_dim(indices, (*shape_of(indices), 1), tuple(range(index_dims)))
    return lax_gather.gather(a, indices, dnums, tuple(slice_sizes), mode="fill",
                             unique_indices=unique_indices)


def take(a, indices, axis: int, unique_indices: bool = False):
    """``jnp.take(a, indices, axis)``: a gather along one axis."""
    a = asarray(a)
    indices = asarray(indices)
    axis = _normalize_axis(axis, ndim_of(a))
    if not ndim_of(indices):
        # A 0-d index goes through as a 1-element vector: the NumPy backend's
        # gather returns a 1-element buffer for a scalar result.
        out = _take(a, lax_shapes.reshape(indices, (1,)), axis=axis, unique_indices=unique_indices)
        return lax_shapes.squeeze(out, (axis,))
    return _take(a, indices, axis=axis, unique_indices=unique_indices)


@jit(static_argnames=("axis",))
def cumsum(a, axis: int = 0):
    """``jnp.cumsum`` along one axis."""
    from pyjax._src.lax.windowed import cumsum as lax_cumsum  # (its family loads with its first use)
    return lax_cumsum(a, axis=axis)


@jit
def searchsorted(sorted_arr, query):
    """``jnp.searchsorted(a, v)`` (side='left') for a 1-D ``a``: how many
    elements of ``a`` are below each query. (JAX's default method is a scan;
    counting gives the same indices without control flow.)"""
    below = lax.lt(lax_shapes.broadcast_in_dim(sorted_arr, (*shape_of(query), shape_of(sorted_arr)[0]),
                                               (ndim_of(query),)),
                   lax_shapes.broadcast_in_dim(query, (*shape_of(query), shape_of(sorted_arr)[0]),
                                               tuple(range(ndim_of(query)))))
    count = lax_reductions.reduce_sum(lax.convert_element_type(below, np.int32), (ndim_of(query),))
    return count


def promote_dtypes_inexact(*args):
    """The arguments converted to their common inexact dtype (no rank promotion)."""
    to_dtype, weak_type = dtypes.result_type(*args, return_weak_type_flag=True)
    to_dtype = dtypes.to_inexact_dtype(to_dtype)
    return [lax._convert_element_type(x, to_dtype, weak_type) for x in args]


__all__ = ["broadcast_to_rank", "clip", "const", "cumsum", "dtype_of", "ndim_of", "promote_dtypes_inexact", "searchsorted",
           "shape_of", "take"]
