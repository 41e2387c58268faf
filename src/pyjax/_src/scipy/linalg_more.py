"""jax.scipy.linalg, continued: special matrices (toeplitz, hankel,
circulant, companion, pascal, hilbert, ...), Schur and Hessenberg forms and
what is built on them (rsf2csf, sqrtm, funm, solve_sylvester), polar,
qr_multiply, expm_frechet and eigh_tridiagonal.

Differences from JAX, in how (not what) is computed: eigh_tridiagonal solves the dense Hermitian
problem instead of bisection and inverse iteration (the same eigenvalues;
eigenvectors up to sign).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import numpy as np

from pyjax._src import dtypes
from pyjax._src.api_ad import jvp
from pyjax._src.jit import jit
from pyjax._src.lax import control_flow as lax_control
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_elementwise
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.lax import special as lax_special
from pyjax._src.numpy.util import check_arraylike, promote_args_inexact, promote_dtypes_inexact
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.linalg import expm

__all__ = [
    "circulant", "companion", "convolution_matrix", "dft", "eigh_tridiagonal", "expm_frechet", "fiedler",
    "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg", "hilbert", "invhilbert", "invpascal",
    "leslie", "pascal", "polar", "qr_multiply", "rsf2csf", "schur", "solve_sylvester", "sqrtm", "toeplitz",
]

_HIGHEST = lax_dot.Precision.HIGHEST


def _mm(a, b):
    return jnp.matmul(a, b, precision=_HIGHEST)


def _batch_broadcast(*arrays):
    """The arrays with their leading (batch) axes broadcast together; the
    last axis of each is kept."""
    batch = np.broadcast_shapes(*[a.shape[:-1] for a in arrays])
    return [jnp.broadcast_to(a, batch + a.shape[-1:]) for a in arrays]


# ---- special matrices ----


def toeplitz(c, r=None):
    r"""Construct a Toeplitz matrix: constant along every diagonal.

    JAX implementation of :func:`scipy.linalg.toeplitz`: ``T[i, j] = c[i - j]``
    below the diagonal and ``r[j - i]`` above it (``r[0]`` is ignored). With
    ``r=None`` the matrix is Hermitian (``r = conj(c)``). Leading axes of
    ``c`` and ``r`` are batch axes.
    """
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    c, r = jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r))
    dtype = jnp.promote_types(c.dtype, r.dtype)
    c, r = _batch_broadcast(c.astype(dtype), r.astype(dtype))
    m, n = c.shape[-1], r.shape[-1]
    if m == 0 or n == 0:
        return jnp.empty(c.shape[:-1] + (m, n), dtype=dtype)
    # vals = c reversed, then r[1:]: T[i, j] = vals[m - 1 - i + j].
    vals = jnp.concatenate([jnp.flip(c, -1), r[..., 1:]], axis=-1)
    index = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return vals[..., index]


def hankel(c, r=None):
    r"""Construct a Hankel matrix: constant along every anti-diagonal.

    JAX implementation of :func:`scipy.linalg.hankel`: ``H[i, j] = c[i + j]``
    for ``i + j < len(c)``, then ``r[i + j - len(c) + 1]`` (``r[0]`` is
    ignored; ``r=None`` means zeros).
    """
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    dtype = jnp.result_type(c, r)
    c, r = _batch_broadcast(c.astype(dtype), r.astype(dtype))
    m, n = c.shape[-1], r.shape[-1]
    if m == 0 or n == 0:
        return jnp.empty(c.shape[:-1] + (m, n), dtype=dtype)
    vals = jnp.concatenate([c, r[..., 1:]], axis=-1)
    return vals[..., np.arange(m)[:, None] + np.arange(n)[None, :]]


def circulant(c):
    r"""Construct a circulant matrix: ``C[i, j] = c[(i - j) % n]``.

    JAX implementation of :func:`scipy.linalg.circulant`; leading axes of
    ``c`` are batch axes.
    """
    check_arraylike("circulant", c)
    c = jnp.atleast_1d(jnp.asarray(c))
    n = c.shape[-1]
    return c[..., (np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def companion(a):
    r"""Create a companion matrix of the polynomial with coefficients ``a``
    (highest degree first).

    JAX implementation of :func:`scipy.linalg.companion`: the first row is
    ``-a[1:] / a[0]``, the first subdiagonal ones. Leading axes are batch axes.
    """
    (a,) = promote_args_inexact("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(f"The length of `a` along the last axis must be at least 2; got shape {a.shape}.")
    first_row = -a[..., 1:] / a[..., :1]
    m = a.shape[-1] - 1
    below = jnp.broadcast_to(jnp.eye(m, m, k=-1, dtype=first_row.dtype)[1:], a.shape[:-1] + (m - 1, m))
    return jnp.concatenate([first_row[..., None, :], below], axis=-2)


def fiedler(a):
    r"""Returns a symmetric Fiedler matrix: ``F[i, j] = |a[i] - a[j]|``.

    JAX implementation of :func:`scipy.linalg.fiedler`.
    """
    check_arraylike("fiedler", a)
    arr = jnp.atleast_1d(a)
    return jnp.abs(arr[..., None] - arr[..., None, :])


def fiedler_companion(a):
    r"""Returns the Fiedler companion matrix of the polynomial ``a``.

    JAX implementation of :func:`scipy.linalg.fiedler_companion`: a
    pentadiagonal matrix with the same eigenvalues as ``companion(a)``.
    """
    (a,) = promote_args_inexact("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    n = a.shape[-1] - 1
    batch = a.shape[:-1]
    if n == 0:
        return jnp.empty(batch + (0, 0), dtype=a.dtype)
    a = a / a[..., :1]
    if n == 1:
        return -a[..., 1:].reshape(batch + (1, 1))
    # Each entry is one of: 0, 1, or -a[idx]; the pattern is static.
    source = np.full((n, n), -1, dtype=np.int64)  # index into a, or -1: zero, -2: one
    source[0, 0] = 1
    source[1, 0] = -2
    for i in range(n):
        if i % 2 == 0:
            if i + 1 < n:
                source[i, i + 1] = i + 2
            if i + 2 < n:
                source[i, i + 2] = -2
            if i >= 2:
                source[i, i - 1] = i + 1
        elif i >= 3:
            source[i, i - 2] = -2
    values = jnp.concatenate([-a, jnp.zeros(batch + (1,), a.dtype), jnp.ones(batch + (1,), a.dtype)], axis=-1)
    lookup = np.where(source >= 0, source, np.where(source == -1, n + 1, n + 2))
    return values[..., lookup]


def leslie(f, s):
    r"""Create a Leslie matrix: fecundities ``f`` in the first row, survival
    rates ``s`` on the subdiagonal.

    JAX implementation of :func:`scipy.linalg.leslie`.
    """
    check_arraylike("leslie", f, s)
    f_arr, s_arr = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f_arr.shape[-1] < 2:
        raise ValueError(f"The length of f along the last axis must be at least 2; got shape {f_arr.shape}.")
    if s_arr.shape[-1] != f_arr.shape[-1] - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis must be one less "
                         f"than the length of f; got f shape {f_arr.shape} and s shape {s_arr.shape}.")
    dtype = jnp.result_type(f_arr, s_arr)
    f_arr, s_arr = _batch_broadcast(f_arr.astype(dtype), s_arr.astype(dtype))
    n = f_arr.shape[-1]
    sub = s_arr[..., :, None] * jnp.eye(n - 1, n, dtype=dtype)
    return jnp.concatenate([f_arr[..., None, :], sub], axis=-2)


def convolution_matrix(a, n: int, mode: str = "full"):
    r"""Construct a convolution matrix: ``convolution_matrix(a, n) @ v`` is
    ``jnp.convolve(a, v, mode)`` for ``v`` of length ``n``.

    JAX implementation of :func:`scipy.linalg.convolution_matrix`.
    """
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a_arr = jnp.asarray(a)
    if a_arr.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a_arr.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a_arr.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    widths = [(0, 0)] * (a_arr.ndim - 1) + [(0, n - 1)]
    padded = jnp.pad(a_arr, widths)
    reversed_padded = jnp.pad(jnp.flip(a_arr, axis=-1), widths)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        begin, end = trim // 2, trim - trim // 2
    elif mode == "valid":
        begin = end = min(n, m) - 1
    else:
        begin = end = 0
    column = padded[..., begin:length - end]
    row = reversed_padded[..., length - n - begin:length - begin]
    return toeplitz(column, row)


def dft(n: int, scale: str | None = None, *, dtype=None):
    r"""Discrete Fourier transform matrix: ``W[j, k] = exp(-2 pi i j k / n)``.

    JAX implementation of :func:`scipy.linalg.dft`; ``scale`` is ``None``,
    ``'sqrtn'`` or ``'n'`` (dividing by sqrt(n) or n).
    """
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = dtypes.to_complex_dtype(jnp.zeros(()).dtype)
    else:
        dtype = np.dtype(dtype)
        if not np.issubdtype(dtype, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / jnp.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return omegas


def hadamard(n: int, dtype=int):
    r"""Construct an ``n x n`` Hadamard matrix (Sylvester's construction; n a power of 2).

    JAX implementation of :func:`scipy.linalg.hadamard`.
    """
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = jnp.block([[h, h], [h, -h]])
    return h


def helmert(n: int, full: bool = False):
    r"""Create a Helmert matrix of order ``n``: orthonormal rows, each
    orthogonal to the ones vector (with ``full=True``, that vector's
    normalisation as the first row).

    JAX implementation of :func:`scipy.linalg.helmert`.
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i = jnp.arange(n - 1)[:, None]
    j = jnp.arange(n)[None, :]
    k = (i + 1).astype(jnp.zeros(()).dtype)
    denom = jnp.sqrt(k * (k + 1))
    h = jnp.where(j <= i, 1.0 / denom, jnp.where(j == i + 1, -k / denom, jnp.zeros_like(denom)))
    if full:
        h = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=h.dtype), h], axis=0)
    return h


