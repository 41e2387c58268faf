"""jax.numpy.linalg against numpy.linalg: every function on random
well-conditioned inputs in float32, float64 and complex64, batched, with the
identities that define each decomposition, derivatives against finite
differences where lax has the rules, and JAX's errors.

(Named test_numpy_linalg.py: tests/lax/test_linalg.py owns the plain name,
and pytest's default import mode needs unique basenames.)
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax
import pyjax.numpy as jnp
import pyjax.numpy.linalg as la
from pyjax.test_util import check_grads

RNG = np.random.default_rng(1234)
DTYPES = [np.float32, np.float64, np.complex64]
TOL = {np.dtype(np.float32): 2e-4, np.dtype(np.float64): 1e-10, np.dtype(np.complex64): 2e-4,
       np.dtype(np.complex128): 1e-10}


def random(shape, dtype=np.float32):
    x = RNG.normal(size=shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * RNG.normal(size=shape)
    return x.astype(dtype)


def spd(shape, dtype=np.float32):
    """Well-conditioned Hermitian positive-definite matrices."""
    x = random(shape, dtype)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def tol(dtype):
    return TOL[np.dtype(dtype)]


@pytest.fixture(params=DTYPES, ids=lambda d: np.dtype(d).name)
def dtype(request):
    if request.param == np.float64:
        with pyjax.enable_x64(True):
            yield request.param
    else:
        yield request.param


def close(actual, expected, dtype, scale=1.0):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=tol(dtype) * scale, atol=tol(dtype) * scale)


# ---- decompositions, by their defining identities ----

@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_cholesky(dtype, shape):
    a = spd(shape, dtype)
    L = np.asarray(la.cholesky(jnp.asarray(a)))
    assert L.dtype == np.dtype(dtype)
    close(L, np.linalg.cholesky(a), dtype)
    U = np.asarray(la.cholesky(jnp.asarray(a), upper=True))
    close(np.conj(np.swapaxes(U, -1, -2)) @ U, a, dtype, 10)
    assert np.allclose(np.tril(U, -1), 0)


@pytest.mark.parametrize("shape,mode", [((5, 3), "reduced"), ((3, 5), "reduced"), ((5, 3), "complete"),
                                        ((2, 4, 4), "reduced")])
def test_qr(dtype, shape, mode):
    a = random(shape, dtype)
    q, r = (np.asarray(t) for t in la.qr(jnp.asarray(a), mode=mode))
    nq, nr = np.linalg.qr(a, mode=mode)
    assert q.shape == nq.shape and r.shape == nr.shape
    close(q @ r, a, dtype, 10)
    k = q.shape[-1]
    close(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), dtype, 10)
    assert np.allclose(np.tril(r, -1), 0)
    close(np.abs(np.asarray(la.qr(jnp.asarray(a), mode="r"))), np.abs(np.linalg.qr(a, mode="r")), dtype, 10)


def test_qr_raw():
    a = random((4, 3))
    h, tau = la.qr(jnp.asarray(a), mode="raw")
    nh, ntau = np.linalg.qr(a.astype(np.float64), mode="raw")
    np.testing.assert_allclose(np.asarray(h), nh, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(tau), ntau, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(4, 4), (3, 3, 3)])
def test_eigh(dtype, shape):
    a = spd(shape, dtype)
    w, v = (np.asarray(t) for t in la.eigh(jnp.asarray(a)))
    close(w, np.linalg.eigvalsh(a), dtype, 10)
    close(a @ v, v * w[..., None, :], dtype, 100)
    close(np.asarray(la.eigvalsh(jnp.asarray(a))), np.linalg.eigvalsh(a), dtype, 10)
    close(np.asarray(la.eigh(jnp.asarray(a), UPLO="U").eigenvalues), np.linalg.eigvalsh(a, UPLO="U"), dtype, 10)


def test_eigh_reads_one_triangle():
    a = spd((4, 4))
    lower = np.tril(a) + np.triu(RNG.normal(size=(4, 4)), 1).astype(np.float32)
    w = la.eigvalsh(jnp.asarray(lower), symmetrize_input=False)
    np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh(a), rtol=1e-4)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_eig(dtype, shape):
    a = random(shape, dtype)
    w, v = (np.asarray(t) for t in la.eig(jnp.asarray(a)))
    assert w.dtype.kind == "c" and v.dtype.kind == "c"
    close(a @ v, v * w[..., None, :], dtype, 100)
    key = lambda w: np.sort_complex(np.round(w, 3))
    close(key(np.asarray(la.eigvals(jnp.asarray(a)))), key(np.linalg.eigvals(a)), dtype, 100)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dtype, shape, full):
    a = random(shape, dtype)
    u, s, vh = (np.asarray(t) for t in la.svd(jnp.asarray(a), full_matrices=full))
    nu, ns, nvh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (nu.shape, ns.shape, nvh.shape)
    close(s, ns, dtype, 10)
    k = s.shape[-1]
    close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype, 10)
    close(np.asarray(la.svd(jnp.asarray(a), compute_uv=False)), ns, dtype, 10)
    close(np.asarray(la.svdvals(jnp.asarray(a))), ns, dtype, 10)


def test_svd_hermitian_values():
    a = spd((4, 4)) - 6 * np.eye(4, dtype=np.float32)
    s = la.svd(jnp.asarray(a), compute_uv=False, hermitian=True)
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), rtol=1e-4, atol=1e-5)


# ---- determinants ----

@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_det_and_slogdet(dtype, n):
    a = random((3, n, n), dtype)
    close(np.asarray(la.det(jnp.asarray(a))), np.linalg.det(a), dtype, 50)
    sign, logdet = la.slogdet(jnp.asarray(a))
    nsign, nlogdet = np.linalg.slogdet(a)
    close(np.asarray(sign), nsign, dtype, 10)
    close(np.asarray(logdet), nlogdet, dtype, 10)


def test_slogdet_qr():
    a = random((3, 4, 4))
    sign, logdet = la.slogdet(jnp.asarray(a), method="qr")
    nsign, nlogdet = np.linalg.slogdet(a)
    np.testing.assert_allclose(np.asarray(sign), nsign)
    np.testing.assert_allclose(np.asarray(logdet), nlogdet, rtol=1e-4)


def test_det_singular_and_huge():
    np.testing.assert_array_equal(np.asarray(la.det(jnp.ones((4, 4)))), 0.0)
    sign, logdet = la.slogdet(jnp.ones((4, 4)))
    assert float(sign) == 0 and float(logdet) == -np.inf
    # slogdet does not overflow where det would.
    sign, logdet = la.slogdet(jnp.eye(50) * 1e3)
    np.testing.assert_allclose(float(logdet), 50 * np.log(1e3), rtol=1e-6)
    assert float(sign) == 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_det_gradients(n):
    with pyjax.enable_x64(True):
        a = jnp.asarray(random((n, n), np.float64))
        check_grads(la.det, (a,), order=1, modes=["fwd", "rev"])
        check_grads(lambda x: la.slogdet(x)[1], (a,), order=1, modes=["fwd", "rev"])


def test_det_gradient_of_singular_matrix_is_the_adjugate():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32)
    cofactors = np.array([[np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) * (-1) ** (i + j)
                           for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(np.asarray(pyjax.grad(la.det)(jnp.asarray(a))), cofactors, atol=1e-4)


# ---- solves, inverses ----

@pytest.mark.parametrize("a_shape,b_shape", [((4, 4), (4,)), ((4, 4), (4, 2)), ((3, 4, 4), (3, 4, 2)),
                                             ((3, 4, 4), (4, 2)), ((4, 4), (2, 4, 3))])
def test_solve(dtype, a_shape, b_shape):
    a = random(a_shape, dtype) + 4 * np.eye(a_shape[-1], dtype=dtype)
    b = random(b_shape, dtype)
    expected = np.linalg.solve(a, b)
    out = la.solve(jnp.asarray(a), jnp.asarray(b))
    assert out.shape == expected.shape
    close(np.asarray(out), expected, dtype, 10)


def test_inv_and_pinv(dtype):
    a = random((2, 4, 4), dtype) + 4 * np.eye(4, dtype=dtype)
    close(np.asarray(la.inv(jnp.asarray(a))), np.linalg.inv(a), dtype, 10)
    tall = random((5, 3), dtype)
    close(np.asarray(la.pinv(jnp.asarray(tall))), np.linalg.pinv(tall), dtype, 10)
    close(np.asarray(la.pinv(jnp.asarray(tall.T))), np.linalg.pinv(tall.T), dtype, 10)


def test_pinv_rank_deficient_and_rtol():
    a = np.outer(np.arange(1.0, 4.0), np.arange(1.0, 3.0)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(la.pinv(jnp.asarray(a))), np.linalg.pinv(a), rtol=1e-4, atol=1e-6)
    b = np.diag([1.0, 1e-3]).astype(np.float32)
    np.testing.assert_allclose(np.asarray(la.pinv(jnp.asarray(b), rtol=1e-2)), np.diag([1.0, 0.0]), atol=1e-6)
    np.testing.assert_allclose(np.asarray(la.pinv(jnp.asarray(b), rcond=1e-4)), np.diag([1.0, 1e3]), rtol=1e-5)
    assert la.pinv(jnp.zeros((0, 3))).shape == (3, 0)


def test_pinv_gradient():
    with pyjax.enable_x64(True):
        check_grads(la.pinv, (jnp.asarray(random((4, 3), np.float64)),), order=1, modes=["fwd", "rev"], atol=1e-5,
                    rtol=1e-5)


@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (4, 4)])
@pytest.mark.parametrize("b_cols", [None, 2])
def test_lstsq(shape, b_cols):
    with pyjax.enable_x64(True):
        a = random(shape, np.float64)
        b = random(shape[:1] if b_cols is None else (shape[0], b_cols), np.float64)
        x, resid, rank, s = la.lstsq(jnp.asarray(a), jnp.asarray(b))
        nx, nresid, nrank, ns = np.linalg.lstsq(a, b, rcond=None)
        np.testing.assert_allclose(np.asarray(x), nx, rtol=1e-9, atol=1e-10)
        assert int(rank) == nrank
        np.testing.assert_allclose(np.asarray(s), ns, rtol=1e-10)
        if shape[0] > shape[1]:
            np.testing.assert_allclose(np.asarray(resid), nresid, rtol=1e-8)
        x, resid, _, _ = la.lstsq(jnp.asarray(a), jnp.asarray(b), numpy_resid=True)
        assert np.asarray(resid).shape == np.asarray(nresid).shape


# ---- norms ----

@pytest.mark.parametrize("ord", [None, 1, -1, 2, -2, 3, 0.5, np.inf, -np.inf, 0])
def test_vector_norms(dtype, ord):
    x = random((3, 5), dtype)
    close(np.asarray(la.norm(jnp.asarray(x), ord, axis=1)), np.linalg.norm(x, ord, axis=1), dtype, 10)
    close(np.asarray(la.vector_norm(jnp.asarray(x), ord=2 if ord is None else ord, axis=0)),
          np.linalg.norm(x, 2 if ord is None else ord, axis=0), dtype, 10)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("axis", [(0, 1), (1, 0), (-1, -3)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms(dtype, ord, axis, keepdims):
    x = random((3, 4, 5), dtype)
    expected = np.linalg.norm(x, ord, axis=axis, keepdims=keepdims)
    close(np.asarray(la.norm(jnp.asarray(x), ord, axis=axis, keepdims=keepdims)), expected, dtype, 10)


def test_norm_defaults():
    x = random((3, 4))
    np.testing.assert_allclose(np.asarray(la.norm(jnp.asarray(x))), np.linalg.norm(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(la.matrix_norm(jnp.asarray(x[None]))), np.linalg.norm(x)[None], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(la.vector_norm(jnp.asarray(x))), np.linalg.norm(x), rtol=1e-6)
    assert la.norm(jnp.asarray(x), keepdims=True).shape == (1, 1)
    # Integers promote to floats.
    assert la.norm(jnp.arange(4)).dtype == np.float32


def test_norm_gradients():
    with pyjax.enable_x64(True):
        x = jnp.asarray(random((3, 4), np.float64))
        for ord in (None, 1, np.inf, 3):
            check_grads(lambda x, ord=ord: la.norm(x, ord, axis=1), (x,), order=2)
        check_grads(lambda x: la.norm(x, "fro"), (x,), order=2)


# ---- powers, ranks, conditions ----

@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7, -1, -3])
def test_matrix_power(n):
    with pyjax.enable_x64(True):
        a = random((2, 3, 3), np.float64) / 2 + np.eye(3)
        np.testing.assert_allclose(np.asarray(la.matrix_power(jnp.asarray(a), n)), np.linalg.matrix_power(a, n),
                                   rtol=1e-9, atol=1e-12)


def test_matrix_rank():
    a = np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0)).astype(np.float32)
    assert int(la.matrix_rank(jnp.asarray(a))) == 1
    assert int(la.matrix_rank(jnp.asarray(random((4, 3))))) == 3
    np.testing.assert_array_equal(np.asarray(la.matrix_rank(jnp.asarray(np.stack([a, np.eye(4, 3)])))), [1, 3])
    assert int(la.matrix_rank(jnp.diag(jnp.array([1.0, 1e-3])), rtol=1e-2)) == 1
    assert int(la.matrix_rank(jnp.array([0.0, 0.0]))) == 0
    assert int(la.matrix_rank(jnp.array([0.0, 1.0]))) == 1


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond(p):
    with pyjax.enable_x64(True):
        a = random((2, 4, 4), np.float64) + 3 * np.eye(4)
        np.testing.assert_allclose(np.asarray(la.cond(jnp.asarray(a), p)), np.linalg.cond(a, p), rtol=1e-9)
    assert float(la.cond(jnp.ones((3, 3)), 1)) == np.inf


# ---- products and tensor functions ----

def test_products():
    a, b = random((2, 4, 3)), random((2, 3, 5))
    np.testing.assert_allclose(np.asarray(la.matmul(jnp.asarray(a), jnp.asarray(b))), a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(la.matrix_transpose(jnp.asarray(a))), np.swapaxes(a, -1, -2))
    x, y = random((3,)), random((4,))
    np.testing.assert_allclose(np.asarray(la.outer(jnp.asarray(x), jnp.asarray(y))), np.outer(x, y), rtol=1e-6)
    u, v = random((4, 3)), random((4, 3))
    np.testing.assert_allclose(np.asarray(la.cross(jnp.asarray(u), jnp.asarray(v))), np.cross(u, v), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(np.asarray(la.vecdot(jnp.asarray(u), jnp.asarray(v))), np.sum(u * v, -1), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(la.tensordot(jnp.asarray(a), jnp.asarray(b[0]), axes=1)),
                               np.tensordot(a, b[0], axes=1), rtol=1e-5, atol=1e-6)
    m = random((2, 3, 4))
    np.testing.assert_allclose(np.asarray(la.diagonal(jnp.asarray(m), offset=1)), np.diagonal(m, 1, -2, -1))
    np.testing.assert_allclose(np.asarray(la.trace(jnp.asarray(m), offset=-1)), np.trace(m, -1, -2, -1), rtol=1e-6)


@pytest.mark.parametrize("shapes", [[(3,), (3, 4), (4, 2)], [(5, 2), (2, 6), (6, 3), (3,)], [(2, 3), (3, 2)],
                                    [(4, 4)] * 4])
def test_multi_dot(shapes):
    arrays = [random(s) for s in shapes]
    np.testing.assert_allclose(np.asarray(la.multi_dot([jnp.asarray(a) for a in arrays])), np.linalg.multi_dot(arrays),
                               rtol=1e-5, atol=1e-5)


def test_tensorinv_and_tensorsolve():
    with pyjax.enable_x64(True):
        a = random((6, 2, 3), np.float64) + np.eye(6).reshape(6, 2, 3) * 3
        np.testing.assert_allclose(np.asarray(la.tensorinv(jnp.asarray(a), 1)), np.linalg.tensorinv(a, 1), rtol=1e-9)
        t = random((2, 3, 6), np.float64) + np.eye(6).reshape(2, 3, 6) * 3
        b = random((2, 3), np.float64)
        np.testing.assert_allclose(np.asarray(la.tensorsolve(jnp.asarray(t), jnp.asarray(b))),
                                   np.linalg.tensorsolve(t, b), rtol=1e-9)
        t2 = np.moveaxis(t, 2, 0)  # the solution's axis first: axes=(0,) moves it back
        np.testing.assert_allclose(np.asarray(la.tensorsolve(jnp.asarray(t2), jnp.asarray(b), axes=(0,))),
                                   np.linalg.tensorsolve(t2, b, axes=(0,)), rtol=1e-9)


# ---- transformations ----

def test_jit_and_vmap_agree_with_eager():
    a = spd((3, 4, 4))
    for fn in (la.cholesky, la.det, la.inv, la.eigvalsh, lambda x: la.qr(x).R, la.svdvals, la.norm):
        eager = fn(jnp.asarray(a))
        check_close(pyjax.jit(fn)(jnp.asarray(a)), np.asarray(eager), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn", [la.cholesky, la.inv, la.eigvalsh, la.svdvals, lambda x: la.solve(x, x[0])],
                         ids=["cholesky", "inv", "eigvalsh", "svdvals", "solve"])
def test_gradients_through_decompositions(fn):
    with pyjax.enable_x64(True):
        check_grads(fn, (jnp.asarray(spd((3, 3), np.float64)),), order=1, modes=["fwd", "rev"], atol=1e-6, rtol=1e-6)


# ---- errors ----

@pytest.mark.parametrize("call,error,message", [
    (lambda: la.slogdet(jnp.ones((2, 3))), ValueError, r"must have shape \[..., n, n\], got \(2, 3\)"),
    (lambda: la.slogdet(jnp.eye(3), method="svd"), ValueError, "Unknown slogdet method 'svd'"),
    (lambda: la.det(jnp.ones((2, 3))), ValueError, r"Argument to _det\(\) must have shape"),
    (lambda: la.inv(jnp.ones((2, 3))), ValueError, r"Argument to inv must have shape \[..., n, n\], got \(2, 3\)."),
    (lambda: la.solve(jnp.ones(3), jnp.ones(3)), ValueError, "left hand array must be at least two dimensional"),
    (lambda: la.solve(jnp.ones((2, 3, 3)), jnp.ones((2, 3))), ValueError, "Prior to JAX v0.5.0"),
    (lambda: la.qr(jnp.eye(3), mode="economic"), ValueError, "Unsupported QR decomposition mode 'economic'"),
    (lambda: la.eigh(jnp.eye(3), UPLO="X"), ValueError, "UPLO must be one of None, 'L', or 'U', got X"),
    (lambda: la.norm(jnp.eye(3), 3), ValueError, "Invalid order '3' for matrix norm."),
    (lambda: la.vector_norm(jnp.ones(3), ord="-inf"), ValueError, "Use '-jax.numpy.inf' instead."),
    (lambda: la.matrix_power(jnp.eye(2), 1.5), TypeError, "exponent must be an integer, got 1.5"),
    (lambda: la.matrix_rank(jnp.eye(2), 0.1, tol=0.1), ValueError, "only one of tol or rtol"),
    (lambda: la.cond(jnp.ones((2, 3)), 1), ValueError, "array must be square"),
    (lambda: la.lstsq(jnp.ones((3, 2)), jnp.ones(4)), ValueError, "Leading dimensions of input arrays must match"),
    (lambda: la.tensorinv(jnp.ones((2, 3)), 0), ValueError, "ind must be a positive integer; got ind=0"),
    (lambda: la.multi_dot([jnp.eye(2), jnp.ones((3, 2))]), ValueError, "last dimension of each array must match"),
    (lambda: la.outer(jnp.eye(2), jnp.ones(2)), ValueError, "Input arrays must be one-dimensional"),
    (lambda: la.cross(jnp.ones(2), jnp.ones(3)), ValueError, "3-dimensional vectors"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
