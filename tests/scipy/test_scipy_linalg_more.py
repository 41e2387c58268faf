"""The rest of jax.scipy.linalg against scipy.linalg in double precision:
the special-matrix constructors, Schur and Hessenberg forms, rsf2csf,
sqrtm, funm, solve_sylvester, polar, qr_multiply, expm_frechet and
eigh_tridiagonal; derivatives where they are defined. JAX's own values and
errors are pinned by tests/golden/programs_scipy_linalg_more.py."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy import linalg as jl
from pyjax.test_util import check_grads

RNG = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def x64():
    with pyjax.enable_x64(True):
        yield


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def test_constructors_match_scipy():
    c, r = RNG.normal(size=4), RNG.normal(size=6)
    close(jl.toeplitz(c), sl.toeplitz(c))
    close(jl.toeplitz(c, r), sl.toeplitz(c, r))
    close(jl.hankel(c), sl.hankel(c))
    close(jl.hankel(c, r), sl.hankel(c, r))
    close(jl.circulant(c), sl.circulant(c))
    close(jl.companion(r), sl.companion(r))
    close(jl.fiedler(c), sl.fiedler(c))
    for n in range(2, 8):
        close(jl.fiedler_companion(r[:n]), sl.fiedler_companion(r[:n]))
    close(jl.leslie(r, r[:5]), sl.leslie(r, r[:5]))
    for mode in ("full", "same", "valid"):
        close(jl.convolution_matrix(c, 7, mode), sl.convolution_matrix(c, 7, mode))
        close(jl.convolution_matrix(r, 3, mode), sl.convolution_matrix(r, 3, mode))
    close(jl.dft(6), sl.dft(6))
    close(jl.dft(5, scale="sqrtn"), sl.dft(5, scale="sqrtn"))
    close(jl.hadamard(16), sl.hadamard(16))
    close(jl.helmert(6, full=True), sl.helmert(6, full=True))
    close(jl.hilbert(5), sl.hilbert(5))
    close(jl.invhilbert(6), sl.invhilbert(6), tol=1e-6)
    for kind in ("symmetric", "lower", "upper"):
        close(jl.pascal(6, kind), sl.pascal(6, kind), tol=1e-4)
        close(jl.invpascal(6, kind), sl.invpascal(6, kind), tol=1e-7)


def test_batched_constructors_map_over_leading_axes():
    c = RNG.normal(size=(2, 3))
    close(jl.toeplitz(c), np.stack([sl.toeplitz(row) for row in c]))
    close(jl.circulant(c), np.stack([sl.circulant(row) for row in c]))
    close(jl.companion(c), np.stack([sl.companion(row) for row in c]))


def test_schur_hessenberg_rsf2csf():
    a = RNG.normal(size=(5, 5))
    t, z = jl.schur(a)
    close(z @ t @ z.T, a)
    assert np.allclose(np.tril(np.asarray(t), -2), 0)
    tc, zc = jl.rsf2csf(t, z)
    close(zc @ tc @ zc.conj().T, a)
    close(np.tril(np.asarray(tc), -1), 0, tol=1e-12)
    close(np.sort_complex(np.diag(np.asarray(tc))), np.sort_complex(np.linalg.eigvals(a)))
    h, q = jl.hessenberg(a, calc_q=True)
    close(q @ h @ q.T, a)
    close(np.tril(np.asarray(h), -2), 0)
    close(np.abs(h), np.abs(sl.hessenberg(a)))


def test_matrix_functions_match_scipy():
    spd = RNG.normal(size=(4, 4))
    spd = spd @ spd.T + 4 * np.eye(4)
    close(jl.sqrtm(spd), sl.sqrtm(spd))
    gen = RNG.normal(size=(4, 4)) + 3 * np.eye(4)
    close(jl.sqrtm(gen), sl.sqrtm(gen), tol=1e-8)
    close(jl.funm(gen / 3, jnp.exp), sl.expm(gen / 3), tol=1e-8)
    close(jl.funm(spd / 8, jnp.cos), sl.cosm(spd / 8), tol=1e-8)


@pytest.mark.parametrize("method", ["schur", "eigen"])
def test_solve_sylvester_matches_scipy(method):
    a, b = RNG.normal(size=(4, 4)) + 4 * np.eye(4), RNG.normal(size=(3, 3)) + 2 * np.eye(3)
    c = RNG.normal(size=(4, 3))
    close(jl.solve_sylvester(a, b, c, method=method), sl.solve_sylvester(a, b, c), tol=1e-8)


@pytest.mark.parametrize("shape,side", [((5, 3), "right"), ((3, 5), "left"), ((4, 4), "right")])
def test_polar_matches_scipy(shape, side):
    a = RNG.normal(size=shape)
    for got, want in zip(jl.polar(a, side=side), sl.polar(a, side=side)):
        close(got, want)
    for got, want in zip(jl.polar(a, side=side, method="svd"), sl.polar(a, side=side)):
        close(got, want)


@pytest.mark.parametrize("mode", ["right", "left"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_qr_multiply_matches_its_definition(mode, shape):
    a = RNG.normal(size=shape)
    m, n = shape
    k = min(m, n)
    c = RNG.normal(size=(2, m)) if mode == "right" else RNG.normal(size=(k, 2))
    cq, r = jl.qr_multiply(a, c, mode=mode)
    want_cq, want_r = sl.qr_multiply(a, c, mode=mode)
    # QR is unique up to the signs of R's rows (and Q's columns).
    signs = np.sign(np.diag(np.asarray(r))) * np.sign(np.diag(want_r))
    close(np.asarray(r) * signs[:, None], want_r)
    if mode == "right":
        close(cq @ r, c @ a)
        close(np.asarray(cq) * signs[None, :], want_cq)
    else:
        close(jl.qr_multiply(a, signs[:, None] * c, mode="left")[0], want_cq)


def test_expm_frechet_matches_scipy_and_differentiates():
    a, e = RNG.normal(size=(3, 3)) / 2, RNG.normal(size=(3, 3))
    for got, want in zip(jl.expm_frechet(a, e), sl.expm_frechet(a, e)):
        close(got, want)
    check_grads(lambda x: jl.toeplitz(x, x[::-1]), (RNG.normal(size=3),), order=2, modes=["fwd", "rev"])


def test_eigh_tridiagonal_matches_scipy():
    d, e = RNG.normal(size=6), RNG.normal(size=5)
    close(jl.eigh_tridiagonal(d, e, eigvals_only=True), sl.eigh_tridiagonal(d, e, eigvals_only=True))
    close(jl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(2, 4)),
          sl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(2, 4)))
    w, v = jl.eigh_tridiagonal(d, e)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    close(t @ v, np.asarray(v) * np.asarray(w))
