"""NumPy/SciPy impls of the linalg family.

JAX's CPU backend calls LAPACK (SciPy's own, through its Cython bindings)
for these primitives, so the impls call the same routines through
scipy.linalg's LAPACK/BLAS wrappers, one matrix of the batch at a time:
the results agree with JAX's to the last bit or so (NumPy's gufuncs, built
on another LAPACK, would differ in the last bits). What XLA adds on top of
LAPACK is reproduced here:

* a factorization whose LAPACK `info` reports failure comes back full of
  NaNs (per batch element), instead of raising as NumPy does;
* LAPACK's 1-based pivots become 0-based; `lu` also returns the permutation;
* float16/bfloat16 inputs are computed in float32 and cast back.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from pyjax._src.lax import linalg as linalg_lax
from pyjax._src.backends.numpy.impls.lazy_scipy import blas, lapack
from pyjax._src.backends.numpy.impls.lazy_scipy import linalg as scipy_linalg
from pyjax._src.backends.numpy.parallel import split as split_lib

IMPLS: dict = {}


# ---------------------------------------------------------------------------
# Helpers


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype LAPACK computes in: float16/bfloat16 go through float32."""
    if dtype.kind == "c" or dtype in (np.float32, np.float64):
        return dtype
    return np.dtype(np.float32)


def _prepare(*operands) -> tuple[list, np.dtype]:
    """The operands as arrays in LAPACK's dtype, and the dtype to return."""
    arrays = [np.asarray(o) for o in operands]
    dtype = arrays[0].dtype
    compute = _compute_dtype(dtype)
    return [a.astype(compute, copy=False) if a.dtype.kind in "fcV" else a for a in arrays], dtype


def _real(dtype: np.dtype) -> np.dtype:
    return np.finfo(dtype).dtype if dtype.kind == "c" else dtype


def _map_matrices(fn: Callable, operands: Sequence[np.ndarray], ranks: Sequence[int],
                  out_cores: Sequence[tuple], out_dtypes: Sequence) -> list:
    """Applies `fn` to each batch element; returns the stacked results.

    `fn(*core_operands)` returns one array per output (core shapes
    `out_cores`); the outputs are allocated up front, so an empty batch works.
    """
    first = operands[0]
    batch = first.shape[:first.ndim - ranks[0]]
    if not batch:
        return _one_matrix(fn, operands, out_cores, out_dtypes)
    count = int(np.prod(batch, dtype=np.int64))
    flat = [o.reshape((count,) + o.shape[o.ndim - r:]) for o, r in zip(operands, ranks, strict=True)]
    outs = [np.empty(batch + tuple(core), dtype) for core, dtype in zip(out_cores, out_dtypes, strict=True)]
    flat_outs = [o.reshape((count,) + o.shape[len(batch):]) for o in outs]
    for i in range(count):
        results = fn(*(f[i] for f in flat))
        for out, result in zip(flat_outs, results, strict=True):
            out[i] = result
    return outs


def _one_matrix(fn: Callable, operands: Sequence[np.ndarray], out_cores: Sequence[tuple],
                out_dtypes: Sequence) -> list:
    # No batch (a dispatch-bound program's usual case): the results as the
    # batch loop would store them (C order, the output dtypes), without its
    # allocations and copies where a result already is that.
    outs = []
    for result, core, dtype in zip(fn(*operands), out_cores, out_dtypes, strict=True):
        if type(result) is np.ndarray and result.ndim == 2 and result.dtype == dtype and result.flags.f_contiguous:
            out = result if result.flags.c_contiguous else _reorder(result, "C")
        else:
            out = np.ascontiguousarray(result, dtype=dtype)
        if out.shape != tuple(core) or (out is result and any(out is o or np.may_share_memory(out, o)
                                                             for o in (*operands, *outs))):
            out = np.empty(core, dtype)
            out[...] = result
        outs.append(out)
    return outs


# LAPACK's column-major copies and back: NumPy's copy between the two
# orders walks one side a whole row apart; by bands of rows that stay in
# cache it is about twice as fast (docs/performance.md). The same values,
# so the same matrix for LAPACK and the same bits out.
_BAND = 128
_MIN_BANDED = 1 << 16


