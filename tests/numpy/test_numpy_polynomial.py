"""Polynomials against NumPy: polyval, polyfit (weights, cov, full),
roots (strip_zeros), poly, polyadd / polysub / polymul / polydiv,
polyder / polyint, and the related convolve / correlate in every mode;
gradients through polyval; JAX's errors; a hypothesis layer over
coefficient vectors.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp

RNG = np.random.default_rng(19)
P = np.array([2.0, -3.0, 0.5, 1.0], np.float32)
Q = np.array([1.0, 4.0], np.float32)
TOL = {"rtol": 1e-5, "atol": 1e-5}


def test_polyval():
    x = np.linspace(-2, 2, 7).astype(np.float32)
    check_close(jnp.polyval(P, x), np.polyval(P, x), **TOL)
    check_close(jnp.polyval(P, x, unroll=4), np.polyval(P, x), **TOL)
    check_close(jnp.polyval(np.array([3, 0, 1], np.int32), np.array([2, 3], np.int32)),
                np.polyval([3, 0, 1], [2, 3]).astype(np.int32))
    check_close(pyjax.grad(lambda t: jnp.polyval(P, t))(np.float32(1.5)), np.polyval(np.polyder(P), 1.5)
                .astype(np.float32), **TOL)


@pytest.mark.parametrize("deg", [1, 2, 3])
def test_polyfit(deg):
    x = np.linspace(-1, 1, 12).astype(np.float32)
    y = (np.polyval(P, x) + 0.01 * RNG.normal(size=12)).astype(np.float32)
    check_close(jnp.polyfit(x, y, deg), np.polyfit(x, y, deg).astype(np.float32), rtol=2e-3, atol=2e-3)
    w = np.linspace(0.5, 1.5, 12).astype(np.float32)
    check_close(jnp.polyfit(x, y, deg, w=w), np.polyfit(x, y, deg, w=w).astype(np.float32), rtol=2e-3, atol=2e-3)
    coef, cov = jnp.polyfit(x, y, deg, cov=True)
    want_coef, want_cov = np.polyfit(x, y, deg, cov=True)
    check_close(coef, want_coef.astype(np.float32), rtol=2e-3, atol=2e-3)
    check_close(cov, want_cov.astype(np.float32), rtol=5e-2, atol=1e-5)
    full = jnp.polyfit(x, y, deg, full=True)
    want = np.polyfit(x, y, deg, full=True)
    assert len(full) == 5
    check_close(full[2], np.int32(want[2]))  # rank
    ys = np.stack([y, 2 * y], axis=1)
    check_close(jnp.polyfit(x, ys, deg), np.polyfit(x, ys, deg).astype(np.float32), rtol=2e-3, atol=2e-3)


def test_polyfit_errors():
    with pytest.raises(ValueError, match="expected deg >= 0"):
        jnp.polyfit(np.ones(3), np.ones(3), -1)
    with pytest.raises(TypeError, match="expected 1D vector for x"):
        jnp.polyfit(np.ones((2, 2)), np.ones(3), 1)
    with pytest.raises(TypeError, match="expected x and y to have same length"):
        jnp.polyfit(np.ones(3), np.ones(4), 1)


@pytest.mark.parametrize("coeffs", [[1.0, -3.0, 2.0], [1.0, 0.0, -1.0, 0.0], [0.0, 0.0, 2.0, -4.0], [3.0],
                                    [1.0, 0.0, 1.0]])
def test_roots(coeffs):
    c = np.asarray(coeffs, np.float32)
    got = np.sort_complex(np.asarray(jnp.roots(c)))
    want = np.sort_complex(np.roots(c).astype(np.complex64))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_roots_without_stripping_zeros_under_jit():
    c = np.array([0.0, 1.0, -3.0, 2.0], np.float32)
    # Leading zeros become roots at infinity (NaN) when they are not stripped.
    got = np.asarray(pyjax.jit(lambda v: jnp.roots(v, strip_zeros=False))(c))
    assert got.shape == (3,)
    finite = np.sort_complex(got[np.isfinite(got)])
    np.testing.assert_allclose(finite, np.sort_complex(np.roots([1.0, -3.0, 2.0])), rtol=1e-4, atol=1e-4)
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match="The error occurred in the jnp.roots\\(\\) "
                       "function. To use this within a JIT-compiled context, pass strip_zeros=False"):
        pyjax.jit(jnp.roots)(c)


def test_poly():
    r = np.array([1.0, -2.0, 0.5], np.float32)
    check_close(jnp.poly(r), np.poly(r).astype(np.float32), **TOL)
    m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    # A matrix's characteristic polynomial comes from its eigenvalues: complex in JAX.
    check_close(jnp.poly(m), np.poly(m).astype(np.complex64), rtol=1e-4, atol=1e-4)
    # Complex roots give complex coefficients in JAX (NumPy drops a zero imaginary part).
    check_close(jnp.poly(np.array([1j, -1j], np.complex64)), np.poly([1j, -1j]).astype(np.complex64), **TOL)


def test_arithmetic():
    check_close(jnp.polyadd(P, Q), np.polyadd(P, Q), **TOL)
    check_close(jnp.polysub(Q, P), np.polysub(Q, P), **TOL)
    check_close(jnp.polymul(P, Q), np.polymul(P, Q), **TOL)
    check_close(jnp.polymul(P, Q, trim_leading_zeros=True), np.polymul(P, Q), **TOL)
    quotient, remainder = jnp.polydiv(P, Q)
    want_q, want_r = np.polydiv(P, Q)
    check_close(quotient, want_q.astype(np.float32), **TOL)
    check_close(remainder[-len(want_r):], want_r.astype(np.float32), **TOL)
    check_close(jnp.polyadd(np.array([1, 2], np.int32), np.array([3], np.int32)), np.array([1, 5], np.int32))


@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_derivatives_and_integrals(m):
    check_close(jnp.polyder(P, m), np.polyder(P, m).astype(np.float32), **TOL)
    check_close(jnp.polyint(P, m), np.polyint(P, m).astype(np.float32), **TOL)
    if m:
        k = np.arange(1.0, m + 1, dtype=np.float32)
        check_close(jnp.polyint(P, m, k=k), np.polyint(P, m, k=k).astype(np.float32), **TOL)
    with pytest.raises(ValueError, match="Order of derivative must be positive"):
        jnp.polyder(P, -1)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(mode):
    a = RNG.normal(size=7).astype(np.float32)
    v = RNG.normal(size=3).astype(np.float32)
    check_close(jnp.convolve(a, v, mode=mode), np.convolve(a, v, mode=mode), **TOL)
    check_close(jnp.correlate(a, v, mode=mode), np.correlate(a, v, mode=mode), **TOL)
    z = (a + 1j * a[::-1]).astype(np.complex64)
    check_close(jnp.correlate(z, v.astype(np.complex64) * 1j, mode=mode),
                np.correlate(z, v.astype(np.complex64) * 1j, mode=mode), **TOL)
    # Integer inputs are convolved in floating point, as in JAX.
    check_close(jnp.convolve(np.arange(4, dtype=np.int32), np.array([1, -1], np.int32), mode=mode),
                np.convolve(np.arange(4), [1, -1], mode=mode).astype(np.float32))


def test_convolve_errors():
    with pytest.raises(ValueError, match="convolve: inputs cannot be empty"):
        jnp.convolve(np.ones(0), np.ones(3))
    with pytest.raises(ValueError, match="convolve\\(\\) only support 1-dimensional inputs."):
        jnp.convolve(np.ones((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match="mode must be one of \\['full', 'same', 'valid'\\]"):
        jnp.convolve(np.ones(3), np.ones(3), mode="bogus")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=6), st.lists(st.integers(-4, 4), min_size=1, max_size=6))
def test_hypothesis_polynomials(p, q):
    p, q = np.asarray(p, np.float32), np.asarray(q, np.float32)
    check_close(jnp.polyadd(p, q), np.polyadd(p, q).astype(np.float32))
    check_close(jnp.polymul(p, q), np.convolve(p, q).astype(np.float32))
    x = np.linspace(-1, 1, 5).astype(np.float32)
    check_close(jnp.polyval(p, x), np.polyval(p, x).astype(np.float32), rtol=1e-5, atol=1e-4)
    check_close(jnp.convolve(p, q), np.convolve(p, q).astype(np.float32))
