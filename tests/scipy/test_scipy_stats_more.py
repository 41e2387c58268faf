"""The distributions and sample statistics of jax.scipy.stats added with
issue 26, against scipy.stats in double precision (every method on a grid
crossing the support's edges), and under jit, vmap and grad. JAX's own
values and errors are pinned by tests/golden/programs_scipy_stats_more.py."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy import stats as st
from pyjax.test_util import check_grads

RNG = np.random.default_rng(9)
X = np.array([-1.5, -0.2, 0.0, 0.4, 1.0, 2.5, 6.0])
Q = np.array([0.01, 0.2, 0.5, 0.9, 0.999])


@pytest.fixture(autouse=True)
def x64():
    with pyjax.enable_x64(True):
        yield


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


CONTINUOUS = [
    ("expon", (), dict(loc=0.3, scale=2.0)),
    ("chi2", (3.5,), dict(loc=-0.5, scale=1.5)),
    ("pareto", (2.5,), dict(loc=-0.5, scale=1.2)),
    ("gumbel_l", (), dict(loc=0.5, scale=1.5)),
    ("gumbel_r", (), dict(loc=0.5, scale=1.5)),
    ("truncnorm", (-0.5, 1.5), dict(loc=0.3, scale=1.2)),
]


@pytest.mark.parametrize("name,shape,kw", CONTINUOUS)
def test_continuous_distribution_methods_match_scipy(name, shape, kw):
    mine, theirs = getattr(st, name), getattr(ss, name)
    for method in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        if hasattr(mine, method):
            close(getattr(mine, method)(X, *shape, **kw), getattr(theirs, method)(X, *shape, **kw), tol=1e-8)
    if hasattr(mine, "ppf"):
        close(mine.ppf(Q, *shape, **kw), theirs.ppf(Q, *shape, **kw), tol=1e-8)


def test_shape_only_distributions_match_scipy():
    for beta in (0.7, 1.0, 2.0, 5.0):
        close(st.gennorm.logpdf(X, beta), ss.gennorm.logpdf(X, beta))
        close(st.gennorm.cdf(X, beta), ss.gennorm.cdf(X, beta))
    angles = np.linspace(0.1, 6.2, 9)
    for kappa in (0.3, 2.0, 50.0):
        close(st.vonmises.logpdf(angles - np.pi, kappa), ss.vonmises.logpdf(angles - np.pi, kappa))
    for c in (0.1, 0.6, 0.95):
        close(st.wrapcauchy.pdf(angles, c), ss.wrapcauchy.pdf(angles, c))


def test_truncnorm_far_tail_is_finite_and_accurate():
    x = np.array([5.0, 6.0, 8.0])
    close(st.truncnorm.logpdf(x, 4.0, 10.0), ss.truncnorm.logpdf(x, 4.0, 10.0), tol=1e-7)
    close(st.truncnorm.logcdf(x, 4.0, 10.0), ss.truncnorm.logcdf(x, 4.0, 10.0), tol=1e-7)
    close(st.truncnorm.logsf(x, 4.0, 10.0), ss.truncnorm.logsf(x, 4.0, 10.0), tol=1e-7)


K = np.arange(-1.0, 13.0)


def test_discrete_distributions_match_scipy():
    close(st.geom.logpmf(K, 0.3), ss.geom.logpmf(K, 0.3))
    close(st.binom.logpmf(K, 10, 0.35), ss.binom.logpmf(K, 10, 0.35))
    close(st.binom.pmf(K, 10, 1.0), ss.binom.pmf(K, 10, 1.0))
    close(st.nbinom.logpmf(K, 3.5, 0.4), ss.nbinom.logpmf(K, 3.5, 0.4))
    # JAX's betaln (and so pyjax's) is good to a few 1e-7 relative, not to float64's last bits.
    close(st.betabinom.logpmf(K, 10, 2.0, 3.5), ss.betabinom.logpmf(K, 10, 2.0, 3.5), tol=1e-6)
    x, p = np.array([1, 3, 2]), np.array([0.2, 0.5, 0.3])
    close(st.multinomial.logpmf(x, 6, p), ss.multinomial.logpmf(x, 6, p))
    assert st.multinomial.logpmf(x, 7, p) == -np.inf


def test_poisson_entropy_matches_scipy():
    mu = np.array([0.3, 1.0, 5.0, 9.9, 10.0, 42.0, 99.0, 150.0])
    close(st.poisson.entropy(mu), ss.poisson.entropy(mu), tol=1e-5)
    # SciPy's own sum does not converge at 1e4; a direct float64 sum does.
    k = np.arange(0, 30000)
    logp = ss.poisson.logpmf(k, 1e4)
    close(st.poisson.entropy(1e4), -np.sum(np.exp(logp) * logp), tol=1e-6)


def test_mode_rankdata_sem_match_scipy():
    a = RNG.integers(0, 4, size=(5, 7))
    got, want = st.mode(a, axis=1), ss.mode(a, axis=1)
    close(got.mode, want.mode)
    close(got.count, want.count)
    r = RNG.integers(0, 5, size=12).astype(float)
    for method in ("average", "min", "max", "dense", "ordinal"):
        close(st.rankdata(r, method=method), ss.rankdata(r, method=method))
    close(st.rankdata(a, axis=0), ss.rankdata(a, axis=0))
    b = RNG.normal(size=(4, 6))
    close(st.sem(b), ss.sem(b))
    close(st.sem(b, axis=None, ddof=0), ss.sem(b, axis=None, ddof=0))


def test_gaussian_kde_matches_scipy():
    data = RNG.normal(size=(2, 30))
    w = RNG.uniform(0.5, 2.0, size=30)
    pts = RNG.normal(size=(2, 5))
    for bw in (None, "silverman", 0.4):
        mine, theirs = st.gaussian_kde(data, bw_method=bw, weights=w), ss.gaussian_kde(data, bw_method=bw, weights=w)
        close(mine(pts), theirs(pts))
        close(mine.logpdf(pts), theirs.logpdf(pts))
        close(mine.covariance, theirs.covariance)
        close(mine.integrate_gaussian(np.zeros(2), np.eye(2)), theirs.integrate_gaussian(np.zeros(2), np.eye(2)))
    one = RNG.normal(size=20)
    close(st.gaussian_kde(one).integrate_box_1d(-0.5, 1.0), ss.gaussian_kde(one).integrate_box_1d(-0.5, 1.0))
    close(st.gaussian_kde(one).integrate_kde(st.gaussian_kde(one + 1)),
          ss.gaussian_kde(one).integrate_kde(ss.gaussian_kde(one + 1)))
    samples = st.gaussian_kde(data).resample(pyjax.random.key(1), (7,))
    assert samples.shape == (2, 7)


def test_transformations():
    check_grads(lambda x: st.truncnorm.logcdf(x, -0.5, 1.5), (np.array([-0.2, 0.4, 1.2]),), order=1,
                modes=["fwd", "rev"])
    check_grads(lambda x: st.gumbel_r.logpdf(x, 0.5, 1.5), (X,), order=2, modes=["fwd", "rev"])
    # A batched per-example gradient whose cotangent sums a batched and an
    # unbatched contribution (add_any of two batch states).
    close(pyjax.vmap(pyjax.grad(st.gumbel_r.logpdf))(X), [pyjax.grad(st.gumbel_r.logpdf)(x) for x in X])
    close(pyjax.jit(st.chi2.logsf)(X, 2.5), ss.chi2.logsf(X, 2.5))
    close(pyjax.vmap(lambda p: st.binom.logpmf(K, 10.0, p))(np.array([0.2, 0.7])),
          np.stack([ss.binom.logpmf(K, 10, 0.2), ss.binom.logpmf(K, 10, 0.7)]))
