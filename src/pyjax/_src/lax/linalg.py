"""Linear-algebra primitives (JAX's lax.linalg): decompositions and solves.

Every primitive works on the trailing one or two dimensions of its operands
(its "core" ranks) and maps over any leading batch dimensions, which all
operands must have in equal number. Abstract evaluation checks the ranks,
then the primitive's own shape rule, then the dtypes, with JAX's messages.

    cholesky, cholesky_update, eig, eigh, hessenberg, householder_product,
    lu, lu_pivots_to_permutation, geqrf, geqp3, ormqr, qr, schur, svd,
    symmetric_product, triangular_solve, tridiagonal, tridiagonal_solve

Some wrappers add equations around their primitive exactly as JAX's do:
`cholesky` and `eigh` symmetrize the input, `cholesky` keeps the lower
triangle, `triangular_solve` turns a vector right-hand side into a matrix.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive, get_aval
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes
from pyjax._src.lax._standard import FLOAT, FLOAT_OR_COMPLEX, INT, nary_dtype_check
from pyjax._src.lax import sharding_rules

__all__ = [
    "EigImplementation", "EighImplementation", "SvdAlgorithm",
    "cholesky", "cholesky_p", "cholesky_update", "cholesky_update_p", "eig", "eig_p", "eigh",
    "eigh_p", "hessenberg", "hessenberg_p", "householder_product", "householder_product_p", "lu",
    "lu_p", "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "ormqr", "ormqr_p", "qr",
    "qr_p", "schur", "schur_p", "svd", "svd_p", "symmetric_product", "symmetric_product_p",
    "triangular_solve", "triangular_solve_p", "tridiagonal", "tridiagonal_p", "tridiagonal_solve",
    "tridiagonal_solve_p",
]

_INT32 = (("int32", lambda d: d == np.int32),)


# ---------------------------------------------------------------------------
# The family builder


def _check_same_dtypes(name: str, avals: Sequence[ShapedArray]) -> None:
    # JAX's message; no jnp tip, as no jnp function shares these names.
    if any(a.dtype != avals[0].dtype for a in avals[1:]):
        got = ", ".join(str(a.dtype) for a in avals)
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {got}.")


def _split_batch(name: str, avals, ranks, supports_batching: bool) -> tuple[tuple, list]:
    """(batch shape, core shapes): the leading and the trailing `rank` dims of each operand."""
    batches, cores = [], []
    for i, (rank, aval) in enumerate(zip(ranks, avals, strict=True)):
        shape = aval.shape
        if len(shape) < rank:
            raise TypeError(f"Input {i} to {name} must have rank at least {rank}, but got shape={shape}")
        if not supports_batching and len(shape) != rank:
            raise TypeError(f"Input {i} to {name} must have a rank of exactly {rank}, but got shape={shape}")
        batches.append(shape[:len(shape) - rank])
        cores.append(shape[len(shape) - rank:])
    if any(len(b) != len(batches[0]) for b in batches):
        raise TypeError(
            f"All inputs to {name} must have the same number of batch dimensions, but got "
            f"{[len(b) for b in batches]} batch dimensions for the inputs.")
    return batches[0], cores


def _linalg_primitive(name: str, accepted: Sequence, ranks: Sequence[int], shape_rule: Callable,
                      dtype_rule: Callable | None = None, *, multiple_results: bool = False,
                      supports_batching: bool = True, require_same: bool = True) -> Primitive:
    """A primitive on the trailing `ranks` dims of its operands, batched over the rest.

    `shape_rule(*core_shapes, **params)` gives the core output shape (a tuple of
    them for several results); `dtype_rule(*dtypes, **params)` the output
    dtype(s), by default the first operand's.
    """
    primitive = Primitive(name, multiple_results=multiple_results)

    def abstract_eval(*avals: ShapedArray, **params):
        batch, cores = _split_batch(name, avals, ranks, supports_batching)
        out_shapes = shape_rule(*cores, **params)
        nary_dtype_check(name, accepted, avals)
        if require_same:
            _check_same_dtypes(name, avals)
        dtypes_in = [a.dtype for a in avals]
        out_dtypes = dtype_rule(*dtypes_in, **params) if dtype_rule else dtypes_in[0]
        weak = all(a.weak_type for a in avals)
        if multiple_results:
            return [ShapedArray(batch + tuple(s), np.dtype(d), weak)
                    for s, d in zip(out_shapes, out_dtypes, strict=True)]
        return ShapedArray(batch + tuple(out_shapes), np.dtype(out_dtypes), weak)

    primitive.def_abstract_eval(abstract_eval)
    primitive.def_sharding_rule(sharding_rules.linalg_rule(name, ranks))
    primitive.core_ranks = tuple(ranks)  # (read by spmd_local_rules: the dims a device needs whole)
    return primitive


def _real_dtype(dtype) -> np.dtype:
    return np.finfo(dtype).dtype if np.issubdtype(dtype, np.complexfloating) else np.dtype(dtype)


# ---------------------------------------------------------------------------
# Helpers that stage the same equations JAX's wrappers do


def _transpose_last(x):
    ndim = get_aval(x).ndim
    return shapes.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


def _adjoint(x):
    x = _transpose_last(x)
    return ew.conj(x) if np.issubdtype(get_aval(x).dtype, np.complexfloating) else x


def _scalar(value, aval: ShapedArray, weak_type: bool):
    """A scalar constant of aval's dtype; a staging trace writes it as a literal."""
    constant, scalar_aval = np.asarray(value, aval.dtype), ShapedArray((), aval.dtype, weak_type)
    # An autodiff trace holds no constants of its own: the staging trace
    # under it (if any) makes the literal, a constant for the traces above.
    trace = core.current_trace()
    while getattr(trace, "lift_constant", None) is None and getattr(trace, "parent", None) is not None:
        trace = trace.parent
    lift = getattr(trace, "lift_constant", None)
    return lift(constant, scalar_aval) if lift is not None else Array(constant, scalar_aval)


