"""Polynomials as coefficient arrays (highest power first): polyval
(Horner's rule as a scan), polyfit (least squares on the Vandermonde
matrix), roots (eigenvalues of the companion matrix), poly, polyadd,
polysub, polymul, polydiv, polyint and polyder.
"""

from __future__ import annotations

import operator

import numpy as np

from pyjax._src import dtypes, errors
from pyjax._src.jit import jit
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src.numpy.util import (
    aval_of,
    ensure_arraylike,
    full_like,
    promote_dtypes,
    promote_dtypes_inexact,
)
from pyjax._src.numpy.where import _where


def _len(x) -> int:
    return aval_of(x).shape[0]


@jit
def _roots_no_zeros(p):
    from pyjax._src.numpy import linalg
    from pyjax._src.numpy.creation import array, ones
    from pyjax._src.numpy.matrices import diag

    if aval_of(p).size < 2:
        return array([], dtype=dtypes.to_complex_dtype(aval_of(p).dtype))
    # The companion matrix: its eigenvalues are the roots.
    A = diag(ones((aval_of(p).size - 2,), aval_of(p).dtype), -1)
    A = A.at[0, :].set(-p[1:] / p[0])
    return linalg.eigvals(A)


@jit
def _roots_with_zeros(p, num_leading_zeros):
    from pyjax._src.numpy.creation import arange
    from pyjax._src.numpy.shape_ops import roll

    # An all-zero polynomial gets ones, so its roots are all NaN below.
    p = _where(_len(p) == num_leading_zeros, 1.0, p)
    roots = _roots_no_zeros(roll(p, -num_leading_zeros))
    # Leading zeros became trailing ones, i.e. roots at 0: move them last.
    roots = lax_sorting.sort_key_val(roots == 0, roots)[1]
    return _where(arange(aval_of(roots).size) < aval_of(roots).size - num_leading_zeros, roots, complex(np.nan, np.nan))


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial with coefficients `p` (complex).

    With strip_zeros=False leading zeros are allowed under jit: they give
    NaN roots at the end instead of being removed.
    """
    from pyjax._src.numpy.creation import array
    from pyjax._src.numpy.indexing import concrete_value
    from pyjax._src.numpy.reductions import all as all_
    from pyjax._src.numpy.reductions import argmin
    from pyjax._src.numpy.shape_ops import atleast_1d

    p = ensure_arraylike("roots", p)
    (p,) = promote_dtypes_inexact(p)
    p_arr = atleast_1d(p)
    if aval_of(p_arr).ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if aval_of(p_arr).size < 2:
        return array([], dtype=dtypes.to_complex_dtype(aval_of(p_arr).dtype))
    num_leading_zeros = _where(all_(p_arr == 0), _len(p_arr), argmin(p_arr == 0))
    if strip_zeros:
        value = concrete_value(num_leading_zeros)
        if value is None:
            raise errors.ConcretizationTypeError(
                num_leading_zeros, "The error occurred in the jnp.roots() function. To use this within a JIT-compiled "
                                   "context, pass strip_zeros=False, but be aware that leading zeros will result in "
                                   "some returned roots being set to NaN.")
        return _roots_no_zeros(p_arr[int(value):])
    return _roots_with_zeros(p_arr, num_leading_zeros)


@jit(static_argnames=("deg", "rcond", "full", "cov"))
def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """Least-squares polynomial fit of degree `deg` to the points (x, y).

    Returns the coefficients (highest power first); with `full`, also the
    residuals, rank, singular values and rcond; with `cov`, the covariance
    of the coefficients.
    """
    from pyjax._src.numpy import linalg
    from pyjax._src.numpy.contractions import dot, outer
    from pyjax._src.numpy.creation import array
    from pyjax._src.numpy.matrices import vander
    from pyjax._src.numpy.shape_ops import atleast_1d
    from pyjax._src.numpy.ufuncs import sqrt

    if w is None:
        x_arr, y_arr = ensure_arraylike("polyfit", x, y)
    else:
        x_arr, y_arr, w = ensure_arraylike("polyfit", x, y, w)
    deg = int(deg)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if aval_of(x_arr).ndim != 1:
        raise TypeError("expected 1D vector for x")
    if aval_of(x_arr).size == 0:
        raise TypeError("expected non-empty vector for x")
    if aval_of(y_arr).ndim < 1 or aval_of(y_arr).ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if _len(x_arr) != _len(y_arr):
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = _len(x_arr) * float(dtypes.finfo(aval_of(x_arr).dtype).eps)
    rcond = float(rcond)
    lhs = vander(x_arr, order)
    rhs = y_arr
    if w is not None:
        (w_arr,) = promote_dtypes_inexact(w)
        if aval_of(w_arr).ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if _len(w_arr) != _len(y_arr):
            raise TypeError("expected w and y to have the same length")
        lhs *= w_arr[:, np.newaxis]
        rhs = rhs * (w_arr[:, np.newaxis] if aval_of(rhs).ndim == 2 else w_arr)
    # Scale the columns: better conditioning for the least squares.
    scale = sqrt((lhs * lhs).sum(axis=0))
    lhs /= scale[np.newaxis, :]
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[np.newaxis, :]).T if aval_of(c).ndim > 1 else c / scale
    if full:
        from pyjax._src.numpy.creation import asarray

        return c, resids, rank, s, asarray(rcond)
    if cov:
        Vbase = linalg.inv(dot(lhs.T, lhs))
        Vbase /= outer(scale, scale)
        if cov == "unscaled":
            fac = array(1.0)
        else:
            if _len(x_arr) <= order:
                raise ValueError("the number of data points must exceed order to scale the covariance matrix")
            fac = resids / (_len(x_arr) - order)
        if aval_of(y_arr).ndim == 1:
            return c, Vbase * atleast_1d(fac)[np.newaxis]
        return c, Vbase[:, :, np.newaxis] * atleast_1d(fac)[np.newaxis, np.newaxis, :]
    return c


@jit
def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (or the
    characteristic polynomial of a square matrix)."""
    from pyjax._src.numpy.creation import array, ones
    from pyjax._src.numpy.misc import convolve
    from pyjax._src.numpy.shape_ops import atleast_1d

    seq_of_zeros = ensure_arraylike("poly", seq_of_zeros)
    (seq_of_zeros,) = promote_dtypes_inexact(seq_of_zeros)
    zeros_arr = atleast_1d(seq_of_zeros)
    shape = aval_of(zeros_arr).shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        from pyjax._src.numpy import linalg

        zeros_arr = linalg.eigvals(zeros_arr)
    if aval_of(zeros_arr).ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = aval_of(zeros_arr).dtype
    if _len(zeros_arr) == 0:
        return ones((), dtype=dt)
    a = ones((1,), dtype=dt)
    for k in range(_len(zeros_arr)):
        a = convolve(a, array([1, -zeros_arr[k]], dtype=dt), mode="full")
    return a