def _copy_into(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    if x.ndim != 2 or x.size < _MIN_BANDED:
        out[...] = x
    else:
        for i in range(0, x.shape[0], _BAND):
            out[i:i + _BAND] = x[i:i + _BAND]
    return out


def _reorder(x: np.ndarray, order: str) -> np.ndarray:
    """A new copy of `x` in `order` ('C' or 'F')."""
    return _copy_into(np.empty(x.shape, x.dtype, order=order), x)


def _fortran(x: np.ndarray) -> np.ndarray:
    """`x` column-major, as SciPy's f2py wrappers would copy it (itself when it is)."""
    return x if x.flags.f_contiguous else _reorder(x, "F")


def _nan_where_failed(failed: np.ndarray, *arrays: np.ndarray) -> None:
    """Fills each failed batch element with NaNs, as XLA's linalg lowerings do."""
    for a in arrays:
        a[failed] = np.nan


# ---------------------------------------------------------------------------
# Cholesky


_POTRF: dict = {}  # dtype char -> SciPy's potrf (looked up once)


def _cholesky(x) -> np.ndarray:
    (x,), dtype = _prepare(x)
    n = x.shape[-1]
    potrf = _POTRF.get(x.dtype.char)
    if potrf is None:
        potrf = _POTRF[x.dtype.char] = lapack.get_lapack_funcs("potrf", (x,))

    def one(matrix):
        if n == 0:
            return (matrix,)
        # clean=0: like JAX's call, potrf leaves the input's strict upper triangle in place.
        factor, info = potrf(_reorder(matrix, "F"), lower=1, clean=0, overwrite_a=1)
        return (factor if info == 0 else np.full_like(matrix, np.nan),)

    return _map_matrices(one, [x], [2], [(n, n)], [x.dtype])[0].astype(dtype, copy=False)


IMPLS[linalg_lax.cholesky_p] = _cholesky


def _cholesky_update(r, w) -> np.ndarray:
    # Givens rotations zero w against each row of R in turn: O(n^2).
    (r, w), dtype = _prepare(r, w)
    r, w = r.copy(), w.copy()
    for k in range(r.shape[0]):
        x, y = r[k, k], w[k]
        if y == 0:
            c, s = np.ones((), r.dtype), np.zeros((), r.dtype)
        else:
            scale = max(abs(x), abs(y))
            x, y = x / scale, y / scale
            norm = np.sqrt(x * x + y * y)
            c, s = x / norm, -y / norm
        row = r[k].copy()
        r[k], w = c * row - s * w, c * w + s * row
    return r.astype(dtype, copy=False)


IMPLS[linalg_lax.cholesky_update_p] = _cholesky_update


# ---------------------------------------------------------------------------
# Eigendecompositions


def _eig(x, *, compute_left_eigenvectors: bool, compute_right_eigenvectors: bool, enable_eigvec_derivs: bool,
         implementation) -> list:
    (x,), dtype = _prepare(x)
    complex_dtype = np.result_type(dtype, np.complex64)
    n = x.shape[-1]
    cores, dtypes = [(n,)], [complex_dtype]
    cores += [(n, n)] * (compute_left_eigenvectors + compute_right_eigenvectors)
    dtypes += [complex_dtype] * (compute_left_eigenvectors + compute_right_eigenvectors)

    def one(a):
        # scipy unpacks LAPACK geev's real conjugate-pair storage into complex vectors.
        w, vl, vr = scipy_linalg.eig(a, left=True, right=True, check_finite=False)
        outs = [w]
        if compute_left_eigenvectors:
            outs.append(vl)
        if compute_right_eigenvectors:
            outs.append(vr)
        return outs

    return _map_matrices(one, [x], [2], cores, dtypes)


IMPLS[linalg_lax.eig_p] = _eig


def _eigh(x, *, lower: bool, sort_eigenvalues: bool, subset_by_index, algorithm) -> list:
    if algorithm == linalg_lax.EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    if algorithm == linalg_lax.EighImplementation.JACOBI:
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    (x,), dtype = _prepare(x)
    if subset_by_index is not None and subset_by_index != (0, x.shape[-1]):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    n = x.shape[-1]
    # LAPACK's syevd/heevd, as JAX calls them: one triangle is read, eigenvalues ascend.
    evd = lapack.get_lapack_funcs("heevd" if x.dtype.kind == "c" else "syevd", (x,))

    def one(matrix):
        if n == 0:
            return matrix, np.zeros(0)
        w, v, info = evd(matrix, compute_v=1, lower=int(lower))
        return (v, w) if info == 0 else (np.full_like(v, np.nan), np.full_like(w, np.nan))

    v, w = _map_matrices(one, [x], [2], [(n, n), (n,)], [x.dtype, _real(x.dtype)])
    return [v.astype(dtype, copy=False), w.astype(_real(dtype), copy=False)]


IMPLS[linalg_lax.eigh_p] = _eigh


# ---------------------------------------------------------------------------
# Condensed forms


def _hessenberg(a) -> list:
    (a,), dtype = _prepare(a)
    n = a.shape[-1]
    gehrd = lapack.get_lapack_funcs("gehrd", (a,))

    def one(m):
        h, taus, info = gehrd(m)
        return (h, taus) if info == 0 else (np.full_like(h, np.nan), np.full_like(taus, np.nan))

    outs = _map_matrices(one, [a], [2], [(n, n), (max(n - 1, 0),)], [a.dtype, a.dtype])
    return [o.astype(dtype, copy=False) for o in outs]


IMPLS[linalg_lax.hessenberg_p] = _hessenberg


def _tridiagonal(a, *, lower: bool) -> list:
    (a,), dtype = _prepare(a)
    n = a.shape[-1]
    name = "hetrd" if a.dtype.kind == "c" else "sytrd"
    trd = lapack.get_lapack_funcs(name, (a,))
    real = _real(a.dtype)

    def one(m):
        c, d, e, taus, info = trd(m, lower=int(lower))
        if info != 0:
            return [np.full_like(v, np.nan) for v in (c, d, e, taus)]
        return c, d, e, taus

    outs = _map_matrices(one, [a], [2], [(n, n), (n,), (n - 1,), (n - 1,)], [a.dtype, real, real, a.dtype])
    return [o.astype(d, copy=False) for o, d in zip(outs, [dtype, _real(dtype), _real(dtype), dtype], strict=True)]


IMPLS[linalg_lax.tridiagonal_p] = _tridiagonal


def _schur(x, *, compute_schur_vectors: bool, sort_eig_vals: bool, select_callable) -> list:
    (x,), dtype = _prepare(x)
    n = x.shape[-1]
    # gees, as JAX's CPU lowering: the real Schur form for real input.
    output = "complex" if x.dtype.kind == "c" else "real"

    def one(m):
        t, z = scipy_linalg.schur(m, output=output, check_finite=False)
        return (t, z) if compute_schur_vectors else (t,)

    count = 2 if compute_schur_vectors else 1
    outs = _map_matrices(one, [x], [2], [(n, n)] * count, [x.dtype] * count)
    return [o.astype(dtype, copy=False) for o in outs]


IMPLS[linalg_lax.schur_p] = _schur


# ---------------------------------------------------------------------------
# QR and Householder reflectors


def _householder_product(a, taus) -> np.ndarray:
    (a, taus), dtype = _prepare(a, taus)
    m, n = a.shape[-2:]
    orgqr = lapack.get_lapack_funcs("ungqr" if a.dtype.kind == "c" else "orgqr", (a,))

    def one(matrix, tau):
        if tau.shape[0] < n:  # LAPACK wants n taus: the missing reflectors are identities
            tau = np.concatenate([tau, np.zeros(n - tau.shape[0], tau.dtype)])
        q, _, _info = orgqr(matrix, tau, lwork=max(1, 64 * n))  # info < 0 only: a bad argument
        return (q,)

    return _map_matrices(one, [a, taus], [2, 1], [(m, n)], [a.dtype])[0].astype(dtype, copy=False)


IMPLS[linalg_lax.householder_product_p] = _householder_product


def _ormqr(a, taus, c, *, left: bool, transpose: bool) -> np.ndarray:
    (a, taus, c), dtype = _prepare(a, taus, c)
    is_complex = a.dtype.kind == "c"
    ormqr = lapack.get_lapack_funcs("unmqr" if is_complex else "ormqr", (a,))
    trans = ("C" if is_complex else "T") if transpose else "N"
    side = "L" if left else "R"
    k = taus.shape[-1]

    def one(matrix, tau, rhs):
        # LAPACK reads k reflectors from the first k columns of `a` (m x k).
        out, _, _info = ormqr(side, trans, matrix[:, :k], tau, rhs, lwork=max(1, 64 * max(rhs.shape)))
        return (out,)

    return _map_matrices(one, [a, taus, c], [2, 1, 2], [c.shape[-2:]], [c.dtype])[0].astype(dtype, copy=False)


IMPLS[linalg_lax.ormqr_p] = _ormqr


def _geqrf(a) -> list:
    (a,), dtype = _prepare(a)
    m, n = a.shape[-2:]
    geqrf = lapack.get_lapack_funcs("geqrf", (a,))

    def one(matrix):
        qr, taus, _, _info = geqrf(matrix)
        return qr, taus

    outs = _map_matrices(one, [a], [2], [(m, n), (min(m, n),)], [a.dtype, a.dtype])
    return [o.astype(dtype, copy=False) for o in outs]


IMPLS[linalg_lax.geqrf_p] = _geqrf


def _geqp3(a, jpvt, *, use_magma) -> list:
    (a,), dtype = _prepare(a)
    jpvt = np.asarray(jpvt)
    if np.any(jpvt != 0):
        # SciPy's geqp3 wrapper always starts from free columns.
        raise NotImplementedError("geqp3 with fixed (nonzero) initial column pivots is not supported")
    m, n = a.shape[-2:]
    geqp3 = lapack.get_lapack_funcs("geqp3", (a,))

    def one(matrix, _):
        qr, pivots, taus, _, _info = geqp3(matrix)
        return qr, pivots, taus  # LAPACK's 1-based pivots, as JAX's geqp3 returns them

    outs = _map_matrices(one, [a, jpvt], [2, 1], [(m, n), (n,), (min(m, n),)], [a.dtype, jpvt.dtype, a.dtype])
    return [outs[0].astype(dtype, copy=False), outs[1], outs[2].astype(dtype, copy=False)]


IMPLS[linalg_lax.geqp3_p] = _geqp3


def _qr_one(matrix: np.ndarray, full_matrices: bool) -> tuple:
    """geqrf, then orgqr/ungqr on the reflectors (as many columns as Q has), as JAX's CPU lowering."""
    m, n = matrix.shape
    k = m if full_matrices else min(m, n)
    if matrix.size == 0:
        return np.eye(m, k, dtype=matrix.dtype), np.zeros((k, n), matrix.dtype)
    packed, taus, _, _info = lapack.get_lapack_funcs("geqrf", (matrix,))(matrix)
    reflectors = packed[:, :k] if n >= k else np.pad(packed, ((0, 0), (0, k - n)))
    orgqr = lapack.get_lapack_funcs("ungqr" if matrix.dtype.kind == "c" else "orgqr", (matrix,))
    q, _, _info = orgqr(reflectors, taus)
    return q, np.triu(packed[:k] if m >= k else packed)


def _qr(x, *, pivoting: bool, full_matrices: bool, use_magma) -> list:
    (x,), dtype = _prepare(x)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    if not pivoting:
        q, r = _map_matrices(partial(_qr_one, full_matrices=full_matrices), [x], [2], [(m, k), (k, n)],
                             [x.dtype, x.dtype])
        return [q.astype(dtype, copy=False), r.astype(dtype, copy=False)]
    mode = "full" if full_matrices else "economic"

    def one(matrix):
        q, r, p = scipy_linalg.qr(matrix, pivoting=True, mode=mode, check_finite=False)
        return q, r, p

    q, r, p = _map_matrices(one, [x], [2], [(m, k), (k, n), (n,)], [x.dtype, x.dtype, np.int32])
    return [q.astype(dtype, copy=False), r.astype(dtype, copy=False), p]


IMPLS[linalg_lax.qr_p] = _qr


# ---------------------------------------------------------------------------
# LU


def _pivots_to_permutation(pivots: np.ndarray, size: int) -> np.ndarray:
    """Applies the swaps (i <-> pivots[..., i]) in order to the identity, over the batch."""
    batch = pivots.shape[:-1]
    permutation = np.broadcast_to(np.arange(size, dtype=np.int32), batch + (size,)).copy()
    count = int(np.prod(batch, dtype=np.int64))
    flat = permutation.reshape(count, size)
    swaps = pivots.reshape(count, pivots.shape[-1])
    rows = np.arange(flat.shape[0])
    for i in range(swaps.shape[1]):
        j = swaps[:, i]
        flat[rows, i], flat[rows, j] = flat[rows, j], flat[rows, i].copy()
    return permutation


def _lu(x) -> list:
    (x,), dtype = _prepare(x)
    m, n = x.shape[-2:]
    getrf = lapack.get_lapack_funcs("getrf", (x,))

    def one(matrix):
        if matrix.size == 0:  # LAPACK refuses an empty matrix
            return matrix, np.zeros(0, np.int32)
        # A singular matrix is no failure: LAPACK's info only notes the zero pivot.
        factors, pivots, _info = getrf(matrix)
        return factors, pivots

    lu_out, pivots = _map_matrices(one, [x], [2], [(m, n), (min(m, n),)], [x.dtype, np.int32])
    return [lu_out.astype(dtype, copy=False), pivots, _pivots_to_permutation(pivots, m)]


IMPLS[linalg_lax.lu_p] = _lu
IMPLS[linalg_lax.lu_pivots_to_permutation_p] = (
    lambda pivots, *, permutation_size: _pivots_to_permutation(np.asarray(pivots), permutation_size))


# ---------------------------------------------------------------------------
# SVD


def _svd(x, *, full_matrices: bool, compute_uv: bool, subset_by_index, algorithm) -> list:
    svd_algorithm = linalg_lax.SvdAlgorithm
    if algorithm in (svd_algorithm.JACOBI, svd_algorithm.POLAR):
        raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on CPU.")
    (x,), dtype = _prepare(x)
    m, n = x.shape[-2:]
    k = min(m, n)
    if subset_by_index is not None and subset_by_index != (0, k):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    batch = x.shape[:-2]
    real = _real(dtype)
    if k == 0:
        # LAPACK is not called: no singular values, identity singular vectors.
        s = np.zeros(batch + (0,), real)
        if not compute_uv:
            return [s]
        u = np.broadcast_to(np.eye(m, m if full_matrices else 0, dtype=dtype), batch + (m, m if full_matrices else 0))
        vh = np.broadcast_to(np.eye(n if full_matrices else 0, n, dtype=dtype), batch + (n if full_matrices else 0, n))
        return [s, u.copy(), vh.copy()]
    # gesdd (JAX's default and DIVIDE_AND_CONQUER) or gesvd (QR), as JAX's CPU lowering.
    driver = "gesvd" if algorithm == svd_algorithm.QR else "gesdd"
    gesvd = lapack.get_lapack_funcs(driver, (x,))
    cores = [(k,), (m, m if full_matrices else k), (n if full_matrices else k, n)]

    def one(matrix):
        u, s, vh, info = gesvd(matrix, compute_uv=int(compute_uv), full_matrices=int(full_matrices))
        outs = [s, u, vh] if compute_uv else [s]
        return outs if info == 0 else [np.full(o.shape, np.nan, o.dtype) for o in outs]

    count = 3 if compute_uv else 1
    outs = _map_matrices(one, [x], [2], cores[:count], [_real(x.dtype), x.dtype, x.dtype][:count])
    return [o.astype(d, copy=False) for o, d in zip(outs, [real, dtype, dtype][:count], strict=True)]


IMPLS[linalg_lax.svd_p] = _svd


# ---------------------------------------------------------------------------
# Products and solves


def _symmetric_product(a, c, *, alpha, beta) -> np.ndarray:
    (a, c), dtype = _prepare(a, c)
    product = np.matmul(a, np.swapaxes(a, -1, -2))
    return (alpha * product + beta * c).astype(dtype, copy=False)


IMPLS[linalg_lax.symmetric_product_p] = _symmetric_product


def _triangular_solve(a, b, *, left_side: bool, lower: bool, transpose_a: bool, conjugate_a: bool,
                      unit_diagonal: bool) -> np.ndarray:
    (a, b), dtype = _prepare(a, b)
    # BLAS trsm, as JAX's CPU lowering: no singularity check (a zero pivot gives inf/nan).
    key = (a.dtype.char, b.dtype.char)
    trsm = _TRSM.get(key)
    if trsm is None:
        trsm = _TRSM[key] = blas.get_blas_funcs("trsm", (a, b))
    if transpose_a:
        trans = 2 if conjugate_a else 1
    else:
        trans = 0
        if conjugate_a:  # trsm has no "conjugate without transpose": conjugate A up front
            a = np.conj(a)
    batch = a.shape[:-2]
    b = np.broadcast_to(b, batch + b.shape[-2:]) if batch and b.ndim - 2 == len(batch) else b

    def one(matrix, rhs):
        # (trsm writes its own column-major copy of rhs: ours)
        return (trsm(1.0, _fortran(matrix), _reorder(rhs, "F"), side=0 if left_side else 1, lower=int(lower),
                     trans_a=trans, diag=int(unit_diagonal), overwrite_b=1),)

    if not batch and b.dtype == np.float32 and 2 * b.size * a.shape[-1] >= split_lib.MIN_FLOPS:
        codes = (b"L" if left_side else b"R", b"L" if lower else b"U", b"NTC"[trans:trans + 1],
                 b"U" if unit_diagonal else b"N")
        split = _split_solve(one, a, b, left_side, codes)
        if split is not None:
            return split.astype(dtype, copy=False)
    return _map_matrices(one, [a, b], [2, 2], [b.shape[-2:]], [b.dtype])[0].astype(dtype, copy=False)


def _split_solve(one: Callable, a: np.ndarray, b: np.ndarray, left_side: bool, codes: tuple) -> np.ndarray | None:
    """A large float32 solve on every core (split.py's pool), or None: the
    right-hand sides are independent (columns of b for a left-side solve,
    rows for a right-side one), and each block's result is bitwise its part
    of the whole solve's (OpenBLAS's strsm: the same kernels over the same
    triangle; float64's dtrsm is not, as dgemm is not). Each block calls
    strsm by SciPy's cython_blas pointer, as its f2py wrapper does (`codes`:
    side, uplo, transa and diag as it passes them), but through ctypes,
    which lets go of the GIL: the wrapper holds it for the whole solve, so
    the blocks ran one after the other."""
    n, free = a.shape[-1], b.shape[1 if left_side else 0]
    workers = split_lib.num_workers()
    if not split_lib.worth_splitting(free, n, n) or free < workers * _MIN_SPLIT_RHS:
        return None
    out = np.empty(b.shape, b.dtype)
    a = _fortran(a)  # (once, not in every block)
    trsm = _strsm_without_gil()

    def block(i: int, j: int) -> None:
        rhs = b[:, i:j] if left_side else b[i:j]
        if trsm is None:
            solved = one(a, rhs)[0]
        else:
            solved = _reorder(rhs, "F")  # (the copy f2py makes, which trsm overwrites)
            m, k = solved.shape
            trsm(*codes, ctypes.byref(ctypes.c_int(m)), ctypes.byref(ctypes.c_int(k)),
                 ctypes.byref(ctypes.c_float(1.0)), a.ctypes.data, ctypes.byref(ctypes.c_int(a.shape[0])),
                 solved.ctypes.data, ctypes.byref(ctypes.c_int(m)))
        _copy_into(out[:, i:j] if left_side else out[i:j], solved)

    split_lib.run_all([partial(block, i, j) for i, j in split_lib.ranges(free)])
    return out


_strsm: list = []


def _strsm_without_gil():
    """SciPy's strsm (the routine its f2py `trsm` calls) as a ctypes
    function, or None where SciPy does not publish it as expected."""
    if not _strsm:
        from pyjax._src.backends.numpy.native import lapack as native_lapack  # (the capsule reader; native/ imports impls)
        found = native_lapack.routine("trsm", np.float32)
        char, int_p, float_p = ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_float)
        _strsm.append(None if found is None else ctypes.CFUNCTYPE(
            None, char, char, char, char, int_p, int_p, float_p, ctypes.c_void_p, int_p, ctypes.c_void_p, int_p)(
            found[0]))
    return _strsm[0]


