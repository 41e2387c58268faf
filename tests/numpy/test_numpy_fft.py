"""jax.numpy.fft against numpy.fft: every transform over axes, lengths
(cropping and padding) and norms, in single and double precision, the
frequency helpers and shifts, round trips, derivatives, and JAX's errors.

(Named test_numpy_fft.py: tests/lax/test_fft.py owns the plain name, and
pytest's default import mode needs unique basenames.)
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
import pyjax.numpy.fft as jfft
from pyjax.test_util import check_grads

RNG = np.random.default_rng(5)
NORMS = [None, "backward", "ortho", "forward"]


def real(shape, dtype=np.float32):
    return RNG.normal(size=shape).astype(dtype)


def cplx(shape, dtype=np.complex64):
    return (RNG.normal(size=shape) + 1j * RNG.normal(size=shape)).astype(dtype)


def check(actual, expected, rtol=2e-5, atol=2e-5):
    actual = np.asarray(actual)
    assert actual.shape == np.shape(expected)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("n,axis", [(None, -1), (None, 0), (3, -1), (7, 1), (5, 0)])
def test_complex_1d(name, norm, n, axis):
    x = cplx((4, 6))
    out = getattr(jfft, name)(jnp.asarray(x), n=n, axis=axis, norm=norm)
    assert out.dtype == np.complex64
    check(out, getattr(np.fft, name)(x, n=n, axis=axis, norm=norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n,axis", [(None, -1), (None, 0), (4, -1), (9, 1)])
def test_real_1d(norm, n, axis):
    x = real((4, 6))
    spectrum = jfft.rfft(jnp.asarray(x), n=n, axis=axis, norm=norm)
    check(spectrum, np.fft.rfft(x, n=n, axis=axis, norm=norm))
    half = np.fft.rfft(x, axis=axis)
    check(jfft.irfft(jnp.asarray(half.astype(np.complex64)), n=n, axis=axis, norm=norm),
          np.fft.irfft(half, n=n, axis=axis, norm=norm))
    check(jfft.hfft(jnp.asarray(half.astype(np.complex64)), n=n, axis=axis, norm=norm),
          np.fft.hfft(half, n=n, axis=axis, norm=norm), rtol=1e-4, atol=1e-4)
    check(jfft.ihfft(jnp.asarray(x), n=n, axis=axis, norm=norm), np.fft.ihfft(x, n=n, axis=axis, norm=norm))


@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("s,axes", [(None, None), (None, (0, 2)), ((3, 5), None), ((2, 4), (2, 0)),
                                    (None, (1,)), (None, (0, 1, 2))])
def test_nd(norm, s, axes):
    x = cplx((3, 4, 5))
    # NumPy 2 wants explicit axes with s (the default is the same: the last len(s)).
    np_axes = tuple(range(3 - len(s), 3)) if axes is None and s is not None else axes
    check(jfft.fftn(jnp.asarray(x), s=s, axes=axes, norm=norm), np.fft.fftn(x, s=s, axes=np_axes, norm=norm), 1e-4, 1e-4)
    check(jfft.ifftn(jnp.asarray(x), s=s, axes=axes, norm=norm), np.fft.ifftn(x, s=s, axes=np_axes, norm=norm))
    r = real((3, 4, 5))
    check(jfft.rfftn(jnp.asarray(r), s=s, axes=axes, norm=norm), np.fft.rfftn(r, s=s, axes=np_axes, norm=norm), 1e-4,
          1e-4)
    half = np.fft.rfftn(r, axes=axes).astype(np.complex64)
    check(jfft.irfftn(jnp.asarray(half), s=s, axes=axes, norm=norm), np.fft.irfftn(half, s=s, axes=np_axes, norm=norm),
          1e-4, 1e-4)


@pytest.mark.parametrize("ndim", [4, 5])
def test_more_than_three_axes(ndim):
    x = cplx((2,) * ndim + (3,))
    check(jfft.fftn(jnp.asarray(x)), np.fft.fftn(x), 1e-4, 1e-4)
    check(jfft.ifftn(jnp.asarray(x)), np.fft.ifftn(x), 1e-4, 1e-4)
    r = real((2,) * ndim)
    check(jfft.rfftn(jnp.asarray(r)), np.fft.rfftn(r), 1e-4, 1e-4)
    check(jfft.irfftn(jfft.rfftn(jnp.asarray(r))), r, 1e-4, 1e-4)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
@pytest.mark.parametrize("s,axes", [(None, (-2, -1)), ((4, 4), (0, 1)), (None, (2, 0))])
def test_2d(name, s, axes):
    x = real((3, 5, 4)) if name == "rfft2" else cplx((3, 5, 4))
    check(getattr(jfft, name)(jnp.asarray(x), s=s, axes=axes), getattr(np.fft, name)(x, s=s, axes=axes), 1e-4, 1e-4)


def test_float64_and_dtypes():
    with pyjax.enable_x64(True):
        x = RNG.normal(size=(8,))
        out = jfft.fft(jnp.asarray(x))
        assert out.dtype == np.complex128
        np.testing.assert_allclose(np.asarray(out), np.fft.fft(x), rtol=1e-12, atol=1e-12)
        assert jfft.rfft(jnp.asarray(x)).dtype == np.complex128
        assert jfft.irfft(jfft.rfft(jnp.asarray(x))).dtype == np.float64
    # Integers transform as the default float (complex64 spectra).
    assert jfft.fft(jnp.arange(4)).dtype == np.complex64
    assert jfft.rfft(jnp.arange(4)).dtype == np.complex64


def test_roundtrips():
    x = real((6, 7))
    check(jfft.ifft(jfft.fft(jnp.asarray(x))).real, x)
    check(jfft.irfft(jfft.rfft(jnp.asarray(x)), n=7), x)
    check(jfft.irfftn(jfft.rfftn(jnp.asarray(x)), s=x.shape), x, 1e-4, 1e-4)
    check(jfft.ihfft(jfft.hfft(jnp.asarray(x.astype(np.complex64)), n=12), n=12)[..., :7].real.shape, (6, 7))


@pytest.mark.parametrize("n", [1, 6, 7])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(n, d):
    check(jfft.fftfreq(n, d), np.fft.fftfreq(n, d).astype(np.float32), 1e-6, 1e-6)
    check(jfft.rfftfreq(n, d), np.fft.rfftfreq(n, d).astype(np.float32), 1e-6, 1e-6)
    assert jfft.fftfreq(n, dtype=jnp.float16).dtype == np.float16


@pytest.mark.parametrize("axes", [None, 0, 1, (0, 1), (1,)])
def test_shifts(axes):
    x = np.arange(30).reshape(5, 6)
    check(jfft.fftshift(jnp.asarray(x), axes), np.fft.fftshift(x, axes), 0, 0)
    check(jfft.ifftshift(jnp.asarray(x), axes), np.fft.ifftshift(x, axes), 0, 0)
    check(jfft.ifftshift(jfft.fftshift(jnp.asarray(x), axes), axes), x, 0, 0)


def test_jit():
    x = cplx((3, 8))
    check(pyjax.jit(lambda x: jfft.fft(x, norm="ortho"))(jnp.asarray(x)), np.fft.fft(x, norm="ortho"))
    check(pyjax.jit(lambda x: jfft.rfftn(x, s=(2, 6)))(jnp.asarray(x.real)), np.fft.rfftn(x.real, s=(2, 6)))


def test_vmap():
    x = cplx((3, 8))
    check(pyjax.vmap(jfft.fft)(jnp.asarray(x)), np.fft.fft(x))


def test_gradients():
    with pyjax.enable_x64(True):
        x = jnp.asarray(RNG.normal(size=(6,)))
        check_grads(lambda x: jfft.fft(x, norm="ortho").real, (x,), order=2)
        check_grads(lambda x: jfft.rfft(x, n=8).real, (x,), order=2)
        check_grads(lambda x: jfft.irfft(jfft.rfft(x) * 2), (x,), order=1)
        check_grads(lambda x: jfft.fftn(x.reshape(2, 3), norm="forward").real, (x,), order=1)


@pytest.mark.parametrize("call,message", [
    (lambda: jfft.fftn(jnp.ones((2, 2)), s=(2, 0)), "Shape should be positive."),
    (lambda: jfft.fftn(jnp.ones((2, 2)), s=(2, 2), axes=(0,)), "Shape and axes have different lengths."),
    (lambda: jfft.fftn(jnp.ones((2, 2)), axes=(0, 0)), r"jax.numpy.fft.fftn does not support repeated axes. Got axes \(0, 0\)."),
    (lambda: jfft.fft(jnp.ones((2, 2)), axis=(0, 1)), "does not support multiple axes. Please use jax.numpy.fft.fftn."),
    (lambda: jfft.fft2(jnp.ones((2, 2, 2)), axes=(0,)), r"jax.numpy.fft.fft2 only supports 2 axes. Got axes = \(0,\)."),
    (lambda: jfft.fft(jnp.ones(4), norm="unitary"), 'Invalid norm value unitary; should be "backward","ortho" or "forward".'),
    (lambda: jfft.rfft(jnp.ones(4, jnp.complex64)), "only real valued inputs supported for rfft"),
    (lambda: jfft.fftfreq([4]), r"only takes an int. Got n = \[4\]."),
    (lambda: jfft.rfftfreq(4, d=[1.0]), r"only takes a single value. Got d = \[1.0\]."),
])
def test_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