@jit(static_argnames=["unroll"])
def polyval(p, x, *, unroll: int = 16):
    """The polynomial with coefficients `p` evaluated at `x` (Horner's rule,
    a scan over the coefficients; 2-D `p` holds one polynomial per column).

    Example:
      >>> jnp.polyval(jnp.array([3., 0., 1.]), 2.0)
      Array(13., dtype=float32)
    """
    from pyjax._src.lax.control_flow import scan

    p, x = ensure_arraylike("polyval", p, x)
    p_arr, x_arr = promote_dtypes("polyval", p, x)
    shape = tuple(np.broadcast_shapes(aval_of(p_arr).shape[1:], aval_of(x_arr).shape))
    y = full_like(x_arr, 0, shape=shape, dtype=aval_of(x_arr).dtype)
    y, _ = scan(lambda y, c: (y * x_arr + c, None), y, p_arr, unroll=unroll)
    return y


@jit
def polyadd(a1, a2):
    """The sum of two polynomials."""
    a1, a2 = ensure_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes("polyadd", a1, a2)
    if _len(a2) <= _len(a1):
        return a1.at[-_len(a2):].add(a2)
    return a2.at[-_len(a1):].add(a1)


@jit
def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = ensure_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes("polysub", a1, a2)
    return polyadd(a1, -a2)


