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
    zeros = shapes.broadcast_in_dim(_scalar(0, aval, aval.weak_type), aval.shape, ())
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


# ---------------------------------------------------------------------------
# Autodiff rules
#
# The decompositions are differentiated by perturbation theory (see each
# rule for its reference); triangular_solve and tridiagonal_solve are linear
# in their right-hand side and transpose to a solve with the transposed
# matrix. Each rule stages the equations JAX 0.11's does, in the same order,
# so gradient jaxprs print alike: that is why the helpers below mimic
# jax.numpy's operators (`@` is a dot_general with preferred_element_type;
# `x[..., i, i]` a gather of normalised indices) rather than call them.

from pyjax._src.ad_util import Zero as _Zero
from pyjax._src.ad_util import add_tangents as _add_tangents
from pyjax._src.ad_util import instantiate as _instantiate
from pyjax._src.ad_util import tangent_aval as _tangent_aval
from pyjax._src.interpreters.jvp import defjvp2 as _defjvp2
from pyjax._src.interpreters.jvp import defjvp_zero as _defjvp_zero
from pyjax._src.lax import dot as _dot_mod
from pyjax._src.lax import gather_scatter as _gs
from pyjax._src.lax import slicing as _slicing
from pyjax._src.rules import unimplemented as _unimplemented

_HIGHEST = _dot_mod.Precision.HIGHEST


def _shape(x) -> tuple:
    return get_aval(x).shape


def _dtype(x) -> np.dtype:
    return get_aval(x).dtype


def _is_complex(x) -> bool:
    return np.issubdtype(_dtype(x), np.complexfloating)


def _weak(value, x):
    """A Python scalar in arithmetic with x: a weak literal of x's dtype."""
    return _scalar(value, get_aval(x), True)


def _conj(x):
    # jnp.conj: the identity on real arrays.
    return ew.conj(x) if _is_complex(x) else x


def _H(x):
    return _conj(_transpose_last(x))


def _real(x):
    # x.real: the identity on real arrays.
    return ew.real(x) if _is_complex(x) else x


def _astype(x, dtype):
    dtype = np.dtype(dtype)
    if _dtype(x) == dtype:
        return x
    return ew.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=False, sharding=None)


def _eye(dtype, n: int, m: int | None = None):
    """lax._eye: ones on the diagonal, as an iota comparison."""
    m = n if m is None else m
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(0))
    mask = ew.eq(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))
    return ew.convert_element_type_p.bind(mask, new_dtype=np.dtype(dtype), weak_type=False, sharding=None)


def _expand_leading(x, ndim: int):
    """lax.expand_dims(x, range(ndim - x.ndim)): size-1 axes in front."""
    return shapes.expand_dims(x, tuple(range(ndim - len(_shape(x)))))


def _rank_promote(x, ndim: int):
    """jnp's rank promotion of an operand: leading size-1 axes."""
    return _expand_leading(x, ndim)


def _triu(x, k: int = 0):
    """Zeroes the part of each matrix of `x` below its k-th diagonal."""
    aval = get_aval(x)
    *batch, n, m = aval.shape
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(k - 1))
    mask = ew.ge(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))
    if batch:
        mask = shapes.broadcast_in_dim(mask, aval.shape, (len(batch), len(batch) + 1))
    zeros = shapes.broadcast_in_dim(_scalar(0, aval, aval.weak_type), aval.shape, ())
    return ew.select(mask, zeros, x)


def _dot_highest(a, b):
    """lax.dot (matrices) or lax.batch_matmul, at HIGHEST precision."""
    nd = len(_shape(a))
    batch = tuple(range(nd - 2))
    return _dot_mod.dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)), precision=_HIGHEST)


def _matmul(a, b, precision=None):
    """jnp.matmul of equal-batch operands: a dot_general that keeps the dtype."""
    nd = len(_shape(a))
    batch = tuple(range(nd - 2))
    return _dot_mod.dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)), precision=precision,
                                preferred_element_type=_dtype(a))


def _normalize_index(index, size: int):
    # jnp indexing wraps negative indices: where(i < 0, i + size, i).
    dtype = _dtype(index)
    return ew.select(ew.lt(index, np.zeros((), dtype)[()]), ew.add(index, np.asarray(size, dtype)[()]), index)


