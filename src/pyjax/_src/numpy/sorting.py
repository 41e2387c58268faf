"""Sorting and searching: sort, argsort, lexsort, sort_complex, partition,
argpartition, searchsorted and digitize.

sort/argsort are the `sort` primitive (argsort sorts an iota alongside the
keys); partition uses `top_k` from both ends, as JAX does. searchsorted's
methods ('scan', the default, 'scan_unrolled', 'compare_all', 'sort')
stage JAX's equations.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src import dispatch
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    ensure_arraylike,
    full,
    full_like,
    lax_convert,
    promote_dtypes,
)


def _index_dtype(n: int):
    # int32 unless the axis is too long; the default int type otherwise
    # (which is int32 too while x64 is off).
    if n > np.iinfo(np.int32).max:
        return np.dtype(np.int64)
    return dtypes.default_int_dtype()


@dispatch.fast_path
@jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True, descending: bool = False):
    """The sorted values of `a` along `axis` (of the flattened array when
    None). NaNs sort to the end.

    Example:
      >>> jnp.sort(jnp.array([3, 1, 2]))
      Array([1, 2, 3], dtype=int32)
    """
    arr = ensure_arraylike("sort", a)
    if kind is not None:
        raise TypeError("'kind' argument to sort is not supported. Use stable=True or stable=False to specify sort "
                        "stability.")
    if order is not None:
        raise TypeError("'order' argument to sort is not supported.")
    if axis is None:
        arr = arr.ravel()
        axis = 0
    dimension = canonicalize_axis(axis, aval_of(arr).ndim)
    result = lax_sorting.sort(arr, dimension=dimension, is_stable=stable)
    return lax_shapes.rev(result, (dimension,)) if descending else result


@dispatch.fast_path
@jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True, descending: bool = False,
            dtype=None):
    """The indices that sort `a` along `axis` (stable by default; descending
    keeps equal elements in their original order)."""
    arr = ensure_arraylike("argsort", a)
    if kind is not None:
        raise TypeError("'kind' argument to argsort is not supported. Use stable=True or stable=False to specify "
                        "sort stability.")
    if order is not None:
        raise TypeError("'order' argument to argsort is not supported.")
    if axis is None:
        arr = arr.ravel()
        axis = 0
    dimension = canonicalize_axis(axis, aval_of(arr).ndim)
    if dtype is not None:
        index_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "argsort")
    else:
        index_dtype = _index_dtype(aval_of(arr).shape[dimension])
    # (Placed as the array is, so that the two sort operands agree.)
    iota = lax_shapes.broadcasted_iota(index_dtype, aval_of(arr).shape, dimension, out_sharding=aval_of(arr).sharding)
    if descending and stable:
        # Reversing first keeps ties in order after the final reversal.
        arr = lax_shapes.rev(arr, (dimension,))
        iota = lax_shapes.rev(iota, (dimension,))
    _, indices = lax_sorting.sort_key_val(arr, iota, dimension=dimension, is_stable=stable)
    return lax_shapes.rev(indices, (dimension,)) if descending else indices


@jit(static_argnames=("kth", "axis"))
def partition(a, kth: int, axis: int = -1):
    """A copy of `a` with its `kth` smallest element in place along `axis`:
    smaller ones before it, larger after (each side unordered)."""
    arr = ensure_arraylike("partition", a)
    if dtypes.issubdtype(aval_of(arr).dtype, np.complexfloating):
        raise NotImplementedError("jnp.partition for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, aval_of(arr).ndim)
    kth = canonicalize_axis(kth, aval_of(arr).shape[axis])
    arr = arr.swapaxes(axis, -1)
    if dtypes.isdtype(aval_of(arr).dtype, "unsigned integer"):
        # -x wraps for unsigned types; -(x + 1) keeps the order (x = max overflows to 0).
        bottom = -lax_sorting.top_k(-(arr + 1), kth + 1)[0] - 1
    else:
        bottom = -lax_sorting.top_k(-arr, kth + 1)[0]
    top = lax_sorting.top_k(arr, aval_of(arr).shape[-1] - kth - 1)[0]
    out = lax_shapes.concatenate([bottom, top], aval_of(arr).ndim - 1)
    return out.swapaxes(-1, axis)


@jit(static_argnames=("kth", "axis"))
def argpartition(a, kth: int, axis: int = -1):
    """The indices that would partition `a` (see partition)."""
    from pyjax._src.api import vmap

    arr = ensure_arraylike("partition", a)
    if dtypes.issubdtype(aval_of(arr).dtype, np.complexfloating):
        raise NotImplementedError("jnp.argpartition for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, aval_of(arr).ndim)
    kth = canonicalize_axis(kth, aval_of(arr).shape[axis])
    arr = arr.swapaxes(axis, -1)
    if dtypes.isdtype(aval_of(arr).dtype, "unsigned integer"):
        bottom_ind = lax_sorting.top_k(-(arr + 1), kth + 1)[1]
    else:
        bottom_ind = lax_sorting.top_k(-arr, kth + 1)[1]

    # The top part: top_k over a proxy that is 0 at the bottom indices.
    def set_to_zero(x, i):
        return x.at[i].set(0)

    for _ in range(aval_of(arr).ndim - 1):
        set_to_zero = vmap(set_to_zero)
    proxy = set_to_zero(full(aval_of(arr).shape, 1.0, dtypes.default_float_dtype(), True), bottom_ind)
    top_ind = lax_sorting.top_k(proxy, aval_of(arr).shape[-1] - kth - 1)[1]
    out = lax_shapes.concatenate([bottom_ind, top_ind], aval_of(arr).ndim - 1)
    return out.swapaxes(-1, axis)


@jit
def sort_complex(a):
    """`a` sorted (real part first, then imaginary part), as complex."""
    a = ensure_arraylike("sort_complex", a)
    a = lax_sorting.sort(a)
    return lax_convert(a, dtypes.to_complex_dtype(aval_of(a).dtype))


@jit(static_argnames=("axis",))
def lexsort(keys, axis: int = -1):
    """Indices that sort by several keys: the last key is the primary one.

    Example:
      >>> jnp.lexsort((jnp.array([1, 0, 1]), jnp.array([0, 0, 1])))
      Array([1, 0, 2], dtype=int32)
    """
    keys = tuple(ensure_arraylike("lexsort", k) for k in keys)
    if len(keys) == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({aval_of(k).shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = aval_of(keys[0]).shape
    if len(shape) == 0:
        return full((), 0, dtypes.default_int_dtype())
    axis = canonicalize_axis(axis, len(shape))
    iota = lax_shapes.broadcasted_iota(_index_dtype(shape[axis]), shape, axis)
    return lax_sorting.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


# ---------------------------------------------------------------------------
# searchsorted


def _canonicalize_float_for_sort(x):
    # -0.0 joins 0.0 and every NaN becomes the positive NaN, so that the total
    # order of lt_to/le_to agrees with sort's.
    result = lax_ew.select(lax_ew.eq(x, np.asarray(0, aval_of(x).dtype)[()]), full_like(x, 0), x)
    return lax_ew.select(lax_ew.ne(x, x), full_like(result, np.nan), result)


def _sort_keys(x):
    if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating):
        return [_canonicalize_float_for_sort(lax_ew.real(x)), _canonicalize_float_for_sort(lax_ew.imag(x))]
    if dtypes.issubdtype(aval_of(x).dtype, np.floating):
        return [_canonicalize_float_for_sort(x)]
    return [x]


def _sort_comparator(x, y, *, strict: bool, align=None):
    """sort's total order, x < y (or <=): lexicographic over the keys (real,
    imaginary for complex). `align(xk, yk)` may broadcast each pair of keys
    before it is compared."""
    x_keys, y_keys = _sort_keys(x), _sort_keys(y)
    p = None
    for xk, yk in zip(x_keys[::-1], y_keys[::-1]):
        if align is not None:
            xk, yk = align(xk, yk)
        if p is None:
            p = (lax_ew.lt_to_p if strict else lax_ew.le_to_p).bind(xk, yk)
        else:
            p = lax_ew.bitwise_or(lax_ew.lt_to_p.bind(xk, yk), lax_ew.bitwise_and(lax_ew.eq_to_p.bind(xk, yk), p))
    return p


def _outer_align(xk, yk):
    # vmap over the sorted array's elements (JAX's form) broadcasts the
    # unbatched query keys first, then the batched sorted keys.
    (m,), (n,) = aval_of(xk).shape, aval_of(yk).shape
    # (vmap's batching rule computes the dimension with NumPy: np.int64.)
    yk = lax_shapes.broadcast_in_dim_p.bind(yk, shape=(1, n), broadcast_dimensions=(np.int64(1),), sharding=None)
    xk = lax_shapes.broadcast_in_dim(xk, (m, 1), (0,))
    return xk, yk


@jit(static_argnames=("side", "dtype"))
def _searchsorted_compare_all_impl(sorted_arr, query, side, dtype):
    from pyjax._src.numpy.shape_ops import ravel

    # Counts the sorted elements before each query element: every pair is
    # compared (a vmap over `sorted_arr` in JAX; written out here).
    shape = aval_of(query).shape
    flat = ravel(query) if len(shape) != 1 else query
    comparisons = _sort_comparator(sorted_arr, flat, strict=side == "left", align=_outer_align)
    counts = comparisons.sum(dtype=dtype, axis=0)
    return counts.reshape(shape) if len(shape) != 1 else counts


@jit(static_argnames=("side", "dtype"))
def _searchsorted_sort_impl(sorted_arr, query, side, dtype):
    n, m = aval_of(sorted_arr).size, aval_of(query).size
    working = np.int32 if n + m <= np.iinfo(np.int32).max else np.int64

    def rank(x):
        idx = lax_shapes.iota(working, aval_of(x).shape[0])
        return full_like(idx, 0).at[lax_sorting.sort_key_val(x, idx)[1]].set(idx)

    flat_query = query.ravel()
    if side == "left":
        index = rank(lax_shapes.concatenate([flat_query, sorted_arr], 0))[:m]
    else:
        index = rank(lax_shapes.concatenate([sorted_arr, flat_query], 0))[n:]
    return lax_shapes.reshape(lax_ew.sub(index, rank(flat_query)), aval_of(query).shape).astype(dtype)


def _binary_search(sorted_arr, query, side, dtype, unrolled, batched: bool):
    # ceil(log2(n + 1)) halvings of [low, high) in a scan. `batched`: the
    # whole 1-D query at once, written as JAX's vmap of the scalar search
    # stages it (the pivots gathered in 'clip' mode, then squeezed).
    from pyjax._src.lax.control_flow import scan
    from pyjax._src.lax.gather_scatter import GatherDimensionNumbers, gather

    n = aval_of(sorted_arr).shape[0]
    strict = side != "left"
    unsigned = np.dtype(np.uint64 if np.iinfo(dtype).bits == 64 else np.uint32)

    def pivot(mid):
        if not batched:
            return sorted_arr[mid]
        starts = lax_shapes.broadcast_in_dim(mid, aval_of(mid).shape + (1,), (0,))
        dnums = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))
        return lax_shapes.squeeze(gather(sorted_arr, starts, dnums, (1,), mode="clip"), (1,))

    def body(state, _):
        low, high = state
        mid = low + (high - low) // 2  # no overflow, unlike (low + high) // 2
        go_left = _sort_comparator(query, pivot(mid), strict=strict)
        return (lax_ew.select(go_left, low, mid), lax_ew.select(go_left, mid, high)), ()

    shape = aval_of(query).shape
    init = (full(shape, 0, unsigned), full(shape, n, unsigned)) if batched else (unsigned.type(0), unsigned.type(n))
    levels = int(np.ceil(np.log2(n + 1)))
    carry, _ = scan(body, init, (), length=levels, unroll=levels if unrolled else 1)
    return carry[1].astype(dtype)


@jit(static_argnames=("side", "dtype", "unrolled"))
def _searchsorted_scan_impl(sorted_arr, query, side, dtype, unrolled):
    if aval_of(sorted_arr).size == 0:
        return full(aval_of(query).shape, 0, dtype)
    if aval_of(query).ndim == 0:
        return _binary_search(sorted_arr, query, side, dtype, unrolled, batched=False)
    if aval_of(query).ndim == 1:
        return _searchsorted_scan_batched(sorted_arr, query, side=side, dtype=dtype, unrolled=unrolled)
    # Higher-rank queries: the same search, elementwise over the flattened query.
    out = _searchsorted_scan_batched(sorted_arr, query.ravel(), side=side, dtype=dtype, unrolled=unrolled)
    return out.reshape(aval_of(query).shape)


# JAX vmaps the scalar search over the query, which shows as a second jit of
# the same name holding the batched search.
_searchsorted_scan_batched = jit(
    lambda sorted_arr, query, side, dtype, unrolled: _binary_search(sorted_arr, query, side, dtype, unrolled, True),
    static_argnames=("side", "dtype", "unrolled"))
_searchsorted_scan_batched.__name__ = "_searchsorted_scan_impl"


@jit(static_argnames=("side", "method"))
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Where `v`'s elements would go in the sorted 1-D array `a` to keep it
    sorted (the first such place for side='left', the last for 'right').

    Args:
      method: 'scan' (default), 'scan_unrolled', 'compare_all' (vectorised
        comparison of every pair; fast for small inputs) or 'sort'.

    Example:
      >>> jnp.searchsorted(jnp.array([1, 2, 3, 4]), jnp.array([0, 2, 5]))
      Array([0, 1, 4], dtype=int32)
    """
    if sorter is None:
        a, v = ensure_arraylike("searchsorted", a, v)
    else:
        a, v, sorter = ensure_arraylike("searchsorted", a, v, sorter)
    if aval_of(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = promote_dtypes("searchsorted", a, v)
    if sorter is not None:
        a = a[sorter]
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    dtype = np.dtype(np.int64) if aval_of(a).shape[0] > np.iinfo(np.int32).max else np.dtype(np.int32)
    if method in ("scan", "scan_unrolled"):
        return _searchsorted_scan_impl(a, v, side=side, dtype=dtype, unrolled=method == "scan_unrolled")
    if method == "compare_all":
        return _searchsorted_compare_all_impl(a, v, side=side, dtype=dtype)
    if method == "sort":
        return _searchsorted_sort_impl(a, v, side=side, dtype=dtype)
    raise ValueError(f"invalid argument method={method!r}, expected one of "
                     "['compare_all', 'scan', 'scan_unrolled', 'sort']")


@jit(static_argnames=("right", "method"))
def digitize(x, bins, right: bool = False, *, method: str | None = None):
    """The index of the bin of `bins` (increasing or decreasing) each element
    of `x` falls in."""
    from pyjax._src.numpy.creation import zeros_like
    from pyjax._src.numpy.where import where

    x, bins_arr = ensure_arraylike("digitize", x, bins)
    right = bool(right)
    if aval_of(bins_arr).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if aval_of(bins_arr).shape[0] == 0:
        return zeros_like(x, dtype=np.int32)
    side = "right" if not right else "left"
    kwds = {} if method is None else {"method": method}
    return where(bins_arr[-1] >= bins_arr[0], searchsorted(bins_arr, x, side=side, **kwds),
                 aval_of(bins_arr).shape[0] - searchsorted(bins_arr[::-1], x, side=side, **kwds))
