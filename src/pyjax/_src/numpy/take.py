"""Reading and writing at integer positions along an axis: take,
take_along_axis, put_along_axis, put, place, unravel_index and
ravel_multi_index.

`take` and `take_along_axis` are single gathers (jitted helpers, as in JAX);
by default out-of-bound indices read a fill value (NaN for floats) instead of
NumPy's error. `put`, `place` and `put_along_axis` return updated copies
(JAX arrays are immutable), so they insist on `inplace=False`.
"""

from __future__ import annotations

import operator

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax.gather_scatter import (
    GatherDimensionNumbers,
    GatherScatterMode,
    gather,
)
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    convert_element_type,
    ensure_arraylike,
    full,
    full_like,
)


def take(a, indices, axis: int | None = None, out=None, mode: str | None = None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value=None):
    """Takes elements of `a` at `indices` along `axis` (of the flattened array
    when `axis` is None).

    Args:
      a: the array to read.
      indices: integer indices, of any shape (it replaces `axis` in the result).
      axis: the axis to index, or None.
      mode: 'fill' (the default: out-of-bound indices read `fill_value`, by
        default NaN for floats), 'clip' or 'wrap'.
      unique_indices, indices_are_sorted: promises about `indices`.
      fill_value: what out-of-bound reads return in 'fill' mode.

    Example:
      >>> jnp.take(jnp.array([[1., 2., 3.], [4., 5., 6.]]), jnp.array([2, 0]), axis=1)
      Array([[3., 1.],
             [6., 4.]], dtype=float32)
    """
    return _take(a, indices, None if axis is None else operator.index(axis), out, mode,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted, fill_value=fill_value)


@jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted", "fill_value"))
def _take(a, indices, axis=None, out=None, mode=None, unique_indices=False, indices_are_sorted=False,
          fill_value=None):
    from pyjax._src.dim_as_value import dimension_as_value
    from pyjax._src.numpy.ufuncs import remainder
    from pyjax._src.numpy.where import _where

    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = ensure_arraylike("take", a, indices)
    if axis is None:
        a = lax_shapes.reshape(a, (aval_of(a).size,))
        axis_ = 0
    else:
        axis_ = canonicalize_axis(axis, aval_of(a).ndim)
    size = aval_of(a).shape[axis_]
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        # gather has no notion of negative indices: wrap them here.
        negative = lax_ew.lt(indices, np.asarray(0, aval_of(indices).dtype)[()])
        # (a symbolic size is added as JAX's `indices + a.shape[axis]` adds it: its value, converted)
        shift = np.asarray(size, aval_of(indices).dtype)[()] if not hasattr(size, "get_vars") else \
            lax_ew.convert_element_type(dimension_as_value(size), aval_of(indices).dtype)
        indices = _where(negative, lax_ew.add(indices, shift), indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = remainder(indices, np.asarray(size, aval_of(indices).dtype)[()])
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    a_shape = list(aval_of(a).shape)
    index_shape = aval_of(indices).shape
    if a_shape[axis_] == 0:
        if aval_of(indices).size != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if aval_of(indices).size == 0:
        return full_like(a, 0, shape=a_shape[:axis_] + list(index_shape) + a_shape[axis_ + 1:])
    slice_sizes = list(a_shape)
    slice_sizes[axis_] = 1
    n = len(index_shape)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(list(range(axis_)) + list(range(axis_ + n, len(a_shape) + n - 1))),
        collapsed_slice_dims=(axis_,), start_index_map=(axis_,))
    return gather(a, lax_shapes.expand_dims(indices, (n,)), dnums, tuple(slice_sizes), mode=gather_mode,
                  unique_indices=unique_indices, indices_are_sorted=indices_are_sorted, fill_value=fill_value)


def _normalize_index(index, axis_size: int):
    # Negative indices count from the end (unsigned ones cannot be negative).
    dtype = aval_of(index).dtype
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return index
    size = np.asarray(axis_size, dtype)[()]
    return lax_ew.select(lax_ew.lt(index, np.asarray(0, dtype)[()]), lax_ew.add(index, size), index)


