"""jax.numpy.fft: NumPy's discrete Fourier transforms on lax.fft.

lax.fft transforms the trailing one to three axes; the functions here move
the requested axes to the end (and back), crop or zero-pad them to the
requested lengths, apply the normalisation, and split transforms over more
than three axes into several lax.fft calls.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from pyjax._src import dtypes
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import fft as lax_fft
from pyjax._src.numpy.util import aval_of, check_arraylike, ensure_array, promote_dtypes
from pyjax._src.scipy import jnp_pending as jnp

FftType = lax_fft.FftType

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "irfft",
    "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]


def _inexact(x):
    (x,) = promote_dtypes("fft", x)
    dtype = aval_of(x).dtype
    if dtype.kind not in "fc" and dtype != dtypes.bfloat16:
        x = lax_ew._convert_element_type(x, dtypes.to_inexact_dtype(dtype), aval_of(x).weak_type)
    return x


def _norm_factor(s, dtype, func_name: str, norm: str):
    """The factor a transform of `norm` mode is multiplied by (s: the transform lengths)."""
    if norm == "backward":
        # JAX multiplies by jnp.array(1), which folds into a constant of the
        # result's dtype at trace time: a literal 1 of that dtype.
        return np.ones((), dtype)[()]
    lengths = _inexact(jnp.array(s, dtype=dtype))
    inverse = func_name.startswith("i")
    if norm == "ortho":
        root = jnp.sqrt(jnp.prod(lengths))
        return root if inverse else 1 / root
    if norm == "forward":
        size = jnp.prod(lengths)
        return size if inverse else 1 / size
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _fft_core(func_name: str, fft_type: FftType, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{func_name}"
    check_arraylike(full_name, a)
    arr = ensure_array(a)
    ndim = aval_of(arr).ndim
    if s is not None:
        s = tuple(map(operator.index, s))
        if np.any(np.less_equal(s, 0)):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if orig_axes is not None:
        axes = tuple(range(ndim - len(axes), ndim))
        arr = jnp.moveaxis(arr, orig_axes, axes)
    shape = aval_of(arr).shape
    if s is not None:
        in_shape = list(shape)
        for axis, length in zip(axes, s):
            in_shape[axis] = length
        if fft_type == FftType.IRFFT:
            # An inverse real transform of length n reads n // 2 + 1 bins.
            in_shape[-1] = in_shape[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_shape)]
        arr = jnp.pad(arr, [(0, want - have) for want, have in zip(in_shape, aval_of(arr).shape)])
    elif fft_type == FftType.IRFFT:
        s = [shape[axis] for axis in axes[:-1]]
        if axes:
            s += [max(0, 2 * (shape[axes[-1]] - 1))]
    else:
        s = [shape[axis] for axis in axes]
    transformed = _fft_core_nd(arr, fft_type, s)
    if norm is not None:
        transformed = transformed * _norm_factor(s, aval_of(transformed).dtype, func_name, norm)
    if orig_axes is not None:
        transformed = jnp.moveaxis(transformed, axes, orig_axes)
    return transformed


def _fft_core_nd(arr, fft_type: FftType, s):
    # lax.fft handles up to three axes: transform the last two or three, then
    # the others (moved to the end) as a complex transform.
    if len(s) <= 3:
        return lax_fft.fft(arr, fft_type, tuple(s))
    n = 2 if len(s) == 4 else 3
    ndim = aval_of(arr).ndim
    src = tuple(range(ndim - len(s), ndim - n))
    dst = tuple(range(ndim - len(s) + n, ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax_fft.fft(arr, fft_type, tuple(s)[-n:])
        arr = jnp.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return jnp.moveaxis(arr, dst, src)
    arr = jnp.moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = jnp.moveaxis(arr, dst, src)
    return lax_fft.fft(arr, fft_type, tuple(s)[-n:])


def _check_1d_axis(func_name: str, axis) -> None:
    if isinstance(axis, (list, tuple)):
        full_name = f"jax.numpy.fft.{func_name}"
        raise ValueError(  # noqa: TRY004 (JAX raises ValueError)
            f"{full_name} does not support multiple axes. Please use {full_name}n. Got axis = {axis!r}.")


def _fft_core_1d(func_name: str, fft_type: FftType, a, n, axis, norm):
    _check_1d_axis(func_name, axis)
    return _fft_core(func_name, fft_type, a, None if n is None else [n], None if axis is None else [axis], norm)


def _fft_core_2d(func_name: str, fft_type: FftType, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


_NORM_DOC = """
      norm: ``"backward"`` (the default: no scaling forward, 1/n inverse),
        ``"ortho"`` (1/sqrt(n) both ways) or ``"forward"`` (1/n forward)."""


def fft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """One-dimensional discrete Fourier transform.

    Args:
      a: input array (real inputs are converted to complex).
      n: the transform length; `a` is cropped or zero-padded along `axis` to it.
      axis: the axis to transform.""" + _NORM_DOC
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """One-dimensional inverse discrete Fourier transform (see fft for the arguments)."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """One-dimensional Fourier transform of a real input: the n // 2 + 1
    non-negative frequency terms (see fft for the arguments)."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Inverse of rfft: a real signal of length `n` (default ``2 * (m - 1)``
    for m input bins) from its non-negative frequency terms."""
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Fourier transform of a Hermitian-symmetric signal given by its first
    half: a real spectrum of length `n` (default ``2 * (m - 1)``)."""
    conj_a = jnp.conj(a)
    _check_1d_axis("hfft", axis)
    length = (aval_of(conj_a).shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * length


def ihfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Inverse of hfft: the first half of the Hermitian spectrum of a real signal."""
    _check_1d_axis("ihfft", axis)
    arr = jnp.asarray(a)
    length = aval_of(arr).shape[axis] if n is None else n
    output = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return jnp.conj(output) * (1 / length)


def fftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None):
    """N-dimensional discrete Fourier transform.

    Args:
      a: input array.
      s: the transform lengths (cropping or zero-padding), one per axis.
      axes: the axes to transform (default: the last len(s), or all).""" + _NORM_DOC
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None):
    """N-dimensional inverse discrete Fourier transform (see fftn)."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None):
    """N-dimensional Fourier transform of a real input; the last axis keeps
    its n // 2 + 1 non-negative frequencies (see fftn)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str | None = None):
    """Inverse of rfftn (see fftn); the last length defaults to ``2 * (m - 1)``."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def fft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """Two-dimensional discrete Fourier transform (fftn over two axes)."""
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """Two-dimensional inverse discrete Fourier transform."""
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """Two-dimensional Fourier transform of a real input."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """Inverse of rfft2."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def _check_scalar_args(func_name: str, n, d) -> None:
    # ValueError, not TypeError: JAX's messages and classes.
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{func_name} only takes an int. Got n = {list(n)}.")  # noqa: TRY004
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{func_name} only takes a single value. Got d = {list(d)}.")  # noqa: TRY004


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an fft of length `n` with sample spacing `d`:
    ``[0, 1, ..., n//2 - 1 (or n//2), -(n//2), ..., -1] / (d * n)``."""
    dtype = dtype or dtypes.default_float_dtype()
    _check_scalar_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = dtypes.finfo(dtypes.to_inexact_dtype(np.dtype(dtype))).dtype
    i = jnp.arange(n, dtype=dtype)
    # Indices past the middle wrap to the negative frequencies.
    k = (i + n // 2) % n - n // 2
    return (k.astype(dtype) / jnp.array(d * n, dtype=dtype)).astype(out_dtype)


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of an rfft of length `n`:
    ``[0, 1, ..., n//2] / (d * n)``."""
    dtype = dtype or dtypes.default_float_dtype()
    _check_scalar_args("rfftfreq", n, d)
    k = jnp.arange(0, (n // 2 if n % 2 == 0 else (n - 1) // 2) + 1, dtype=dtype)
    return k / jnp.array(d * n, dtype=dtype)


def _shift(name: str, x, axes, sign: int):
    check_arraylike(name, x)
    x = ensure_array(x)
    shape = aval_of(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
        shift = [sign * (dim // 2) for dim in shape]
    elif isinstance(axes, int):
        shift = sign * (shape[axes] // 2)
    else:
        shift = [sign * (shape[ax] // 2) for ax in axes]
    return jnp.roll(x, shift, axes)


def fftshift(x, axes: None | int | Sequence[int] = None):
    """Moves the zero-frequency term to the centre (rolls each axis by half its length)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes: None | int | Sequence[int] = None):
    """Undoes fftshift."""
    return _shift("ifftshift", x, axes, -1)