def _extract_diagonal(s):
    """s[..., i, i] for i < min(n, m), as jnp indexing gathers it."""
    *batch, n, m = _shape(s)
    i = shapes.iota(np.int32, min(n, m))
    first, second = _normalize_index(i, n), _normalize_index(i, m)
    indices = shapes.concatenate([shapes.expand_dims(first, (1,)), shapes.expand_dims(second, (1,))], 1)
    nb = len(batch)
    dnums = _gs.GatherDimensionNumbers(offset_dims=tuple(range(nb)), collapsed_slice_dims=(nb, nb + 1),
                                       start_index_map=(nb, nb + 1))
    return _gs.gather(s, indices, dnums, (*batch, 1, 1), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _construct_diagonal(s):
    """A (batched) diagonal matrix: zeros.at[..., i, i].set(s)."""
    *batch, k = _shape(s)
    i = shapes.iota(np.int32, k)
    zeros = shapes.broadcast_in_dim(np.zeros((), _dtype(s))[()], (*batch, k, k), ())
    first, second = _normalize_index(i, k), _normalize_index(i, k)
    indices = shapes.concatenate([shapes.expand_dims(first, (1,)), shapes.expand_dims(second, (1,))], 1)
    nb = len(batch)
    dnums = _gs.ScatterDimensionNumbers(update_window_dims=tuple(range(nb)), inserted_window_dims=(nb, nb + 1),
                                        scatter_dims_to_operand_dims=(nb, nb + 1))
    return _gs.scatter(zeros, indices, s, dnums)


def _take_last_axis(x, indices):
    """x[..., indices] for a vector of indices (jnp's gather)."""
    shape = _shape(x)
    nd = len(shape)
    indices = shapes.expand_dims(_normalize_index(indices, shape[-1]), (1,))
    dnums = _gs.GatherDimensionNumbers(offset_dims=tuple(range(nd - 1)), collapsed_slice_dims=(nd - 1,),
                                       start_index_map=(nd - 1,))
    return _gs.gather(x, indices, dnums, (*shape[:-1], 1), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _slice_last2(x, rows: tuple, cols: tuple):
    """x[..., r0:r1, c0:c1] (no equation when it is all of x)."""
    batch = _shape(x)[:-2]
    start = (0,) * len(batch) + (rows[0], cols[0])
    limit = tuple(batch) + (rows[1], cols[1])
    if start == (0,) * len(start) and limit == _shape(x):
        return x
    return shapes.slice(x, start, limit)


# --- cholesky


def _cholesky_jvp(primals, tangents):
    # Forward mode from https://arxiv.org/pdf/1602.07527.pdf: with
    # S = L^-1 dA L^-H, dL = L phi(S), phi = the lower triangle with a halved diagonal.
    (x,), (sigma_dot,) = primals, tangents
    L = _tril(cholesky_p.bind(x))
    n = _shape(x)[-1]
    tmp = triangular_solve(L, sigma_dot, left_side=False, transpose_a=True, conjugate_a=True, lower=True)
    s = triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True)
    lower = _tril(s)
    halve_diagonal = ew.add(np.ones((), _dtype(s))[()], _eye(_dtype(s), n))
    phi = ew.div(lower, _expand_leading(halve_diagonal, len(_shape(lower))))
    return L, _dot_highest(L, phi)


cholesky_p.def_jvp(_cholesky_jvp)


# --- triangular_solve: nonlinear in a, linear in b


def _triangular_solve_jvp_a(g_a, ans, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    # d(A^-1 B) = -A^-1 dA A^-1 B, with dA restricted to the triangle A is read from.
    m, n = _shape(b)[-2:]
    k = 1 if unit_diagonal else 0
    g_a = _tril(g_a, -k) if lower else _triu(g_a, k)
    g_a = ew.neg(g_a)
    g_a = _transpose_last(g_a) if transpose_a else g_a
    g_a = _conj(g_a) if conjugate_a else g_a

    def a_inverse(rhs):
        return triangular_solve(a, rhs, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)

    # A solve costs about as much as a product: take the cheaper order.
    if left_side:
        return a_inverse(_dot_highest(g_a, ans)) if m > n else _dot_highest(a_inverse(g_a), ans)
    return a_inverse(_dot_highest(ans, g_a)) if m < n else _dot_highest(ans, a_inverse(g_a))


def _triangular_solve_jvp_b(g_b, ans, a, b, **params):
    return triangular_solve(a, g_b, **params)


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    # ct: b-shaped -> b: the solve with op(A) transposed.
    if type(ct) is _Zero:
        return [None, _Zero(b.aval)]
    return [None, triangular_solve(a, ct, left_side=left_side, lower=lower, transpose_a=not transpose_a,
                                   conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)]


_defjvp2(triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b)
triangular_solve_p.def_transpose(_triangular_solve_transpose)


# --- tridiagonal_solve: nonlinear in the diagonals, linear in b


def _at_rows_add(y, start: int, update):
    """y.at[..., start:, :].add(update) (or [..., :stop, :] at start 0), as
    jnp stages it: a scatter-add of the update window at row `start`."""
    nd = len(_shape(y))
    index = shapes.broadcast_in_dim(np.int32(start), (1,), ())
    dnums = _gs.ScatterDimensionNumbers(update_window_dims=tuple(range(nd)), inserted_window_dims=(),
                                        scatter_dims_to_operand_dims=(nd - 2,))
    return _gs.scatter_add(y, index, update, dnums, indices_are_sorted=True, unique_indices=True)


def _rows(x, start: int, stop: int):
    """x[..., start:stop, :] (x[..., start:stop] for a vector batch)."""
    shape = _shape(x)
    starts = [0] * len(shape)
    limits = list(shape)
    axis = len(shape) - 2
    starts[axis], limits[axis] = start, stop
    return shapes.slice(x, tuple(starts), tuple(limits))


def _last(x, start: int, stop: int):
    """x[..., start:stop] as a static slice."""
    shape = _shape(x)
    return shapes.slice(x, (0,) * (len(shape) - 1) + (start,), shape[:-1] + (stop,))


def _tridiagonal_product(dl, d, du, b):
    # The tridiagonal matrix (dl, d, du) times b.
    m = _shape(b)[-2]
    y = ew.mul(shapes.reshape(d, _shape(d) + (1,)), b)
    y = _at_rows_add(y, 1, ew.mul(shapes.expand_dims(_last(dl, 1, m), (len(_shape(dl)),)), _rows(b, 0, m - 1)))
    y = _at_rows_add(y, 0, ew.mul(shapes.expand_dims(_last(du, 0, m - 1), (len(_shape(du)),)), _rows(b, 1, m)))
    return y


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    *diags, _ = primals
    *diags_dot, b_dot = tangents
    ans = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    # A x = b  =>  A dx = db - dA x.
    if all(type(t) is _Zero for t in diags_dot):
        rhs = b_dot
    else:
        matvec_dot = _tridiagonal_product(*[_instantiate(t) for t in diags_dot], ans)
        rhs = _add_tangents(b_dot, ew.neg(matvec_dot))
    return ans, tridiagonal_solve_p.bind(*diags, _instantiate(rhs), perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    # ct: b-shaped -> b: solve with A^T, whose sub-diagonal is A's super-diagonal
    # shifted down one row and whose super-diagonal is A's sub-diagonal shifted up.
    if type(ct) is _Zero:
        return [None, None, None, _Zero(b.aval)]
    n = _shape(du)[-1]
    last = len(_shape(du)) - 1
    zeros_like = lambda x: shapes.broadcast_in_dim(np.zeros((), _dtype(x))[()], _shape(x), ())
    dl_trans = shapes.concatenate([zeros_like(_last(du, n - 1, n)), _last(du, 0, n - 1)], last)
    du_trans = shapes.concatenate([_last(dl, 1, n), zeros_like(_last(dl, 0, 1))], last)
    return [None, None, None, tridiagonal_solve(dl_trans, d, du_trans, ct, perturb_singular=perturb_singular)]


tridiagonal_solve_p.def_jvp(_tridiagonal_solve_jvp)
tridiagonal_solve_p.def_transpose(_tridiagonal_solve_transpose)


# --- eigh


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    # Nondegenerate perturbation theory (distinct eigenvalues), e.g.
    # https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf:
    # dw = diag(V^H dA V), dV = V (F * V^H dA V), F_ij = 1 / (w_j - w_i) off the diagonal.
    (a,), (a_dot,) = primals, tangents
    n = _shape(a)[-1]
    if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    v, w_real = eigh_p.bind(_symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues,
                            subset_by_index=subset_by_index, algorithm=algorithm)
    w = _astype(w_real, _dtype(a))
    nd = len(_shape(w))
    eye_n = _eye(_dtype(a), n)
    # Built so the diagonal is 1/1, never 1/0.
    w_row = shapes.expand_dims(w, (nd - 1,))
    with_row = ew.add(_rank_promote(eye_n, nd + 1), w_row)
    fmat = ew.sub(ew.integer_pow(ew.sub(with_row, shapes.expand_dims(w, (nd,))), -1), _rank_promote(eye_n, nd + 1))
    vdag_adot_v = _dot_highest(_dot_highest(_H(v), a_dot), v)
    dv = _dot_highest(v, ew.mul(fmat, vdag_adot_v))
    dw = _extract_diagonal(_real(vdag_adot_v))
    return [v, w_real], [dv, dw]


eigh_p.def_jvp(_eigh_jvp)


# --- eig


def _solve(a, b):
    """a^-1 b by LU with partial pivoting (JAX uses custom_linear_solve here,
    which pyjax does not have yet: the math is the same, the jaxpr is not)."""
    lu_, _, permutation = lu(a)
    x = _take_rows(b, permutation)
    x = triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu_, x, left_side=True, lower=False)


def _take_rows(x, rows):
    """x[..., rows, :] for a (batched) row permutation."""
    *batch, _, k = _shape(x)
    nb = len(batch)
    indices = shapes.expand_dims(rows, (nb + 1,))
    batch_dims = tuple(range(nb))
    dnums = _gs.GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,), start_index_map=(nb,),
                                       operand_batching_dims=batch_dims, start_indices_batching_dims=batch_dims)
    return _gs.gather(x, indices, dnums, (1,) * nb + (1, k), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _sum_last(x, axis: int):
    from pyjax._src.lax.reductions import reduce_sum

    return reduce_sum(x, (axis % len(_shape(x)),))


def _eig_vec_jvp(w, v, da):
    # Nondegenerate perturbation theory, Sec 3.1 of
    # https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf. geev fixes each
    # eigenvector up to a complex scale by unit 2-norm and a real largest
    # component; the derivative keeps both (https://github.com/jax-ml/jax/issues/2748).
    n = _shape(w)[-1]
    nd = len(_shape(v))
    eye_n = _eye(_dtype(w), n)
    w_row = shapes.expand_dims(w, (nd - 2,))
    with_row = ew.add(_rank_promote(eye_n, nd), w_row)
    fmat = ew.sub(ew.integer_pow(ew.sub(with_row, shapes.expand_dims(w, (nd - 1,))), -1), _rank_promote(eye_n, nd))
    p = _dot_highest(_solve(v, da), v)
    dw = _extract_diagonal(p)
    u = _dot_highest(v, ew.mul(fmat, p))
    # dv_j = u_j + c_j v_j; c_j = -Re(v_j^H u_j) - i Im(u_kj) / v_kj at k = argmax_i |v_ij|.
    from pyjax._src.lax.reductions import argmax

    k = argmax(ew.abs(v), nd - 2, np.int32)
    mask = _astype(ew.eq(shapes.broadcasted_iota(np.int32, _shape(v), nd - 2), shapes.expand_dims(k, (nd - 2,))),
                   _dtype(v))
    c = ew.complex(ew.neg(ew.real(_sum_last(ew.mul(ew.conj(v), u), -2))),
                   ew.div(ew.neg(ew.imag(_sum_last(ew.mul(mask, u), -2))), ew.real(_sum_last(ew.mul(mask, v), -2))))
    return dw, ew.add(u, ew.mul(v, shapes.expand_dims(c, (nd - 2,))))


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors, enable_eigvec_derivs,
             implementation):
    (a,), (da,) = primals, tangents
    if (compute_left_eigenvectors or compute_right_eigenvectors) and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input that JAX "
            "cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass "
            "enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See "
            "https://github.com/jax-ml/jax/issues/2748 for discussion.")
    outs = eig(a, compute_left_eigenvectors=compute_left_eigenvectors, compute_right_eigenvectors=True,
               enable_eigvec_derivs=enable_eigvec_derivs, implementation=implementation)
    w, vr = outs[0], outs[-1]
    da = _astype(da, _dtype(vr))
    if not (compute_left_eigenvectors or compute_right_eigenvectors):
        # dw = diag(V^-1 dA V)
        return [w], [_sum_last(ew.mul(_solve(vr, da), _transpose_last(vr)), -1)]
    dw, dvr = _eig_vec_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if compute_left_eigenvectors:
        vl = outs[1]
        _, dvl = _eig_vec_jvp(ew.conj(w), vl, _H(da))
        primal_out.append(vl)
        tangent_out.append(dvl)
    primal_out.append(vr)
    tangent_out.append(dvr)
    return primal_out, tangent_out