def _symmetrize(x):
    """(x + x^H) / 2, the 2 a weak literal as JAX's `/` makes it."""
    aval = get_aval(x)
    return ew.div(ew.add(x, _adjoint(x)), _scalar(2, aval, True))


def _tril(x, k: int = 0):
    """Zeroes the part of each matrix of `x` above its k-th diagonal."""
    aval = get_aval(x)
    *batch, n, m = aval.shape
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(k))
    mask = ew.ge(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))
    if batch:
        mask = shapes.broadcast_in_dim(mask, aval.shape, (len(batch), len(batch) + 1))
    # (typed as x, as JAX's full_like of a tracer is)
    zeros = shapes.broadcast_in_dim(_scalar(0, aval, aval.weak_type), aval.shape, (), out_sharding=aval.sharding)
    return ew.select(mask, x, zeros)


# ---------------------------------------------------------------------------
# Cholesky


def _cholesky_shape_rule(shape):
    if shape[0] != shape[1]:
        raise ValueError(f"The input to cholesky must be a square matrix. Got shape {shape}.")
    return shape


cholesky_p = _linalg_primitive("cholesky", (FLOAT_OR_COMPLEX,), (2,), _cholesky_shape_rule)


def cholesky(x, *, symmetrize_input: bool = True):
    """Cholesky decomposition A = L L^H of Hermitian positive-definite matrices.

    Args:
      x: a batch of square matrices, shape [..., n, n].
      symmetrize_input: if True, factor (x + x^H) / 2; otherwise only the lower
        triangle of `x` is read.

    Returns:
      The lower-triangular factor L, shape [..., n, n]. A matrix whose
      factorization fails comes back full of NaNs.
    """
    if symmetrize_input:
        x = _symmetrize(x)
    return _tril(cholesky_p.bind(x))


