"""Rearranging axes: reshape, ravel, transpose, swapaxes, moveaxis,
rollaxis, expand_dims, squeeze, atleast_Nd, broadcast_to/_arrays/_shapes,
flip, fliplr, flipud, rot90 and roll.

Each is a static rearrangement expressed with lax shape primitives; shapes
and axes must be concrete Python integers. Joining and splitting live in
joining.py.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from pyjax._src import core
from pyjax._src.avals import NEGATIVE_BROADCAST, ShapedArray, canonicalize_shape, raise_shape_type_error
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src import dispatch
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    ensure_arraylike,
    lax_convert,
)


def ensure_index_tuple(x) -> tuple:
    """An int or a sequence of ints as a tuple of ints."""
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(operator.index(i) for i in x)


def _compute_newshape(arr_shape, size, newshape) -> tuple:
    original = newshape
    try:
        iter(newshape)
    except TypeError:
        newshape = [newshape]
    try:
        # (-1 is allowed here: the unknown axis; a symbolic dimension stays as it is)
        out = [d if hasattr(d, "get_vars") else operator.index(d) for d in newshape]
    except TypeError:
        raise_shape_type_error(tuple(newshape))
    unknown = [i for i, d in enumerate(out) if d == -1]
    if len(unknown) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {original}")
    if unknown:
        (i,) = unknown
        others = math.prod(out[:i] + out[i + 1:])
        if others == 0 or size % others != 0:
            raise TypeError(f"cannot reshape array of shape {arr_shape} (size {size}) into shape {original} because "
                            f"the product of specified axis sizes ({others}) does not evenly divide {size}")
        out[i] = size // others
    elif size != math.prod(out):
        raise TypeError(f"cannot reshape array of shape {arr_shape} (size {size}) into shape {original} "
                        f"(size {math.prod(out)})")
    return tuple(out)


@dispatch.fast_path
def array_reshape(self, *args, order: str = "C", out_sharding=None, **kwargs):
    """The `reshape` method: `x.reshape(2, 3)` or `x.reshape((2, 3))`."""
    if "shape" in kwargs:
        args = (kwargs.pop("shape"),)
    if kwargs:
        raise TypeError(f"reshape() got an unexpected keyword argument {next(iter(kwargs))!r}")
    aval = aval_of(self)
    newshape = _compute_newshape(aval.shape, aval.size, args[0] if len(args) == 1 else args)
    if order == "C":
        return lax_shapes.reshape(self, newshape, None, out_sharding=out_sharding)
    if order == "F":
        dims = list(range(aval.ndim)[::-1])
        return transpose(lax_shapes.reshape(self, newshape[::-1], dims))
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


@dispatch.fast_path
def reshape(a, shape=None, order: str = "C", *, newshape=None, copy=None, out_sharding=None):
    """Gives `a` a new shape with the same number of elements (one -1 is inferred).

    Example:
      >>> jnp.reshape(jnp.arange(6), (2, -1))
      Array([[0, 1, 2],
             [3, 4, 5]], dtype=int32)
    """
    check_arraylike("reshape", a)
    if shape is None:
        shape = newshape
    if out_sharding is None:
        # As JAX: an input with its own reshape method (a NumPy array) is
        # reshaped by it, and stays a NumPy array.
        method = getattr(a, "reshape", None)
        if method is not None:
            return method(shape, order=order)
    return array_reshape(ensure_arraylike("reshape", a), shape, order=order, out_sharding=out_sharding)


@dispatch.fast_path
def ravel(a, order: str = "C", *, out_sharding=None):
    """The elements of `a` as a 1-D array."""
    a = ensure_arraylike("ravel", a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (aval_of(a).size,), order)


@dispatch.fast_path
def transpose(a, axes: Sequence[int] | None = None):
    """Permutes the axes of `a` (reverses them when `axes` is None)."""
    a = ensure_arraylike("transpose", a)
    ndim = aval_of(a).ndim
    axes = range(ndim)[::-1] if axes is None else axes
    return lax_shapes.transpose(a, [canonicalize_axis(i, ndim) for i in axes])


@dispatch.fast_path
def array_transpose(self, *args):
    """The `transpose` method: `x.transpose(1, 0)` or `x.transpose((1, 0))`."""
    if not args:
        axes = None
    elif len(args) == 1:
        axes = args[0] if args[0] is None else ensure_index_tuple(args[0])
    else:
        axes = ensure_index_tuple(args)
    return transpose(self, axes)


def permute_dims(a, /, axes):
    """Array-API name of transpose (every axis must appear once)."""
    a = ensure_arraylike("permute_dims", a)
    ndim = aval_of(a).ndim
    axes = tuple(canonicalize_axis(i, ndim) for i in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in permute_dims: {axes}")
    return lax_shapes.transpose(a, axes)


def matrix_transpose(x, /):
    """Swaps the last two axes."""
    x = ensure_arraylike("matrix_transpose", x)
    ndim = aval_of(x).ndim
    if ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={ndim}")
    return lax_shapes.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


@dispatch.fast_path
def swapaxes(a, axis1: int, axis2: int):
    """Swaps two axes of `a`."""
    a = ensure_arraylike("swapaxes", a)
    perm = np.arange(aval_of(a).ndim)
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax_shapes.transpose(a, [int(p) for p in perm])


@dispatch.fast_path
def moveaxis(a, source, destination):
    """Moves axes of `a` to new positions (the others keep their order)."""
    a = ensure_arraylike("moveaxis", a)
    ndim = aval_of(a).ndim
    source = tuple(canonicalize_axis(i, ndim) for i in ensure_index_tuple(source))
    destination = tuple(canonicalize_axis(i, ndim) for i in ensure_index_tuple(destination))
    if len(source) != len(destination):
        raise ValueError(f"Inconsistent number of elements: {len(source)} vs {len(destination)}")
    perm = [i for i in range(ndim) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return lax_shapes.transpose(a, perm)


@jit(static_argnames=("axis", "start"))
def rollaxis(a, axis: int, start: int = 0):
    """Moves `axis` to position `start` (moveaxis is usually clearer)."""
    a = ensure_arraylike("rollaxis", a)
    ndim = aval_of(a).ndim
    axis = canonicalize_axis(axis, ndim)
    if not -ndim <= start <= ndim:
        raise ValueError(f"start={start} must satisfy {-ndim}<=start<={ndim}")
    if start < 0:
        start += ndim
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


@dispatch.fast_path
def expand_dims(a, axis):
    """Inserts length-1 axes at the positions `axis` (an int or a tuple)."""
    a = ensure_arraylike("expand_dims", a)
    axes = ensure_index_tuple(axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in lax.expand_dims: {axes}")
    ndim_out = aval_of(a).ndim + len(axes)
    dims = [canonicalize_axis(i, ndim_out) for i in axes]
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    return lax_shapes.expand_dims(a, dims)


@dispatch.fast_path
def squeeze(a, axis=None):
    """Removes length-1 axes (all of them when `axis` is None)."""
    a = ensure_arraylike("squeeze", a)
    shape = aval_of(a).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        axes = tuple(canonicalize_axis(i, len(shape)) for i in ensure_index_tuple(axis))
        for i in axes:
            if shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one, got "
                                 f"shape={shape} and dimensions={axes}")
    return lax_shapes.squeeze(a, axes)


def _atleast(arys, n: int, name: str):
    from pyjax._src.numpy.creation import array

    check_arraylike(name, *arys)
    if len(arys) == 1:
        return array(arys[0], copy=False, ndmin=n)
    return [array(a, copy=False, ndmin=n) for a in arys]


@jit
def atleast_1d(*arys):
    """Views of the inputs with at least one axis."""
    return _atleast(arys, 1, "atleast_1d")


@jit
def atleast_2d(*arys):
    """Views of the inputs with at least two axes (new axes in front)."""
    return _atleast(arys, 2, "atleast_2d")


@jit
def atleast_3d(*arys):
    """Views of the inputs with at least three axes (a 1-D array becomes
    (1, N, 1), a 2-D one (M, N, 1))."""

    check_arraylike("atleast_3d", *arys)
    if len(arys) != 1:
        return [atleast_3d(a) for a in arys]
    arr = ensure_array(arys[0])
    ndim = aval_of(arr).ndim
    if ndim == 0:
        arr = lax_shapes.expand_dims(arr, (0, 1, 2))
    elif ndim == 1:
        arr = lax_shapes.expand_dims(arr, (0, 2))
    elif ndim == 2:
        arr = lax_shapes.expand_dims(arr, (2,))
    return arr


def broadcast_shapes(*shapes) -> tuple:
    """The NumPy broadcast of `shapes`."""
    if not shapes:
        return ()
    shapes = [(s,) if np.ndim(s) == 0 else tuple(s) for s in shapes]
    for s in shapes:
        if any(d < 0 for d in s):
            raise TypeError(NEGATIVE_BROADCAST.format(shape=s))
    # In Python, not np.broadcast_shapes: that builds NumPy iterators, which
    # refuse shapes past its size limit that are still fine to trace.
    ndim = max(map(len, shapes))
    out = [1] * ndim
    for s in shapes:
        for i, d in enumerate(s, ndim - len(s)):
            d = int(d)
            if d != out[i]:
                if out[i] != 1 and d != 1:
                    raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
                if d != 1:
                    out[i] = d
    return tuple(out)


def broadcast_to(array, shape, *, out_sharding=None):
    """Broadcasts `array` to `shape` with NumPy's rules (one broadcast_in_dim:
    size-1 axes stretch in place)."""
    array = ensure_arraylike("broadcast_to", array)
    shape = canonicalize_shape(shape, "broadcast_in_dim shape")
    aval = aval_of(array)
    in_shape = aval.shape
    if in_shape == shape:
        return array
    if len(shape) < len(in_shape):
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={in_shape} shape={shape}")
    lead = len(shape) - len(in_shape)
    if any(d not in (1, s) for d, s in zip(in_shape, shape[lead:])):
        raise ValueError(f"Incompatible types for broadcasting: input type={aval.strip_weak_type()} and "
                         f"requested type={ShapedArray(shape, aval.dtype)}")
    return lax_shapes.broadcast_in_dim(array, shape, tuple(range(lead, len(shape))))


def broadcast_arrays(*args):
    """Broadcasts every argument to their common shape."""
    args = [ensure_arraylike("broadcast_arrays", a) for a in args]
    shapes = [aval_of(a).shape for a in args]
    if not shapes or all(s == shapes[0] for s in shapes):
        return list(args)
    try:
        from pyjax._src import shape_poly

        shape = tuple(d if shape_poly.is_symbolic_dim(d) else int(d) for d in shape_poly.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from None
    return [broadcast_to(a, shape) for a in args]


def flip(m, axis=None):
    """Reverses the order of elements along `axis` (all axes when None)."""
    from pyjax._src.numpy.reductions import ensure_optional_axes

    return _flip(ensure_arraylike("flip", m), ensure_optional_axes(axis))


@jit(static_argnames=("axis",))
def _flip(m, axis=None):
    ndim = aval_of(m).ndim
    if axis is None:
        return lax_shapes.rev(m, list(range(ndim)))
    axes = ensure_index_tuple(axis)
    if ndim == 0 and axes:  # (no axis 0 or -1 of a scalar to reverse, as in JAX)
        raise ValueError(f"axis {axes[0]} is out of bounds for array of dimension 0")
    return lax_shapes.rev(m, [canonicalize_axis(ax, ndim) for ax in axes])


def fliplr(m):
    """Reverses the second axis (columns)."""
    return _flip(ensure_arraylike("fliplr", m), 1)


def flipud(m):
    """Reverses the first axis (rows)."""
    return _flip(ensure_arraylike("flipud", m), 0)


@jit(static_argnames=("k", "axes"))
def rot90(m, k: int = 1, axes: tuple = (0, 1)):
    """Rotates `m` by 90 degrees `k` times in the plane of `axes` (from the
    first axis towards the second)."""
    m = ensure_arraylike("rot90", m)
    ndim = aval_of(m).ndim
    if ndim < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but got first argument of "
                         f"shape {aval_of(m).shape}, which has ndim {ndim}")
    ax1, ax2 = (canonicalize_axis(a, ndim) for a in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return transpose(flip(m, ax2), perm)
    return flip(transpose(m, perm), ax2)


@jit(static_argnums=(2,))
def _roll_dynamic(a, shift, axis):
    from pyjax._src.numpy.ufuncs_extra import remainder

    b_shape = np.broadcast_shapes(aval_of(shift).shape, np.shape(axis))
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    for x, i in zip(broadcast_to(shift, b_shape), np.broadcast_to(axis, b_shape)):
        from pyjax._src.numpy.creation import array

        size = array(aval_of(a).shape[i], dtype=np.int32)
        x = remainder(lax_convert(x, np.int32), lax_ew.max(size, np.int32(1)))
        doubled = lax_shapes.concatenate((a, a), int(i))
        a = lax_slicing.dynamic_slice_in_dim(doubled, size - x, aval_of(a).shape[i], axis=int(i))
    return a


@jit(static_argnums=(1, 2))
def _roll_static(a, shift, axis):
    for ax, s in zip(*np.broadcast_arrays(axis, shift)):
        ax = int(ax)
        n = aval_of(a).shape[ax]
        if n == 0:
            continue
        i = int((-s) % n)
        a = lax_shapes.concatenate([lax_slicing.slice_in_dim(a, i, n, axis=ax),
                                    lax_slicing.slice_in_dim(a, 0, i, axis=ax)], ax)
    return a


def roll(a, shift, axis=None):
    """Shifts elements along `axis` (of the flattened array when None),
    wrapping around.

    Example:
      >>> jnp.roll(jnp.arange(5), 2)
      Array([3, 4, 0, 1, 2], dtype=int32)
    """
    arr = ensure_arraylike("roll", a)
    if axis is None:
        return roll(ravel(arr), shift, 0).reshape(aval_of(arr).shape)
    axis = tuple(canonicalize_axis(ax, aval_of(arr).ndim) for ax in ensure_index_tuple(axis))
    try:
        shift = ensure_index_tuple(shift)
    except TypeError:
        from pyjax._src.numpy.creation import asarray

        return _roll_dynamic(arr, asarray(shift), axis)
    return _roll_static(arr, shift, axis)


def __getattr__(name: str):
    # Joining and splitting moved to joining.py; they are still found here.
    from pyjax._src.numpy import joining

    if name in ("concatenate", "concat", "stack", "unstack", "hstack", "vstack", "dstack", "column_stack", "split",
                "array_split", "tile", "repeat"):
        return getattr(joining, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