@jit(static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr, indices, axis: int | None = -1, mode=None, fill_value=None, *,
                    wrap_negative_indices: bool | None = None):
    """Takes values of `arr` at `indices` along `axis`, matching the other axes
    one to one (or broadcasting them): the inverse of sorting by argsort.

    Args:
      arr: the array to read.
      indices: integer array with arr's rank (1-D when `axis` is None).
      axis: the axis the indices run along (None: the flattened array).
      mode: out-of-bound handling, as for `take` ('fill' by default).
      fill_value: what out-of-bound reads return in 'fill' mode.
      wrap_negative_indices: whether negative indices count from the end (by
        default they do unless mode is 'promise_in_bounds').

    Example:
      >>> x = jnp.array([[5, 3, 4], [2, 7, 6]])
      >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
      Array([[3, 4, 5],
             [2, 6, 7]], dtype=int32)
    """
    a, indices = ensure_arraylike("take_along_axis", arr, indices)
    index_dtype = aval_of(indices).dtype
    idx_shape = aval_of(indices).shape
    if not dtypes.issubdtype(index_dtype, np.integer):
        raise TypeError(f"take_along_axis indices must be of integer type, got {index_dtype}")
    if axis is None:
        if len(idx_shape) != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape {idx_shape}")
        a = lax_shapes.reshape(a, (aval_of(a).size,))
        axis = 0
    rank = aval_of(a).ndim
    if rank != len(idx_shape):
        raise ValueError(f"indices and arr must have the same number of dimensions; {len(idx_shape)} vs. {rank}")
    axis_ = canonicalize_axis(axis, rank)
    axis_size = aval_of(a).shape[axis_]
    arr_shape = tuple(1 if i == axis_ else d for i, d in enumerate(aval_of(a).shape))
    out_shape = tuple(np.broadcast_shapes(idx_shape, arr_shape))
    if axis_size == 0:
        return full(out_shape, 0, aval_of(a).dtype)
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:
        wide = np.dtype(np.int64) if axis_size > np.iinfo(np.int32).max else np.dtype(np.int32)
        indices = convert_element_type(indices, wide, False)
        indices = _normalize_index(indices, axis_size)
    # Axes where the indices have length 1 take the whole axis as a window;
    # axes where `arr` has length 1 are squeezed away; the rest are batch axes
    # that operand and indices share.
    index_dims = [i for i, d in enumerate(idx_shape) if i == axis_ or d != 1]
    gather_indices = lax_shapes.reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
    slice_sizes, offset_dims, start_index_map, collapsed = [], [], [], []
    operand_batching, indices_batching, squeezed = [], [], []
    new_i = j = 0
    for i in range(rank):
        if i == axis_:
            slice_sizes.append(1)
            start_index_map.append(new_i)
            collapsed.append(new_i)
            new_i += 1
            j += 1
        elif idx_shape[i] == 1:
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeezed.append(i)
            j += 1
        else:
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            operand_batching.append(new_i)
            indices_batching.append(j)
            new_i += 1
            j += 1
    a = lax_shapes.squeeze(a, squeezed)
    dnums = GatherDimensionNumbers(offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed),
                                   start_index_map=tuple(start_index_map),
                                   operand_batching_dims=tuple(operand_batching),
                                   start_indices_batching_dims=tuple(indices_batching))
    return gather(a, gather_indices, dnums, tuple(slice_sizes), mode="fill" if mode is None else mode,
                  fill_value=fill_value)


@jit(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr, indices, values, axis: int | None, inplace: bool = True, *, mode=None):
    """`arr` with `values` written at `indices` along `axis` (a copy: pass
    ``inplace=False``).

    Example:
      >>> a = jnp.array([[10, 30, 20], [60, 40, 50]])
      >>> jnp.put_along_axis(a, jnp.argmax(a, axis=1, keepdims=True), 99, axis=1, inplace=False)
      Array([[10, 99, 20],
             [99, 40, 50]], dtype=int32)
    """
    from pyjax._src.numpy.creation import indices as make_indices
    from pyjax._src.numpy.shape_ops import broadcast_to

    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arrays"
                         "are immutable. Pass inplace=False to instead return an updated array.")
    arr, indices, values = ensure_arraylike("put_along_axis", arr, indices, values)
    original_shape = aval_of(arr).shape
    original_axis = axis
    if axis is None:
        arr = lax_shapes.reshape(arr, (aval_of(arr).size,))
        axis = 0
    if aval_of(arr).ndim != aval_of(indices).ndim:
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
                         f"arr.ndim={aval_of(arr).ndim} and indices.ndim={aval_of(indices).ndim}.")
    try:
        values = broadcast_to(values, aval_of(indices).shape)
    except ValueError:
        raise ValueError("put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
                         f"values.shape={aval_of(values).shape} and indices.shape={aval_of(indices).shape}.") from None
    axis_ = axis + aval_of(arr).ndim if axis < 0 else axis
    idx = list(make_indices(aval_of(arr).shape, sparse=True))
    idx[axis_] = indices
    result = arr.at[tuple(idx)].set(values, mode=mode)
    if original_axis is None:
        result = lax_shapes.reshape(result, original_shape)
    return result


def _tile_to_size(arr, size: int):
    from pyjax._src.numpy.joining import tile

    if aval_of(arr).size < size:
        arr = tile(arr, int(np.ceil(size / aval_of(arr).size)))
    return arr[:size] if aval_of(arr).size > size else arr