def _cholesky_update_shape_rule(r_shape, w_shape):
    if r_shape[0] != r_shape[1] or w_shape[0] != r_shape[1]:
        raise ValueError(
            "Rank-1 update to Cholesky decomposition takes a square matrix and a vector of the same "
            f"size as input. Got shapes {r_shape} and {w_shape} instead")
    return r_shape


cholesky_update_p = _linalg_primitive("cholesky_update", (FLOAT, FLOAT), (2, 1), _cholesky_update_shape_rule,
                                      supports_batching=False)


def cholesky_update(r_matrix, w_vector):
    """Rank-1 update of a Cholesky factor in O(n^2).

    Args:
      r_matrix: an upper-triangular R with A = R^T R.
      w_vector: the vector w.

    Returns:
      The upper-triangular factor of A + w w^T.
    """
    return cholesky_update_p.bind(r_matrix, w_vector)


# ---------------------------------------------------------------------------
# Eigendecompositions


class EigImplementation(enum.Enum):
    """Algorithm for the general eigendecomposition."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


def _eig_shape_rule(shape, *, compute_left_eigenvectors, compute_right_eigenvectors, **_):
    if shape[0] != shape[1]:
        raise ValueError(f"The input to eig must be a square matrix. Got shape {shape}.")
    return (shape[:-1],) + (shape,) * (compute_left_eigenvectors + compute_right_eigenvectors)


def _eig_dtype_rule(dtype, *, compute_left_eigenvectors, compute_right_eigenvectors, **_):
    return (dtypes.to_complex_dtype(dtype),) * (1 + compute_left_eigenvectors + compute_right_eigenvectors)


eig_p = _linalg_primitive("eig", (FLOAT_OR_COMPLEX,), (2,), _eig_shape_rule, _eig_dtype_rule,
                          multiple_results=True)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation: EigImplementation | None = None,
        use_magma: bool | None = None) -> list:
    """Eigendecomposition of general square matrices.

    Args:
      x: a batch of square matrices, shape [..., n, n].
      compute_left_eigenvectors: also return the left eigenvectors.
      compute_right_eigenvectors: also return the right eigenvectors.
      enable_eigvec_derivs: allow differentiating the eigenvectors.
      implementation: an EigImplementation, or None for the default.
      use_magma: deprecated spelling of implementation=MAGMA/LAPACK.

    Returns:
      [w, vl, vr]: the (complex) eigenvalues, then the left and right
      eigenvectors when asked for. Eigenvectors have unit 2-norm with their
      largest component real, as LAPACK's geev gives them.
    """
    if use_magma is not None:
        implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
    return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                      compute_right_eigenvectors=bool(compute_right_eigenvectors),
                      enable_eigvec_derivs=bool(enable_eigvec_derivs), implementation=implementation)


class EighImplementation(enum.Enum):
    """Algorithm for the symmetric/Hermitian eigendecomposition."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


def _eigh_shape_rule(shape, *, subset_by_index, **_):
    if shape[0] != shape[-1]:
        raise ValueError(
            f"Argument to symmetric eigendecomposition must have shape [..., n, n], got shape {shape}")
    n = shape[0]
    d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    return (n, d), (d,)


eigh_p = _linalg_primitive("eigh", (FLOAT_OR_COMPLEX,), (2,), _eigh_shape_rule,
                           lambda dtype, **_: (dtype, _real_dtype(dtype)), multiple_results=True)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index: tuple[int, int] | None = None, implementation: EighImplementation | None = None):
    """Eigendecomposition of Hermitian (real symmetric) matrices.

    Args:
      x: a batch of square matrices, shape [..., n, n].
      lower: without symmetrization, which triangle of `x` is read.
      symmetrize_input: if True, decompose (x + x^H) / 2.
      sort_eigenvalues: return the eigenvalues in ascending order.
      subset_by_index: optional [start, end): only those eigenpairs.
      implementation: an EighImplementation, or None for the default.

    Returns:
      (v, w): the eigenvectors as the columns of v, shape [..., n, d], and the
      real eigenvalues w, shape [..., d], in ascending order.
    """
    if symmetrize_input:
        x = _symmetrize(x)
    if subset_by_index is not None:
        subset_by_index = tuple(int(i) for i in subset_by_index)
    v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                       subset_by_index=subset_by_index, algorithm=implementation)
    return v, w


