"""lax functions that are compositions of primitives: full_like, the
broadcasting helpers, collapse, empty, batch_matmul, dtype and
shape_as_value (`stage` is lax/markers.py's). Each binds only existing primitives, so every transformation
already applies.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.avals import canonicalize_shape
from pyjax._src.lax._standard import as_array

__all__ = ["batch_matmul", "broadcast_like", "broadcast_shapes", "broadcast_to_rank", "collapse", "dtype", "empty",
           "full_like", "shape_as_value"]


def _shape(x) -> tuple:
    aval = getattr(x, "aval", None)
    return tuple(aval.shape) if aval is not None else tuple(np.shape(x))


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None,
              sharding: Any = None) -> Any:
    """Create a full array like ``x``, with its shape and dtype unless given.

    Args:
      x: example array-like, used for shape and dtype information.
      fill_value: a scalar value to fill the entries of the output array.
      dtype: optional, a dtype parameter for the output ndarray.
      shape: optional, a shape parameter for the output ndarray.
      sharding: an optional sharding specification for the resulting array.

    Returns:
      An array with the same shape as ``x`` (or ``shape``) with its entries set
      to ``fill_value``, weakly typed when ``x`` is and ``dtype`` is not given.
    """
    from pyjax._src.lax.elementwise import _convert_element_type
    from pyjax._src.lax.shapes import full

    fill_shape = _shape(x) if shape is None else canonicalize_shape(shape)
    weak_type = dtype is None and dtypes.is_weakly_typed(x)
    dtype = dtypes.dtype(dtype if dtype is not None else x, canonicalize=True)
    if isinstance(dtype, dtypes.ExtendedDType):
        return full(fill_shape, fill_value, dtype, sharding=sharding)
    # (the value converted first, weakly typed when x is, then broadcast: no
    # convert after the broadcast, as JAX 0.11 builds it)
    return full(fill_shape, _convert_element_type(fill_value, dtype, weak_type), sharding=sharding)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """Returns the shape that results from NumPy broadcasting of ``shapes``.

    Raises:
      ValueError: if shapes are not broadcast-compatible.
    """
    assert len(shapes)  # JAX's own check: there is no broadcast of no shapes
    given = [tuple(s) for s in shapes]
    ndim = max(len(s) for s in given)
    out = [1] * ndim
    for s in given:
        for i, d in enumerate(s, ndim - len(s)):
            if d != 1 and out[i] not in (1, d):
                raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}")
            if d != 1:
                out[i] = int(d)
    return tuple(out)


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """Adds leading dimensions of size 1 to give ``x`` rank ``rank``."""
    from pyjax._src.lax.shapes import broadcast

    ndim = len(_shape(x))
    if ndim == rank:
        return as_array(x)
    return broadcast(x, (1,) * (rank - ndim))


def broadcast_like(arr: Any, like_arr: Any) -> Any:
    """Broadcasts an array to match the shape of another array (NumPy's rules)."""
    from pyjax._src.avals import ShapedArray
    from pyjax._src.lax.shapes import broadcast_in_dim

    shape = tuple(core.get_aval(like_arr).shape)
    arr = as_array(arr)
    aval = core.get_aval(arr)
    if aval.shape == shape:
        return arr
    if len(shape) < aval.ndim:
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={aval.shape} shape={shape}")
    lead = len(shape) - aval.ndim
    if any(d not in (1, s) for d, s in zip(aval.shape, shape[lead:])):
        raise ValueError(f"Incompatible types for broadcasting: input type={aval.strip_weak_type()} and "
                         f"requested type={ShapedArray(shape, aval.dtype)}")
    return broadcast_in_dim(arr, shape, tuple(range(lead, len(shape))))


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """Collapses dimensions ``[start_dimension, stop_dimension)`` of an array into one.

    For example, if ``operand`` has shape ``[2, 3, 4]``,
    ``collapse(operand, 0, 2).shape == [6, 4]``. The elements of the collapsed
    dimension are laid out major-to-minor.
    """
    from pyjax._src.lax.shapes import reshape

    shape = tuple(operand.shape)
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def empty(shape: Any, dtype: Any, *, out_sharding: Any = None) -> Any:
    """Create an array of the given shape and dtype whose contents are unspecified.

    XLA allocates such a buffer without writing it; on the NumPy backend it is
    zero-filled (JAX's CPU backend also gives zeros).
    """
    from pyjax._src.lax.shapes import full

    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    return full(shape, 0, dtype, sharding=out_sharding)


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
    """Batch matrix multiplication: the last two axes multiply, the others are batch axes."""
    from pyjax._src.lax.dot import dot_general

    lhs_ndim, rhs_ndim = len(_shape(lhs)), len(_shape(rhs))
    if min(lhs_ndim, rhs_ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs_ndim}, {rhs_ndim}")
    if lhs_ndim != rhs_ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs_ndim}, {rhs_ndim}")
    batch = tuple(range(lhs_ndim - 2))
    return dot_general(lhs, rhs, (((lhs_ndim - 1,), (rhs_ndim - 2,)), (batch, batch)), precision=precision)


def dtype(x: Any) -> np.dtype:
    """The canonical dtype of a value or dtype-like (``float64`` becomes ``float32`` without x64)."""
    return dtypes.dtype(x, canonicalize=True)


def shape_as_value(shape: Sequence[int]) -> Any:
    """A shape as a 1-D integer array (a NumPy array for a static, nonempty
    shape; with symbolic dimensions, the concatenation of their values)."""
    from pyjax._src.dim_as_value import dimension_as_value
    from pyjax._src.lax.elementwise import convert_element_type
    from pyjax._src.lax.shapes import concatenate, expand_dims, full

    shape = tuple(shape)
    symbolic = [hasattr(d, "get_vars") for d in shape]
    if any(symbolic):  # (the default integer type, as for any shape with a symbolic dimension)
        int_dtype = dtypes.canonicalize_dtype(np.int64)
    else:
        big = any(d > np.iinfo(np.int32).max for d in shape)
        int_dtype = dtypes.canonicalize_dtype(np.int64 if big else np.int32)
    if not shape:
        return full((0,), np.array(0, dtype=int_dtype))
    if not any(symbolic):
        return np.asarray(shape, dtype=int_dtype)
    return concatenate([expand_dims(convert_element_type(dimension_as_value(d), int_dtype), (0,)) for d in shape], 0)
