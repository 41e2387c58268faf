"""The fft primitive: numpy.fft oracles in double precision, result dtypes
(complex64 stays complex64), abstract evaluation, jit vs eager, JAX's errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    check_close,
    check_impl_matches_abstract_eval,
    check_jit_matches_eager,
)

import pyjax
from pyjax import lax
from pyjax._src.lax import fft as fft_lax

FftType = lax.FftType


@pytest.fixture
def x64():
    pyjax.config.update("jax_enable_x64", True)
    yield
    pyjax.config.update("jax_enable_x64", False)


def _complex(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


CASES = [((8,), (8,)), ((3, 5), (5,)), ((2, 4, 6), (4, 6)), ((2, 3, 4, 5), (3, 4, 5))]


@pytest.mark.parametrize("shape,lengths", CASES, ids=str)
@pytest.mark.parametrize("fft_type,oracle", [(FftType.FFT, np.fft.fftn), (FftType.IFFT, np.fft.ifftn)], ids=str)
def test_complex_transforms(shape, lengths, fft_type, oracle):
    x = _complex(np.random.default_rng(0), shape)
    axes = tuple(range(len(shape) - len(lengths), len(shape)))
    out = check_impl_matches_abstract_eval(fft_lax.fft_p, x, fft_type=fft_type, fft_lengths=lengths)
    check_close(out, oracle(x.astype(np.complex128), axes=axes).astype(np.complex64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,lengths", CASES, ids=str)
def test_rfft_and_irfft(shape, lengths):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    axes = tuple(range(len(shape) - len(lengths), len(shape)))
    spectrum = check_impl_matches_abstract_eval(fft_lax.fft_p, x, fft_type=FftType.RFFT, fft_lengths=lengths)
    expected = np.fft.rfftn(x.astype(np.float64), axes=axes)
    check_close(spectrum, expected.astype(np.complex64), rtol=1e-5, atol=1e-5)
    back = check_impl_matches_abstract_eval(fft_lax.fft_p, np.asarray(spectrum), fft_type=FftType.IRFFT,
                                            fft_lengths=lengths)
    check_close(back, x, rtol=1e-5, atol=1e-5)


def test_irfft_odd_length_and_oracle():
    c = _complex(np.random.default_rng(2), (3, 4))
    out = lax.fft(c, FftType.IRFFT, (3, 7))
    assert np.asarray(out).shape == (3, 7) and np.asarray(out).dtype == np.float32
    check_close(out, np.fft.irfftn(c.astype(np.complex128), s=(3, 7), axes=(0, 1)).astype(np.float32), rtol=1e-5, atol=1e-5)


def test_float64_and_complex128(x64):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 6))
    spectrum = lax.fft(x, FftType.RFFT, (6,))
    assert np.asarray(spectrum).dtype == np.complex128
    check_close(spectrum, np.fft.rfft(x))
    c = _complex(rng, (5,), np.complex128)
    check_close(lax.fft(c, FftType.FFT, (5,)), np.fft.fft(c))


@pytest.mark.parametrize("dtype,fft_type,out_dtype", [
    ("float32", FftType.FFT, "complex64"), ("int32", FftType.FFT, "complex64"), ("bool", FftType.IFFT, "complex64"),
    ("int32", FftType.RFFT, "complex64"), ("float16", FftType.FFT, "complex64"), ("float32", "irfft", "float32"),
])
def test_wrapper_converts_the_input(dtype, fft_type, out_dtype):
    x = np.arange(1, 7).reshape(2, 3).astype(dtype)
    out = lax.fft(x, fft_type, (3,) if fft_type != "irfft" else (4,))
    assert np.asarray(out).dtype == np.dtype(out_dtype)


def test_empty_lengths_and_empty_arrays():
    x = np.ones(3, np.float32)
    out = lax.fft(x, FftType.FFT, ())
    check_close(out, x.astype(np.complex64))
    empty = fft_lax.fft_p.bind(np.ones((0, 4), np.complex64), fft_type=FftType.FFT, fft_lengths=(4,))
    assert np.asarray(empty).shape == (0, 4)


def test_jit_matches_eager_and_jaxpr_wraps_a_jit():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    check_jit_matches_eager(lambda x: lax.fft(x, FftType.RFFT, (8,)), x, rtol=1e-5, atol=1e-5)
    check_jit_matches_eager(lambda x: lax.fft(x, "fft", (3, 8)), x, rtol=1e-5, atol=1e-5)
    jaxpr = pyjax.make_jaxpr(lambda x: lax.fft(x, FftType.RFFT, (8,)))(x)
    (eqn,) = jaxpr.jaxpr.eqns
    assert eqn.primitive.name == "jit" and eqn.params["name"] == "fft"
    assert "fft[fft_lengths=(8,) fft_type=2]" in str(jaxpr)


def test_fft_type_prints_as_its_number():
    assert str(FftType.IRFFT) == "3" and repr(FftType.FFT) == "<FftType.FFT: 0>"


@pytest.mark.parametrize("call,error,message", [
    (lambda: lax.fft(np.ones(4, np.complex64), FftType.RFFT, (4,)), ValueError, "only real valued inputs supported for rfft"),
    (lambda: lax.fft(np.ones(4, np.complex64), "dct", (4,)), ValueError, "Unknown FFT type 'dct'"),
    (lambda: lax.fft(np.ones(4, np.complex64), 7, (4,)), TypeError, "Unknown FFT type value '7'"),
    (lambda: lax.fft(np.ones((2, 4), np.complex64), FftType.FFT, (5,)), ValueError,
     "FFT input shape (2, 4) minor dimensions must be equal to fft_lengths (5,)"),
    (lambda: lax.fft(np.ones((2, 4), np.float32), FftType.RFFT, (2, 5)), ValueError,
     "RFFT input shape (2, 4) minor dimensions must be equal to fft_lengths (2, 5)"),
    (lambda: lax.fft(np.ones((2, 3), np.complex64), FftType.IRFFT, (3, 4)), ValueError,
     "IRFFT input shape (2, 3) minor dimensions must be equal to all except the last fft_length, got fft_lengths=(3, 4)"),
    (lambda: lax.fft(np.ones(4, np.complex64), FftType.FFT, (1, 4)), ValueError,
     "FFT input shape (4,) must have at least as many input dimensions as fft_lengths (1, 4)."),
    (lambda: lax.fft(np.ones(4, np.float16), FftType.RFFT, (4,)), ValueError,
     "RFFT input must be float32 or float64, got float16"),
    (lambda: fft_lax.fft_p.bind(np.ones(4, np.float32), fft_type=FftType.FFT, fft_lengths=(4,)), ValueError,
     "FFT input must be complex64 or complex128, got float32"),
    (lambda: fft_lax.fft_p.bind(np.ones(4, np.float32), fft_type=FftType.IRFFT, fft_lengths=(4,)), ValueError,
     "IRFFT input must be complex64 or complex128, got float32"),
    # XLA's compile-time check (an MLIRError in JAX), raised here by the impl.
    (lambda: lax.fft(np.ones(4, np.complex64), FftType.IRFFT, (4,)), ValueError,
     "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. Got: 4 but fft_length is 4."),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message