def hilbert(n: int):
    r"""Create a Hilbert matrix: ``H[i, j] = 1 / (i + j + 1)``.

    JAX implementation of :func:`scipy.linalg.hilbert`.
    """
    a = jnp.arange(n, dtype=float)[:, None]
    return 1 / (a + a.T + 1)


def _comb(n, k):
    # binomial coefficients of float arrays, zero outside 0 <= k <= n.
    from pyjax._src.scipy.special import comb
    return comb(n, k)


def invhilbert(n: int):
    r"""The inverse of the Hilbert matrix of order ``n`` (its exact entries,
    in floating point).

    JAX implementation of :func:`scipy.linalg.invhilbert`.
    """
    a = jnp.arange(n, dtype=float)
    i, j = a[:, None], a[None, :]
    s = i + j
    return (-1.0) ** s * (s + 1.0) * _comb(n + i, n - j - 1) * _comb(n + j, n - i - 1) * _comb(s, i) ** 2


@jit
def _binom(n, k):
    # Through lgamma, as JAX computes it: float results off exact by rounding.
    return lax_elementwise.exp(lax_special.lgamma(n + 1.0) - lax_special.lgamma(n - k + 1.0)
                               - lax_special.lgamma(k + 1.0))


def _check_kind(kind: str | None, wording: str) -> str:
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ValueError(f"Expected kind to be {wording}: {valid}; got {kind}")
    return kind


