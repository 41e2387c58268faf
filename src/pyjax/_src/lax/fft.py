"""The fft primitive: n-dimensional discrete Fourier transforms over the
trailing `len(fft_lengths)` axes (XLA's Fft).

`fft_type` picks the transform (FftType: FFT, IFFT, RFFT, IRFFT; an IntEnum,
so it prints as its number in a jaxpr). Complex transforms keep the dtype;
RFFT takes float32/float64 to complex64/complex128 and halves the last axis
to n // 2 + 1; IRFFT goes back to the real dtype with the full lengths.
The public `lax.fft` is a jitted function, as in JAX, so a traced call shows
up as `jit[name=fft ...]` around the primitive.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.jit import jit
from pyjax._src.lax.elementwise import convert_element_type

__all__ = ["FftType", "fft", "fft_p"]


class FftType(enum.IntEnum):
    """Which FFT operation to perform."""

    FFT = 0
    "Forward complex-to-complex FFT."

    IFFT = 1
    "Inverse complex-to-complex FFT."

    RFFT = 2
    "Forward real-to-complex FFT."

    IRFFT = 3
    "Inverse real-to-complex FFT."


_FFT_TYPE_NAMES = {
    "fft": FftType.FFT, "FFT": FftType.FFT, "ifft": FftType.IFFT, "IFFT": FftType.IFFT,
    "rfft": FftType.RFFT, "RFFT": FftType.RFFT, "irfft": FftType.IRFFT, "IRFFT": FftType.IRFFT,
}


def _complex_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dtype == np.float64 else np.dtype(np.complex64)


fft_p = Primitive("fft")


@fft_p.def_abstract_eval
def _fft_abstract_eval(x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple) -> ShapedArray:
    n = len(fft_lengths)
    if n > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many "
                         f"input dimensions as fft_lengths {fft_lengths}.")
    minor = x.shape[-n:] if n else ()
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if minor != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must "
                             f"be equal to fft_lengths {fft_lengths}")
        shape = x.shape[:x.ndim - n] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
        dtype = _complex_dtype(x.dtype)
    elif fft_type == FftType.IRFFT:
        if not np.issubdtype(x.dtype, np.complexfloating):
            raise ValueError(f"IRFFT input must be complex64 or complex128, got {x.dtype}")
        if minor[:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must "
                             f"be equal to all except the last fft_length, got fft_lengths={fft_lengths!r}")
        shape = x.shape[:x.ndim - n] + fft_lengths
        dtype = np.finfo(x.dtype).dtype
    else:
        if not np.issubdtype(x.dtype, np.complexfloating):
            raise ValueError(f"FFT input must be complex64 or complex128, got {x.dtype}")
        if minor != fft_lengths:
            raise ValueError(f"FFT input shape {x.shape} minor dimensions must "
                             f"be equal to fft_lengths {fft_lengths}")
        shape, dtype = x.shape, x.dtype
    return ShapedArray(shape, dtype, x.weak_type, x.sharding)


def fft(x, fft_type: FftType | str, fft_lengths: Sequence[int]):
    """A discrete Fourier transform over the trailing `len(fft_lengths)` axes.

    Args:
      x: the input. FFT/IFFT/IRFFT cast it to complex, RFFT to a real
        floating dtype.
      fft_type: an `FftType` or its name ('fft', 'ifft', 'rfft', 'irfft').
      fft_lengths: the transform's lengths, one per trailing axis (a tuple:
        it is a static argument and must be hashable).

    Returns:
      The transform. RFFT halves the last axis to `n // 2 + 1`; IRFFT
      restores the full lengths.

    >>> lax.fft(jnp.ones(4, jnp.complex64), lax.FftType.FFT, (4,))   # doctest: +SKIP
    Array([4.+0.j, 0.+0.j, 0.+0.j, 0.+0.j], dtype=complex64)
    """
    if isinstance(fft_type, str):
        kind = _FFT_TYPE_NAMES.get(fft_type)
        if kind is None:
            raise ValueError(f"Unknown FFT type '{fft_type}'")
    elif isinstance(fft_type, FftType):
        kind = fft_type
    else:
        raise TypeError(f"Unknown FFT type value '{fft_type}'")
    dtype = dtypes.dtype(x)
    if kind == FftType.RFFT:
        if np.issubdtype(dtype, np.complexfloating):
            raise ValueError("only real valued inputs supported for rfft")
        x = convert_element_type(x, dtypes.to_inexact_dtype(dtype))
    else:
        x = convert_element_type(x, dtypes.to_complex_dtype(dtype))
    if len(fft_lengths) == 0:
        return x  # XLA has no rank-0 transform: the identity
    return fft_p.bind(x, fft_type=kind, fft_lengths=tuple(int(n) for n in fft_lengths))


fft = jit(fft, static_argnums=(1, 2))


# ---------------------------------------------------------------------------
# Autodiff rules
#
# Every FFT is linear. The DFT matrix is symmetric, so a complex transform
# transposes to itself (FFT to FFT, IFFT to IFFT). RFFT keeps only half the
# spectrum: its transpose is an IRFFT of the conjugated cotangent with the
# bins that stand for two (all but DC and, for even n, Nyquist) halved, times
# n; IRFFT's transpose is the mirror image. The helpers stage the equations
# JAX's `_rfft_transpose` (a jit of that name) and `_irfft_transpose` do.

import math

from pyjax._src import core as _core
from pyjax._src.interpreters.jvp import deflinear as _deflinear
from pyjax._src.lax import elementwise as _ew
from pyjax._src.lax import shapes as _shapes


def _hermitian_mask(n_bins: int, fft_length: int, dtype):
    """2 for the bins of the half spectrum that stand for a pair, 1 for DC
    (and for the Nyquist bin of an even length)."""
    from pyjax._src.lax.slicing import dynamic_update_slice

    mask = _shapes.broadcast_in_dim(np.asarray(2, dtype)[()], (n_bins,), ())
    one = _shapes.broadcast_in_dim(np.asarray(1, dtype)[()], (1,), ())
    mask = dynamic_update_slice(mask, one, (0,))
    if fft_length % 2 == 0:
        one = _shapes.broadcast_in_dim(np.asarray(1, dtype)[()], (1,), ())
        mask = dynamic_update_slice(mask, one, (n_bins - 1,))
    return mask


def _weak_scalar(value, dtype):
    # A Python scalar as jnp arithmetic promotes it: weakly typed, of the
    # array's dtype (a literal in the jaxpr).
    return _ew._convert_element_type(value, np.dtype(dtype), weak_type=True)


def _rfft_transpose(t, fft_lengths):
    # t: complex [..., n // 2 + 1] -> real [..., n]
    t_aval = _core.get_aval(t)
    mask = _hermitian_mask(t_aval.shape[-1], fft_lengths[-1], t_aval.dtype)
    mask = _shapes.expand_dims(mask, tuple(range(t_aval.ndim - 1)))
    out = fft(_ew.div(_ew.conj(t), mask), FftType.IRFFT, fft_lengths)
    return _ew.mul(_weak_scalar(math.prod(fft_lengths), _core.get_aval(out).dtype), out)


_rfft_transpose = jit(_rfft_transpose, static_argnums=1)


def _irfft_transpose(t, fft_lengths):
    # t: real [..., n] -> complex [..., n // 2 + 1], conjugated (JAX's
    # convention for the cotangents of complex inputs).
    x = fft(t, FftType.RFFT, fft_lengths)
    x_aval = _core.get_aval(x)
    mask = _hermitian_mask(x_aval.shape[-1], fft_lengths[-1], x_aval.dtype)
    scale = 1 / math.prod(fft_lengths)
    out = _ew.mul(_ew.mul(_weak_scalar(scale, x_aval.dtype), _shapes.expand_dims(mask, tuple(range(x_aval.ndim - 1)))), x)
    return _ew.conj(out)


def _fft_transpose(t, operand, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(t, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(t, fft_lengths)]
    return [fft(t, fft_type, fft_lengths)]


_deflinear(fft_p, _fft_transpose)


# ---------------------------------------------------------------------------
# Batching rule: the transform acts on trailing axes, so the batch axis goes
# to the front (JAX 0.11 moves it there and calls the jitted `fft`, which is
# why a vmapped transform stages a nested jit).

from pyjax._src.lax import batching_util as _batching_util  # noqa: E402
from pyjax._src.lax import sharding_rules


def _fft_batch(axis_data, args, dims, *, fft_type, fft_lengths):
    (x,), (d,) = args, dims
    # x: (..., B at d, ..., n...) -> (B, ..., n...)
    return fft(_batching_util.moveaxis(x, d, 0), fft_type, fft_lengths), 0


fft_p.def_batch(_fft_batch)
fft_p.def_sharding_rule(sharding_rules.keep_operand_rule)
