"""The linalg family: each impl against the identity that defines its
result (L L^H = A, Q R = A, A V = V diag(w), ...) or a NumPy/SciPy oracle,
over float32/complex64 (and float64/complex128 with x64), batched; abstract
evaluation against the impl; jit against eager; JAX's error messages."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.linalg
from helpers import (
    check_close,
    check_impl_matches_abstract_eval,
    check_jit_matches_eager,
)

import pyjax
from pyjax import lax
from pyjax._src.lax import linalg as linalg_lax

L = lax.linalg
DTYPES = ["float32", "complex64"]
X64_DTYPES = ["float64", "complex128"]


@pytest.fixture
def x64():
    pyjax.config.update("jax_enable_x64", True)
    yield
    pyjax.config.update("jax_enable_x64", False)


def _tol(dtype):
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return {"rtol": 2e-4, "atol": 2e-4} if single else {"rtol": 1e-10, "atol": 1e-10}


def _random(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _hermitian_pd(rng, batch, n, dtype):
    a = _random(rng, batch + (n, n), dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _close(actual, expected, dtype, **kw):
    tol = _tol(dtype)
    tol.update(kw)
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), **tol)


def _wide(dtype):
    return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


# ---------------------------------------------------------------------------
# Cholesky


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)], ids=str)
def test_cholesky(dtype, batch):
    a = _hermitian_pd(np.random.default_rng(0), batch, 4, dtype)
    raw = check_impl_matches_abstract_eval(L.cholesky_p, a)
    factor = np.tril(np.asarray(raw))
    _close(factor @ _h(factor), a, dtype)
    assert np.all(np.real(np.diagonal(factor, axis1=-2, axis2=-1)) > 0)
    # LAPACK's potrf leaves the input's strict upper triangle in place.
    np.testing.assert_array_equal(np.triu(np.asarray(raw), 1), np.triu(a, 1))
    _close(L.cholesky(a), factor, dtype)
    check_jit_matches_eager(L.cholesky, a, **_tol(dtype))


def test_cholesky_failure_is_nan_per_matrix_and_float64(x64):
    a = np.stack([np.eye(3), -np.eye(3), 2 * np.eye(3)])
    out = np.asarray(L.cholesky(a))
    assert out.dtype == np.float64
    assert np.isnan(out[1][np.tril_indices(3)]).all() and not np.isnan(out[[0, 2]]).any()
    check_close(out[2], np.sqrt(2) * np.eye(3))


def test_cholesky_update():
    rng = np.random.default_rng(1)
    a = _hermitian_pd(rng, (), 5, np.float32)
    r = np.linalg.cholesky(a).T
    w = rng.standard_normal(5).astype(np.float32)
    updated = np.asarray(check_impl_matches_abstract_eval(L.cholesky_update_p, r, w))
    _close(updated.T @ updated, a + np.outer(w, w), np.float32)
    np.testing.assert_array_equal(np.tril(updated, -1), 0)
    check_jit_matches_eager(L.cholesky_update, r, w, **_tol(np.float32))


# ---------------------------------------------------------------------------
# Eigendecompositions


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(dtype, lower):
    rng = np.random.default_rng(2)
    a = _random(rng, (2, 4, 4), dtype)  # not Hermitian: only the chosen triangle may be read
    v, w = check_impl_matches_abstract_eval(L.eigh_p, a, lower=lower, sort_eigenvalues=True, subset_by_index=None,
                                            algorithm=None)
    tri = np.tril(a) if lower else np.triu(a)
    herm = tri + _h(tri) - np.real(np.diagonal(a, axis1=-2, axis2=-1))[..., None] * np.eye(4)
    v, w = np.asarray(v), np.asarray(w)
    assert w.dtype == np.finfo(dtype).dtype and np.all(np.diff(w, axis=-1) >= 0)
    _close(herm @ v, v * w[..., None, :], dtype)
    _close(_h(v) @ v, np.broadcast_to(np.eye(4), v.shape), dtype)
    check_jit_matches_eager(lambda a: L.eigh(a, lower=lower), a, **_tol(dtype))


@pytest.mark.parametrize("dtype", X64_DTYPES)
def test_eigh_x64(dtype, x64):
    a = _hermitian_pd(np.random.default_rng(3), (), 5, dtype)
    _, w = L.eigh(a)
    _close(np.asarray(w), np.linalg.eigvalsh(a), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left,right", list(itertools.product([True, False], repeat=2)))
def test_eig(dtype, left, right):
    a = _random(np.random.default_rng(4), (2, 4, 4), dtype)
    outs = check_impl_matches_abstract_eval(L.eig_p, a, compute_left_eigenvectors=left,
                                            compute_right_eigenvectors=right, enable_eigvec_derivs=False,
                                            implementation=None)
    w = np.asarray(outs[0])
    assert w.dtype == np.result_type(dtype, np.complex64)
    _close(np.sort_complex(w.ravel()), np.sort_complex(np.linalg.eigvals(a.astype(_wide(dtype))).ravel()), dtype)
    rest = [np.asarray(o) for o in outs[1:]]
    if left:
        vl = rest.pop(0)
        _close(_h(vl) @ a, w[..., :, None] * _h(vl), dtype)
        _close(np.linalg.norm(vl, axis=-2), np.ones(w.shape), dtype)
    if right:
        vr = rest.pop(0)
        _close(a @ vr, vr * w[..., None, :], dtype)


# ---------------------------------------------------------------------------
# Condensed forms


@pytest.mark.parametrize("dtype", DTYPES)
def test_hessenberg(dtype):
    a = _random(np.random.default_rng(5), (2, 5, 5), dtype)
    h, taus = check_impl_matches_abstract_eval(L.hessenberg_p, a)
    for i in range(2):
        expected = scipy.linalg.hessenberg(a[i].astype(_wide(dtype)))
        _close(np.triu(np.asarray(h)[i], -1), expected, dtype)
    assert np.asarray(taus).shape == (2, 4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal(dtype, lower):
    a = _hermitian_pd(np.random.default_rng(6), (2,), 5, dtype)
    _, d, e, _ = check_impl_matches_abstract_eval(L.tridiagonal_p, a, lower=lower)
    for i in range(2):
        t = np.diag(np.asarray(d)[i]) + np.diag(np.asarray(e)[i], 1) + np.diag(np.asarray(e)[i], -1)
        _close(np.linalg.eigvalsh(t), np.linalg.eigvalsh(a[i].astype(_wide(dtype))), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_schur(dtype):
    a = _random(np.random.default_rng(7), (2, 4, 4), dtype)
    t, q = (np.asarray(o) for o in check_impl_matches_abstract_eval(
        L.schur_p, a, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None))
    _close(q @ t @ _h(q), a, dtype)
    _close(_h(q) @ q, np.broadcast_to(np.eye(4), q.shape), dtype)
    below = np.tril(t, -2 if np.dtype(dtype).kind == "f" else -1)  # real Schur form: 2x2 blocks
    np.testing.assert_allclose(below, 0, atol=1e-5)
    (t_only,) = L.schur(a, compute_schur_vectors=False)
    _close(t_only, t, dtype)


# ---------------------------------------------------------------------------
# QR and Householder reflectors


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr(dtype, shape, full_matrices):
    a = _random(np.random.default_rng(8), shape, dtype)
    q, r = (np.asarray(o) for o in check_impl_matches_abstract_eval(
        L.qr_p, a, pivoting=False, full_matrices=full_matrices, use_magma=None))
    _close(q @ r, a, dtype)
    _close(_h(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2), dtype)
    np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_qr_pivoting(dtype):
    a = _random(np.random.default_rng(9), (2, 5, 4), dtype)
    q, r, p = (np.asarray(o) for o in L.qr(a, pivoting=True, full_matrices=False))
    assert p.dtype == np.int32
    _close(q @ r, np.take_along_axis(a, p[:, None, :], axis=-1), dtype)
    diagonal = np.abs(np.diagonal(r, axis1=-2, axis2=-1))
    assert np.all(np.diff(diagonal, axis=-1) <= 1e-5)
    check_jit_matches_eager(lambda a: L.qr(a, pivoting=True), a, **_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_geqrf_householder_product_ormqr(dtype):
    rng = np.random.default_rng(10)
    a = _random(rng, (2, 5, 3), dtype)
    packed, taus = check_impl_matches_abstract_eval(linalg_lax.geqrf_p, a)
    r = np.triu(np.asarray(packed))[..., :3, :]
    q = np.asarray(check_impl_matches_abstract_eval(L.householder_product_p, packed, taus))
    _close(q @ r, a, dtype)
    _close(np.abs(r), np.abs(np.linalg.qr(a.astype(_wide(dtype)))[1]), dtype)
    # The full Q: the same three reflectors in a square matrix.
    square = np.concatenate([np.asarray(packed), np.zeros((2, 5, 2), dtype)], axis=-1)
    q_full = np.asarray(L.householder_product(square, taus))
    _close(_h(q_full) @ q_full, np.broadcast_to(np.eye(5), (2, 5, 5)), dtype)
    _close(q_full[..., :3], q, dtype)
    c = _random(rng, (2, 5, 2), dtype)
    for left, transpose in itertools.product([True, False], repeat=2):
        operand = c if left else np.swapaxes(c, -1, -2)
        out = check_impl_matches_abstract_eval(L.ormqr_p, packed, taus, operand, left=left, transpose=transpose)
        op = _h(q_full) if transpose else q_full
        _close(out, op @ operand if left else operand @ op, dtype)


def test_householder_product_with_fewer_taus():
    a = np.random.default_rng(11).standard_normal((4, 3)).astype(np.float32)
    packed, taus = linalg_lax.geqrf(a)
    q = np.asarray(L.householder_product(packed, np.asarray(taus)[:1]))
    v = np.concatenate([[1.0], np.asarray(packed)[1:, 0]])
    expected = (np.eye(4) - np.asarray(taus)[0] * np.outer(v, v))[:, :3]
    _close(q, expected, np.float32)


def test_geqp3():
    a = np.random.default_rng(12).standard_normal((5, 4)).astype(np.float32)
    packed, jpvt, taus = linalg_lax.geqp3(a, np.zeros(4, np.int32))
    q = np.asarray(L.householder_product(packed, taus))
    _close(q @ np.triu(np.asarray(packed))[:4], a[:, np.asarray(jpvt) - 1], np.float32)


# ---------------------------------------------------------------------------
# LU


def _permutation_oracle(pivots, size):
    permutation = list(range(size))
    for i, j in enumerate(pivots):
        permutation[i], permutation[j] = permutation[j], permutation[i]
    return permutation


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3)], ids=str)
def test_lu(dtype, shape):
    a = _random(np.random.default_rng(13), shape, dtype)
    lu, pivots, permutation = (np.asarray(o) for o in check_impl_matches_abstract_eval(L.lu_p, a))
    m, n = shape[-2:]
    k = min(m, n)
    lower = np.tril(lu, -1)[..., :, :k] + np.eye(m, k)
    upper = np.triu(lu)[..., :k, :]
    _close(lower @ upper, np.take_along_axis(a, permutation[..., :, None], axis=-2), dtype)
    for index in np.ndindex(*shape[:-2]):
        assert permutation[index].tolist() == _permutation_oracle(pivots[index], m)
    assert np.all(np.abs(np.tril(lu, -1)) <= 1 + 1e-6)  # partial pivoting
    check_jit_matches_eager(L.lu, a, **_tol(dtype))


def test_lu_singular_is_not_a_failure(x64):
    lu, pivots, _ = L.lu(np.zeros((2, 2)))
    check_close(lu, np.zeros((2, 2)))
    check_close(pivots, np.array([0, 1], np.int32))


def test_lu_pivots_to_permutation():
    pivots = np.random.default_rng(14).integers(0, 6, (3, 4)).astype(np.int32)
    pivots = np.maximum(pivots, np.arange(4, dtype=np.int32))  # LAPACK never swaps with an earlier row
    out = check_impl_matches_abstract_eval(L.lu_pivots_to_permutation_p, pivots, permutation_size=6)
    check_close(out, np.array([_permutation_oracle(p, 6) for p in pivots], np.int32))
    check_jit_matches_eager(lambda p: L.lu_pivots_to_permutation(p, 6), pivots)


# ---------------------------------------------------------------------------
# SVD


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("algorithm", [None, L.SvdAlgorithm.QR, L.SvdAlgorithm.DIVIDE_AND_CONQUER], ids=str)
def test_svd(dtype, shape, full_matrices, algorithm):
    a = _random(np.random.default_rng(15), shape, dtype)
    s, u, vh = (np.asarray(o) for o in check_impl_matches_abstract_eval(
        L.svd_p, a, full_matrices=full_matrices, compute_uv=True, subset_by_index=None, algorithm=algorithm))
    k = min(shape[-2:])
    assert s.dtype == np.finfo(dtype).dtype and np.all(np.diff(s, axis=-1) <= 0)
    _close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype)
    _close(s, np.linalg.svd(a.astype(_wide(dtype)), compute_uv=False), dtype)
    only = np.asarray(L.svd(a, compute_uv=False))
    _close(only, s, dtype)


def test_svd_empty_and_jit():
    u, s, vh = L.svd(np.zeros((3, 0), np.float32))
    check_close(u, np.eye(3, dtype=np.float32))
    assert np.asarray(s).shape == (0,) and np.asarray(vh).shape == (0, 0)
    a = np.random.default_rng(16).standard_normal((4, 3)).astype(np.float32)
    check_jit_matches_eager(lambda a: L.svd(a, full_matrices=False), a, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Products and solves


def test_symmetric_product():
    rng = np.random.default_rng(17)
    a, c = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 3, 3)).astype(np.float32)
    out = check_impl_matches_abstract_eval(L.symmetric_product_p, a, c, alpha=2.0, beta=0.5)
    _close(out, 2.0 * a @ np.swapaxes(a, -1, -2) + 0.5 * c, np.float32)
    sym = np.asarray(L.symmetric_product(a, c, symmetrize_output=True))
    np.testing.assert_array_equal(sym, np.swapaxes(sym, -1, -2))
    check_jit_matches_eager(lambda a, c: L.symmetric_product(a, c, symmetrize_output=True), a, c)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left_side,lower,transpose_a,conjugate_a,unit_diagonal",
                         list(itertools.product([True, False], repeat=5)))
def test_triangular_solve(dtype, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    rng = np.random.default_rng(18)
    a = _random(rng, (2, 4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    b = _random(rng, (2, 4, 3) if left_side else (2, 3, 4), dtype)
    x = np.asarray(check_impl_matches_abstract_eval(
        L.triangular_solve_p, a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
        conjugate_a=conjugate_a, unit_diagonal=unit_diagonal))
    op = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        op = op - op * np.eye(4) + np.eye(4)
    if transpose_a:
        op = np.swapaxes(op, -1, -2)
    if conjugate_a:
        op = np.conj(op)
    _close(op @ x if left_side else x @ op, b, dtype)


def test_triangular_solve_vector_rhs_and_jit():
    rng = np.random.default_rng(19)
    a = np.triu(rng.standard_normal((3, 3))).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    x = np.asarray(L.triangular_solve(a, b, left_side=True))
    _close(a @ x, b, np.float32)
    y = np.asarray(L.triangular_solve(a, b))
    _close(y @ a, b, np.float32)
    check_jit_matches_eager(lambda a, b: L.triangular_solve(a, b, left_side=True, transpose_a=True), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tridiagonal_solve(dtype):
    rng = np.random.default_rng(20)
    dl, d, du = (_random(rng, (2, 5), dtype) for _ in range(3))
    d = d + 4
    b = _random(rng, (2, 5, 3), dtype)
    x = np.asarray(check_impl_matches_abstract_eval(L.tridiagonal_solve_p, dl, d, du, b, perturb_singular=False))
    for i in range(2):
        dense = np.diag(d[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1)
        _close(dense @ x[i], b[i], dtype)
    perturbed = L.tridiagonal_solve(dl, d, du, b, perturb_singular=True)
    _close(perturbed, x, dtype)
    check_jit_matches_eager(L.tridiagonal_solve, dl, d, du, b, **_tol(dtype))


def test_tridiagonal_solve_singular():
    ones, zeros = np.ones(3, np.float32), np.zeros(3, np.float32)
    b = np.ones((3, 1), np.float32)
    assert np.isnan(np.asarray(L.tridiagonal_solve(zeros, zeros, zeros, b))).all()
    # [[1, 1], [1, 1]] x = [[1, 2], [3, 4]]: the zero pivot becomes eps * max|U|, as in JAX.
    x = L.tridiagonal_solve(np.array([0, 1], np.float32), np.array([1, 1], np.float32),
                            np.array([1, 0], np.float32), np.array([[1, 2], [3, 4]], np.float32),
                            perturb_singular=True)
    check_close(x, np.array([[-16777215, -16777214], [16777216, 16777216]], np.float32))
    assert np.isfinite(np.asarray(L.tridiagonal_solve(zeros, ones * 0, zeros, b, perturb_singular=True))).all()


# ---------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("call,error,message", [
    (lambda: L.cholesky(np.ones((2, 3), np.float32), symmetrize_input=False), ValueError,
     "The input to cholesky must be a square matrix. Got shape (2, 3)."),
    (lambda: L.cholesky(np.ones((2, 2), np.int32), symmetrize_input=False), TypeError,
     ("cholesky does not accept dtype int32 at position 0. Accepted dtypes at position 0 are subtypes of "
      "floating, complexfloating.")),
    (lambda: L.cholesky(np.ones(3, np.float32), symmetrize_input=False), TypeError,
     "Input 0 to cholesky must have rank at least 2, but got shape=(3,)"),
    (lambda: L.cholesky_update(np.ones((2, 3, 3), np.float32), np.ones((2, 3), np.float32)), TypeError,
     "Input 0 to cholesky_update must have a rank of exactly 2, but got shape=(2, 3, 3)"),
    (lambda: L.triangular_solve(np.ones((3, 3), np.float32), np.ones((3, 3), np.complex64)), TypeError,
     "lax.triangular_solve requires arguments to have the same dtypes, got float32, complex64."),
    (lambda: L.triangular_solve(np.ones((3, 3), np.float32), np.ones((4, 2), np.float32), left_side=True),
     ValueError, "Incompatible shapes for arguments to triangular_solve: (3, 3) and (4, 2)."),
    (lambda: L.triangular_solve(np.ones((2, 3, 3), np.float32), np.ones((5, 2, 3, 3), np.float32)), TypeError,
     ("All inputs to triangular_solve must have the same number of batch dimensions, but got [1, 2] batch "
      "dimensions for the inputs.")),
    (lambda: L.eig(np.ones((2, 3), np.float32)), ValueError,
     "The input to eig must be a square matrix. Got shape (2, 3)."),
    (lambda: L.eigh(np.ones((2, 3), np.float32), symmetrize_input=False), ValueError,
     "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape (2, 3)"),
    (lambda: L.eigh(np.eye(3, dtype=np.float32), subset_by_index=(0, 2)), NotImplementedError,
     "subset_by_index not supported on CPU and GPU"),
    (lambda: L.eigh(np.eye(3, dtype=np.float32), implementation=L.EighImplementation.JACOBI), NotImplementedError,
     "Jacobi implementation is not supported on CPU"),
    (lambda: L.svd(np.ones((4, 3), np.float32), subset_by_index=(0, 2)), ValueError,
     "full_matrices and subset_by_index cannot both be set"),
    (lambda: L.svd(np.eye(3, dtype=np.float32), algorithm=L.SvdAlgorithm.POLAR), NotImplementedError,
     "The SVD Jacobi and Polar algorithms are not implemented on CPU."),
    (lambda: L.lu_pivots_to_permutation(np.zeros(3, np.int32), 2), ValueError,
     "Output permutation size 2 has to exceed the trailing dimension of the pivots. Got pivots size 3"),
    (lambda: L.lu_pivots_to_permutation(np.zeros(3, np.uint32), 4), TypeError,
     ("lu_pivots_to_permutation does not accept dtype uint32 at position 0. Accepted dtypes at position 0 "
      "are subtypes of int32.")),
    (lambda: L.householder_product(np.ones((2, 3), np.float32), np.ones(2, np.float32)), ValueError,
     "The first argument to householder_product must have at least as many rows as columns, got shape (2, 3)"),
    (lambda: L.tridiagonal_solve(*(np.ones(3, np.float32),) * 2, np.ones(4, np.float32), np.ones((3, 1), np.float32)),
     TypeError, "tridiagonal_solve requires that all diagonal arguments have the same shape."),
    (lambda: L.tridiagonal(np.ones((0, 0), np.float32)), ValueError,
     "The input to tridiagonal must be a square matrix. Got shape (0, 0)."),
    (lambda: L.hessenberg(np.ones((2, 3), np.float32)), ValueError,
     "Argument to Hessenberg reduction must have shape [..., n, n], got shape (2, 3)"),
    (lambda: L.symmetric_product(np.ones((2, 2), np.complex64), np.ones((2, 2), np.complex64)), TypeError,
     ("symmetric_product does not accept dtype complex64 at position 0. Accepted dtypes at position 0 are "
      "subtypes of floating.")),
    (lambda: L.ormqr(np.ones((4, 3), np.float32), np.ones(3, np.float32), np.ones((2, 3), np.float32), left=False),
     ValueError, ("ormqr with left=False expects c to have the same number of columns as the Householder "
                  "matrix a has rows. Got a shape (4, 3) and c shape (2, 3).")),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message