_MIN_SPLIT_RHS = 64  # right-hand sides a block solves at the least
_TRSM: dict = {}  # (a's, b's dtype char) -> SciPy's trsm (its lookup costs more than a small solve's rest)


IMPLS[linalg_lax.triangular_solve_p] = _triangular_solve


def _tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool) -> np.ndarray:
    (dl, d, du, b), dtype = _prepare(dl, d, du, b)
    if perturb_singular:
        solve = _perturbed_tridiagonal_solve
    else:
        gtsv = lapack.get_lapack_funcs("gtsv", (d, b))

        def solve(lower, diag, upper, rhs):
            if diag.shape[0] <= 1:  # SciPy's gtsv wrapper wants at least one off-diagonal entry
                with np.errstate(divide="ignore", invalid="ignore"):
                    x = rhs / diag[:, None]
                return x if np.all(diag != 0) else np.full_like(rhs, np.nan)
            # LAPACK's gtsv (as JAX's CPU lowering); a singular system gives NaNs.
            *_, x, info = gtsv(lower[1:], diag, upper[:-1], rhs)
            return x if info == 0 else np.full_like(rhs, np.nan)

    out = _map_matrices(lambda *args: (solve(*args),), [dl, d, du, b], [1, 1, 1, 2], [b.shape[-2:]], [b.dtype])
    return out[0].astype(dtype, copy=False)


