"""The special functions of jax.scipy.special added with issue 26, against
scipy.special in double precision over their domains (and the branch
boundaries of each algorithm), with their derivatives. JAX's own values
and errors are pinned by tests/golden/programs_scipy_special_more.py."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as ss

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy import special as sp
from pyjax.test_util import check_grads

X = np.array([-6.0, -3.0, -1.0, -0.3, -0.05, 0.05, 0.19, 0.21, 0.5, 1.0, 1.5, 2.0, 2.1, 3.9, 4.1, 8.0, 20.0, 39.0, 41.0])
P = X[X > 0]


@pytest.fixture(autouse=True)
def x64():
    with pyjax.enable_x64(True):
        yield


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def test_bernoulli_poch_boxcox():
    close(sp.bernoulli(24), ss.bernoulli(24))
    close(sp.poch(P, 2.5), ss.poch(P, 2.5), tol=1e-9)
    close(sp.boxcox(P, 0.3), ss.boxcox(P, 0.3))
    close(sp.boxcox(P, 0.0), ss.boxcox(P, 0.0))
    close(sp.boxcox1p(P - 0.04, -1.5), ss.boxcox1p(P - 0.04, -1.5))


def test_faddeeva_family():
    z = (np.random.default_rng(0).normal(size=40) * 3 + 1j * np.random.default_rng(1).normal(size=40) * 3)
    close(sp.wofz(z), ss.wofz(z), tol=1e-11)
    close(sp.erfcx(X), ss.erfcx(X), tol=1e-11)
    close(sp.erfcx(z), ss.erfcx(z), tol=1e-10)
    # below |x| = 0.2 a four-term Taylor series: float32-exact, 1e-7 in float64
    close(sp.dawsn(X), ss.dawsn(X), tol=1e-7)


def test_bessel_jn():
    z = np.array([0.1, 0.5, 1.0, 2.5, 7.0, 12.0])
    close(sp.bessel_jn(z, v=5), np.stack([ss.jv(v, z) for v in range(6)]), tol=1e-10)


def test_exponential_integrals():
    for n in (0, 1, 2, 3, 8):
        close(sp.expn(n, P), ss.expn(n, P), tol=1e-10)
    close(sp.exp1(P), ss.exp1(P), tol=1e-10)
    close(sp.expi(X), ss.expi(X), tol=1e-10)


def test_sine_cosine_and_fresnel_integrals():
    si, ci = sp.sici(P)
    want_si, want_ci = ss.sici(P)
    close(si, want_si, tol=1e-10)
    close(ci, want_ci, tol=1e-10)
    close(sp.sici(-P)[0], -want_si, tol=1e-10)
    for got, want in zip(sp.fresnel(X), ss.fresnel(X)):
        close(got, want, tol=1e-10)


def test_spence():
    x = np.array([0.0, 0.01, 0.3, 0.5, 0.9, 1.0, 1.4, 1.5, 1.6, 2.0, 2.5, 4.0, 10.0, 1e3])
    close(sp.spence(x), ss.spence(x), tol=1e-11)
    assert np.isnan(sp.spence(np.array([-1.0])))[0]


def test_hypergeometric():
    x = np.array([-3.0, -0.7, 0.0, 0.5, 2.0, 8.0, 30.0])
    close(sp.hyp1f1(0.5, 1.5, x), ss.hyp1f1(0.5, 1.5, x), tol=1e-10)
    close(sp.hyp1f1(2.0, 3.5, x), ss.hyp1f1(2.0, 3.5, x), tol=1e-10)
    close(sp.hyp1f1(1.5, 2.5, np.array([150.0])), ss.hyp1f1(1.5, 2.5, 150.0), tol=1e-8)
    t = np.array([-0.9, -0.4, 0.0, 0.3, 0.6, 0.85])
    close(sp.hyp2f1(0.5, 1.5, 2.5, t), ss.hyp2f1(0.5, 1.5, 2.5, t), tol=1e-9)
    close(sp.hyp2f1(1.5, 2.5, 2.0, t), ss.hyp2f1(1.5, 2.5, 2.0, t), tol=1e-9)
    close(sp.hyp2f1(-3.0, 1.5, 2.0, t), ss.hyp2f1(-3.0, 1.5, 2.0, t), tol=1e-12)
    close(sp.hyp2f1(0.5, 1.5, 4.5, 1.0), ss.hyp2f1(0.5, 1.5, 4.5, 1.0), tol=1e-12)


def test_owens_t():
    h = np.array([0.0, 0.5, 1.0, -2.0, 3.0, 0.2, 1.5, 5.0])
    a = np.array([0.3, 1.0, 2.5, -0.7, 10.0, np.inf, 0.0, 0.9])
    close(sp.owens_t(h, a), ss.owens_t(h, a), tol=1e-12)


def test_associated_legendre_and_spherical_harmonics():
    z = np.array([-0.9, -0.5, 0.0, 0.2, 0.7, 0.95])
    p, dp = sp.lpmn(4, 4, z)
    for mm in range(5):
        for ll in range(mm, 5):
            close(np.asarray(p)[mm, ll], ss.lpmv(mm, ll, z))
    # the derivative table is d/dz of the value table
    jac = pyjax.vmap(pyjax.jacfwd(lambda t: sp.lpmn_values(4, 4, t[None], False)[:, :, 0]))(z)
    close(np.moveaxis(np.asarray(jac), 0, -1), dp, tol=1e-9)
    n = np.array([0, 1, 1, 2, 2, 3, 4, 6])
    m = np.array([0, -1, 1, 2, -2, -3, 1, -4])
    theta = np.array([0.3, 1.0, 1.0, 2.0, 0.5, 2.5, 1.2, 0.7])
    phi = np.array([0.1, 0.5, 0.5, 1.0, -2.0, 4.0, 3.0, 1.1])
    close(sp.sph_harm_y(n, m, theta, phi), ss.sph_harm_y(n, m, theta, phi), tol=1e-10)


def test_derivatives():
    check_grads(sp.erfcx, (X,), order=1, modes=["fwd", "rev"])
    check_grads(sp.dawsn, (X,), order=1, modes=["fwd", "rev"])
    check_grads(sp.expi, (P,), order=1, modes=["fwd", "rev"])
    check_grads(lambda x: sp.expn(2, x), (P,), order=1, modes=["fwd", "rev"])
    check_grads(lambda x: sp.sici(x)[1], (P,), order=1, modes=["fwd", "rev"])
    check_grads(lambda x: sp.fresnel(x)[0], (X,), order=1, modes=["fwd", "rev"])
    check_grads(lambda x: sp.hyp2f1(0.5, 1.5, 2.5, x), (np.array([-0.5, 0.0, 0.4]),), order=1, modes=["fwd", "rev"])
    check_grads(lambda a: sp.hyp1f1(a, 1.5, 0.8), (np.array([0.3, 1.2]),), order=1, modes=["fwd", "rev"])
    check_grads(lambda x: sp.owens_t(x, 0.6), (np.array([0.2, 1.5]),), order=1, modes=["fwd", "rev"])
    check_grads(sp.spence, (np.array([0.3, 0.9, 1.7, 3.0]),), order=1, modes=["fwd", "rev"])
    close(pyjax.vmap(pyjax.grad(sp.exp1))(P), -np.exp(-P) / P, tol=1e-9)
