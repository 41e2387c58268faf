"""jax.numpy.linalg determinants, matrix powers, ranks and condition numbers.

det and slogdet are custom_jvp functions, as in JAX: slogdet's derivative is
``trace(solve(a, da))``, and det's comes from a cofactor solve, so that a
singular matrix still has a (nonzero) derivative.
"""

from __future__ import annotations

import operator
from functools import partial

import numpy as np

from pyjax._src import dtypes
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.linalg import (
    SlogdetResult,
    _arrays,
    _is_complex,
    _promote_inexact,
    _shape,
    _take_rows,
    inv,
    solve,
    svd,
    svdvals,
)
from pyjax._src.numpy.util import aval_of
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["cond", "det", "matrix_power", "matrix_rank", "slogdet"]


# ---------------------------------------------------------------------------
# Determinants


def _entry(a, i: int, j: int):
    return a[..., i, j]


def _sign_and_log_abs(det):
    abs_det = jnp.abs(det)
    return jnp.sign(det), jnp.real(jnp.log(abs_det))


def _slogdet_1x1(a):
    return _sign_and_log_abs(_entry(a, 0, 0))


def _slogdet_2x2(a):
    # The entries are read row by row (JAX's order of equations).
    a00, a01, a10, a11 = _entry(a, 0, 0), _entry(a, 0, 1), _entry(a, 1, 0), _entry(a, 1, 1)
    return _sign_and_log_abs(a00 * a11 - a01 * a10)


def _slogdet_small_impl(a):
    n = _shape(a)[-1]
    if n == 1:
        return _slogdet_1x1(a)
    if n == 2:
        return _slogdet_2x2(a)
    raise ValueError(f"_slogdet_small only supports n in {{1, 2}}, got n={n}")


_slogdet_small = custom_jvp(_slogdet_small_impl)
_slogdet_small.__name__ = "_slogdet_small"


def _slogdet_small_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    n = _shape(x)[-1]
    sign, ans = _slogdet_small(x)
    if n == 1:
        ans_dot = _entry(g, 0, 0) / _entry(x, 0, 0)
    else:
        # d log det = trace(adj(x) dx) / det(x), written out for 2x2.
        x00, x01, x10, x11 = _entry(x, 0, 0), _entry(x, 0, 1), _entry(x, 1, 0), _entry(x, 1, 1)
        det = x00 * x11 - x01 * x10
        ans_dot = (_entry(g, 0, 0) * x11 - _entry(g, 0, 1) * x10 - _entry(g, 1, 0) * x01 + _entry(g, 1, 1) * x00) / det
    return (sign, ans), _slogdet_tangents(x, sign, ans_dot)


def _slogdet_tangents(x, sign, ans_dot):
    # d log|det| is the real part of d log det; the sign moves by its imaginary part.
    if _is_complex(x):
        sign_dot = (ans_dot - jnp.real(ans_dot).astype(aval_of(ans_dot).dtype)) * sign
        return sign_dot, jnp.real(ans_dot)
    return jnp.zeros_like(sign), ans_dot


_slogdet_small.defjvp(_slogdet_small_jvp)


def _count_nonzero_last(mask):
    return jnp.sum(mask, axis=-1, dtype=dtypes.default_int_dtype())