eig_p.def_jvp(_eig_jvp)


# --- qr


def _thin_qr_jvp(q, r, dx):
    # For [..., m, n] with m >= n; see j-towns.github.io/papers/qr-derivative.pdf.
    dx_rinv = triangular_solve(r, dx)
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    qt_dx_rinv_lower = _tril(qt_dx_rinv, -1)
    do = ew.sub(qt_dx_rinv_lower, _H(qt_dx_rinv_lower))  # skew-symmetric
    # For complex inputs the diagonal of Q^H dX R^-1 keeps its imaginary part.
    n = _shape(r)[-1]
    eye = _expand_leading(_eye(_dtype(do), n), len(_shape(qt_dx_rinv)))
    do = ew.add(do, ew.mul(eye, ew.sub(qt_dx_rinv, _astype(_real(qt_dx_rinv), _dtype(qt_dx_rinv)))))
    dq = ew.add(_matmul(q, ew.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(ew.sub(qt_dx_rinv, do), r)
    return dq, dr


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    (x,), (dx,) = primals, tangents
    q, r, *p = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    *_, m, n = _shape(x)
    if pivoting:
        dx = _take_last_axis(dx, p[0])
    pivots_dot = [_Zero(_tangent_aval(get_aval(p[0])))] if pivoting else []
    if m < n:
        # Wide: X = [X1 X2] = Q [R1 R2]; X1 = Q R1 is a square QR, and
        # R2 = Q^H X2 gives dR2 = dQ^H X2 + Q^H dX2.
        x2 = _slice_last2(x, (0, m), (m, n))
        dx1 = _slice_last2(dx, (0, m), (0, m))
        dx2 = _slice_last2(dx, (0, m), (m, n))
        r1 = _slice_last2(r, (0, m), (0, m))
        dq, dr1 = _thin_qr_jvp(q, r1, dx1)
        dr2 = ew.add(_matmul(_H(dq), x2), _matmul(_H(q), dx2))
        dr = shapes.concatenate([dr1, dr2], len(_shape(dr1)) - 1)
        return [q, r, *p], [dq, dr, *pivots_dot]
    q_mn = _slice_last2(q, (0, m), (0, n)) if full_matrices else q
    r_nn = _slice_last2(r, (0, n), (0, n)) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r, *p], [dq_mn, dr_nn, *pivots_dot]
    # Full Q of a tall matrix (https://arxiv.org/pdf/2409.13374, eqs 32-33):
    # the extra columns follow from Q^H Q = I. (JAX solves with lu_solve; the
    # same solve here is written with triangular solves, so the jaxpr differs.)
    q_nn = _slice_last2(q_mn, (0, n), (0, n))
    q_pn = _slice_last2(q_mn, (n, m), (0, n))
    q_mp = _slice_last2(q, (0, m), (n, m))
    dq_nn = _slice_last2(dq_mn, (0, n), (0, n))
    dq_pn = _slice_last2(dq_mn, (n, m), (0, n))
    eye_n = _expand_leading(_eye(_dtype(q_nn), n), len(_shape(q_nn)))
    z_pn_h = _solve(_H(ew.sub(q_nn, eye_n)), _H(q_pn))
    z_pn = _H(z_pn_h)
    dq_mp = ew.sub(_matmul(dq_mn, z_pn_h),
                   _matmul(ew.add(q_mn, _matmul(q_mp, z_pn)), _H(ew.sub(dq_pn, _matmul(z_pn, dq_nn)))))
    dq = shapes.concatenate([dq_mn, dq_mp], len(_shape(dq_mn)) - 1)
    zeros = shapes.broadcast_in_dim(np.zeros((), _dtype(dr_nn))[()], (*_shape(dr_nn)[:-2], m - n, n), ())
    dr = shapes.concatenate([dr_nn, zeros], len(_shape(dr_nn)) - 2)
    return [q, r, *p], [dq, dr, *pivots_dot]


qr_p.def_jvp(_qr_jvp)


# --- lu


def _lu_jvp_inner(lu_, a_dot, permutation, batched: bool):
    # Differentiation of Matrix Functionals Using Triangular Factorization
    # (De Hoog, Anderssen, Lukas): from LU = PA,
    #   L^-1 dL + dU U^-1 = L^-1 P dA U^-1 =: S,
    #   dL = L tril(S, -1),  dU = triu(S) U.
    # JAX vmaps this function over batch dimensions; `batched` stages what
    # that vmap stages (masks, zeros and identities built per matrix and then
    # broadcast against the batch).
    *batch, m, n = _shape(a_dot)
    dtype = _dtype(a_dot)
    k = min(m, n)
    nb = len(batch)
    zero = np.zeros((), _dtype(lu_))[()]

    def tril(x, diag):
        return _vmapped_triangle(x, diag, lower=True) if batched else _tril(x, diag)

    def triu(x, diag):
        return _vmapped_triangle(x, diag, lower=False) if batched else _triu(x, diag)

    def add_unbatched(x, y):
        # x batched, y one matrix: vmap broadcasts y against the batch first.
        if batched:
            y = _vmap_broadcast(y, (1,) * nb + _shape(y), np.arange(nb, nb + 2, dtype=np.int64))
        return ew.add(x, y)

    pad_batch = ((0, 0, 0),) * nb
    l_part = tril(_slice_last2(lu_, (0, m), (0, k)), -1)
    l_ = _slicing.pad(l_part, zero, pad_batch + ((0, 0, 0), (0, m - k, 0)))
    l_ = add_unbatched(l_, _eye(dtype, m))
    u_eye = _slicing.pad(_eye(dtype, n - k), zero, ((k, 0, 0), (k, 0, 0)))
    u_part = triu(_slice_last2(lu_, (0, k), (0, n)), 0)
    u_ = add_unbatched(_slicing.pad(u_part, zero, pad_batch + ((0, n - k, 0), (0, 0, 0))), u_eye)
    if batched:
        la_rhs = _vmapped_take_rows(a_dot, permutation)
    else:
        la_rhs = _take_rows(a_dot, _normalize_index(permutation, m))
    la = triangular_solve(l_, la_rhs, left_side=True, transpose_a=False, lower=True, unit_diagonal=True)
    lau = triangular_solve(u_, la, left_side=False, transpose_a=False, lower=False)
    l_dot = _matmul(l_, tril(lau, -1), precision=_HIGHEST)
    u_dot = _matmul(triu(lau, 0), u_, precision=_HIGHEST)
    return ew.add(l_dot, u_dot)


def _vmap_broadcast(x, shape, dims):
    # vmap's rules broadcast with NumPy integer dimensions, which JAX prints
    # as np.int64(...): bind directly so they are kept.
    return shapes.broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=tuple(dims), sharding=None)