# ---------------------------------------------------------------------------
# Reductions to condensed forms: Hessenberg, tridiagonal, Schur


def _hessenberg_shape_rule(shape, **_):
    if shape[0] != shape[-1]:
        raise ValueError(f"Argument to Hessenberg reduction must have shape [..., n, n], got shape {shape}")
    return shape, (shape[-1] - 1,)


hessenberg_p = _linalg_primitive("hessenberg", (FLOAT_OR_COMPLEX,), (2,), _hessenberg_shape_rule,
                                 lambda dtype: (dtype, dtype), multiple_results=True)


def hessenberg(a) -> list:
    """Reduces square matrices to upper Hessenberg form (LAPACK's gehrd).

    Returns:
      [a, taus]: the Hessenberg matrix in the upper triangle and first
      subdiagonal of `a`, the Householder reflectors below it, and their
      scalar factors `taus` (shape [..., n - 1]).
    """
    return hessenberg_p.bind(a)


def _tridiagonal_shape_rule(shape, **_):
    if shape[0] != shape[1] or shape[1] == 0:
        raise ValueError(f"The input to tridiagonal must be a square matrix. Got shape {shape}.")
    n = shape[0]
    return shape, (n,), (n - 1,), (n - 1,)


def _tridiagonal_dtype_rule(dtype, **_):
    return dtype, _real_dtype(dtype), _real_dtype(dtype), dtype


tridiagonal_p = _linalg_primitive("tridiagonal", (FLOAT_OR_COMPLEX,), (2,), _tridiagonal_shape_rule,
                                  _tridiagonal_dtype_rule, multiple_results=True)


def tridiagonal(a, *, lower: bool = True) -> list:
    """Reduces symmetric/Hermitian matrices to tridiagonal form (LAPACK's sytrd/hetrd).

    Args:
      a: a batch of square matrices.
      lower: which triangle of `a` is read.

    Returns:
      [a, d, e, taus]: `a` holds the tridiagonal form and the Householder
      reflectors; d is the diagonal, e the off-diagonal, taus the reflectors'
      scalar factors.
    """
    return tridiagonal_p.bind(a, lower=bool(lower))


def _schur_shape_rule(shape, *, compute_schur_vectors, **_):
    if shape[0] != shape[1]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {shape}.")
    return (shape, shape) if compute_schur_vectors else (shape,)


schur_p = _linalg_primitive(
    "schur", (FLOAT_OR_COMPLEX,), (2,), _schur_shape_rule,
    lambda dtype, *, compute_schur_vectors, **_: (dtype, dtype) if compute_schur_vectors else (dtype,),
    multiple_results=True)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable: Callable[..., Any] | None = None) -> list:
    """Schur decomposition A = Q U Q^H (real Schur form for real input).

    Args:
      x: a batch of square matrices.
      compute_schur_vectors: also return Q.
      sort_eig_vals: unused.
      select_callable: unused.

    Returns:
      [U, Q], or [U] without Schur vectors.
    """
    return schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors),
                        sort_eig_vals=bool(sort_eig_vals), select_callable=select_callable)


# ---------------------------------------------------------------------------
# QR and Householder reflectors


def _householder_product_shape_rule(a_shape, taus_shape, **_):
    m, n = a_shape
    if m < n:
        raise ValueError("The first argument to householder_product must have at least as many rows as "
                         f"columns, got shape {a_shape}")
    if taus_shape[0] > min(m, n):
        raise ValueError("The second argument to householder_product must not have more rows than the "
                         "minimum of the first argument's rows and columns.")
    return a_shape