def pascal(n: int, kind: str | None = None):
    r"""The ``n x n`` Pascal matrix: binomial coefficients, ``'symmetric'``
    (default), ``'lower'`` or ``'upper'`` triangular.

    JAX implementation of :func:`scipy.linalg.pascal` (float32, as in JAX).
    """
    # JAX's message says "on of" here (and "one of" in invpascal).
    kind = _check_kind(kind, "on of")
    a = jnp.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.dot(lower, lower.T)


def invpascal(n: int, kind: str | None = None):
    r"""The inverse of the ``n x n`` Pascal matrix.

    JAX implementation of :func:`scipy.linalg.invpascal`.
    """
    kind = _check_kind(kind, "one of")
    a = jnp.arange(n, dtype=float)
    i, j = a[:, None], a[None, :]
    lower_inv = ((-1.0) ** (i - j)) * _binom(i, j)
    if kind == "lower":
        return lower_inv
    if kind == "upper":
        return lower_inv.T
    return jnp.dot(lower_inv.T, lower_inv)


# ---- Schur, Hessenberg and functions of matrices ----


def schur(a, output: str = "real"):
    r"""Compute the Schur decomposition ``a = Z T Z^H``.

    JAX implementation of :func:`scipy.linalg.schur`: ``T`` is quasi upper
    triangular (``output='real'``) or upper triangular (``'complex'``), ``Z``
    unitary.
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got output={output!r}.")
    return _schur(a, output)


@jit(static_argnames=("output",))
def _schur(a, output: str):
    a = jnp.asarray(a)
    if output == "complex":
        a = a.astype(dtypes.to_complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    r"""Compute the Hessenberg form ``a = Q H Q^H`` (``H`` zero below the first subdiagonal).

    JAX implementation of :func:`scipy.linalg.hessenberg`; returns ``H``, or
    ``(H, Q)`` with ``calc_q=True``.
    """
    del overwrite_a, check_finite
    a = jnp.asarray(a)
    n = a.shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    packed, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    # The reflectors live below the subdiagonal; Q acts on rows/columns 1..n-1.
    q_inner = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
    batch = packed.shape[:-2]
    q = jnp.zeros(batch + (n, n), packed.dtype)
    q = q.at[..., 0, 0].set(1)
    q = q.at[..., 1:, 1:].set(q_inner)
    return h, q


def _rsf2csf_2d(t, z):
    eps = np.finfo(t.dtype).eps
    n = t.shape[0]
    if n == 1:
        return t, z
    rows = np.arange(n)
    # Bottom up, each 2x2 block with a nonzero subdiagonal (a complex pair)
    # is triangularised by a Givens rotation built from its eigenvalue.
    for m in range(n - 1, 0, -1):
        def rotate(t, z, m=m):
            block = t[m - 1:m + 1, m - 1:m + 1]
            mu = jnp.linalg.eigvals(block) - t[m, m]
            r = jnp.linalg.norm(jnp.stack([mu[0], t[m, m - 1]])).astype(t.dtype)
            c, s = mu[0] / r, t[m, m - 1] / r
            g = jnp.stack([jnp.stack([c.conj(), s]), jnp.stack([-s, c])])
            cols = rows >= m - 1
            pair = t[m - 1:m + 1]
            t = t.at[m - 1:m + 1].set(jnp.where(cols, _mm(g, jnp.where(cols, pair, 0)), pair))
            keep = (rows < m + 1)[:, None]
            pair_cols = t[:, m - 1:m + 1]
            t = t.at[:, m - 1:m + 1].set(jnp.where(keep, _mm(jnp.where(keep, pair_cols, 0), g.conj().T), pair_cols))
            z = z.at[:, m - 1:m + 1].set(_mm(z[:, m - 1:m + 1], g.conj().T))
            return t, z
        significant = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
        t, z = lax_control.cond(significant, rotate, lambda t, z: (t, z), t, z)
        t = t.at[m, m - 1].set(0.0)
    return t, z


@jit(static_argnames=("check_finite",))
def rsf2csf(T, Z, check_finite: bool = True):
    r"""Convert a real Schur form to the complex Schur form.

    JAX implementation of :func:`scipy.linalg.rsf2csf`: ``(T, Z)`` from
    :func:`schur` with ``output='real'`` become a triangular ``T`` and its
    unitary ``Z``, both complex. Leading axes are batch axes.
    """
    del check_finite
    t, z = jnp.asarray(T), jnp.asarray(Z)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    t, z = promote_dtypes_inexact(t, z)
    complex_dtype = dtypes.to_complex_dtype(jnp.result_type(t, z))
    t, z = t.astype(complex_dtype), z.astype(complex_dtype)
    return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(t, z)


def _sqrtm_triu(t):
    # The upper-triangular square root, column by column (Bjorck & Hammarling).
    n = t.shape[0]
    diag = jnp.sqrt(jnp.diagonal(t))
    u = jnp.diag(diag)
    for j in range(n):
        for i in range(j - 1, -1, -1):
            s = jnp.sum(u[i, i + 1:j] * u[i + 1:j, j]) if j > i + 1 else jnp.zeros((), t.dtype)
            value = jnp.where(t[i, j] == s, 0.0, (t[i, j] - s) / (diag[i] + diag[j]))
            u = u.at[i, j].set(value)
    return u


def sqrtm(A, blocksize: int = 1):
    r"""Compute the matrix square root: ``X @ X == A``.

    JAX implementation of :func:`scipy.linalg.sqrtm`, through the complex
    Schur form (the result is complex).
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    return _sqrtm(A)


