"""Autodiff of the linalg family: JVPs of the decompositions (cholesky, eigh,
eig, qr, lu, svd) and of the solves (triangular_solve, tridiagonal_solve,
whose right-hand sides are also transposed) against finite differences
(check_grads, forward and reverse), on well-conditioned inputs: symmetric
positive definite for cholesky, distinct eigenvalues and singular values,
well-separated pivots. Then JAX's refusals and the declared gaps."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from helpers import check_close

import pyjax as jax
from pyjax import lax
from pyjax.test_util import check_grads

# float32 finite differences: the tolerance these checks were written for
# (JAX's own default for float32 is 2e-3)
check_grads = functools.partial(check_grads, atol=2e-2, rtol=2e-2)

linalg = lax.linalg
rng = np.random.default_rng(0)
ORDER2 = {"order": 2, "modes": ("fwd", "rev")}


def _matrix(*shape, dtype=np.float32):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _spd(n, batch=(), dtype=np.float32):
    b = _matrix(*batch, n, n, dtype=dtype)
    return (b @ np.conj(np.swapaxes(b, -1, -2)) + n * np.eye(n)).astype(dtype)


def _symmetric_distinct(n, batch=()):
    # Q diag(1, 2, ..., n) Q^T: eigenvalues one apart.
    q, _ = np.linalg.qr(rng.standard_normal((*batch, n, n)))
    return (q * np.arange(1.0, n + 1)[..., None, :] @ np.swapaxes(q, -1, -2)).astype(np.float32)


def _distinct_singular(m, n, batch=()):
    u, _ = np.linalg.qr(rng.standard_normal((*batch, m, m)))
    v, _ = np.linalg.qr(rng.standard_normal((*batch, n, n)))
    s = np.zeros((*batch, m, n))
    k = min(m, n)
    s[..., np.arange(k), np.arange(k)] = np.arange(k + 1.0, 1.0, -1)
    return (u @ s @ v).astype(np.float32)


def _triangular(n, lower=True, batch=()):
    a = _matrix(*batch, n, n) * 0.3 + 2 * np.eye(n, dtype=np.float32)
    return (np.tril(a) if lower else np.triu(a)).astype(np.float32)


# --- cholesky


@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky(batch):
    check_grads(linalg.cholesky, (_spd(3, batch),), **ORDER2)


def test_cholesky_complex():
    check_grads(linalg.cholesky, (_spd(2, dtype=np.complex64),), order=1, modes=("fwd",))


def test_cholesky_tangent_is_lower_triangular():
    _, t = jax.jvp(linalg.cholesky, (_spd(3),), (_matrix(3, 3),))
    check_close(np.triu(np.asarray(t), 1), np.zeros((3, 3), np.float32))


# --- triangular_solve


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve(left_side, lower, transpose_a, unit_diagonal):
    a = _triangular(3, lower)
    b = _matrix(3, 2) if left_side else _matrix(2, 3)
    f = lambda a, b: linalg.triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                             unit_diagonal=unit_diagonal)
    check_grads(f, (a, b), **ORDER2)


@pytest.mark.parametrize("shape", [(5, 3), (3, 1), (2, 3, 4)])
def test_triangular_solve_product_orders_and_batches(shape):
    # Tall and wide right-hand sides take the two product orders of the rule.
    batch, (m, n) = shape[:-2], shape[-2:]
    a = _triangular(m, True, batch)
    f = lambda a, b: linalg.triangular_solve(a, b, left_side=True, lower=True)
    check_grads(f, (a, _matrix(*shape)), **ORDER2)
    a = _triangular(n, False, batch)
    g = lambda a, b: linalg.triangular_solve(a, b, left_side=False, lower=False)
    check_grads(g, (a, _matrix(*shape)), **ORDER2)


def test_triangular_solve_transpose_is_the_transposed_solve():
    a = _triangular(3)
    ct = _matrix(3, 2)
    _, pullback = jax.vjp(lambda b: linalg.triangular_solve(a, b, left_side=True, lower=True), _matrix(3, 2))
    check_close(pullback(ct)[0], np.linalg.solve(a.T, ct).astype(np.float32), rtol=1e-5, atol=1e-5)


# --- tridiagonal_solve


@pytest.mark.parametrize("batch", [(), (2,)])
def test_tridiagonal_solve(batch):
    dl = _matrix(*batch, 4) * 0.5
    du = _matrix(*batch, 4) * 0.5
    d = 3.0 + _matrix(*batch, 4) * 0.1
    b = _matrix(*batch, 4, 2)
    check_grads(linalg.tridiagonal_solve, (dl, d, du, b), **ORDER2)


def test_tridiagonal_solve_transpose_matches_dense():
    dl = np.array([0.0, 0.5, -0.3, 0.2], np.float32)
    d = np.array([3.0, 2.5, 3.5, 2.0], np.float32)
    du = np.array([0.4, -0.6, 0.1, 0.0], np.float32)
    dense = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    ct = _matrix(4, 3)
    _, pullback = jax.vjp(lambda b: linalg.tridiagonal_solve(dl, d, du, b), _matrix(4, 3))
    check_close(pullback(ct)[0], np.linalg.solve(dense.T, ct).astype(np.float32), rtol=1e-5, atol=1e-5)


# --- eigh


@pytest.mark.parametrize("batch", [(), (2,)])
def test_eigh(batch):
    check_grads(lambda a: linalg.eigh(a), (_symmetric_distinct(3, batch),), **ORDER2)


def test_eigh_eigenvalue_derivative_is_v_dA_v():
    a = _symmetric_distinct(3)
    t = _matrix(3, 3)
    t = t + t.T
    (v, _), (_, dw) = jax.jvp(lambda a: linalg.eigh(a), (a,), (t,))
    v = np.asarray(v)
    check_close(dw, np.einsum("ij,ik,kj->j", v, t, v).astype(np.float32), rtol=1e-4, atol=1e-5)


def test_eigh_subset_has_no_derivative():
    with pytest.raises(NotImplementedError, match="Derivatives not defined for partial eigen decomposition."):
        jax.jvp(lambda a: linalg.eigh(a, subset_by_index=(0, 2)), (_symmetric_distinct(3),), (_matrix(3, 3),))


# --- eig


def test_eig_eigenvalues():
    # Real, distinct eigenvalues (1, 2, 3): LAPACK keeps their order under small perturbations.
    p = np.array([[1.0, 0.3, 0.1], [0.2, 1.0, 0.4], [0.0, 0.5, 1.0]])
    a = (p @ np.diag([1.0, 2.0, 3.0]) @ np.linalg.inv(p)).astype(np.float32)
    f = lambda a: lax.real(linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0])
    check_grads(f, (a,), order=1, modes=("fwd", "rev"))


def test_eig_eigenvectors():
    p = np.array([[1.0, 0.3, 0.1], [0.2, 1.0, 0.4], [0.0, 0.5, 1.0]])
    a = (p @ np.diag([1.0, 2.0, 3.0]) @ np.linalg.inv(p)).astype(np.float32)
    f = lambda a: [lax.real(o) for o in linalg.eig(a, enable_eigvec_derivs=True)]
    check_grads(f, (a,), order=1, modes=("fwd",))


def test_eig_eigenvectors_need_opt_in():
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs=True"):
        jax.jvp(lambda a: linalg.eig(a), (np.eye(2, dtype=np.float32),), (np.eye(2, dtype=np.float32),))


# --- qr


@pytest.mark.parametrize("shape,full_matrices", [((4, 3), False), ((3, 3), True), ((3, 3), False), ((3, 5), False),
                                                 ((2, 4, 3), False), ((2, 3, 4), False), ((4, 2), True)])
def test_qr(shape, full_matrices):
    check_grads(lambda x: linalg.qr(x, full_matrices=full_matrices), (_matrix(*shape),), **ORDER2)


def test_qr_pivoting():
    x = _matrix(4, 3) * np.array([3.0, 1.0, 0.2], np.float32)  # well-separated column norms: stable pivots
    check_grads(lambda x: linalg.qr(x, full_matrices=False, pivoting=True)[:2], (x,), **ORDER2)


def test_qr_complex():
    check_grads(lambda x: linalg.qr(x, full_matrices=False), (_matrix(3, 2, dtype=np.complex64),), order=1,
                modes=("fwd",))


# --- lu


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 5), (2, 3, 3), (2, 4, 3)])
def test_lu(shape):
    # Diagonally dominant: pivoting picks the diagonal, far from ties.
    x = _matrix(*shape) * 0.2
    k = min(shape[-2:])
    x[..., np.arange(k), np.arange(k)] += 3.0
    f = lambda x: linalg.lu(x)[0]
    check_grads(f, (x,), **ORDER2)


def test_lu_pivots_have_no_tangent():
    x = _spd(3)
    _, (_, t_pivots, t_perm) = jax.jvp(linalg.lu, (x,), (x,))
    assert t_pivots.dtype == jax.dtypes.float0 and t_perm.dtype == jax.dtypes.float0


# --- svd


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
def test_svd(shape):
    x = _distinct_singular(*shape[-2:], batch=shape[:-2])
    check_grads(lambda x: linalg.svd(x, full_matrices=False), (x,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: linalg.svd(x, compute_uv=False), (x,), **ORDER2)


def test_svd_full_matrices_of_a_square_matrix():
    check_grads(lambda x: linalg.svd(x), (_distinct_singular(3, 3),), order=1, modes=("fwd", "rev"))


def test_svd_full_matrices_of_a_rectangle_has_no_jvp():
    x = _distinct_singular(4, 3)
    with pytest.raises(NotImplementedError, match="Singular value decomposition JVP not implemented for full matrices"):
        jax.jvp(lambda x: linalg.svd(x), (x,), (x,))


# --- declared gaps


@pytest.mark.parametrize("name,call", [
    ("householder_product", lambda a: linalg.householder_product(a, a[:, 0])),
    ("hessenberg", lambda a: linalg.hessenberg(a)),
    ("schur", lambda a: linalg.schur(a)),
    ("tridiagonal", lambda a: linalg.tridiagonal(a)),
])
def test_no_derivative_in_jax_either(name, call):
    with pytest.raises(NotImplementedError, match=f"Differentiation rule for '{name}' not implemented"):
        jax.jvp(call, (_spd(3),), (_spd(3),))
