"""jax.scipy.linalg against scipy.linalg: factorizations and solves (with
SciPy's conventions: upper Cholesky, P L U, full QR), batching, the
triangle each function reads, expm across the Pade orders and with
squaring, block_diag, derivatives, and JAX's errors and warnings."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy import linalg as jl
from pyjax.test_util import check_grads

RNG = np.random.default_rng(11)


def random(shape, dtype=np.float64):
    return RNG.normal(size=shape).astype(dtype)


def spd(n, dtype=np.float64):
    a = random((n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


@pytest.fixture(autouse=True)
def x64():
    with pyjax.enable_x64(True):
        yield


def close(actual, expected, tol=1e-10):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_reads_one_triangle(lower):
    a = spd(4)
    garbage = np.triu(random((4, 4)), 1) if lower else np.tril(random((4, 4)), -1)
    partial = (np.tril(a) if lower else np.triu(a)) + garbage
    close(jl.cholesky(jnp.asarray(partial), lower=lower), sl.cholesky(a, lower=lower))


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("b_shape", [(4,), (4, 3)])
def test_cho_solve(lower, b_shape):
    a, b = spd(4), random(b_shape)
    factor = jl.cho_factor(jnp.asarray(a), lower=lower)
    assert factor[1] is lower
    close(jl.cho_solve(factor, jnp.asarray(b)), sl.cho_solve(sl.cho_factor(a, lower=lower), b))


def test_cho_solve_batched():
    a = np.stack([spd(3), spd(3)])
    b = random((2, 3, 2))
    c = jl.cho_factor(jnp.asarray(a), lower=True)
    close(jl.cho_solve(c, jnp.asarray(b)), np.linalg.solve(a, b))
    with pytest.warns(FutureWarning, match="batched 1D solves with b.ndim > 1 are deprecated"):
        jl.cho_solve(c, jnp.asarray(b[..., 0]))


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_solve_triangular(trans, lower, unit_diagonal):
    a = random((4, 4)) + 1j * random((4, 4)) + 4 * np.eye(4)
    b = random((4, 2)) + 1j * random((4, 2))
    expected = sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    close(jl.solve_triangular(jnp.asarray(a), jnp.asarray(b), trans=trans, lower=lower,
                              unit_diagonal=unit_diagonal), expected)


def test_solve_triangular_broadcasts_batches():
    a = np.triu(random((2, 3, 3))) + 3 * np.eye(3)
    b = random((3, 2))
    close(jl.solve_triangular(jnp.asarray(a), jnp.asarray(b)), np.linalg.solve(a, b))
    close(jl.solve_triangular(jnp.asarray(a[0]), jnp.asarray(b[:, 0])), sl.solve_triangular(a[0], b[:, 0]))


@pytest.mark.parametrize("assume_a", ["gen", "sym", "her", "pos"])
@pytest.mark.parametrize("b_shape", [(4,), (4, 2)])
def test_solve(assume_a, b_shape):
    a, b = spd(4), random(b_shape)
    close(jl.solve(jnp.asarray(a), jnp.asarray(b), assume_a=assume_a), sl.solve(a, b, assume_a=assume_a))


def test_solve_pos_reads_one_triangle():
    a, b = spd(4), random(4)
    close(jl.solve(jnp.asarray(np.triu(a)), jnp.asarray(b), assume_a="pos"), sl.solve(a, b, assume_a="pos"))
    close(jl.solve(jnp.asarray(np.tril(a)), jnp.asarray(b), assume_a="pos", lower=True), sl.solve(a, b))


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("b_shape", [(4,), (4, 3)])
def test_lu_factor_and_solve(trans, b_shape):
    a = random((4, 4)) + 1j * random((4, 4))
    b = random(b_shape)
    lu, piv = jl.lu_factor(jnp.asarray(a))
    slu, spiv = sl.lu_factor(a)
    close(lu, slu)
    np.testing.assert_array_equal(np.asarray(piv), spiv)
    close(jl.lu_solve((lu, piv), jnp.asarray(b), trans=trans), sl.lu_solve((slu, spiv), b, trans=trans))


def test_lu_solve_batched():
    a = random((2, 3, 3))
    b = random((2, 3, 2))
    lu, piv = jl.lu_factor(jnp.asarray(a))
    close(jl.lu_solve((lu, piv), jnp.asarray(b)), np.linalg.solve(a, b))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("permute_l", [False, True])
def test_lu(shape, permute_l):
    a = random(shape)
    got = jl.lu(jnp.asarray(a), permute_l=permute_l)
    want = sl.lu(a, permute_l=permute_l)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w)


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
@pytest.mark.parametrize("pivoting", [False, True])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_qr(mode, pivoting, shape):
    a = random(shape)
    got = jl.qr(jnp.asarray(a), mode=mode, pivoting=pivoting)
    want = sl.qr(a, mode=mode, pivoting=pivoting)
    if mode == "r" and not pivoting:
        want = (want[0],) if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(np.abs(np.asarray(g)), np.abs(w))


def test_eigh_and_svd():
    a = spd(4)
    w, v = jl.eigh(jnp.asarray(a))
    close(w, sl.eigh(a, eigvals_only=True))
    close(np.asarray(v) * np.asarray(w) @ np.asarray(v).T, a)
    # (JAX's eigh symmetrizes its input, so `lower` only picks LAPACK's triangle.)
    close(jl.eigh(jnp.asarray(a), lower=False, eigvals_only=True), sl.eigh(a, lower=False, eigvals_only=True))
    b = random((4, 3))
    u, s, vh = jl.svd(jnp.asarray(b))
    close(s, sl.svd(b, compute_uv=False))
    close(np.asarray(u)[:, :3] * np.asarray(s) @ np.asarray(vh), b)
    close(jl.svd(jnp.asarray(b), compute_uv=False), sl.svd(b, compute_uv=False))
    for args, message in [({"b": jnp.eye(4)}, "Only the b=None case"), ({"type": 2}, "Only the type=1 case"),
                          ({"eigvals": (0, 1)}, "Only the eigvals=None case")]:
        with pytest.raises(NotImplementedError, match=message):
            jl.eigh(jnp.asarray(a), **args)


# ---- expm ----

@pytest.mark.parametrize("scale", [1e-3, 0.1, 0.5, 1.5, 4.0, 50.0])
def test_expm_float64_orders(scale):
    a = random((4, 4)) * scale / 4
    close(jl.expm(jnp.asarray(a)), sl.expm(a), 1e-9)


@pytest.mark.parametrize("scale", [1e-2, 0.3, 1.5, 30.0])
def test_expm_float32(scale):
    with pyjax.enable_x64(False):
        a = (random((3, 3)) * scale / 3).astype(np.float32)
        out = jl.expm(jnp.asarray(a))
        assert out.dtype == np.float32
        np.testing.assert_allclose(np.asarray(out), sl.expm(a.astype(np.float64)), rtol=2e-4, atol=1e-5)


def test_expm_upper_triangular_complex_and_identities():
    a = np.triu(random((4, 4)))
    close(jl.expm(jnp.asarray(a), upper_triangular=True), sl.expm(a), 1e-9)
    c = random((3, 3)) + 1j * random((3, 3))
    close(jl.expm(jnp.asarray(c)), sl.expm(c), 1e-9)
    close(jl.expm(jnp.zeros((3, 3))), np.eye(3))
    # Beyond max_squarings the result is NaN.
    assert np.all(np.isnan(np.asarray(jl.expm(jnp.asarray(random((2, 2)) * 1e6), max_squarings=2))))


def test_expm_gradient():
    check_grads(jl.expm, (jnp.asarray(random((3, 3)) / 3),), order=1, modes=["fwd"], atol=1e-6, rtol=1e-6)


def test_expm_batched():
    a = random((2, 3, 3)) / 3
    close(jl.expm(jnp.asarray(a)), np.stack([sl.expm(m) for m in a]), 1e-9)


def test_expm_errors():
    with pytest.raises(ValueError, match=r"Expected A to be a \(batched\) square matrix, got A.shape=\(2, 3\)."):
        jl.expm(jnp.ones((2, 3)))


# ---- block_diag, det, inv ----

def test_block_diag():
    blocks = [random((2, 2)), random(3), 7.0, random((1, 2)), random((0, 2))]
    close(jl.block_diag(*[jnp.asarray(b) if isinstance(b, np.ndarray) else b for b in blocks]), sl.block_diag(*blocks))
    assert jl.block_diag().shape == (1, 0)
    assert jl.block_diag(jnp.ones(2, jnp.int32), jnp.ones((1, 1), jnp.float32)).dtype == np.float32
    with pytest.raises(ValueError, match="must have at most 2 dimensions"):
        jl.block_diag(jnp.ones((2, 2, 2)))


def test_det_inv():
    a = random((3, 3))
    close(jl.det(jnp.asarray(a)), sl.det(a))
    close(jl.inv(jnp.asarray(a)), sl.inv(a))


# ---- derivatives ----

def _sym(a):
    # The Cholesky-based functions read one triangle; perturb symmetrically.
    return (a + a.T) / 2


@pytest.mark.parametrize("fn", [
    lambda a: jl.cholesky(_sym(a)),
    lambda a: jl.cho_solve(jl.cho_factor(_sym(a)), jnp.ones(3)),
    lambda a: jl.solve_triangular(a, jnp.arange(3.0)),
    lambda a: jl.solve(_sym(a), jnp.arange(3.0), assume_a="pos"),
    lambda a: jl.lu_solve(jl.lu_factor(a), jnp.arange(3.0)),
], ids=["cholesky", "cho_solve", "solve_triangular", "solve_pos", "lu_solve"])
def test_gradients(fn):
    check_grads(fn, (jnp.asarray(spd(3)),), order=1, modes=["fwd", "rev"], atol=1e-6, rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="Invalid 'trans' value 3"):
        jl.solve_triangular(jnp.eye(2), jnp.ones(2), trans=3)
    with pytest.raises(ValueError, match=r"Expected assume_a to be one of \['gen', 'sym', 'her', 'pos'\]; got 'diag'"):
        jl.solve(jnp.eye(2), jnp.ones(2), assume_a="diag")
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'reduced'"):
        jl.qr(jnp.eye(2), mode="reduced")
    with pytest.raises(ValueError, match="'trans' value must be 0, 1, or 2, got 3"):
        jl.lu_solve(jl.lu_factor(jnp.eye(2)), jnp.ones(2), trans=3)
