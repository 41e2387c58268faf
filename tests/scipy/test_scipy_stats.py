"""jax.scipy.stats against scipy.stats: every function of every distribution
on a grid that covers the support, its edges and points outside it, with
loc/scale and broadcasting; float64 to tight tolerances; derivatives against
finite differences where lax has the rules; JAX's errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy import stats
from pyjax.test_util import check_grads

X = np.array([-3.0, -1.0, -0.25, 0.0, 0.3, 0.5, 1.0, 2.5, 6.0])
UNIT = np.array([-0.5, 0.0, 1e-3, 0.1, 0.5, 0.9, 0.999, 1.0, 1.5])


def close(actual, expected, dtype=np.float32):
    tol = 1e-12 if dtype == np.float64 else 2e-5
    actual = np.asarray(actual)
    assert actual.dtype == np.dtype(dtype)
    np.testing.assert_allclose(actual, expected, rtol=tol * 50, atol=tol, equal_nan=True)


# (distribution, function, scipy oracle, arguments after x, the points)
CASES = [
    ("norm", "logpdf", ss.norm.logpdf, (0.5, 2.0), X),
    ("norm", "pdf", ss.norm.pdf, (0.5, 2.0), X),
    ("norm", "cdf", ss.norm.cdf, (0.5, 2.0), X),
    ("norm", "logcdf", ss.norm.logcdf, (0.5, 2.0), np.concatenate([X, [-30.0, -12.0, 9.0]])),
    ("norm", "sf", ss.norm.sf, (0.5, 2.0), X),
    ("norm", "logsf", ss.norm.logsf, (0.5, 2.0), X),
    ("norm", "ppf", ss.norm.ppf, (0.5, 2.0), UNIT[2:-2]),
    ("norm", "isf", ss.norm.isf, (0.5, 2.0), UNIT[2:-2]),
    ("t", "logpdf", ss.t.logpdf, (3.5, 0.5, 2.0), X),
    ("t", "pdf", ss.t.pdf, (1.0,), X),
    ("uniform", "logpdf", ss.uniform.logpdf, (-1.0, 2.0), X),
    ("uniform", "pdf", ss.uniform.pdf, (-1.0, 2.0), X),
    ("uniform", "cdf", ss.uniform.cdf, (-1.0, 2.0), X),
    ("uniform", "ppf", ss.uniform.ppf, (-1.0, 2.0), UNIT),
    ("logistic", "logpdf", ss.logistic.logpdf, (0.5, 2.0), X),
    ("logistic", "pdf", ss.logistic.pdf, (0.5, 2.0), X),
    ("logistic", "cdf", ss.logistic.cdf, (0.5, 2.0), X),
    ("logistic", "sf", ss.logistic.sf, (0.5, 2.0), X),
    ("logistic", "ppf", ss.logistic.ppf, (0.5, 2.0), UNIT[2:-2]),
    ("logistic", "isf", ss.logistic.isf, (0.5, 2.0), UNIT[2:-2]),
    ("laplace", "logpdf", ss.laplace.logpdf, (0.5, 2.0), X),
    ("laplace", "pdf", ss.laplace.pdf, (0.5, 2.0), X),
    ("laplace", "cdf", ss.laplace.cdf, (0.5, 2.0), X),
    ("cauchy", "logpdf", ss.cauchy.logpdf, (0.5, 2.0), X),
    ("cauchy", "pdf", ss.cauchy.pdf, (0.5, 2.0), X),
    ("cauchy", "cdf", ss.cauchy.cdf, (0.5, 2.0), X),
    ("cauchy", "logcdf", ss.cauchy.logcdf, (0.5, 2.0), X),
    ("cauchy", "sf", ss.cauchy.sf, (0.5, 2.0), X),
    ("cauchy", "logsf", ss.cauchy.logsf, (0.5, 2.0), X),
    ("cauchy", "ppf", ss.cauchy.ppf, (0.5, 2.0), UNIT[2:-2]),
    ("cauchy", "isf", ss.cauchy.isf, (0.5, 2.0), UNIT[2:-2]),
    ("beta", "logpdf", ss.beta.logpdf, (2.0, 3.5), UNIT),
    ("beta", "pdf", ss.beta.pdf, (0.5, 0.7, -0.5, 2.0), UNIT),
    ("beta", "cdf", ss.beta.cdf, (2.0, 3.5), UNIT),
    ("beta", "logcdf", ss.beta.logcdf, (2.0, 3.5), UNIT),
    ("beta", "sf", ss.beta.sf, (2.0, 3.5), UNIT),
    ("beta", "logsf", ss.beta.logsf, (2.0, 3.5), UNIT),
    ("gamma", "logpdf", ss.gamma.logpdf, (2.5, 0.5, 2.0), X),
    ("gamma", "pdf", ss.gamma.pdf, (1.0,), X),
    ("gamma", "cdf", ss.gamma.cdf, (2.5, 0.5, 2.0), X),
    ("gamma", "logcdf", ss.gamma.logcdf, (2.5,), X[3:]),
    ("gamma", "sf", ss.gamma.sf, (2.5, 0.5, 2.0), X),
    ("gamma", "logsf", ss.gamma.logsf, (2.5,), X),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("dist,fn,oracle,args,points", CASES,
                         ids=[f"{d}.{f}-{i}" for i, (d, f, *_) in enumerate(CASES)])
def test_continuous(dist, fn, oracle, args, points, dtype):
    with pyjax.enable_x64(dtype == np.float64):
        expected = oracle(points, *args)
        out = getattr(getattr(stats, dist), fn)(jnp.asarray(points.astype(dtype)), *args)
        if dtype == np.float32:
            expected = np.where(np.abs(expected) > 1e30, expected, expected.astype(np.float32))
        close(out, expected, dtype)


def test_beta_invalid_parameters():
    out = np.asarray(stats.beta.logpdf(0.5, jnp.array([-1.0, 1.0, 2.0]), jnp.array([1.0, 0.0, 2.0]),
                                       0.0, jnp.array([1.0, 1.0, -1.0])))
    assert np.all(np.isnan(out))


DISCRETE = [
    ("bernoulli", "logpmf", ss.bernoulli.logpmf, (0.3,), np.array([-1.0, 0.0, 1.0, 2.0])),
    ("bernoulli", "pmf", ss.bernoulli.pmf, (0.3, 1), np.array([-1.0, 0.0, 1.0, 2.0])),
    ("bernoulli", "cdf", ss.bernoulli.cdf, (0.3,), np.array([-1.0, 0.0, 0.5, 1.0, 2.0])),
    # SciPy's ppf(0) is -1 (the support's lower end minus one); JAX's is 0.
    ("bernoulli", "ppf", lambda q, p: np.where(q == 0, 0.0, ss.bernoulli.ppf(q, p)), (0.3,),
     np.array([0.0, 0.5, 0.7, 0.71, 1.0, 1.5])),
    ("poisson", "logpmf", ss.poisson.logpmf, (2.5,), np.array([-1.0, 0.0, 1.0, 2.0, 7.0, 1.5])),
    ("poisson", "pmf", ss.poisson.pmf, (2.5, 1), np.array([-1.0, 0.0, 1.0, 2.0, 7.0])),
    ("poisson", "cdf", ss.poisson.cdf, (2.5,), np.array([-1.0, 0.0, 1.0, 2.5, 7.0])),
]


@pytest.mark.parametrize("dist,fn,oracle,args,points", DISCRETE, ids=[f"{d}.{f}" for d, f, *_ in DISCRETE])
def test_discrete(dist, fn, oracle, args, points):
    with pyjax.enable_x64(True):
        out = getattr(getattr(stats, dist), fn)(jnp.asarray(points), *args)
        close(out, oracle(points, *args), np.float64)


def test_bernoulli_invalid_p():
    assert np.all(np.isnan(np.asarray(stats.bernoulli.cdf(0.5, jnp.array([-0.1, 1.1, np.nan])))))
    assert np.all(np.isnan(np.asarray(stats.bernoulli.ppf(jnp.array([-0.1, 0.5]), jnp.array([0.3, 1.5])))))


def test_broadcasting():
    x = np.linspace(-2, 2, 5)[:, None]
    loc = np.array([0.0, 1.0, -1.0])
    out = stats.norm.logpdf(jnp.asarray(x), jnp.asarray(loc), 2.0)
    assert out.shape == (5, 3)
    np.testing.assert_allclose(np.asarray(out), ss.norm.logpdf(x, loc, 2.0), rtol=1e-5)
    # Integer inputs promote to the default float type.
    assert stats.norm.pdf(jnp.arange(3)).dtype == np.float32


@pytest.mark.parametrize("cov_kind", ["matrix", "scalar", "batched"])
def test_multivariate_normal(cov_kind):
    rng = np.random.default_rng(0)
    with pyjax.enable_x64(True):
        n = 3
        a = rng.normal(size=(n, n))
        cov = a @ a.T + n * np.eye(n)
        mean = rng.normal(size=n)
        x = rng.normal(size=(4, n))
        if cov_kind == "matrix":
            expected = ss.multivariate_normal.logpdf(x, mean, cov)
            out = stats.multivariate_normal.logpdf(jnp.asarray(x), jnp.asarray(mean), jnp.asarray(cov))
        elif cov_kind == "scalar":
            expected = ss.multivariate_normal.logpdf(x, mean, 2.0 * np.eye(n))
            out = stats.multivariate_normal.logpdf(jnp.asarray(x), jnp.asarray(mean), 2.0)
        else:
            covs = np.stack([cov, 2 * cov, cov + np.eye(n), cov])
            expected = np.array([ss.multivariate_normal.logpdf(x[i], mean, covs[i]) for i in range(4)])
            out = stats.multivariate_normal.logpdf(jnp.asarray(x), jnp.asarray(mean), jnp.asarray(covs))
        close(out, expected, np.float64)
        close(stats.multivariate_normal.pdf(jnp.asarray(x[0]), jnp.asarray(mean), jnp.asarray(cov)),
              ss.multivariate_normal.pdf(x[0], mean, cov), np.float64)
        # A scalar mean is the one-dimensional normal.
        close(stats.multivariate_normal.logpdf(jnp.asarray(x[:, 0]), 0.5, 2.0),
              ss.norm.logpdf(x[:, 0], 0.5, np.sqrt(2.0)), np.float64)


def test_multivariate_normal_errors():
    with pytest.raises(ValueError, match="multivariate_normal.logpdf got incompatible shapes"):
        stats.multivariate_normal.logpdf(jnp.ones(3), jnp.zeros(3), jnp.eye(2))
    with pytest.raises(NotImplementedError, match="allow_singular"):
        stats.multivariate_normal.logpdf(jnp.ones(3), jnp.zeros(3), jnp.eye(3), allow_singular=True)


def test_dirichlet():
    alpha = np.array([1.5, 2.0, 0.7])
    with pyjax.enable_x64(True):
        x = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]]).T
        close(stats.dirichlet.logpdf(jnp.asarray(x), jnp.asarray(alpha)),
              [ss.dirichlet.logpdf(x[:, i], alpha) for i in range(2)], np.float64)
        # K - 1 entries: the last is implied.
        close(stats.dirichlet.pdf(jnp.asarray(x[:2, 0]), jnp.asarray(alpha)), ss.dirichlet.pdf(x[:, 0], alpha),
              np.float64)
        assert float(stats.dirichlet.logpdf(jnp.array([0.5, 0.6, 0.1]), jnp.asarray(alpha))) == -np.inf
    with pytest.raises(ValueError, match="`alpha` must be one-dimensional"):
        stats.dirichlet.logpdf(jnp.ones(3), jnp.ones((3, 1)))
    with pytest.raises(ValueError, match="`x` must have either the same number of entries as `alpha`"):
        stats.dirichlet.logpdf(jnp.ones(5), jnp.ones(3))


@pytest.mark.parametrize("fn,args", [
    (stats.norm.logpdf, (0.3, 1.5)), (stats.norm.logcdf, (0.3, 1.5)), (stats.norm.logsf, (0.3, 1.5)),
    (stats.laplace.logpdf, (0.3, 1.5)), (stats.cauchy.logpdf, (0.3, 1.5)),
    (stats.cauchy.cdf, (0.3, 1.5)), (stats.logistic.logpdf, (0.3, 1.5)), (stats.logistic.cdf, (0.3, 1.5)),
    (stats.laplace.cdf, (0.3, 1.5)), (stats.uniform.logpdf, (-10.0, 20.0)),
])
def test_gradients(fn, args):
    with pyjax.enable_x64(True):
        x = jnp.asarray(np.array([-2.2, -0.7, 0.4, 1.9]))
        check_grads(lambda x: fn(x, *args), (x,), order=1)


def test_normal_logpdf_gradient_in_parameters():
    with pyjax.enable_x64(True):
        check_grads(lambda loc, scale: stats.norm.logpdf(1.3, loc, scale), (0.2, 0.7), order=2)
        check_grads(lambda m: stats.multivariate_normal.logpdf(jnp.ones(2), m, jnp.eye(2) * 2), (jnp.zeros(2),),
                    order=1)