def _vmapped_triangle(x, k: int, lower: bool):
    # _tril/_triu of one matrix under vmap: the mask and the zeros are built
    # for one matrix, then broadcast against the batch by select_n's rule.
    *batch, n, m = _shape(x)
    dims = tuple(np.arange(len(batch), len(batch) + 2, dtype=np.int64))
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(k if lower else k - 1))
    mask = ew.ge(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))
    zeros = shapes.broadcast_in_dim(np.zeros((), _dtype(x))[()], (n, m), ())
    mask = _vmap_broadcast(mask, _shape(x), dims)
    zeros = _vmap_broadcast(zeros, _shape(x), dims)
    return ew.select(mask, x, zeros) if lower else ew.select(mask, zeros, x)


def _vmapped_take_rows(x, rows):
    # a_dot[permutation] under vmap: a gather with the batch as batching dims.
    *batch, m, k = _shape(x)
    nb = len(batch)
    rows = _normalize_index(rows, m)
    indices = _vmap_broadcast(rows, _shape(rows) + (1,), tuple(range(nb)) + (np.int64(nb),))
    batch_dims = tuple(range(nb))
    dnums = _gs.GatherDimensionNumbers(offset_dims=(np.int64(nb + 1),), collapsed_slice_dims=(np.int64(nb),),
                                       start_index_map=(np.int64(nb),), operand_batching_dims=batch_dims,
                                       start_indices_batching_dims=batch_dims)
    return _gs.gather(x, indices, dnums, (1,) * nb + (1, k), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu_, pivots, permutation = lu_p.bind(a)
    if len(_shape(a)) > 2:
        lu_dot = _lu_jvp_inner(lu_, a_dot, permutation, batched=True)
    else:
        lu_dot = _lu_jvp_inner(lu_, a_dot, permutation, batched=False)
    return [lu_, pivots, permutation], [lu_dot, _Zero(_tangent_aval(get_aval(pivots))),
                                        _Zero(_tangent_aval(get_aval(permutation)))]


lu_p.def_jvp(_lu_jvp)


# --- svd


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    # https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf, for distinct
    # nonzero singular values. The products run at float32 precision
    # (HIGHEST), as JAX's rule asks with default_matmul_precision.
    (a,), (da,) = primals, tangents
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True, subset_by_index=subset_by_index,
                          algorithm=algorithm)
    m, n = _shape(a)[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("Singular value decomposition JVP not implemented for full matrices")
    mm = lambda x, y: _matmul(x, y, precision=_HIGHEST)
    dtype = _dtype(a)
    ut, v = _H(u), _H(vt)
    s_dim = shapes.expand_dims(s, (len(_shape(s)) - 1,))
    ds_full = mm(mm(ut, da), v)
    ds = _extract_diagonal(_real(ds_full))
    if not compute_uv:
        return [s], [ds]
    k = _shape(s)[-1]
    s_diffs = ew.mul(ew.add(s_dim, _transpose_last(s_dim)), ew.sub(s_dim, _transpose_last(s_dim)))
    s_diffs_zeros = _expand_leading(_eye(_dtype(s), k), len(_shape(s_diffs)))
    f = ew.sub(ew.div(_weak(1, s_diffs), ew.add(s_diffs, s_diffs_zeros)), s_diffs_zeros)
    dss = ew.mul(_astype(s_dim, dtype), ds_full)
    sds = ew.mul(_transpose_last(_astype(s_dim, dtype)), ds_full)
    s_zeros = _astype(ew.eq(s, _weak(0, s)), _dtype(s))
    s_inv = ew.sub(ew.div(_weak(1, s), ew.add(s, s_zeros)), s_zeros)
    s_inv_mat = _construct_diagonal(s_inv)
    dudv_diag = ew.mul(ew.mul(_weak(0.5, ds_full), ew.sub(ds_full, _H(ds_full))), _astype(s_inv_mat, dtype))
    du = mm(u, ew.add(ew.mul(_astype(f, dtype), ew.add(dss, _H(dss))), dudv_diag))
    dv = mm(v, ew.mul(_astype(f, dtype), ew.add(sds, _H(sds))))
    if m > n:
        dav = mm(da, v)
        du = ew.add(du, ew.div(ew.sub(dav, mm(u, mm(ut, dav))), _astype(s_dim, dtype)))
    if n > m:
        dahu = mm(_H(da), u)
        dv = ew.add(dv, ew.div(ew.sub(dahu, mm(v, mm(vt, dahu))), _astype(s_dim, dtype)))
    return [s, u, vt], [ds, du, _H(dv)]


svd_p.def_jvp(_svd_jvp)


# --- declared: no derivative in JAX either, or an integer-valued result

_defjvp_zero(lu_pivots_to_permutation_p)  # integer in, integer out
for _primitive in (householder_product_p, hessenberg_p, schur_p, tridiagonal_p, geqrf_p, geqp3_p, ormqr_p,
                   cholesky_update_p, symmetric_product_p):
    _primitive.def_jvp(_unimplemented(f"JAX 0.11 defines no derivative for {_primitive.name}"))


# ---------------------------------------------------------------------------
# Batching rules. Every linalg primitive already maps over leading batch
# dimensions, so vmap moves its axis to the front of every operand (an
# unbatched operand is broadcast) and binds the same primitive; outputs come
# out batched on axis 0. The two solves have a cheaper case when only the
# right-hand side is batched: the examples become extra right-hand sides of
# one solve. cholesky_update has no batching rule in JAX 0.11 either. The
# placement (and the NumPy dimension numbers of the broadcasts) follow
# JAX 0.11, so vmapped jaxprs match.

from pyjax._src.interpreters import batching as _batching  # noqa: E402
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402


def _batch_at_front(x, d, size: int):
    # JAX's batching.bdim_at_front (broadcast with np.int64 dimension numbers).
    if d is _batching.not_mapped:
        return _batching_util.broadcast_batch(x, size, 0)
    return _batching_util.moveaxis(x, d, 0)


def _leading_batch_rule(primitive):
    def rule(axis_data, args, dims, **params):
        # every operand: (B, batch..., core...)
        operands = [_batch_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True)]
        out = primitive.bind(*operands, **params)
        return (out, [0] * len(out)) if primitive.multiple_results else (out, 0)

    return rule