householder_product_p = _linalg_primitive("householder_product", (FLOAT_OR_COMPLEX, FLOAT_OR_COMPLEX), (2, 1),
                                          _householder_product_shape_rule)


def householder_product(a, taus):
    """Product of elementary Householder reflectors (LAPACK's orgqr/ungqr).

    Args:
      a: shape [..., m, n] (m >= n); its lower triangle holds the reflectors.
      taus: shape [..., k], k <= min(m, n): the reflectors' scalar factors.

    Returns:
      The orthogonal (unitary) matrices, shape [..., m, n].
    """
    return householder_product_p.bind(a, taus)


def _ormqr_shape_rule(a_shape, taus_shape, c_shape, *, left, transpose):
    m = a_shape[0]
    if left and c_shape[0] != m:
        raise ValueError("ormqr with left=True expects c to have the same number of rows as the Householder "
                         f"matrix a. Got a shape {a_shape} and c shape {c_shape}.")
    if not left and c_shape[1] != m:
        raise ValueError("ormqr with left=False expects c to have the same number of columns as the "
                         f"Householder matrix a has rows. Got a shape {a_shape} and c shape {c_shape}.")
    return c_shape


ormqr_p = _linalg_primitive("ormqr", (FLOAT_OR_COMPLEX,) * 3, (2, 1, 2), _ormqr_shape_rule)


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """Multiplies `c` by the Q of a QR factorization without forming Q.

    Args:
      a, taus: the reflectors, as `geqrf` returns them.
      c: the matrices to multiply.
      left: compute Q @ c (True) or c @ Q (False).
      transpose: use Q^H instead of Q.

    Returns:
      The product, with c's shape.
    """
    return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


def _geqrf_shape_rule(shape):
    m, n = shape
    return shape, (min(m, n),)


geqrf_p = _linalg_primitive("geqrf", (FLOAT_OR_COMPLEX,), (2,), _geqrf_shape_rule,
                            lambda dtype: (dtype, dtype), multiple_results=True)


def geqrf(a):
    """QR factorization in LAPACK's compact form (geqrf): returns (a, taus),
    R in the upper triangle of `a`, Q as reflectors below it and in `taus`."""
    a_out, taus = geqrf_p.bind(a)
    return a_out, taus


def _geqp3_shape_rule(a_shape, jpvt_shape, **_):
    m, n = a_shape
    return a_shape, jpvt_shape, (min(m, n),)


geqp3_p = _linalg_primitive("geqp3", (FLOAT_OR_COMPLEX, INT), (2, 1), _geqp3_shape_rule,
                            lambda dtype, jpvt_dtype, **_: (dtype, jpvt_dtype, dtype),
                            multiple_results=True, require_same=False)


def geqp3(a, jpvt, *, use_magma: bool | None = None):
    """Column-pivoted QR factorization (LAPACK's geqp3): returns (a, jpvt, taus),
    with `jpvt` the 1-based column pivots such that a[:, jpvt - 1] = Q R."""
    a_out, jpvt_out, taus = geqp3_p.bind(a, jpvt, use_magma=use_magma)
    return a_out, jpvt_out, taus


def _qr_shape_rule(shape, *, pivoting, full_matrices, **_):
    m, n = shape
    k = m if full_matrices else min(m, n)
    return ((m, k), (k, n), (n,)) if pivoting else ((m, k), (k, n))


def _qr_dtype_rule(dtype, *, pivoting, **_):
    return (dtype, dtype, np.dtype(np.int32)) if pivoting else (dtype, dtype)