def _slogdet_lu_impl(a):
    dtype = aval_of(a).dtype
    lu, pivot, _ = lax_linalg.lu(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    is_zero = jnp.any(diag == jnp.array(0, dtype=dtype), axis=-1)
    iota = lax_shapes.expand_dims(jnp.arange(_shape(a)[-1], dtype=aval_of(pivot).dtype), range(aval_of(pivot).ndim - 1))
    # Each row swap of the pivoting flips the sign.
    parity = _count_nonzero_last(pivot != iota)
    if _is_complex(a):
        sign = jnp.prod(diag / jnp.abs(diag).astype(aval_of(diag).dtype), axis=-1)
    else:
        sign = jnp.array(1, dtype=dtype)
        parity = parity + _count_nonzero_last(diag < 0)
    sign = jnp.where(is_zero, jnp.array(0, dtype=dtype), sign * jnp.array(-2 * (parity % 2) + 1, dtype=dtype))
    logdet = jnp.where(is_zero, jnp.array(-np.inf, dtype=dtype),
                       jnp.sum(jnp.log(jnp.abs(diag)).astype(dtype), axis=-1))
    return sign, jnp.real(logdet)


def _slogdet_qr_impl(a):
    if _is_complex(a):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    n = _shape(a)[-1]
    a, taus = lax_linalg.geqrf(a)
    diag = jnp.diagonal(a, axis1=-2, axis2=-1)
    log_abs_det = jnp.sum(jnp.log(jnp.abs(diag)), axis=-1)
    sign_diag = jnp.prod(jnp.sign(diag), axis=-1)
    # Each Householder reflector with a nonzero scale has determinant -1.
    sign_taus = jnp.prod(jnp.where(taus[..., :(n - 1)] != 0, -1, 1), axis=-1).astype(aval_of(sign_diag).dtype)
    return sign_diag * sign_taus, log_abs_det


_slogdet_lu = custom_jvp(_slogdet_lu_impl)
_slogdet_lu.__name__ = "_slogdet_lu"
_slogdet_qr = custom_jvp(_slogdet_qr_impl)
_slogdet_qr.__name__ = "_slogdet_qr"


@partial(jit, static_argnames=("method",))
def slogdet(a, *, method: str | None = None):
    """Sign and log of the absolute value of the determinant, without overflow.

    Args:
      a: (..., n, n) matrices.
      method: ``"lu"`` (default) or ``"qr"``: the factorization used.

    Returns:
      ``SlogdetResult(sign, logabsdet)``: det = sign * exp(logabsdet); for a
      singular matrix sign is 0 and logabsdet -inf.
    """
    (a,) = _promote_inexact(*_arrays("jnp.linalg.slogdet", a))
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {shape}")
    if method is None or method == "lu":
        if shape[-1] in (1, 2):
            return SlogdetResult(*_slogdet_small(a))
        return SlogdetResult(*_slogdet_lu(a))
    if method == "qr":
        return SlogdetResult(*_slogdet_qr(a))
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and 'qr'.")


def _slogdet_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    sign, ans = slogdet(x)
    ans_dot = jnp.trace(solve(x, g), axis1=-1, axis2=-2)
    return (sign, ans), _slogdet_tangents(x, sign, ans_dot)


_slogdet_lu.defjvp(_slogdet_jvp)
_slogdet_qr.defjvp(_slogdet_jvp)


def _det_2x2(a):
    return _entry(a, 0, 0) * _entry(a, 1, 1) - _entry(a, 0, 1) * _entry(a, 1, 0)


def _det_3x3(a):
    e = partial(_entry, a)
    return (e(0, 0) * e(1, 1) * e(2, 2) + e(0, 1) * e(1, 2) * e(2, 0) + e(0, 2) * e(1, 0) * e(2, 1)
            - e(0, 2) * e(1, 1) * e(2, 0) - e(0, 0) * e(1, 2) * e(2, 1) - e(0, 1) * e(1, 0) * e(2, 2))


def _det_impl(a):
    sign, logdet = slogdet(a)
    return sign * jnp.exp(logdet).astype(aval_of(sign).dtype)


_det = custom_jvp(_det_impl)
_det.__name__ = "_det"


def _det_jvp(primals, tangents):
    # d det(x)[g] = trace(adj(x) g). The adjugate is formed from an LU
    # factorization with the last pivot replaced, so singular x still gets a
    # derivative (the cofactor solve of JAX, arXiv:1507.03716 section 2.2.4).
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)
    return y, jnp.trace(z, axis1=-1, axis2=-2)


_det.defjvp(_det_jvp)


@jit
def det(a):
    """Determinant of each (..., n, n) matrix of `a`.

    2x2 and 3x3 determinants are written out; larger ones come from slogdet.
    """
    (a,) = _promote_inexact(*_arrays("jnp.linalg.det", a))
    shape = _shape(a)
    if len(shape) >= 2 and shape[-1] == 2 and shape[-2] == 2:
        return _det_2x2(a)
    if len(shape) >= 2 and shape[-1] == 3 and shape[-2] == 3:
        return _det_3x3(a)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        return _det(a)
    raise ValueError(f"Argument to _det() must have shape [..., n, n], got {shape}")