for _primitive in (cholesky_p, eig_p, eigh_p, hessenberg_p, tridiagonal_p, schur_p, householder_product_p, ormqr_p,
                   geqrf_p, geqp3_p, qr_p, lu_p, lu_pivots_to_permutation_p, svd_p, symmetric_product_p):
    _primitive.def_batch(_leading_batch_rule(_primitive))

cholesky_update_p.def_batch(_unimplemented("JAX 0.11 defines no batching rule for cholesky_update"))


def _move_to(x, src: int, dst: int):
    # moveaxis to a possibly negative destination (nothing when it is in place)
    return _batching_util.moveaxis(x, src, dst % get_aval(x).ndim)


def _triangular_solve_batch(axis_data, args, dims, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    (a, b), (a_dim, b_dim) = args, dims
    params = {"left_side": left_side, "lower": lower, "transpose_a": transpose_a, "conjugate_a": conjugate_a,
              "unit_diagonal": unit_diagonal}
    if a_dim is _batching.not_mapped:
        # One matrix for every example: the examples become more right-hand
        # sides. left_side, b: (..., m, n, B) -> (..., m, n*B); otherwise
        # b: (..., B, n, m) -> (..., B*n, m).
        if left_side:
            b = _move_to(b, b_dim, -1)
            shape = get_aval(b).shape
            flat = shapes.reshape(b, shape[:-2] + (shape[-2] * shape[-1],))
            out_dim = len(shape) - 1
        else:
            b = _move_to(b, b_dim, -2)
            shape = get_aval(b).shape
            flat = shapes.reshape(b, shape[:-3] + (shape[-3] * shape[-2], shape[-1]))
            out_dim = len(shape) - 2
        return shapes.reshape(triangular_solve(a, flat, **params), shape), out_dim
    a = _batch_at_front(a, a_dim, axis_data.size)
    b = _batch_at_front(b, b_dim, axis_data.size)
    return triangular_solve(a, b, **params), 0


def _tridiagonal_solve_batch(axis_data, args, dims, *, perturb_singular):
    dl, d, du, b = args
    not_mapped = _batching.not_mapped
    if all(x is not_mapped for x in dims[:3]):
        # Shared diagonals: b: (..., m, B, n) -> (..., m, B*n), one solve.
        b = _move_to(b, dims[3], -2)
        shape = get_aval(b).shape
        flat = shapes.reshape(b, shape[:-3] + (shape[-3], shape[-2] * shape[-1]))
        out = tridiagonal_solve(dl, d, du, flat, perturb_singular=perturb_singular)
        return shapes.reshape(out, shape), len(shape) - 2
    dl, d, du, b = (_batch_at_front(x, bd, axis_data.size) for x, bd in zip(args, dims, strict=True))
    return tridiagonal_solve(dl, d, du, b, perturb_singular=perturb_singular), 0


triangular_solve_p.def_batch(_triangular_solve_batch)
tridiagonal_solve_p.def_batch(_tridiagonal_solve_batch)