@jit(static_argnames=("m",))
def polyint(p, m: int = 1, k=None):
    """The m-th antiderivative, with integration constants `k` (a scalar or m
    values, lowest order last)."""
    from pyjax._src.numpy.creation import arange, full
    from pyjax._src.numpy.joining import concatenate
    from pyjax._src.numpy.shape_ops import atleast_1d
    from pyjax._src.numpy.ufuncs import maximum, true_divide

    m = operator.index(m)
    k = 0 if k is None else k
    p, k = ensure_arraylike("polyint", p, k)
    p_arr, k_arr = promote_dtypes_inexact(p, k)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k_arr = atleast_1d(k_arr)
    if _len(k_arr) == 1:
        k_arr = full((m,), k_arr[0])
    if aval_of(k_arr).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p_arr
    dtype = aval_of(p_arr).dtype
    grid = arange(_len(p_arr) + m, dtype=dtype)[np.newaxis] - arange(m, dtype=dtype)[:, np.newaxis]
    coeff = maximum(1, grid).prod(0)[::-1]
    return true_divide(concatenate((p_arr, k_arr)), coeff)


@jit(static_argnames=("m",))
def polyder(p, m: int = 1):
    """The m-th derivative."""
    from pyjax._src.numpy.creation import arange

    p = ensure_arraylike("polyder", p)
    m = operator.index(m)
    (p_arr,) = promote_dtypes_inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p_arr
    dtype = aval_of(p_arr).dtype
    coeff = (arange(m, _len(p_arr), dtype=dtype)[np.newaxis] - arange(m, dtype=dtype)[:, np.newaxis]).prod(0)
    return p_arr[:-m] * coeff[::-1]


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """The product of two polynomials."""
    from pyjax._src.numpy.creation import zeros
    from pyjax._src.numpy.joining import trim_zeros
    from pyjax._src.numpy.misc import convolve

    a1, a2 = ensure_arraylike("polymul", a1, a2)
    a1, a2 = promote_dtypes_inexact(a1, a2)
    if trim_leading_zeros and (_len(a1) > 1 or _len(a2) > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if _len(a1) == 0:
        a1 = zeros(1, dtype=aval_of(a2).dtype)
    if _len(a2) == 0:
        a2 = zeros(1, dtype=aval_of(a1).dtype)
    return convolve(a1, a2, mode="full")


def _trim_zeros_tol(filt, tol, trim="fb"):
    from pyjax._src.numpy.indexing import concrete_value

    value = concrete_value(filt)
    if value is None:
        raise errors.ConcretizationTypeError(filt, "Error arose in the `filt` argument of trim_zeros_tol()")
    nz = np.abs(value) >= np.asarray(concrete_value(tol) if hasattr(tol, "aval") else tol)
    if np.all(~nz):
        return filt[:0]
    start = int(np.argmax(nz)) if "f" in trim.lower() else 0
    end = len(value) - int(np.argmax(nz[::-1])) if "b" in trim.lower() else len(value)
    return filt[start:end]


def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """(quotient, remainder) of polynomial division."""
    from pyjax._src.numpy.creation import zeros
    from pyjax._src.numpy.ufuncs import sqrt

    u, v = ensure_arraylike("polydiv", u, v)
    u, v = promote_dtypes_inexact(u, v)
    m, n = _len(u) - 1, _len(v) - 1
    scale = 1.0 / v[0]
    q = zeros(max(m - n + 1, 1), dtype=aval_of(u).dtype)
    for k in range(m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        u = _trim_zeros_tol(u, tol=sqrt(dtypes.finfo(aval_of(u).dtype).eps), trim="f")
    return q, u
