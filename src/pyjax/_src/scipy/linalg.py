"""jax.scipy.linalg: SciPy's linear algebra on lax.linalg.

SciPy's conventions differ from NumPy's: cholesky returns the upper factor
by default, qr's default mode is "full", lu returns (P, L, U) with
``a = P @ L @ U``. The `overwrite_*` and `check_finite` arguments exist for
compatibility and are ignored (arrays are immutable and never checked).

Known difference: JAX's solve(assume_a="pos") wraps its Cholesky solve in
`custom_linear_solve`, which pyjax does not have yet; the solve is staged
directly here (same numbers, different jaxpr).
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np

from pyjax._src.jit import jit
from pyjax._src.lax import control_flow as lax_control
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.numpy import linalg as jnp_linalg
from pyjax._src.numpy import linalg_det as jnp_linalg_det
from pyjax._src.numpy.linalg_norms import norm as jnp_norm
from pyjax._src.numpy.util import aval_of, promote_dtypes
from pyjax._src.scipy import jnp_pending as jnp

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm", "inv", "lu", "lu_factor", "lu_solve",
    "qr", "solve", "solve_triangular", "svd",
]


def _promote_inexact(*args):
    return jnp_linalg._promote_inexact(*[jnp.asarray(a) for a in args])


def _H(x):
    return jnp.conj(jnp.matrix_transpose(x))


def _vectorized(fn, signature: str, *args):
    """fn applied over the broadcast batch dimensions of `args`, whose core
    ranks the gufunc `signature` gives (as jnp.vectorize, for functions whose
    lax primitives take leading batch dimensions themselves)."""
    inputs = signature.split("->")[0]
    core_ranks = [0 if not part.strip("()") else len(part.strip("()").split(","))
                  for part in inputs.replace("),(", ")|(").split("|")]
    batch = tuple(np.broadcast_shapes(*[aval_of(a).shape[:aval_of(a).ndim - r] for a, r in zip(args, core_ranks)]))
    broadcast = []
    for a, rank in zip(args, core_ranks):
        shape = aval_of(a).shape
        target = batch + shape[len(shape) - rank:]
        if shape != target:
            # jnp.vectorize's broadcast_to passes NumPy integers, which print so.
            dims = tuple(np.int64(len(target) - len(shape) + i) for i in range(len(shape)))
            a = lax_shapes.broadcast_in_dim_p.bind(a, shape=target, broadcast_dimensions=dims, sharding=None)
        broadcast.append(a)
    return fn(*broadcast)


def _warn_batched_vector(name: str, how: str) -> None:
    warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in the future "
                  f"will be treated as a batched 2D solve. Use {how} to avoid this warning.", FutureWarning,
                  stacklevel=4)


# ---------------------------------------------------------------------------
# Cholesky


@partial(jit, static_argnames=("lower",))
def _cholesky(a, lower: bool):
    (a,) = _promote_inexact(a)
    L = lax_linalg.cholesky(a if lower else jnp.conj(jnp.matrix_transpose(a)), symmetrize_input=False)
    return L if lower else jnp.conj(jnp.matrix_transpose(L))


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """Cholesky factor of a Hermitian positive-definite matrix.

    Args:
      a: (..., n, n); only the triangle named by `lower` is read.
      lower: return L with ``a = L L^H`` rather than (the default) U with ``a = U^H U``.

    Returns:
      The triangular factor (NaN where `a` is not positive definite).
    """
    return _cholesky(a, lower)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(cholesky(a, lower), lower)``: the input that cho_solve takes."""
    return cholesky(a, lower=lower), lower


@partial(jit, static_argnames=("lower",))
def _cho_solve(c, b, lower: bool):
    c, b = _promote_inexact(c, b)
    b_ndim, c_ndim = aval_of(b).ndim, aval_of(c).ndim
    if b_ndim == 1:
        signature = "(n,n),(n)->(n)"
    elif c_ndim == b_ndim + 1 and aval_of(c).shape[-1] == aval_of(b).shape[-1]:
        _warn_batched_vector("cho_solve", "cho_solve(c_and_lower, b[..., None]).squeeze(-1)")
        signature = "(n,n),(n)->(n)"
    else:
        signature = "(n,n),(n,k)->(n,k)"
    # a = L L^H: solve with L, then with L^H (or U^H, then U).
    first = partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=not lower,
                    conjugate_a=not lower)
    b = _vectorized(first, signature, c, b)
    second = partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=lower, conjugate_a=lower)
    return _vectorized(second, signature, c, b)


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """Solves ``a @ x = b`` given cho_factor(a).

    Args:
      c_and_lower: ``(c, lower)`` from cho_factor.
      b: (..., n) or (..., n, k).
    """
    c, lower = c_and_lower
    return _cho_solve(c, b, lower)


