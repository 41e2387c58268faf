"""NumPy impl of the fft primitive (scipy.fft's n-dimensional transforms).

scipy.fft (pocketfft's C++ version, vectorised) computes single precision
in single precision, 5-7x faster than numpy.fft's float32 transforms (see
docs/performance.md); the result is cast to the dtype the abstract
evaluation promised (an RFFT of float32 is complex64, an IRFFT of complex64
is float32). It is imported at the first transform: importing it costs
~0.25 s, which `import pyjax` does not pay. A large transform runs on the
split pool's number of cores (scipy.fft's `workers`: each 1-D transform on
one thread, so the same bits), as XLA runs its FFTs on every core.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.lax import fft as fft_lax

IMPLS: dict = {}
# Transforms of fewer elements run on one thread: a hand-off costs more than
# the share a second core would take (an FFT does ~5 log2(n) flops an element).
MIN_SPLIT_ELEMENTS = 1 << 17

_NAMES = {fft_lax.FftType.FFT: "fftn", fft_lax.FftType.IFFT: "ifftn", fft_lax.FftType.RFFT: "rfftn",
          fft_lax.FftType.IRFFT: "irfftn"}


def _transform(fft_type):
    import scipy.fft

    return getattr(scipy.fft, _NAMES[fft_type])


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
        out = _transform(fft_type)(x, s=fft_lengths, axes=axes, workers=_workers(x))
    else:
        out = _transform(fft_type)(x, axes=axes, workers=_workers(x))
    return out.astype(dtype, copy=False)


def _workers(x: np.ndarray) -> int:
    return split_lib.num_workers() if x.size >= MIN_SPLIT_ELEMENTS else 1


IMPLS[fft_lax.fft_p] = _fft