def _perturbed_tridiagonal_solve(dl, d, du, b) -> np.ndarray:
    """Gaussian elimination with partial pivoting (LAPACK's lagtf/lagts scheme)
    where a pivot too small to divide by is nudged away from zero."""
    m = d.shape[0]
    diag, upper, upper2 = d.copy(), np.zeros(m, d.dtype), np.zeros(m, d.dtype)
    upper[:m - 1] = du[:m - 1]
    lower = np.zeros(m, d.dtype)
    swapped = np.zeros(m, bool)
    x = b.copy()
    for k in range(m - 1):
        sub = dl[k + 1]
        if sub == 0:
            continue
        if abs(sub) <= abs(diag[k]):
            lower[k] = sub / diag[k]
            diag[k + 1] -= lower[k] * upper[k]
        else:  # swap rows k and k + 1
            swapped[k] = True
            multiplier = diag[k] / sub
            diag[k], upper[k], diag[k + 1] = sub, diag[k + 1], upper[k] - multiplier * diag[k + 1]
            if k < m - 2:
                upper2[k] = upper[k + 1]
                upper[k + 1] = -multiplier * upper2[k]
            lower[k] = multiplier
    for k in range(m - 1):  # forward substitution with L and the row swaps
        if swapped[k]:
            x[k], x[k + 1] = x[k + 1].copy(), x[k] - lower[k] * x[k + 1]
        else:
            x[k + 1] -= lower[k] * x[k]
    finfo = np.finfo(d.dtype)
    tiny, big = finfo.tiny, 1 / finfo.tiny
    tol = finfo.eps * max(np.max(np.abs(diag)), np.max(np.abs(upper)), np.max(np.abs(upper2)), 0)
    tol = tol if tol > 0 else tiny
    for k in range(m - 1, -1, -1):  # back substitution with U, perturbing tiny pivots
        rhs = x[k].copy()
        if k + 1 < m:
            rhs -= upper[k] * x[k + 1]
        if k + 2 < m:
            rhs -= upper2[k] * x[k + 2]
        pivot = np.full(rhs.shape, diag[k])
        step = np.where(np.real(pivot) < 0, -tol, tol)
        for _ in range(2 * finfo.maxexp):
            with np.errstate(over="ignore"):  # a large pivot overflows to inf: not small
                small = np.abs(pivot) * big <= np.abs(rhs)
            if not small.any():
                break
            pivot = np.where(small, pivot + step, pivot)
            step = np.where(small, 2 * step, step)
        x[k] = rhs / pivot
    return x


IMPLS[linalg_lax.tridiagonal_solve_p] = _tridiagonal_solve