@jit
def _sqrtm(A):
    t, z = schur(A, output="complex")
    return _mm(_mm(z, _sqrtm_triu(t)), jnp.conj(z.T))


def _parlett(f, t):
    # Parlett's recurrence (Golub & Van Loan, algorithm 11.1.1) for the
    # off-diagonal of f(T), T upper triangular; also the smallest |T_jj - T_ii|.
    n = t.shape[0]
    minden = jnp.abs(t[0, 0])
    for p in range(1, n):
        for i in range(1, n - p + 1):
            j = i + p
            s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
            if j - 1 > i:
                s = s + jnp.sum(t[i - 1, i:j - 1] * f[i:j - 1, j - 1]) - jnp.sum(f[i - 1, i:j - 1] * t[i:j - 1, j - 1])
            den = t[j - 1, j - 1] - t[i - 1, i - 1]
            s = jnp.where(den != 0, s / den, s)
            f = f.at[i - 1, j - 1].set(s)
            minden = jnp.minimum(minden, jnp.abs(den))
    return f, minden


def funm(A, func: Callable, disp: bool = True):
    r"""Evaluate a matrix function given by a callable on the eigenvalues.

    JAX implementation of :func:`scipy.linalg.funm`: ``func`` is applied to
    the diagonal of the complex Schur form, and Parlett's recurrence fills
    the rest. With ``disp=False`` also returns an estimate of the error.
    """
    a = jnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = schur(a)
    t, z = rsf2csf(t, z)
    f = jnp.diag(func(jnp.diagonal(t))).astype(t.dtype)
    f, minden = _parlett(f, t)
    f = z @ f @ z.conj().T
    if disp:
        return f
    tol = np.finfo(np.float32 if f.dtype in (np.dtype(np.complex64), np.dtype(np.float32)) else np.float64).eps
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(jnp.any(jnp.isinf(f)), np.inf,
                    jnp.minimum(1, jnp.maximum(tol, (tol / minden) * jnp.linalg.norm(jnp.triu(t, 1), 1))))
    return f, err


