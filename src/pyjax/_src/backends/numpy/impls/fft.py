"""NumPy impl of the fft primitive (numpy.fft's n-dimensional transforms).

numpy.fft may compute in double precision; the result is cast back to the
dtype the abstract evaluation promised (complex64 stays complex64, an RFFT of
float32 is complex64, an IRFFT of complex64 is float32).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import fft as fft_lax

IMPLS: dict = {}

_TRANSFORMS = {
    fft_lax.FftType.FFT: np.fft.fftn,
    fft_lax.FftType.IFFT: np.fft.ifftn,
    fft_lax.FftType.RFFT: np.fft.rfftn,
}


def _out_dtype(x: np.ndarray, fft_type) -> np.dtype:
    if fft_type == fft_lax.FftType.RFFT:
        return np.dtype(np.complex128) if x.dtype == np.float64 else np.dtype(np.complex64)
    if fft_type == fft_lax.FftType.IRFFT:
        return np.finfo(x.dtype).dtype
    return x.dtype


def _out_shape(x: np.ndarray, fft_type, fft_lengths: tuple) -> tuple:
    batch = x.shape[:x.ndim - len(fft_lengths)]
    if fft_type == fft_lax.FftType.RFFT:
        return batch + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
    if fft_type == fft_lax.FftType.IRFFT:
        return batch + fft_lengths
    return x.shape


def _fft(x, *, fft_type, fft_lengths: tuple) -> np.ndarray:
    x = np.asarray(x)
    dtype = _out_dtype(x, fft_type)
    if x.size == 0 or 0 in fft_lengths:
        # numpy.fft refuses empty transforms; XLA returns an empty (or zero) result.
        return np.zeros(_out_shape(x, fft_type, fft_lengths), dtype)
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if fft_type == fft_lax.FftType.IRFFT:
        if x.shape[-1] != fft_lengths[-1] // 2 + 1:
            # XLA refuses to compile this (NumPy would crop or pad the input).
            raise ValueError("IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. "
                             f"Got: {x.shape[-1]} but fft_length is {fft_lengths[-1]}.")
        # `s` gives the real output lengths; the last input axis holds n // 2 + 1 terms.
        out = np.fft.irfftn(x, s=fft_lengths, axes=axes)
    else:
        out = _TRANSFORMS[fft_type](x, axes=axes)
    return out.astype(dtype, copy=False)


IMPLS[fft_lax.fft_p] = _fft