# ---------------------------------------------------------------------------
# Triangular and general solves


@partial(jit, static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower: bool, unit_diagonal: bool):
    if trans == 0 or trans == "N":
        transpose_a, conjugate_a = False, False
    elif trans == 1 or trans == "T":
        transpose_a, conjugate_a = True, False
    elif trans == 2 or trans == "C":
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _promote_inexact(a, b)
    b_ndim, a_ndim = aval_of(b).ndim, aval_of(a).ndim
    if b_ndim == 1:
        signature = "(n,n),(n)->(n)"
    elif a_ndim == b_ndim + 1 and aval_of(a).shape[-1] == aval_of(b).shape[-1]:
        _warn_batched_vector("solve_triangular", "solve_triangular(a, b[..., None]).squeeze(-1)")
        signature = "(n,n),(n)->(n)"
    else:
        signature = "(n,n),(n,k)->(n,k)"
    solve_one = partial(lax_linalg.triangular_solve, left_side=True, lower=lower, transpose_a=transpose_a,
                        conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    return _vectorized(solve_one, signature, a, b)


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug=None, check_finite: bool = True):
    """Solves ``a @ x = b`` for triangular `a`.

    Args:
      a: (..., n, n); only the triangle named by `lower` is read.
      b: (n,) or (..., n, k).
      trans: 0/"N" solves a x = b, 1/"T" a^T x = b, 2/"C" a^H x = b.
      lower: `a` is lower (rather than upper) triangular.
      unit_diagonal: take a's diagonal to be ones without reading it.
    """
    return _solve_triangular(a, b, trans, lower, unit_diagonal)


_ASSUME_A = ["gen", "sym", "her", "pos"]