def _cofactor_solve(a, b):
    """(det(a), adj(a) @ b) for square `a` and `b` of its shape, valid for singular `a`.

    With a = P L U, the adjugate is det(a) a^-1 = det(a) U^-1 L^-1 P^T. The
    last diagonal entry of U is replaced by 1 / (the product of the others,
    times the pivot sign), which scales the solve by det(a) without dividing
    by a zero pivot; a matrix with a second zero pivot has a zero adjugate.
    """
    (a,) = _promote_inexact(a)
    (b,) = _promote_inexact(b)
    a_shape, b_shape = _shape(a), _shape(b)
    if not (len(a_shape) >= 2 and a_shape[-1] == a_shape[-2] and b_shape[-2:] == a_shape[-2:]):
        raise ValueError("The arguments to _cofactor_solve must have shapes a=[..., m, m] and b=[..., m, m]; "
                         f"got a={a_shape} and b={b_shape}")
    n = a_shape[-1]
    if n == 1:
        return a[..., 0, 0], b
    lu, pivots, permutation = lax_linalg.lu(a)
    dtype = aval_of(a).dtype
    batch = tuple(np.broadcast_shapes(_shape(lu)[:-2], b_shape[:-2]))
    x = jnp.broadcast_to(b, batch + b_shape[-2:])
    lu = jnp.broadcast_to(lu, batch + _shape(lu)[-2:])
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    iota = lax_shapes.expand_dims(jnp.arange(n, dtype=aval_of(pivots).dtype), range(aval_of(pivots).ndim - 1))
    parity = _count_nonzero_last(pivots != iota)
    sign = jnp.asarray(-2 * (parity % 2) + 1, dtype=dtype)
    partial_det = jnp.cumprod(diag, axis=-1) * sign[..., None]
    lu = lu.at[..., -1, -1].set(1.0 / partial_det[..., -2])
    permutation = jnp.broadcast_to(permutation, (*batch, n))
    # Where the modified U is still singular (a second zero pivot) the
    # adjugate is zero: mask those matrices out before and after the solves.
    d = lax_linalg.triangular_solve(lu, jnp.ones(_shape(x)[:-1], dtype), left_side=True, lower=False)
    d = jnp.any(jnp.logical_or(jnp.isnan(d), jnp.isinf(d)), axis=-1)[..., None, None]
    x = jnp.where(d, jnp.zeros_like(x), x)
    x = _take_rows(x, permutation)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = jnp.concatenate((x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]), axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    x = jnp.where(d, jnp.zeros_like(x), x)
    return partial_det[..., -1], x


# ---------------------------------------------------------------------------
# Powers, ranks, condition numbers


@partial(jit, static_argnames=("n",))
def matrix_power(a, n: int):
    """Raises each square matrix of `a` to the integer power `n` by repeated
    squaring (n = 0 gives the identity; negative n inverts first)."""
    (a,) = _arrays("jnp.linalg.matrix_power", a)
    shape = _shape(a)
    if len(shape) < 2:
        raise TypeError(f"{len(shape)}-dimensional array given. Array must be at least two-dimensional")
    if shape[-2] != shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return jnp.broadcast_to(jnp.eye(shape[-2], dtype=aval_of(a).dtype), shape)
    if n < 0:
        a = inv(a)
        n = -n
    if n == 1:
        return a
    if n == 2:
        return a @ a
    if n == 3:
        return (a @ a) @ a
    power, result = None, None
    while n > 0:
        power = a if power is None else power @ power
        n, bit = divmod(n, 2)
        if bit:
            result = power if result is None else result @ power
    return result


@partial(jit, static_argnames=("hermitian",))
def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """Rank of each matrix: the number of singular values above
    ``rtol * largest`` (default ``rtol = max(m, n) * eps``)."""
    (M,) = _arrays("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    (M,) = _promote_inexact(M)
    if aval_of(M).ndim < 2:
        return jnp.any(M != 0).astype(np.int32)
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        rtol = jnp.max(S, -1) * np.max(_shape(M)[-2:]).astype(aval_of(S).dtype) * jnp.finfo(aval_of(S).dtype).eps
    rtol = jnp.expand_dims(rtol, np.ndim(rtol) if not hasattr(rtol, "aval") else aval_of(rtol).ndim)
    return jnp.sum(S > rtol, axis=-1)


@partial(jit, static_argnames=("p",))
def cond(x, p=None):
    """Condition number of each matrix in the norm `p` (default 2: the ratio
    of the largest to the smallest singular value); inf for singular matrices."""
    (arr,) = _arrays("cond", x)
    shape = _shape(arr)
    if len(shape) < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got arr.shape={shape}")
    if shape[-1] == 0 or shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got arr.shape={shape}")
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        if shape[-2] != shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for p={p!r}, array must be square; got arr.shape={shape}")
        from pyjax._src.numpy.linalg_norms import norm

        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    # A NaN from a singular matrix (0 * inf) means an infinite condition number.
    return jnp.where(jnp.isnan(r) & ~jnp.any(jnp.isnan(x), axis=(-2, -1)), np.inf, r)
