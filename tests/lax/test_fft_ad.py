"""Autodiff of fft: the JVP is the transform of the tangent; the transposes
(FFT/IFFT to themselves, RFFT and IRFFT to each other with the Hermitian
mask) against finite differences (check_grads, forward and reverse) and
against the dense DFT matrices."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax as jax
from pyjax import lax
from pyjax.test_util import check_grads

rng = np.random.default_rng(0)


def check_vjp_complex(f, x):
    """JAX's reverse-mode check for complex functions (jax.test_util.check_vjp):
    the VJP applied to conj(ct), conjugated, satisfies Re<t, ct_out> = Re<J t, ct>.
    (pyjax.test_util's check_vjp compares complex inner products, which holds only
    for real functions.)"""
    t = _like(x)
    y, pullback = jax.vjp(f, x)
    ct = _like(np.asarray(y))
    ct_out = np.conj(np.asarray(pullback(np.conj(ct).astype(ct.dtype))[0]))
    eps = 1e-3
    jt = (np.asarray(f((x + eps * t).astype(x.dtype)), np.complex128) - np.asarray(f((x - eps * t).astype(x.dtype)))) / (2 * eps)
    inner = lambda a, b: np.real(np.vdot(np.asarray(a, np.complex128), np.asarray(b, np.complex128)))
    np.testing.assert_allclose(inner(t, ct_out), inner(jt, ct), rtol=2e-2, atol=2e-2)


def _like(x):
    x = np.asarray(x)
    value = rng.standard_normal(x.shape)
    if x.dtype.kind == "c":
        value = value + 1j * rng.standard_normal(x.shape)
    return value.astype(x.dtype)


def _complex(shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def _real(shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("fft_type", ["fft", "ifft"])
@pytest.mark.parametrize("lengths", [(4,), (3,), (2, 5)])
def test_complex_transforms(fft_type, lengths):
    x = _complex((2, *lengths))
    f = lambda x: lax.fft(x, fft_type, lengths)
    check_grads(f, (x,), order=2, modes=("fwd",))
    check_vjp_complex(f, x)


@pytest.mark.parametrize("lengths", [(6,), (5,), (3, 4), (2, 3, 5)])
def test_rfft(lengths):
    x = _real((2, *lengths))
    f = lambda x: lax.fft(x, "rfft", lengths)
    check_grads(f, (x,), order=2, modes=("fwd",))
    check_vjp_complex(f, x)


@pytest.mark.parametrize("lengths", [(6,), (5,), (3, 4), (2, 3, 5)])
def test_irfft(lengths):
    # An IRFFT input is a half spectrum: build one from real data so that the
    # transform is the exact inverse of an RFFT.
    half = np.fft.rfftn(_real((2, *lengths)), axes=tuple(range(1, len(lengths) + 1))).astype(np.complex64)
    f = lambda x: lax.fft(x, "irfft", lengths)
    check_grads(f, (half,), order=2, modes=("fwd",))
    check_vjp_complex(f, half)


def test_real_pipeline():
    # Real in, real out: a filter in the frequency domain.
    weights = np.linspace(0.5, 1.5, 5).astype(np.complex64)
    f = lambda x: lax.fft(lax.fft(x, "rfft", (8,)) * weights, "irfft", (8,)) ** 2
    x = _real((3, 8))
    check_grads(f, (x,), order=2, modes=("fwd",))
    # Second-order reverse mode transposes the conj inside RFFT's transpose,
    # which needs conj's transpose rule (elementwise family).
    check_grads(f, (x,), order=1, modes=("rev",))


@pytest.mark.parametrize("n", [5, 6])
def test_transposes_match_dense_matrices(n):
    # VJPs are products with the transposed DFT matrices (JAX's convention for
    # complex cotangents: no conjugation).
    dft = np.fft.fft(np.eye(n))
    ct = _complex(n)
    _, pullback = jax.vjp(lambda x: lax.fft(x, "fft", (n,)), _complex(n))
    check_close(pullback(ct)[0], (dft.T @ ct).astype(np.complex64), rtol=1e-5, atol=1e-5)
    k = n // 2 + 1
    ct_half = _complex(k)
    _, pullback = jax.vjp(lambda x: lax.fft(x, "rfft", (n,)), _real(n))
    # rfft(x) = D[:k] x for real x: the (real) cotangent is Re(D[:k]^T ct).
    expected = np.real(dft[:k].T @ ct_half)
    check_close(pullback(ct_half)[0], expected.astype(np.float32), rtol=1e-5, atol=1e-5)


def test_linearize_and_jit():
    x = _real((2, 6))
    y, f_jvp = jax.linearize(lambda x: lax.fft(x, "rfft", (6,)), x)
    check_close(f_jvp(x), y, rtol=1e-5, atol=1e-5)  # linear: the JVP at x is the value
    half = np.fft.rfft(x).astype(np.complex64)
    f = jax.jit(lambda x: lax.fft(x, "irfft", (6,)))
    check_grads(f, (half,), order=1, modes=("fwd",))
    check_vjp_complex(f, half)