def _solve_triangular_sylvester(r, s, f):
    # R Y + Y S = F with R upper and S lower triangular (the Schur factors):
    # from the bottom-right corner up, one entry at a time.
    m, n = f.shape
    y = jnp.zeros_like(f)
    for i in range(m - 1, -1, -1):
        for j in range(n - 1, -1, -1):
            rhs = f[i, j]
            if i + 1 < m:
                rhs = rhs - jnp.sum(r[i, i + 1:] * y[i + 1:, j])
            if j + 1 < n:
                rhs = rhs - jnp.sum(y[i, j + 1:] * s[j + 1:, j])
            y = y.at[i, j].set(rhs / (r[i, i] + s[j, j]))
    return y


def _solve_sylvester_2d(a, b, c, *, method: str, tol: float):
    m, n = c.shape[-2:]
    if method == "schur":
        r, u = schur(a, output="complex")
        s, v = schur(b.conj().T, output="complex")
        f = u.conj().T @ c.astype(r.dtype) @ v
        x = u @ _solve_triangular_sylvester(r, s.conj().T, f) @ v.conj().T
    elif method == "eigen":
        ra, ua = jnp.linalg.eig(a)
        rb, ub = jnp.linalg.eig(b)
        f = jnp.linalg.solve(ua, c.astype(ra.dtype) @ ub)
        y = f / (ra[:, None] + rb[None, :])
        x = ua[:m, :m] @ y[:m, :n] @ jnp.linalg.inv(ub)[:n, :n]
    else:
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either "schur" or "eigen".')
    if not dtypes.issubdtype(c.dtype, np.complexfloating):
        x = x.real
    # No unique solution when an eigenvalue of A is (near) minus one of B's.
    singular = jnp.any(jnp.abs(jnp.linalg.eigvals(a)[:, None] + jnp.linalg.eigvals(b)[None, :]) < tol)
    return jnp.where(singular, jnp.full_like(x, np.nan), x)


@jit(static_argnames=["method"])
def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    r"""Solve the Sylvester equation ``A X + X B = C``.

    JAX implementation of :func:`scipy.linalg.solve_sylvester`, by the
    Bartels-Stewart method (``'schur'``) or by diagonalisation (``'eigen'``).
    When A and -B share an eigenvalue (within ``tol``) the result is NaN.
    """
    A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\nB: {B.shape}\nC: {C.shape}")
    return jnp.vectorize(lambda a, b, c: _solve_sylvester_2d(a, b, c, method=method, tol=tol),
                         signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)


# ---- polar, qr_multiply, expm_frechet, eigh_tridiagonal ----


def _polar_2d(a, side: str, method: str, eps):
    m, n = a.shape
    if method == "qdwh":
        from pyjax._src.lax.qdwh import qdwh  # (lax.linalg's QDWH; as JAX, max_iterations is not passed on)

        if m >= n and side == "right":
            unitary, posdef, _, _ = qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            unitary, posdef, _, _ = qdwh(a.T.conj(), is_hermitian=False, eps=eps)
            unitary, posdef = unitary.T.conj(), posdef.T.conj()
        else:
            raise NotImplementedError("method='qdwh' only supports mxn matrices where m < n where side='right' and "
                                      f"m >= n side='left', got {a.shape} with side={side!r}")
        return unitary, posdef
    if method != "svd":
        raise ValueError(f"Unknown polar decomposition method {method}.")
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    s = s.astype(u.dtype)
    unitary = _mm(u, vh)
    if side == "right":
        posdef = _mm(vh.T.conj() * s[None, :], vh)
    else:
        posdef = _mm(u * s[None, :], u.T.conj())
    return unitary, posdef