qr_p = _linalg_primitive("qr", (FLOAT_OR_COMPLEX,), (2,), _qr_shape_rule, _qr_dtype_rule, multiple_results=True)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None):
    """QR decomposition A = Q R.

    Args:
      x: a batch of matrices, shape [..., m, n].
      pivoting: compute the rank-revealing A[:, P] = Q R, with the diagonal of
        R non-increasing in magnitude.
      full_matrices: Q is [..., m, m] and R [..., m, n] if True; otherwise
        [..., m, k] and [..., k, n] with k = min(m, n).
      use_magma: GPU only; ignored here.

    Returns:
      (q, r), or (q, r, p) with pivoting (p: int32 column indices).
    """
    q, r, *p = qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices), use_magma=use_magma)
    if pivoting:
        return q, r, p[0]
    return q, r


# ---------------------------------------------------------------------------
# LU


def _lu_shape_rule(shape):
    m, n = shape
    return shape, (min(m, n),), (m,)


lu_p = _linalg_primitive("lu", (FLOAT_OR_COMPLEX,), (2,), _lu_shape_rule,
                         lambda dtype: (dtype, np.dtype(np.int32), np.dtype(np.int32)), multiple_results=True)


def lu(x) -> list:
    """LU decomposition with partial pivoting, P A = L U.

    Args:
      x: a batch of matrices, shape [..., m, n].

    Returns:
      [lu, pivots, permutation]: L (unit diagonal, not stored) and U packed in
      one matrix; the row swaps as int32 [..., min(m, n)]; the same swaps as
      an int32 permutation [..., m].
    """
    return lu_p.bind(x)


def _lu_pivots_to_permutation_shape_rule(shape, *, permutation_size):
    pivots_size, = shape
    if not permutation_size >= pivots_size:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing dimension of "
                         f"the pivots. Got pivots size {pivots_size}")
    return (permutation_size,)


lu_pivots_to_permutation_p = _linalg_primitive("lu_pivots_to_permutation", (_INT32,), (1,),
                                               _lu_pivots_to_permutation_shape_rule)


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """Turns LU's row swaps into a permutation.

    Args:
      pivots: int32 [..., k]: row i was swapped with row pivots[i], in order.
      permutation_size: the permutation's length, at least k.

    Returns:
      int32 [..., permutation_size].
    """
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


# ---------------------------------------------------------------------------
# SVD


