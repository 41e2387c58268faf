"""Diagonals and triangles of matrices: diagonal, diag, diagflat, trace,
diag_indices(_from), fill_diagonal, tril_indices/triu_indices(_from),
mask_indices and vander.

jnp.diagonal of a square 2-D array picks a platform-dependent computation
in JAX (a `cond` on `platform_index`); pyjax has no control-flow primitives
yet and always takes JAX's default branch, the gather.
"""

from __future__ import annotations

import operator

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.numpy.shape_ops import moveaxis, ravel
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    check_arraylike,
    ensure_arraylike,
    full_like,
)


@jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The `offset`-th diagonal of the 2-D sub-arrays of `a` in the plane of
    (axis1, axis2), as the last axis of the result."""
    from pyjax._src.numpy.creation import arange

    a = ensure_arraylike("diagonal", a)
    if aval_of(a).ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    shape = aval_of(a).shape
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    size = max(0, min(shape[axis1] + min(offset, 0), shape[axis2] - max(offset, 0)))
    i = arange(size)
    j = arange(abs(offset), abs(offset) + size)
    return a[..., i, j] if offset >= 0 else a[..., j, i]


def diag(v, k: int = 0):
    """The k-th diagonal of a 2-D array, or a 2-D array with the 1-D `v` on
    its k-th diagonal."""
    v = ensure_arraylike("diag", v)
    return _diag(v, operator.index(k))


@jit(static_argnames=("k",))
def _diag(v, k):
    from pyjax._src.numpy.creation import eye
    from pyjax._src.numpy.where import where

    shape = aval_of(v).shape
    if len(shape) == 1:
        zero = full_like(v, 0, shape=())
        n = shape[0] + abs(k)
        v = lax_slicing.pad(v, zero, ((max(0, -k), max(0, k), 0),))
        return where(eye(n, k=k, dtype=bool), v[:, None], zero)
    if len(shape) == 2:
        return diagonal(v, offset=k)
    raise ValueError("diag input must be 1d or 2d")


def diagflat(v, k: int = 0):
    """A 2-D array with the flattened `v` on its k-th diagonal."""
    from pyjax._src.numpy.creation import arange, zeros

    check_arraylike("diagflat", v)
    flat = ravel(v)
    n = aval_of(flat).shape[0]
    m = n + abs(k)
    res = zeros(m * m, dtype=aval_of(flat).dtype)
    i = arange(0, m - abs(k))
    fi = i + k + i * m if k >= 0 else i + (i - k) * m
    return res.at[fi].set(flat).reshape(m, m)


@jit(static_argnames=("axis1", "axis2", "dtype"))
def trace(a, offset=0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """The sum along the `offset`-th diagonal of the (axis1, axis2) planes."""
    from pyjax._src.numpy.creation import eye, zeros_like
    from pyjax._src.numpy.reductions import sum as sum_
    from pyjax._src.numpy.where import where

    a = ensure_arraylike("trace", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    ndim = aval_of(a).ndim
    if canonicalize_axis(axis1, ndim) == canonicalize_axis(axis2, ndim):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "trace")
    shape = aval_of(a).shape
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    a = where(eye(shape[axis1], shape[axis2], k=offset, dtype=bool), a, zeros_like(a))
    return sum_(a, axis=(-2, -1), dtype=dtype)


def diag_indices(n: int, ndim: int = 2) -> tuple:
    """The indices of the main diagonal of an n x ... x n array."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    index_dtype = np.dtype(np.int64) if n > np.iinfo(np.int32).max else dtypes.default_int_dtype()
    return (lax_shapes.iota(index_dtype, n),) * ndim


def diag_indices_from(arr) -> tuple:
    """The indices of the main diagonal of the (hyper)cubic `arr`."""
    arr = ensure_arraylike("diag_indices_from", arr)
    shape = aval_of(arr).shape
    if not len(shape) >= 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], ndim=len(shape))


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """A copy of `a` with its main diagonal set to `val` (pass inplace=False)."""
    from pyjax._src.numpy.take import _tile_to_size

    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a, val = ensure_arraylike("fill_diagonal", a, val)
    shape = aval_of(a).shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and not all(n == shape[0] for n in shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(shape)
    idx = diag_indices(n, len(shape))
    return a.at[idx].set(val if aval_of(val).ndim == 0 else _tile_to_size(val.ravel(), n))


def _triu_size(n, m, k):
    if k < 0:
        return n * m - _triu_size(m, n, 1 - k)
    if k >= m:
        return 0
    mk = min(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)


def triu_indices(n, k=0, m=None) -> tuple:
    """The (row, column) indices of the upper triangle (from diagonal k) of
    an (n, m) array."""
    from pyjax._src.numpy.creation import ones, triu
    from pyjax._src.numpy.nonzero import nonzero

    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    return nonzero(triu(ones((n, m)), k=k), size=_triu_size(n, m, k))


def tril_indices(n, k=0, m=None) -> tuple:
    """The (row, column) indices of the lower triangle (up to diagonal k) of
    an (n, m) array."""
    from pyjax._src.numpy.creation import ones, tril
    from pyjax._src.numpy.nonzero import nonzero

    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    return nonzero(tril(ones((n, m)), k=k), size=_triu_size(m, n, -k))


def _shape_2d(arr, name):
    shape = tuple(arr.shape) if hasattr(arr, "shape") else aval_of(ensure_arraylike(name, arr)).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return shape


def triu_indices_from(arr, k: int = 0) -> tuple:
    """triu_indices for the shape of the 2-D `arr`."""
    n, m = _shape_2d(arr, "triu_indices_from")
    return triu_indices(n, k=k, m=m)


def tril_indices_from(arr, k: int = 0) -> tuple:
    """tril_indices for the shape of the 2-D `arr`."""
    n, m = _shape_2d(arr, "tril_indices_from")
    return tril_indices(n, k=k, m=m)


def mask_indices(n: int, mask_func, k: int = 0, *, size: int | None = None) -> tuple:
    """The indices where mask_func(ones((n, n)), k) is nonzero (e.g. mask_func=jnp.triu)."""
    from pyjax._src.numpy.creation import ones
    from pyjax._src.numpy.nonzero import nonzero

    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


@jit(static_argnames=("N", "increasing"))
def vander(x, N: int | None = None, increasing: bool = False):
    """The Vandermonde matrix of the 1-D `x`: columns x**(N-1), ..., x**0 (or
    increasing powers)."""
    from pyjax._src.numpy.shape_ops import expand_dims
    from pyjax._src.numpy.ufuncs_extra import power

    x = ensure_arraylike("vander", x)
    if aval_of(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = aval_of(x).shape[0] if N is None else operator.index(N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    iota = lax_shapes.iota(aval_of(x).dtype, N)
    if not increasing:
        iota = lax_ew.sub(np.asarray(N - 1, aval_of(iota).dtype)[()], iota)
    return power(x[..., None], expand_dims(iota, tuple(range(aval_of(x).ndim))))
