"""jax.scipy.special against scipy.special: each function over its domain,
its edges and outside it, in float32 and float64 (and the low-precision
floats where the lax primitive takes them); logsumexp's b, return_sign,
where and axes; custom derivatives (xlogy, xlog1py, logit, log_ndtr, zeta)
against finite differences; JAX's errors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sc

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy import special
from pyjax.test_util import check_grads

POSITIVE = np.array([1e-3, 0.1, 0.5, 1.0, 2.5, 7.0, 20.0, 150.0])
REAL = np.array([-20.0, -5.5, -1.0, -0.3, 0.0, 0.3, 1.0, 5.5, 20.0])
UNIT = np.array([0.0, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0])

# name -> (pyjax function, scipy oracle, points)
UNARY = {
    "gammaln": (special.gammaln, sc.gammaln, np.concatenate([POSITIVE, [-0.5, -2.5]])),
    "gamma": (special.gamma, sc.gamma, np.array([0.1, 0.5, 1.0, 3.5, 10.0, -0.5, -1.5, -2.5])),
    "gammasgn": (special.gammasgn, sc.gammasgn, np.array([0.5, -0.5, -1.5, -2.5, -1.0, 3.0, np.nan])),
    "digamma": (special.digamma, sc.digamma, np.concatenate([POSITIVE, [-0.5, -2.5]])),
    "erf": (special.erf, sc.erf, REAL / 4),
    "erfc": (special.erfc, sc.erfc, REAL / 4),
    "erfinv": (special.erfinv, sc.erfinv, np.array([-1.0, -0.999, -0.5, 0.0, 0.2, 0.9, 0.9999, 1.0])),
    "expit": (special.expit, sc.expit, REAL),
    "logit": (special.logit, sc.logit, UNIT),
    "ndtr": (special.ndtr, sc.ndtr, REAL / 2),
    "ndtri": (special.ndtri, sc.ndtri, np.array([0.0, 1e-30, 1e-10, 0.05, 0.3, 0.5, 0.9, 0.999999, 1.0])),
    "log_ndtr": (special.log_ndtr, sc.log_ndtr, np.concatenate([REAL, [-40.0, -12.0, 6.0]])),
    "i0e": (special.i0e, sc.i0e, REAL),
    "i1e": (special.i1e, sc.i1e, REAL),
    "i0": (special.i0, sc.i0, REAL / 2),
    "i1": (special.i1, sc.i1, REAL / 2),
    "entr": (special.entr, sc.entr, np.array([-1.0, 0.0, 1e-5, 0.3, 1.0, 4.0])),
    "factorial": (special.factorial, sc.factorial, np.array([-1.0, 0.0, 1.0, 4.0, 7.5, 12.0])),
    "loggamma": (special.loggamma, lambda x: np.where(x > 0, sc.gammaln(x), np.nan), np.array([-1.0, 0.5, 3.0])),
}

BINARY = {
    "xlogy": (special.xlogy, sc.xlogy, (np.array([0.0, 0.0, 1.0, -2.0, 3.0, 0.0]),
                                        np.array([0.0, 2.0, 0.5, 3.0, 0.0, np.nan]))),
    "xlog1py": (special.xlog1py, sc.xlog1py, (np.array([0.0, 0.0, 1.0, -2.0, 3.0]),
                                              np.array([-1.0, 2.0, 0.5, 3.0, -0.5]))),
    "betaln": (special.betaln, sc.betaln, (np.array([0.5, 1.0, 3.0, 10.0, 0.1, 1e3]),
                                           np.array([0.5, 9.0, 2.0, 1e6, 30.0, 1e3]))),
    "beta": (special.beta, sc.beta, (np.array([0.5, 1.0, 3.0, -0.5]), np.array([0.5, 9.0, 2.0, 2.0]))),
    "gammainc": (special.gammainc, sc.gammainc, (np.array([0.5, 1.0, 3.0, 10.0]), np.array([0.2, 1.0, 5.0, 7.0]))),
    "gammaincc": (special.gammaincc, sc.gammaincc, (np.array([0.5, 1.0, 3.0, 10.0]), np.array([0.2, 1.0, 5.0, 7.0]))),
    "zeta": (special.zeta, sc.zeta, (np.array([1.5, 2.0, 3.0, 10.0]), np.array([1.0, 0.5, 2.0, 3.0]))),
    "comb": (special.comb, sc.comb, (np.array([10.0, 5.0, 5.0, 3.0]), np.array([3.0, 0.0, 6.0, -1.0]))),
    "rel_entr": (special.rel_entr, sc.rel_entr, (np.array([0.0, 0.5, 1.0, -1.0, 2.0]), np.array([1.0, 0.5, 3.0, 1.0, 0.0]))),
    "kl_div": (special.kl_div, sc.kl_div, (np.array([0.0, 0.5, 1.0, -1.0]), np.array([1.0, 0.5, 3.0, 1.0]))),
}


# JAX's betaln uses cdflib's asymptotic series above 8 (accurate to ~1e-7).
LOOSE = {"betaln": 1e-6, "beta": 1e-6}


def check(actual, expected, dtype, tol=None):
    tol = tol or {np.float64: 1e-11, np.float32: 5e-6}[dtype]
    actual = np.asarray(actual)
    assert actual.dtype == np.dtype(dtype)
    expected = np.asarray(expected, np.float64)
    np.testing.assert_allclose(actual, expected, rtol=tol * 20, atol=tol, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, dtype):
    fn, oracle, points = UNARY[name]
    with pyjax.enable_x64(dtype == np.float64):
        expected = oracle(points)
        if dtype == np.float32:
            expected = oracle(points.astype(np.float32).astype(np.float64))
            expected = np.where(np.isfinite(expected.astype(np.float32)), expected, expected.astype(np.float32))
        check(fn(jnp.asarray(points.astype(dtype))), expected, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, dtype):
    fn, oracle, (a, b) = BINARY[name]
    with pyjax.enable_x64(dtype == np.float64):
        out = fn(jnp.asarray(a.astype(dtype)), jnp.asarray(b.astype(dtype)))
        check(out, oracle(a.astype(dtype).astype(np.float64), b.astype(dtype).astype(np.float64)), dtype,
              LOOSE.get(name) if dtype == np.float64 else None)


def test_betainc_and_polygamma():
    with pyjax.enable_x64(True):
        a, b, x = np.array([0.5, 2.0, 5.0]), np.array([0.5, 3.0, 1.0]), np.array([0.1, 0.5, 0.99])
        check(special.betainc(jnp.asarray(a), jnp.asarray(b), jnp.asarray(x)), sc.betainc(a, b, x), np.float64)
        n, y = np.array([0, 1, 2, 3]), np.array([0.5, 1.0, 2.5, 7.0])
        check(special.polygamma(jnp.asarray(n), jnp.asarray(y)), sc.polygamma(n, y), np.float64)


@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_multigammaln(d):
    a = np.array([3.0, 4.5, 10.0])
    with pyjax.enable_x64(True):
        check(special.multigammaln(jnp.asarray(a), d), sc.multigammaln(a, d), np.float64)


def test_low_precision_inputs():
    for dtype in (np.float16, ml_dtypes.bfloat16):
        x = jnp.asarray(np.array([0.5, 1.5, 3.0], dtype))
        out = special.gammaln(x)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_allclose(np.asarray(out, np.float32), sc.gammaln([0.5, 1.5, 3.0]), rtol=2e-2, atol=2e-2)


def test_integer_inputs_promote():
    assert special.erf(jnp.arange(3)).dtype == np.float32
    assert special.xlogy(2, 3).dtype == np.float32


# ---- logsumexp ----

A = np.random.default_rng(3).normal(size=(3, 4)) * 5


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp(axis, keepdims):
    with pyjax.enable_x64(True):
        check(special.logsumexp(jnp.asarray(A), axis=axis, keepdims=keepdims),
              sc.logsumexp(A, axis=axis, keepdims=keepdims), np.float64)


def test_logsumexp_b_and_sign():
    b = np.array([1.0, -2.0, 0.0, 0.5])
    with pyjax.enable_x64(True):
        out, sign = special.logsumexp(jnp.asarray(A), axis=1, b=jnp.asarray(b), return_sign=True)
        want, want_sign = sc.logsumexp(A, axis=1, b=b, return_sign=True)
        check(out, want, np.float64)
        check(sign, want_sign, np.float64)
        # Without return_sign a negative sum is NaN.
        plain = np.asarray(special.logsumexp(jnp.asarray(A), axis=1, b=jnp.asarray(b)))
        np.testing.assert_array_equal(np.isnan(plain), want_sign < 0)


def test_logsumexp_where_and_infinities():
    where = A > 0
    with pyjax.enable_x64(True):
        out = special.logsumexp(jnp.asarray(A), axis=1, where=jnp.asarray(where))
        check(out, [sc.logsumexp(row[w]) if w.any() else -np.inf for row, w in zip(A, where)], np.float64)
        inf = special.logsumexp(jnp.array([-np.inf, -np.inf]))
        assert float(inf) == -np.inf
        assert float(special.logsumexp(jnp.array([np.inf, 1.0]))) == np.inf
    # No overflow for large inputs.
    assert np.isclose(float(special.logsumexp(jnp.array([1000.0, 1000.0]))), 1000 + np.log(2))


# ---- derivatives ----

@pytest.mark.parametrize("fn,args", [
    (special.xlogy, (np.array([0.5, 2.0]), np.array([1.5, 3.0]))),
    (special.xlog1py, (np.array([0.5, 2.0]), np.array([0.5, 3.0]))),
    (special.logit, (np.array([0.2, 0.7]),)),
    (special.expit, (np.array([-2.0, 0.5]),)),
    (special.log_ndtr, (np.array([-30.0, -3.0, 0.5, 7.0]),)),
    (lambda x: special.zeta(x, 2.0), (np.array([1.5, 3.0]),)),
    (lambda x: special.logsumexp(x, b=jnp.array([1.0, 0.5])), (np.array([0.3, -1.2]),)),
    (lambda x: special.entr(x), (np.array([0.2, 1.5]),)),
])
def test_gradients(fn, args):
    with pyjax.enable_x64(True):
        check_grads(fn, tuple(jnp.asarray(a) for a in args), order=1, atol=1e-6, rtol=1e-6)


def test_custom_derivative_edges():
    # d/dx xlogy(x, y) at x = 0 is log(y): finite, where x * log(y) autodiff would agree;
    # log_ndtr's derivative stays finite and accurate deep in the lower tail.
    g = pyjax.grad(lambda x: special.xlogy(x, 2.0))(0.0)
    assert np.isclose(float(g), np.log(2.0))
    with pyjax.enable_x64(True):
        g = pyjax.grad(special.log_ndtr)(-40.0)
        assert np.isclose(float(g), 40.0249, rtol=1e-4)


# ---- errors ----

def test_errors():
    with pytest.raises(ValueError, match="Argument `n` to polygamma must be of integer type. Got dtype float32."):
        special.polygamma(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="Riemann zeta function not implemented"):
        special.zeta(2.0)
    with pytest.raises(TypeError, match="x.dtype=int32 is not supported"):
        special.ndtr(jnp.arange(3))
    with pytest.raises(TypeError, match="x.dtype=float16 is not supported"):
        special.ndtri(jnp.ones(2, jnp.float16))
    with pytest.raises(ValueError, match="series_order must be non-negative."):
        special.log_ndtr(1.0, series_order=-1)
    with pytest.raises(NotImplementedError, match="factorial with exact=True"):
        special.factorial(3, exact=True)
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match="d argument of multigammaln"):
        pyjax.jit(special.multigammaln)(2.0, 3)