class SvdAlgorithm(enum.Enum):
    """Algorithm for the singular value decomposition."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def _svd_shape_rule(shape, *, full_matrices, compute_uv, subset_by_index, **_):
    m, n = shape
    rank = min(m, n)
    if subset_by_index is not None:
        if full_matrices and subset_by_index != (0, rank):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        rank = min(rank, subset_by_index[1] - subset_by_index[0])
    if compute_uv:
        return (rank,), (m, m if full_matrices else rank), (n if full_matrices else rank, n)
    return ((rank,),)


def _svd_dtype_rule(dtype, *, compute_uv, **_):
    return (_real_dtype(dtype), dtype, dtype) if compute_uv else (_real_dtype(dtype),)


svd_p = _linalg_primitive("svd", (FLOAT_OR_COMPLEX,), (2,), _svd_shape_rule, _svd_dtype_rule,
                          multiple_results=True)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None, algorithm: SvdAlgorithm | None = None):
    """Singular value decomposition A = U diag(s) V^H.

    Args:
      x: a batch of matrices, shape [..., m, n].
      full_matrices: return square U and V^H (otherwise k = min(m, n) columns/rows).
      compute_uv: also return the singular vectors.
      subset_by_index: optional [start, end) of the singular values wanted.
      algorithm: an SvdAlgorithm, or None for the default.

    Returns:
      (u, s, vh) if compute_uv, else s; s is real and descending.
    """
    if subset_by_index is not None:
        subset_by_index = tuple(int(i) for i in subset_by_index)
    result = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                        subset_by_index=subset_by_index, algorithm=algorithm)
    if compute_uv:
        s, u, vh = result
        return u, s, vh
    s, = result
    return s


# ---------------------------------------------------------------------------
# Products and solves


def _symmetric_product_shape_rule(a_shape, c_shape, **_):
    if a_shape[0] != c_shape[1] or c_shape[0] != c_shape[1]:
        raise ValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a square matrix of "
                         f"shape (n, n). Got shapes {a_shape} and {c_shape}.")
    return c_shape


symmetric_product_p = _linalg_primitive("symmetric_product", (FLOAT, FLOAT), (2, 2),
                                        _symmetric_product_shape_rule)


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False):
    """alpha * A A^T + beta * C, for rectangular A [..., m, n] and symmetric C [..., m, m].

    Only the lower triangle of the result is guaranteed on every platform;
    with `symmetrize_output` the upper triangle is filled from it.
    """
    result = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        upper = _transpose_last(_tril(result, -1))
        result = ew.add(_tril(result, 0), upper)
    return result


def _triangular_solve_shape_rule(a_shape, b_shape, *, left_side=False, **_):
    if a_shape[0] != a_shape[1]:
        raise ValueError(f"The first input to triangular_solve must be a square matrix. Got shape {a_shape}.")
    common_dim = -2 if left_side else -1
    if a_shape[-1] != b_shape[common_dim]:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a_shape} and {b_shape}.")
    return b_shape


triangular_solve_p = _linalg_primitive("triangular_solve", (FLOAT_OR_COMPLEX, FLOAT_OR_COMPLEX), (2, 2),
                                       _triangular_solve_shape_rule)
triangular_solve_p.def_sharding_rule(sharding_rules.triangular_solve_rule)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False, transpose_a: bool = False,
                     conjugate_a: bool = False, unit_diagonal: bool = False):
    """Solves op(A) X = B (left_side) or X op(A) = B for triangular A.

    Args:
      a: a batch of square triangular matrices [..., m, m].
      b: [..., m, n] if left_side, else [..., n, m]; or a batch of vectors
        [..., m], solved as a one-column (one-row) matrix.
      left_side: which of the two equations to solve.
      lower: which triangle of `a` is used; the other is ignored.
      transpose_a: op(A) transposes A.
      conjugate_a: op(A) conjugates A (no effect for real A).
      unit_diagonal: assume A's diagonal is all ones (it is not read).

    Returns:
      X, with b's shape and dtype.
    """
    conjugate_a = bool(conjugate_a) and np.issubdtype(get_aval(a).dtype, np.complexfloating)
    singleton = np.ndim(b) == np.ndim(a) - 1
    if singleton:
        b = shapes.expand_dims(b, (-1 if left_side else -2,))
    out = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                  transpose_a=bool(transpose_a), conjugate_a=conjugate_a,
                                  unit_diagonal=bool(unit_diagonal))
    if singleton:
        ndim = get_aval(out).ndim
        out = shapes.squeeze(out, (ndim - 1 if left_side else ndim - 2,))
    return out


def _tridiagonal_solve_shape_rule(dl_shape, d_shape, du_shape, b_shape, **_):
    if dl_shape != d_shape or dl_shape != du_shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same shape.")
    if dl_shape != b_shape[:-1]:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the "
                        "dimensions of the diagonal arguments.")
    return b_shape


tridiagonal_solve_p = _linalg_primitive("tridiagonal_solve", (FLOAT_OR_COMPLEX,) * 4, (1, 1, 1, 2),
                                        _tridiagonal_solve_shape_rule)


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """Solves the tridiagonal systems A X = B.

    Args:
      dl: [..., m], the lower diagonal: dl[i] = A[i, i - 1]; dl[0] is ignored.
      d: [..., m], the diagonal.
      du: [..., m], the upper diagonal: du[i] = A[i, i + 1]; du[m - 1] is ignored.
      b: [..., m, n], the right-hand sides.
      perturb_singular: perturb tiny pivots (by about eps * max|U|) so that a
        singular system still gets a finite answer, as inverse iteration
        needs; otherwise a singular system gives NaNs.

    Returns:
      X, with b's shape.
    """
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))


# The family's autodiff and batching rules, beside it (imported here so they
# exist whenever the primitives do).
from pyjax._src.lax import linalg_ad  # noqa: E402,F401