@jit(static_argnames=("side", "method"))
def polar(a, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None):
    r"""Computes the polar decomposition ``a = u p`` (``side='right'``) or
    ``a = p u`` (``side='left'``), ``u`` with orthonormal columns (rows) and
    ``p`` positive semidefinite.

    JAX implementation of :func:`scipy.linalg.polar`. ``method='qdwh'`` runs
    :func:`jax.lax.linalg.qdwh` with ``eps`` (``max_iterations`` is accepted
    and, as in JAX, not passed on); ``'svd'`` computes the factors from the SVD.
    """
    arr = jnp.asarray(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    signature = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return jnp.vectorize(lambda x: _polar_2d(x, side, method, eps), signature=signature)(arr)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    r"""Calculate the QR decomposition of ``a`` and multiply ``Q`` with ``c``.

    JAX implementation of :func:`scipy.linalg.qr_multiply`: returns
    ``(c @ Q[:, :k], R)`` for ``mode='right'`` or ``(Q[:, :k] @ c, R)`` for
    ``'left'``, with ``k = min(a.shape)``; ``conjugate`` uses ``conj(Q)``.
    Column pivoting is not implemented in pyjax.
    """
    del overwrite_a, overwrite_c
    a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    if pivoting:
        raise NotImplementedError("qr_multiply(..., pivoting=True) needs a column-pivoted QR (geqp3), "
                                  "which pyjax does not have yet")
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left":
        if c.shape[-2] != k:
            raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape {tuple(a.shape)} "
                             f"so Q has {k} columns, but c has {c.shape[-2]} rows (expected {k}).")
    elif c.shape[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape {tuple(a.shape)} "
                         f"so Q has {m} rows, but c has {c.shape[-1]} columns (expected {m}).")
    batch = np.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])
    q, r = lax_linalg.qr(a, full_matrices=False)  # q: (m, k), r: (k, n)
    if conjugate:
        q = q.conj()
    out = _mm(q, c) if mode == "left" else _mm(c, q)
    if onedim:
        out = out.ravel()
    return out, jnp.triu(r)


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
    r"""Frechet derivative of the matrix exponential of ``A`` in the direction ``E``.

    JAX implementation of :func:`scipy.linalg.expm_frechet`: the JVP of
    :func:`expm`. Returns ``(expm(A), L(A, E))``, or only ``L(A, E)`` with
    ``compute_expm=False``.
    """
    del method
    a, e = jnp.asarray(A), jnp.asarray(E)
    if a.ndim < 2 or a.shape[-2] != a.shape[1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a.shape}")
    if e.ndim < 2 or e.shape[-2] != e.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={e.shape}")
    if a.shape != e.shape:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={a.shape} E.shape={e.shape}")
    value, tangent = jvp(lambda x: expm(x, upper_triangular=False, max_squarings=16), (a,), (e,))
    return (value, tangent) if compute_expm else tangent


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None, tol: float | None = None, key=None):
    r"""Solve the eigenvalue problem of a symmetric (Hermitian) tridiagonal matrix.

    JAX implementation of :func:`scipy.linalg.eigh_tridiagonal`: ``d`` the
    diagonal, ``e`` the off-diagonal. Eigenvalues come in ascending order;
    ``select='i'`` keeps those with indices in ``select_range`` (inclusive).
    Returns the eigenvalues, or ``(w, v)`` with eigenvectors as columns.
    """
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    supported = (np.float32, np.float64, np.complex64, np.complex128)
    if alpha.dtype != beta.dtype:
        raise TypeError(f"diagonal and off-diagonal values must have same dtype, got {alpha.dtype} and {beta.dtype}")
    if alpha.dtype not in supported or beta.dtype not in supported:
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        return jnp.real(alpha) if eigvals_only else (jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype))
    if select == "a":
        chosen = None
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        chosen = np.arange(select_range[0], select_range[1] + 1)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    matrix = jnp.diag(alpha) + jnp.diag(beta, -1) + jnp.diag(jnp.conj(beta), 1)
    w, v = jnp.linalg.eigh(matrix, UPLO="L")
    if chosen is not None:
        w, v = w[chosen], v[:, chosen]
    return w if eigvals_only else (w, v)
