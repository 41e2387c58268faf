"""Joining and splitting: concatenate, stack, hstack/vstack/dstack,
column_stack, block, unstack, split and its variants, tile, repeat, resize,
append, delete, insert and trim_zeros.

As in JAX 0.11, `stack`, `unstack` and `tile` bind lax's `stack`, `unstack`
and `tile` primitives (lax/stack.py).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.jit import jit
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax import stack as lax_stack
from pyjax._src import dispatch
from pyjax._src.numpy.shape_ops import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    ensure_index_tuple,
    moveaxis,
    ravel,
    reshape,
)
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    ensure_arraylike,
    promote_dtypes,
)


def _is_array(x) -> bool:
    from pyjax._src.array import Array

    return isinstance(x, (np.ndarray, Array, core.Tracer))


def _concatenate_array(arr, axis, dtype=None):
    # An array argument is concatenated along its first axis: one reshape.
    from pyjax._src.numpy.creation import asarray

    arr = asarray(arr, dtype=dtype)
    shape = aval_of(arr).shape
    if len(shape) == 0 or shape[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax_shapes.reshape(arr, (aval_of(arr).size,))
    if len(shape) == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, len(shape) - 1)
    new_shape = shape[1:axis + 1] + (shape[0] * shape[axis + 1],) + shape[axis + 2:]
    dimensions = [*range(1, axis + 1), 0, *range(axis + 1, len(shape))]
    return lax_shapes.reshape(arr, new_shape, dimensions)


@dispatch.fast_path
def concatenate(arrays, axis: int | None = 0, dtype=None):
    """Joins arrays along an existing axis (of the flattened arrays when
    `axis` is None), promoting them to a common dtype.

    Example:
      >>> jnp.concatenate([jnp.zeros(2), jnp.ones(1)])
      Array([0., 0., 1.], dtype=float32)
    """
    from pyjax._src.numpy.creation import asarray

    if _is_array(arrays):
        return _concatenate_array(arrays, axis, dtype=dtype)
    arrays = tuple(arrays)
    check_arraylike("concatenate", *arrays)
    arrays = tuple(ensure_array(a) for a in arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], axis=0, dtype=dtype)
    if aval_of(arrays[0]).ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, aval_of(arrays[0]).ndim)
    if dtype is None:
        out = [ensure_array(a) for a in promote_dtypes("concatenate", *arrays)] if len(arrays) > 1 else list(arrays)
    else:
        out = [asarray(a, dtype=dtype) for a in arrays]
    return lax_shapes.concatenate(out, axis)


def concat(arrays, /, *, axis: int | None = 0):
    """Array-API name of concatenate."""
    check_arraylike("concat", *arrays)
    return concatenate(arrays, axis=axis)


@dispatch.fast_path
def stack(arrays, axis: int = 0, out=None, dtype=None):
    """Joins arrays of one shape along a new axis."""
    from pyjax._src.numpy.creation import asarray
    from pyjax._src.numpy.shape_ops import expand_dims

    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if _is_array(arrays):
        # An array stacks its leading-axis slices: give each a unit axis at
        # the target position, then merge the leading axis into it.
        ndim = np.ndim(arrays) if not hasattr(arrays, "aval") else aval_of(arrays).ndim
        axis = canonicalize_axis(axis, ndim)
        with_unit_axis = expand_dims(arrays, axis + 1)
        return concatenate(with_unit_axis, axis=axis, dtype=dtype)
    arrays = [ensure_arraylike("stack", a) for a in arrays]
    if dtype is not None:
        arrays = [asarray(op, dtype=dtype) for op in arrays]
    elif len(arrays) > 1:
        arrays = [ensure_array(a) for a in promote_dtypes("stack", *arrays)]
    return lax_stack.stack(arrays, axis=axis)


def unstack(x, /, *, axis: int = 0) -> tuple:
    """Splits `x` along `axis` into a tuple of arrays without that axis."""
    x = ensure_arraylike("unstack", x)
    return lax_stack.unstack(x, axis=axis)


@dispatch.fast_path
def vstack(tup, dtype=None):
    """Stacks arrays vertically (along the first axis, 1-D ones as rows)."""
    if _is_array(tup):
        from pyjax._src.api import vmap

        arrs = vmap(atleast_2d)(tup)
    else:
        check_arraylike("vstack", *tup)
        arrs = [atleast_2d(m) for m in tup]
    return concatenate(arrs, dtype=dtype)


@dispatch.fast_path
def hstack(tup, dtype=None):
    """Stacks arrays horizontally (along the second axis; the first for 1-D)."""
    if _is_array(tup):
        from pyjax._src.api import vmap

        arrs = vmap(atleast_1d)(tup)
        first_ndim = aval_of(arrs).ndim - 1
    else:
        check_arraylike("hstack", *tup)
        arrs = [atleast_1d(m) for m in tup]
        first_ndim = aval_of(arrs[0]).ndim
    return concatenate(arrs, axis=0 if first_ndim == 1 else 1, dtype=dtype)


def dstack(tup, dtype=None):
    """Stacks arrays along the third axis."""
    if _is_array(tup):
        from pyjax._src.api import vmap

        arrs = vmap(atleast_3d)(tup)
    else:
        check_arraylike("dstack", *tup)
        arrs = [atleast_3d(ensure_array(m)) for m in tup]
    third_axis = 2
    return concatenate(arrs, axis=third_axis, dtype=dtype)


def column_stack(tup):
    """Stacks 1-D arrays as columns of a 2-D array (higher-rank ones along axis 1)."""
    from pyjax._src.numpy.creation import asarray

    if _is_array(tup):
        from pyjax._src.api import vmap

        arrs = vmap(lambda x: atleast_2d(x).T)(tup) if aval_of(tup).ndim < 3 else tup
    else:
        check_arraylike("column_stack", *tup)
        arrs = [atleast_2d(a).T if aval_of(a).ndim < 2 else a for a in map(asarray, tup)]
    return concatenate(arrs, axis=1)


def _atleast_nd(x, n: int):
    m = aval_of(x).ndim
    return lax_shapes.broadcast(x, (1,) * (n - m)) if m < n else ensure_array(x)


def _block(xs):
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")  # noqa: TRY004  (JAX's class)
    if isinstance(xs, list):
        if len(xs) == 0:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        parts, depths = zip(*[_block(x) for x in xs])
        depth = depths[0]
        if set(depths) != {depth}:
            raise ValueError("Mismatched list depths in jax.numpy.block")
        # A list `depth` levels above the leaves joins along axis -depth.
        rank = max(depth, *(aval_of(x).ndim for x in parts))
        parts = tuple(_atleast_nd(x, rank) for x in parts)
        return concatenate(parts, axis=-depth), depth + 1
    return ensure_array(xs), 1


@jit
def block(arrays):
    """Assembles an array from nested lists of blocks (the innermost lists
    join along the last axis)."""
    out, _ = _block(arrays)
    return out


# ---------------------------------------------------------------------------
# Splitting


def _split(op: str, ary, indices_or_sections, axis: int = 0) -> list:
    ary = ensure_arraylike(op, ary)
    if isinstance(axis, core.Tracer):
        raise errors.ConcretizationTypeError(axis, f"in jax.numpy.{op} argument `axis`")
    axis = operator.index(axis)
    size = aval_of(ary).shape[axis]
    if isinstance(indices_or_sections, (tuple, list)) or (
            _is_array(indices_or_sections) and np.ndim(indices_or_sections) > 0
            if not hasattr(indices_or_sections, "aval") else
            _is_array(indices_or_sections) and aval_of(indices_or_sections).ndim > 0):
        bounds = np.asarray([0] + [_static_int(i, f"in jax.numpy.{op} argument 1") for i in indices_or_sections]
                            + [size])
        sizes = list(np.diff(bounds))
    else:
        sections = _static_int(indices_or_sections, f"in jax.numpy.{op} argument 1")
        part, rest = divmod(size, sections)
        if rest == 0:
            sizes = [part] * sections
        elif op == "array_split":
            sizes = [part + 1] * rest + [part] * (sections - rest)
        else:
            raise ValueError(f"array split does not result in an equal division: rest is {rest}")
    ndim = aval_of(ary).ndim
    # JAX passes NumPy integers as sizes (and prints them so).
    return list(lax_slicing.split_p.bind(ary, sizes=tuple(np.int64(s) for s in sizes),
                                         axis=canonicalize_axis(axis, ndim)))


def _static_int(value, context: str) -> int:
    if isinstance(value, core.Tracer):
        raise errors.ConcretizationTypeError(value, context)
    return int(value)


def split(ary, indices_or_sections, axis: int = 0) -> list:
    """Splits `ary` into equal sections, or at the given indices, along `axis`."""
    return _split("split", ary, indices_or_sections, axis=axis)


def array_split(ary, indices_or_sections, axis: int = 0) -> list:
    """Like split, but sections may differ in length by one."""
    return _split("array_split", ary, indices_or_sections, axis=axis)


def vsplit(ary, indices_or_sections) -> list:
    """Splits along the first axis."""
    return _split("vsplit", ary, indices_or_sections, axis=0)


def hsplit(ary, indices_or_sections) -> list:
    """Splits along the second axis (the first for 1-D arrays)."""
    a = ensure_arraylike("hsplit", ary)
    return _split("hsplit", a, indices_or_sections, axis=0 if aval_of(a).ndim == 1 else 1)


def dsplit(ary, indices_or_sections) -> list:
    """Splits along the third axis."""
    return _split("dsplit", ary, indices_or_sections, axis=2)


# ---------------------------------------------------------------------------
# Repetition


def tile(A, reps):
    """`A` repeated `reps` times along each axis.

    Example:
      >>> jnp.tile(jnp.array([1, 2]), 2)
      Array([1, 2, 1, 2], dtype=int32)
    """
    A = ensure_arraylike("tile", A)
    try:
        reps_tup = tuple(iter(reps))
    except TypeError:
        reps_tup = (reps,)
    reps_tup = tuple(operator.index(r) for r in reps_tup)
    ndim = aval_of(A).ndim
    reps_tup = (1,) * (ndim - len(reps_tup)) + reps_tup
    if len(reps_tup) > ndim:
        A = lax_shapes.expand_dims(A, tuple(range(len(reps_tup) - ndim)))
    return lax_stack.tile(A, reps_tup)


def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None, out_sharding=None):
    """Repeats each element of `a` (along `axis`) `repeats` times.

    `repeats` may be an array of per-element counts; under jit it must be
    concrete unless `total_repeat_length` gives the output length statically.

    Example:
      >>> jnp.repeat(jnp.array([1, 2]), jnp.array([1, 3]))
      Array([1, 2, 2, 2], dtype=int32)
    """
    from pyjax._src.numpy.creation import asarray

    if isinstance(repeats, (int, np.integer)):
        check_arraylike("repeat", a)
    else:
        check_arraylike("repeat", a, repeats)
    a = asarray(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    return _repeat(repeats, a, axis=axis, total_repeat_length=total_repeat_length)


def _repeat(repeats, arr, *, axis: int, total_repeat_length=None):
    from pyjax._src.numpy.creation import array, full, zeros
    from pyjax._src.numpy.cumulative import cumsum
    from pyjax._src.numpy.indexing import concrete_value
    from pyjax._src.numpy.shape_ops import broadcast_to, roll
    from pyjax._src.numpy.take import take

    axis = operator.index(axis)
    shape = aval_of(arr).shape
    if total_repeat_length is None:
        value = concrete_value(repeats) if not isinstance(repeats, (int, np.integer)) else repeats
        if value is None:
            raise errors.ConcretizationTypeError(
                repeats, "When jit-compiling jnp.repeat, the total number of repeats must be static. To fix this, "
                         "either specify a static value for `repeats`, or pass a static value to "
                         "`total_repeat_length`.")
        repeats = value
        if np.ndim(repeats) == 0 and len(shape) != 0:
            # One count for every element: broadcast a new axis, then merge.
            axis = canonicalize_axis(axis, len(shape))
            aux_shape = list(shape)
            aux_shape.insert(axis + 1, operator.index(repeats))
            out = lax_shapes.broadcast_in_dim(arr, aux_shape, [i for i in range(len(aux_shape)) if i != axis + 1])
            result_shape = list(shape)
            result_shape[axis] *= int(repeats)
            return out.reshape(result_shape)
        repeats = np.ravel(repeats)
        if len(shape) != 0:
            repeats = np.broadcast_to(repeats, [shape[axis]])
        total_repeat_length = int(repeats.sum())
    else:
        repeats = ravel(repeats)
        if len(shape) != 0:
            repeats = broadcast_to(repeats, [shape[axis]])
    if len(shape) == 0:
        if np.shape(repeats) == (1,) if not hasattr(repeats, "aval") else aval_of(repeats).shape == (1,):
            return full([total_repeat_length], arr)
        raise ValueError("`repeat` with a scalar parameter `a` is only implemented for scalar values of the "
                         "parameter `repeats`.")
    if total_repeat_length == 0:
        result_shape = list(shape)
        result_shape[axis] = 0
        return reshape(array([], dtype=aval_of(arr).dtype), result_shape)
    if shape[axis] == 0:
        return arr
    # Mark where each element's block starts in the output, then a cumulative
    # sum of the marks numbers the source element of every output position.
    exclusive = roll(repeats, shift=1).at[0].set(0)
    starts = cumsum(exclusive)
    marks = zeros([total_repeat_length], dtype="int32").at[starts].add(1)
    return take(arr, cumsum(marks) - 1, axis=axis)


@jit(static_argnames=("new_shape",))
def resize(a, new_shape):
    """An array of `new_shape` filled with the elements of `a`, repeated as needed."""
    from pyjax._src.numpy.creation import zeros_like

    check_arraylike("resize", a)
    new_shape = ensure_index_tuple(new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(a)
    new_size = math.prod(new_shape)
    if aval_of(arr).size == 0 or new_size == 0:
        return zeros_like(arr, shape=new_shape)
    repeats = -(-new_size // aval_of(arr).size)
    arr = tile(arr, repeats)[:new_size]
    return reshape(arr, new_shape)


@jit(static_argnames=("axis",))
def append(arr, values, axis: int | None = None):
    """`values` appended to `arr` along `axis` (both flattened when None)."""
    pieces = [arr, values] if axis is not None else [ravel(arr), ravel(values)]
    return concatenate(pieces, axis=0 if axis is None else axis)


def delete(arr, obj, axis: int | None = None, *, assume_unique_indices: bool = False):
    """`arr` without the entries `obj` (an int, a slice, an integer or boolean
    array) along `axis`. Non-static index arrays need
    `assume_unique_indices=True`."""
    from pyjax._src.numpy.creation import arange, asarray
    from pyjax._src.numpy.indexing import concrete_value
    from pyjax._src.numpy.sorting import sort
    from pyjax._src.numpy.ufuncs_extra import clip
    from pyjax._src.numpy.where import where

    a = ensure_arraylike("delete", arr)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = canonicalize_axis(axis, aval_of(a).ndim)
    n = aval_of(a).shape[axis]
    try:
        obj = canonicalize_axis(operator.index(obj), n)
    except TypeError:
        pass
    else:
        # One static index: the parts before and after it, joined.
        before = a[_along(axis, slice(0, obj))]
        after = a[_along(axis, slice(obj + 1, None))]
        return concatenate([before, after], axis=axis)
    if isinstance(obj, slice):
        obj = arange(n)[obj]
        assume_unique_indices = True
    check_arraylike("delete", a, obj)
    if dtypes.issubdtype(dtypes.dtype(obj), np.integer) and assume_unique_indices:
        # Sorted unique positions, each shifted down by the number of
        # removed entries before it, say where the kept entries jump: the
        # k-th kept entry sits at k plus the count of shifted positions <= k.
        removed = ravel(asarray(obj))
        removed = clip(where(removed < 0, removed + n, removed), 0, n)
        removed = sort(removed)
        index_dtype = aval_of(removed).dtype
        n_removed = aval_of(removed).size
        removed -= arange(n_removed, dtype=index_dtype)
        kept = arange(n - n_removed, dtype=index_dtype)
        kept += (kept[None, :] >= removed[:, None]).sum(0, dtype=aval_of(kept).dtype)
        return a[_along(axis, kept)]
    value = concrete_value(obj)
    if value is None:
        raise errors.ConcretizationTypeError(obj, "'obj' array argument of jnp.delete()")
    if dtypes.issubdtype(value.dtype, np.integer):
        mask = np.ones(n, dtype=bool)
        mask[value] = False
    elif value.dtype == bool:
        if value.shape != (n,):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be one-dimensional with length "
                             "matching specified axis.")
        mask = ~value
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={value.dtype}; must be integer or bool.")
    return a[_along(axis, mask)]


def _along(axis: int, index) -> tuple:
    # An indexing tuple that applies `index` to axis `axis` only.
    return (slice(None),) * axis + (index,)


def insert(arr, obj, values, axis: int | None = None):
    """`arr` with `values` inserted before the indices `obj` along `axis`."""
    from pyjax._src.numpy.creation import arange, array, asarray, full, ones, zeros_like
    from pyjax._src.numpy.nonzero import nonzero
    from pyjax._src.numpy.shape_ops import broadcast_shapes
    from pyjax._src.numpy.sorting import argsort
    from pyjax._src.numpy.ufuncs_extra import clip
    from pyjax._src.numpy.where import where

    a, _, values_arr = ensure_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = canonicalize_axis(axis, aval_of(a).ndim)
    indices = arange(*obj.indices(aval_of(a).shape[axis])) if isinstance(obj, slice) else asarray(obj)
    if aval_of(indices).ndim > 1:
        raise ValueError(f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}")
    if not dtypes.issubdtype(aval_of(indices).dtype, np.integer):
        if aval_of(indices).size == 0 and not hasattr(obj, "aval"):
            indices = indices.astype(int)
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    values_arr = array(values_arr, ndmin=aval_of(a).ndim, dtype=aval_of(a).dtype, copy=False)
    if aval_of(indices).size == 1:
        index = ravel(indices)[0]
        if aval_of(indices).ndim == 0:
            values_arr = moveaxis(values_arr, 0, axis)
        indices = full(aval_of(values_arr).shape[axis], index)
    old_len = aval_of(a).shape[axis]
    new_len = broadcast_shapes(aval_of(indices).shape, (aval_of(values_arr).shape[axis],))[0]
    result_shape = list(aval_of(a).shape)
    result_shape[axis] = old_len + new_len
    result = zeros_like(a, shape=tuple(result_shape))
    # Where each inserted value lands: its (wrapped, clipped) index plus the
    # number of inserted values that precede it in sorted order. Every other
    # slot of the result takes the original entries, in order.
    indices = clip(where(indices < 0, indices + old_len, indices), 0, old_len)
    order = argsort(indices)
    inserted_at = indices.at[order].add(arange(new_len, dtype=aval_of(indices).dtype))
    is_original = ones(old_len + new_len, dtype=bool).at[inserted_at].set(False)
    original_at = nonzero(is_original, size=old_len)[0]
    result = result.at[_along(axis, inserted_at)].set(values_arr)
    return result.at[_along(axis, original_at)].set(a)


def trim_zeros(filt, trim: str = "fb", axis=None):
    """`filt` without its leading ('f') and/or trailing ('b') zeros along
    `axis` (all axes by default). Needs a concrete input."""
    from pyjax._src.numpy.indexing import concrete_value

    filt = ensure_arraylike("trim_zeros", filt)
    value = concrete_value(filt)
    if value is None:
        raise errors.ConcretizationTypeError(filt, "Error arose in the `filt` argument of trim_zeros()")
    ndim = value.ndim
    axes = set(range(ndim)) if axis is None else {canonicalize_axis(a, ndim) for a in ensure_index_tuple(axis)}
    if not axes or ("f" not in trim.lower() and "b" not in trim.lower()):
        return filt

    def bounds(ax):
        if ax not in axes:
            return slice(None)
        mask = value.any(axis=tuple(i for i in range(ndim) if i != ax))
        if not mask.any():
            return slice(0, 0)
        start = int(mask.argmax()) if "f" in trim.lower() else None
        stop = value.shape[ax] - int(mask[::-1].argmax()) if "b" in trim.lower() else None
        return slice(start, stop)

    return filt[tuple(bounds(ax) for ax in range(ndim))]