@partial(jit, static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a: str, lower: bool):
    if assume_a != "pos":
        return jnp_linalg.solve(a, b)
    a, b = _promote_inexact(a, b)
    factors = cho_factor(a, lower=lower)
    a_ndim, b_ndim = aval_of(a).ndim, aval_of(b).ndim
    if a_ndim == b_ndim + 1:
        return cho_solve(factors, b[..., None])[..., 0]
    return cho_solve(factors, b)


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False, debug: bool = False,
          check_finite: bool = True, assume_a: str = "gen"):
    """Solves ``a @ x = b``.

    Args:
      a: (..., n, n).
      b: (..., n) or (..., n, k).
      lower: with ``assume_a="pos"``, read the lower (rather than upper) triangle.
      assume_a: ``"gen"`` (LU), ``"sym"``, ``"her"`` (also LU) or ``"pos"``
        (Cholesky, for positive-definite `a`).
    """
    if assume_a not in _ASSUME_A:
        raise ValueError(f"Expected assume_a to be one of {_ASSUME_A}; got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """The inverse of each square matrix of `a` (jnp.linalg.inv)."""
    return jnp_linalg.inv(a)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """The determinant of each square matrix of `a` (jnp.linalg.det)."""
    return jnp_linalg_det.det(a)


# ---------------------------------------------------------------------------
# LU


@partial(jit, static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """LU factorization with partial pivoting, compactly: ``(lu, piv)``.

    `lu` holds L (below the diagonal, unit diagonal implied) and U; `piv[i]`
    is the row swapped with row i, as LAPACK's getrf returns it.
    """
    (a,) = _promote_inexact(a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def _lu_solve_core(lu_, permutation, b, trans: int):
    # One (n, n) factorization against an (n, k) right-hand side.
    m = aval_of(lu_).shape[0]
    x = lax_shapes.reshape(b, (m, int(np.prod(aval_of(b).shape[1:], dtype=np.int64))))
    if trans == 0:
        x = x[permutation, :]
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    elif trans in (1, 2):
        conj = trans == 2
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
                                        conjugate_a=conj)
        from pyjax._src.lax import sorting as lax_sorting

        # Undo the permutation: its inverse is the argsort.
        _, inverse = lax_sorting.sort_key_val(permutation, lax_shapes.iota(np.int32, aval_of(permutation).shape[0]))
        x = x[inverse, :]
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return lax_shapes.reshape(x, aval_of(b).shape)


def _lu_solve_batched(lu_, permutation, b, trans: int):
    if trans == 0:
        x = jnp_linalg._take_rows(b, permutation)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
        return lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    if trans not in (1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    conj = trans == 2
    x = lax_linalg.triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
                                    conjugate_a=conj)
    from pyjax._src.lax import sorting as lax_sorting

    iota = lax_shapes.broadcasted_iota(np.int32, aval_of(permutation).shape, aval_of(permutation).ndim - 1)
    _, inverse = lax_sorting.sort_key_val(permutation, iota)
    return jnp_linalg._take_rows(x, inverse)


@partial(jit, static_argnums=(3,))
def _lu_solve(lu_, permutation, b, trans: int):
    lu_shape, b_shape = aval_of(lu_).shape, aval_of(b).shape
    if len(lu_shape) < 2 or lu_shape[-1] != lu_shape[-2]:
        raise ValueError(f"last two dimensions of LU decomposition must be equal, got shape {lu_shape}")
    if len(b_shape) < 1:
        raise ValueError(f"b matrix must have rank >= 1, got shape {b_shape}")
    # As NumPy's solve: b is a (batched) vector when it has one dimension fewer.
    vector = len(lu_shape) == len(b_shape) + 1
    if vector:
        if b_shape[-1] != lu_shape[-1]:
            raise ValueError(f"When LU decomposition matrix and b have the same number of dimensions, last axis of "
                             f"LU decomposition matrix (shape {lu_shape}) and b array (shape {b_shape}) must match")
        b = b[..., None]
    elif b_shape[-2] != lu_shape[-1]:
        raise ValueError(f"When LU decomposition matrix and b different numbers of dimensions, last axis of LU "
                         f"decomposition matrix (shape {lu_shape}) and second to last axis of b array (shape "
                         f"{b_shape}) must match")
    batch = tuple(np.broadcast_shapes(lu_shape[:-2], aval_of(permutation).shape[:-1], aval_of(b).shape[:-2]))
    lu_ = jnp.broadcast_to(lu_, (*batch, *lu_shape[-2:]))
    permutation = jnp.broadcast_to(permutation, (*batch, aval_of(permutation).shape[-1]))
    b = jnp.broadcast_to(b, (*batch, *aval_of(b).shape[-2:]))
    if not batch:
        x = _lu_solve_core(lu_, permutation, b, trans)
    else:
        # JAX vmaps the core over the batch; pyjax's gather has no batching
        # rule yet, so the batch goes through batched gathers instead.
        x = _lu_solve_batched(lu_, permutation, b, trans)
    return x[..., 0] if vector else x


@partial(jit, static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True):
    """Solves ``a @ x = b`` given lu_factor(a).

    Args:
      lu_and_piv: ``(lu, piv)`` from lu_factor.
      b: (..., n) or (..., n, k).
      trans: 0 solves a x = b, 1 a^T x = b, 2 a^H x = b.
    """
    lu_, pivots = lu_and_piv
    lu_, b = _promote_inexact(lu_, b)
    m = aval_of(lu_).shape[-2]
    perm = lax_linalg.lu_pivots_to_permutation(pivots, m)
    lu_ndim, b_ndim = aval_of(lu_).ndim, aval_of(b).ndim
    if b_ndim == 1:
        signature = "(n,n),(n),(n)->(n)"
    elif lu_ndim == b_ndim + 1 and aval_of(lu_).shape[-1] == aval_of(b).shape[-1]:
        _warn_batched_vector("lu_solve", "lu_solve(lu_and_piv, b[..., None]).squeeze(-1)")
        signature = "(n,n),(n),(n)->(n)"
    else:
        signature = "(n,n),(n),(n,k)->(n,k)"
    return _vectorized(partial(_lu_solve, trans=trans), signature, lu_, perm, b)


@partial(jit, static_argnums=(1,))
def _lu(a, permute_l: bool):
    (a,) = _promote_inexact(a)
    lu_, _, permutation = lax_linalg.lu(a)
    dtype = aval_of(a).dtype
    m, n = aval_of(a).shape
    # P[i, j] = 1 where row j of `a` became row i: a = P L U.
    p = jnp.real(jnp.array(permutation[None, :] == jnp.arange(m, dtype=aval_of(permutation).dtype)[:, None],
                           dtype=dtype))
    k = min(m, n)
    lower = jnp.tril(lu_, -1)[:, :k] + jnp.eye(m, k, dtype=dtype)
    upper = jnp.triu(lu_)[:k, :]
    if permute_l:
        return jnp.matmul(p, lower, precision=lax_dot.Precision.HIGHEST), upper
    return p, lower, upper


@partial(jit, static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """LU decomposition with partial pivoting: ``a = P @ L @ U``.

    Args:
      a: an (m, n) matrix.
      permute_l: return ``(P @ L, U)`` instead of ``(P, L, U)``.

    Returns:
      P (m, m) a permutation, L (m, k) unit lower triangular, U (k, n) upper
      triangular, k = min(m, n).
    """
    return _lu(a, permute_l)


# ---------------------------------------------------------------------------
# QR, SVD, eigh


@partial(jit, static_argnames=("mode", "pivoting"))
def _qr(a, mode: str, pivoting: bool):
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = _promote_inexact(a)
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    if mode == "r":
        return (r, p[0]) if pivoting else (r,)
    return (q, r, p[0]) if pivoting else (q, r)


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """QR decomposition: ``a = Q @ R`` (``a[:, P] = Q @ R`` with pivoting).

    Args:
      a: (..., m, n).
      mode: ``"full"`` (Q is (m, m)), ``"economic"`` (Q is (m, k)) or ``"r"``
        (R alone, in a 1-tuple).
      pivoting: column pivoting (rank revealing); P is then returned last.
    """
    return _qr(a, mode, pivoting)


@partial(jit, static_argnames=("full_matrices", "compute_uv"))
def _svd(a, *, full_matrices: bool, compute_uv: bool):
    (a,) = _promote_inexact(a)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """Singular value decomposition ``a = U @ diag(s) @ Vh``: ``(U, s, Vh)``, or s alone."""
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


@partial(jit, static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(a, b, lower: bool, eigvals_only: bool, eigvals, type: int):
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = _promote_inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix.

    Args:
      a: (..., n, n); only the triangle named by `lower` is read.
      eigvals_only: return only the eigenvalues.
      b, eigvals, type: the generalized problem and subsets are not implemented.
    """
    return _eigh(a, b, lower, eigvals_only, eigvals, type)


# ---------------------------------------------------------------------------
# The matrix exponential (scaling and squaring with Pade approximants,
# Higham 2005)


def _precise_dot(a, b):
    return jnp.dot(a, b, precision=lax_dot.Precision.HIGHEST)


def _pade3(A):
    b = (120.0, 60.0, 12.0, 1.0)
    ident = jnp.eye(*aval_of(A).shape, dtype=aval_of(A).dtype)
    A2 = _precise_dot(A, A)
    return _precise_dot(A, b[3] * A2 + b[1] * ident), b[2] * A2 + b[0] * ident


def _pade5(A):
    b = (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0)
    ident = jnp.eye(*aval_of(A).shape, dtype=aval_of(A).dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    return _precise_dot(A, b[5] * A4 + b[3] * A2 + b[1] * ident), b[4] * A4 + b[2] * A2 + b[0] * ident


def _pade7(A):
    b = (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0)
    ident = jnp.eye(*aval_of(A).shape, dtype=aval_of(A).dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    A6 = _precise_dot(A4, A2)
    U = _precise_dot(A, b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident)
    return U, b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident


def _pade9(A):
    b = (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0, 1.0)
    ident = jnp.eye(*aval_of(A).shape, dtype=aval_of(A).dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    A6 = _precise_dot(A4, A2)
    A8 = _precise_dot(A6, A2)
    U = _precise_dot(A, b[9] * A8 + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident)
    return U, b[8] * A8 + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident


def _pade13(A):
    b = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
         10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
    ident = jnp.eye(*aval_of(A).shape, dtype=aval_of(A).dtype)
    A2 = _precise_dot(A, A)
    A4 = _precise_dot(A2, A2)
    A6 = _precise_dot(A4, A2)
    U = _precise_dot(A, _precise_dot(A6, b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2
                     + b[1] * ident)
    V = _precise_dot(A6, b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident
    return U, V


# Per precision: the largest 1-norm the highest order handles without
# scaling, the 1-norm bounds that select each order, and the orders.
_EXPM_PLANS = {
    "double": (5.371920351148152, [1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                                   2.097847961257068e+000], [_pade3, _pade5, _pade7, _pade9, _pade13]),
    "single": (3.925724783138660, [4.258730016922831e-001, 1.880152677804762e+000], [_pade3, _pade5, _pade7]),
}


@jit
def _calc_P_Q(A):
    shape = aval_of(A).shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError("expected A to be a square matrix")
    A_L1 = jnp_norm(A, 1)
    dtype = aval_of(A).dtype
    if dtype in (np.float64, np.complex128):
        maxnorm, bounds, approximants = _EXPM_PLANS["double"]
    elif dtype in (np.float32, np.complex64):
        maxnorm, bounds, approximants = _EXPM_PLANS["single"]
    else:
        raise TypeError(f"A.dtype={dtype} is not supported.")
    # Scale A by 2**-s so its norm is within reach of the order-13 (or 7) approximant.
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(A_L1 / maxnorm)))
    A = A / 2 ** n_squarings.astype(dtype)
    conds = jnp.array(bounds, dtype=aval_of(A_L1).dtype)
    idx = jnp.digitize(A_L1, conds)
    U, V = lax_control.switch(idx, approximants, A)
    return U + V, -U + V, n_squarings


@partial(jit, static_argnums=2)
def _squaring(R, n_squarings, max_squarings: int):
    # Undo the scaling: square R n_squarings times (at most max_squarings).
    def step(carry, i):
        return lax_control.cond(i < n_squarings, lambda x: _precise_dot(x, x), lambda x: x, carry), None

    result, _ = lax_control.scan(step, R, jnp.arange(max_squarings, dtype=aval_of(n_squarings).dtype))
    return result


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """The matrix exponential, by scaling and squaring with a Pade approximant.

    Args:
      A: (..., n, n).
      upper_triangular: `A` is upper triangular (the final solve is then triangular).
      max_squarings: the most squarings allowed; matrices whose norm would
        need more give NaN.
    """
    (A,) = _promote_inexact(A)
    shape = aval_of(A).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={shape}.")
    if len(shape) > 2:
        from pyjax._src.api import vmap

        fn = partial(expm, upper_triangular=upper_triangular, max_squarings=max_squarings)
        for _ in shape[:-2]:
            fn = vmap(fn)
        return fn(A)
    P, Q, n_squarings = _calc_P_Q(jnp.asarray(A))

    def too_large(args):
        return jnp.full_like(args[0], np.nan)

    def compute(args):
        _, P, Q = args
        R = solve_triangular(Q, P) if upper_triangular else jnp_linalg.solve(Q, P)
        return _squaring(R, n_squarings, max_squarings)

    return lax_control.cond(n_squarings > max_squarings, too_large, compute, (A, P, Q))


# ---------------------------------------------------------------------------
# block_diag


@jit
def block_diag(*arrs):
    """The block-diagonal matrix with the given arrays (at most 2-D) as blocks."""
    if not arrs:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(promote_dtypes("block_diag", *arrs)) if len(arrs) > 1 else tuple(arrs)
    bad = [i for i, a in enumerate(arrs) if np.ndim(a) > 2 or (hasattr(a, "aval") and aval_of(a).ndim > 2)]
    if bad:
        raise ValueError(f"Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, got "
                         f"{arrs[bad[0]]} at argument {bad[0]}.")
    blocks = [jnp.atleast_2d(a) for a in arrs]
    dtype = aval_of(blocks[0]).dtype
    total_cols = sum(aval_of(a).shape[1] for a in blocks)
    padded, col = [], 0
    for block in blocks:
        cols = aval_of(block).shape[1]
        padded.append(lax_slicing.pad(block, dtype.type(0), ((0, 0, 0), (col, total_cols - cols - col, 0))))
        col += cols
    return jnp.concatenate(padded, axis=0)