def place(arr, mask, vals, *, inplace: bool = True):
    """`arr` with the positions where `mask` is True filled, in order, from
    `vals` (repeated as needed). A copy: pass ``inplace=False``."""
    from pyjax._src.numpy.nonzero import nonzero

    data, mask_arr, vals_arr = ensure_arraylike("place", arr, mask, vals)
    vals_arr = lax_shapes.reshape(vals_arr, (aval_of(vals_arr).size,))
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are immutable. "
                         "Pass inplace=False to instead return an updated array.")
    if aval_of(data).size != aval_of(mask_arr).size:
        raise ValueError("place: arr and mask must be the same size")
    if not aval_of(vals_arr).size:
        raise ValueError("Cannot place values from an empty array")
    if not aval_of(data).size:
        return data
    size = aval_of(mask_arr).size
    positions = nonzero(lax_shapes.reshape(mask_arr, (size,)), size=size, fill_value=size)[0]
    vals_arr = _tile_to_size(vals_arr, aval_of(positions).shape[0])
    flat = lax_shapes.reshape(data, (aval_of(data).size,))
    return lax_shapes.reshape(flat.at[positions].set(vals_arr, mode="drop"), aval_of(data).shape)


def put(a, ind, v, mode: str | None = None, *, inplace: bool = True):
    """`a` with `v` written at the flat indices `ind` (`v` repeated as
    needed). A copy: pass ``inplace=False``. mode: 'clip' or 'wrap'; by
    default out-of-bound indices are dropped."""
    from pyjax._src.numpy.shape_ops import ravel
    from pyjax._src.numpy.ufuncs import remainder

    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are immutable. "
                         "Pass inplace=False to instead return an updated array.")
    arr, ind_arr, _ = ensure_arraylike("put", a, ind, v)
    ind_arr = ravel(ind_arr)
    v_arr = ravel(v)
    if not aval_of(arr).size or not aval_of(ind_arr).size or not aval_of(v_arr).size:
        return arr
    v_arr = _tile_to_size(v_arr, aval_of(ind_arr).size)
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        from pyjax._src.numpy.ufuncs_extra import clip

        ind_arr = clip(ind_arr, 0, aval_of(arr).size - 1)
        scatter_mode = "promise_in_bounds"
    elif mode == "wrap":
        ind_arr = remainder(ind_arr, aval_of(arr).size)
        scatter_mode = "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return arr.at[unravel_index(ind_arr, aval_of(arr).shape)].set(v_arr, mode=scatter_mode)


def unravel_index(indices, shape) -> tuple:
    """Converts flat indices into a tuple of coordinate arrays for `shape`;
    out-of-bound flat indices are clipped to the first or last position."""
    from pyjax._src.numpy.ufuncs import divmod as divmod_
    from pyjax._src.numpy.where import where

    indices_arr = ensure_arraylike("unravel_index", indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    coords = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        indices_arr, coords[i] = divmod_(indices_arr, s)
    oob_pos = indices_arr > 0
    if dtypes.issubdtype(aval_of(indices_arr).dtype, np.unsignedinteger):
        from pyjax._src.numpy.creation import asarray

        oob_neg = asarray(False)
    else:
        oob_neg = indices_arr < -1
    return tuple(where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(shape, coords))


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *, dtype=None):
    """Converts a tuple of coordinate arrays into flat indices for `dims`.

    mode: 'raise' (needs concrete indices), 'wrap', 'clip' or 'ignore';
    order: 'C' (row-major) or 'F'. `dtype` defaults to the default integer type.
    """
    import math

    from pyjax._src import core, errors
    from pyjax._src.numpy.creation import array
    from pyjax._src.numpy.reductions import any as any_
    from pyjax._src.numpy.ufuncs import remainder
    from pyjax._src.numpy.ufuncs_extra import clip

    assert len(multi_index) == len(dims), f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}"
    dims = tuple(operator.index(d) for d in dims)
    arrays = list(ensure_arraylike("ravel_multi_index", *multi_index)) if len(multi_index) != 1 \
        else [ensure_arraylike("ravel_multi_index", *multi_index)]
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(dtypes.result_type(int, *arrays))
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "ravel_multi_index")
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype={dtype} is not an integer type.")
    if math.prod(dims) - 1 > np.iinfo(dtype).max:
        raise ValueError(f"jnp.ravel_multi_index: dtype={dtype} not large enough to hold flattened index for "
                         f"dims={dims}. Use the dtype argument to pass a suitable dtype "
                         "(e.g. dtype=np.min_scalar_type(prod(dims))).")
    for index in arrays:
        if mode == "raise" and isinstance(index, core.Tracer):
            raise errors.ConcretizationTypeError(
                index, "The error occurred because ravel_multi_index was jit-compiled with mode='raise'. "
                       "Use mode='wrap' or mode='clip' instead.")
        if not dtypes.issubdtype(aval_of(index).dtype, np.integer):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        if any(bool(any_((i < 0) | (i >= d))) for i, d in zip(arrays, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        arrays = [clip(i, 0, d - 1) for i, d in zip(arrays, dims)]
    elif mode == "wrap":
        arrays = [remainder(i, d) for i, d in zip(arrays, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = array(0, dtype=dtype)
    for i, s in zip(arrays, strides):
        result = result + i.astype(dtype) * int(s)
    return result
