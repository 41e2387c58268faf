"""Reshaping and joining: reshape, ravel, transpose, swapaxes, moveaxis,
expand_dims, squeeze, broadcast_to, broadcast_arrays, concatenate, stack,
flip.

Each is a static rearrangement expressed with lax shape primitives; shapes
and axes must be concrete Python integers.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import aval_of, canonicalize_axis, check_arraylike, ensure_array, promote_dtypes


def reshape(a, shape=None, order: str = "C", *, newshape=None, copy=None):
    """Gives `a` a new shape with the same number of elements (-1 is inferred)."""
    if shape is None:
        shape = newshape
    a = ensure_array(a)
    aval = aval_of(a)
    shown = shape if isinstance(shape, (int, np.integer)) else tuple(shape)
    if isinstance(shape, (int, np.integer)) or hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        shape = (shape,)
    shape = [int(d) for d in shape]
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or aval.size % known:
            raise TypeError(f"cannot reshape array of shape {aval.shape} (size {aval.size}) into shape {tuple(shape)}")
        shape[shape.index(-1)] = aval.size // known
    size = int(np.prod(shape, dtype=np.int64))
    if size != aval.size:
        raise TypeError(f"cannot reshape array of shape {aval.shape} (size {aval.size}) into shape {shown} (size {size})")
    if order != "C":
        raise NotImplementedError("jnp.reshape supports only order='C'")
    return lax_shapes.reshape(a, tuple(shape))


def ravel(a, order: str = "C"):
    """The elements of `a` as a 1-D array."""
    a = ensure_array(a)
    return reshape(a, (aval_of(a).size,), order)


def transpose(a, axes: Sequence[int] | None = None):
    """Permutes the axes of `a` (reverses them when `axes` is None)."""
    a = ensure_array(a)
    ndim = aval_of(a).ndim
    axes = tuple(range(ndim - 1, -1, -1)) if axes is None else tuple(canonicalize_axis(x, ndim) for x in axes)
    return lax_shapes.transpose(a, axes)


def permute_dims(a, /, axes):
    """Array-API name of transpose."""
    return transpose(a, axes)


def matrix_transpose(x, /):
    """Swaps the last two axes."""
    ndim = aval_of(x).ndim
    if ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={ndim}")
    return transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


def swapaxes(a, axis1: int, axis2: int):
    """Swaps two axes of `a`."""
    a = ensure_array(a)
    ndim = aval_of(a).ndim
    perm = list(range(ndim))
    i, j = canonicalize_axis(axis1, ndim), canonicalize_axis(axis2, ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax_shapes.transpose(a, perm)


def moveaxis(a, source, destination):
    """Moves axes of `a` to new positions."""
    a = ensure_array(a)
    ndim = aval_of(a).ndim
    source = [canonicalize_axis(s, ndim) for s in np.atleast_1d(source)]
    destination = [canonicalize_axis(d, ndim) for d in np.atleast_1d(destination)]
    perm = [i for i in range(ndim) if i not in source]
    for dest, src in sorted(zip(destination, source, strict=True)):
        perm.insert(dest, src)
    return lax_shapes.transpose(a, perm)


def expand_dims(a, axis):
    """Inserts size-1 axes at `axis` (an int or a tuple)."""
    a = ensure_array(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return lax_shapes.expand_dims(a, axes)


def squeeze(a, axis=None):
    """Removes size-1 axes (all of them when `axis` is None)."""
    a = ensure_array(a)
    shape = aval_of(a).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        axes = tuple(canonicalize_axis(x, len(shape)) for x in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    return lax_shapes.squeeze(a, axes)


def broadcast_shapes(*shapes) -> tuple:
    """The NumPy broadcast of `shapes`."""
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError as e:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}") from e


def broadcast_to(array, shape):
    """Broadcasts `array` to `shape` with NumPy's rules."""
    array = ensure_array(array)
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    in_shape = aval_of(array).shape
    if in_shape == shape:
        return array
    if len(in_shape) > len(shape) or any(d not in (1, s) for d, s in zip(in_shape[::-1], shape[::-1])):
        raise ValueError(f"Incompatible shapes for broadcasting: {in_shape} and requested shape {shape}")
    lead = len(shape) - len(in_shape)
    squeezed = tuple(i for i, d in enumerate(in_shape) if d == 1 and shape[lead + i] != 1)
    if squeezed:
        array = lax_shapes.reshape(array, tuple(d for i, d in enumerate(in_shape) if i not in squeezed))
    kept = tuple(lead + i for i in range(len(in_shape)) if i not in squeezed)
    return lax_shapes.broadcast_in_dim(array, shape, kept)


def broadcast_arrays(*args):
    """Broadcasts every argument to their common shape."""
    shape = broadcast_shapes(*[aval_of(ensure_array(a)).shape for a in args])
    return [broadcast_to(a, shape) for a in args]


def concatenate(arrays, axis: int | None = 0, dtype=None):
    """Joins arrays along an existing axis (flattened first if axis is None)."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike("concatenate", *arrays)
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    arrays = [ensure_array(a) for a in promote_dtypes("concatenate", *arrays)] if len(arrays) > 1 else [ensure_array(arrays[0])]
    ndim = aval_of(arrays[0]).ndim
    if ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    return lax_shapes.concatenate(arrays, canonicalize_axis(axis, ndim))


def stack(arrays, axis: int = 0, out=None, dtype=None):
    """Joins arrays along a new axis."""
    arrays = [ensure_array(a) for a in arrays]
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    shape = aval_of(arrays[0]).shape
    if any(aval_of(a).shape != shape for a in arrays):
        raise ValueError("All input arrays must have the same shape.")
    axis = canonicalize_axis(axis, len(shape) + 1)
    return concatenate([lax_shapes.expand_dims(a, (axis,)) for a in arrays], axis)


def flip(m, axis=None):
    """Reverses the order of elements along `axis` (all axes when None)."""
    m = ensure_array(m)
    ndim = aval_of(m).ndim
    axes = range(ndim) if axis is None else (axis if isinstance(axis, (tuple, list)) else (axis,))
    return lax_shapes.rev(m, tuple(canonicalize_axis(a, ndim) for a in axes))
