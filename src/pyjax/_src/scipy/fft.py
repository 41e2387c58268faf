"""jax.scipy.fft: the type-II discrete cosine transform and its inverse.

Computed with one complex FFT of length N per axis (Makhoul, "A Fast Cosine
Transform in One and Two Dimensions", 1980): the input is reordered (even
samples, then odd ones reversed), transformed, and twisted by
exp(-i pi k / 2N). Multidimensional transforms are separable: one 1-D
transform per axis.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from pyjax._src import dtypes
from pyjax._src.lax import elementwise as lax_elementwise
from pyjax._src.numpy.util import canonicalize_axis, canonicalize_axis_tuple, ensure_arraylike, promote_dtypes_inexact
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name: str, type: int, norm: str | None) -> None:
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ["backward", "ortho"]:
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")


def _resize(x, n: int, axis: int):
    """x zero-padded or truncated to length n along axis."""
    size = x.shape[axis]
    if n == size:
        return x
    if n < size:
        return jnp.take(x, np.arange(n), axis=axis)
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, n - size)
    return jnp.pad(x, widths)


def _along(v, axis: int, ndim: int):
    """A 1-D array shaped to broadcast along `axis` of an ndim-array."""
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _twiddle(n: int, k, sign: float):
    return jnp.exp(sign * 0.5j * np.pi * k / n)


def _ortho_scale(x, axis: int):
    """1/sqrt(4N) for the first coefficient, 1/sqrt(2N) for the others."""
    n = x.shape[axis]
    factor = np.full(n, 2.0)
    factor[0] = 4.0
    return x / _along(jnp.sqrt(jnp.asarray(factor * n, x.dtype)), axis, x.ndim)


def _sizes(x, s, axes):
    """(s as a list or None, axes as a tuple) following scipy.fft.dctn's rules."""
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = canonicalize_axis_tuple(axes, x.ndim)
    return s, axes


def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Computes the discrete cosine transform of the input.

    JAX implementation of :func:`scipy.fft.dct`.

    Args:
      x: array.
      type: the DCT type; only type 2 is supported.
      n: the length of the transform (default ``x.shape[axis]``); the input is
        zero-padded or truncated to it.
      axis: the axis along which the DCT is computed (default -1).
      norm: ``None`` or ``"backward"`` (unnormalised) or ``"ortho"``.

    Returns:
      The DCT of ``x``, of an inexact dtype.
    """
    x = ensure_arraylike("dct", x)
    _check("dct", type, norm)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax_elementwise.complex(dct(x.real, type=type, n=n, axis=axis, norm=norm),
                                       dct(x.imag, type=type, n=n, axis=axis, norm=norm))
    axis = canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _resize(x, n, axis)
    size = x.shape[axis]
    # Even samples in order, then the odd ones reversed.
    order = np.concatenate([np.arange(0, size, 2), np.arange(1, size, 2)[::-1]])
    spectrum = jnp.fft.fft(jnp.take(x, order, axis=axis), axis=axis)
    k = _along(jnp.arange(size, dtype=spectrum.real.dtype), axis, x.ndim)
    out = 2 * (spectrum * _twiddle(size, k, -1.0)).real
    if norm == "ortho":
        out = _ortho_scale(out, axis)
    return out


def dctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None):
    """Computes the multidimensional discrete cosine transform of the input.

    JAX implementation of :func:`scipy.fft.dctn`.

    Args:
      x: array.
      type: the DCT type; only type 2 is supported.
      s: the shape of the transform along ``axes`` (padding or truncating).
      axes: the axes to transform (default: the last ``len(s)``, or all).
      norm: ``None`` or ``"backward"`` (unnormalised) or ``"ortho"``.

    Returns:
      The N-dimensional DCT of ``x``.
    """
    x = ensure_arraylike("dctn", x)
    _check("dctn", type, norm)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax_elementwise.complex(dctn(x.real, type=type, s=s, axes=axes, norm=norm),
                                       dctn(x.imag, type=type, s=s, axes=axes, norm=norm))
    s, axes = _sizes(x, s, axes)
    if len(axes) == 1:
        return dct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    if s is not None:
        for a, size in zip(axes, s):
            x = _resize(x, size, a)
    for a in axes:
        x = dct(x, axis=a, norm=norm)
    return x


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Computes the inverse discrete cosine transform of the input.

    JAX implementation of :func:`scipy.fft.idct`: ``idct(dct(x)) == x`` for
    either normalisation.

    Args:
      x: array.
      type: the DCT type; only type 2 is supported.
      n: the length of the transform (default ``x.shape[axis]``).
      axis: the axis along which the inverse is computed (default -1).
      norm: ``None`` or ``"backward"`` or ``"ortho"``.

    Returns:
      The inverse DCT of ``x``.
    """
    x = ensure_arraylike("idct", x)
    _check("idct", type, norm)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax_elementwise.complex(idct(x.real, type=type, n=n, axis=axis, norm=norm),
                                       idct(x.imag, type=type, n=n, axis=axis, norm=norm))
    axis = canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _resize(x, n, axis)
    size = x.shape[axis]
    (x,) = promote_dtypes_inexact(x)
    # Back to the orthonormal coefficients (twice for the unnormalised ones),
    # then the DCT-III as the real part of one inverse FFT.
    if norm is None or norm == "backward":
        x = _ortho_scale(x, axis)
    x = _ortho_scale(x, axis)
    k = _along(jnp.arange(size, dtype=x.dtype), axis, x.ndim)
    twist = _twiddle(size, k, 1.0)
    v = jnp.fft.ifft(x.astype(twist.dtype) * twist * (2 * size), axis=axis).real
    # Undo the even/odd reordering of the forward transform.
    half = (size + 1) // 2
    inverse_order = np.empty(size, dtype=np.int64)
    inverse_order[0::2] = np.arange(half)
    inverse_order[1::2] = np.arange(size - 1, half - 1, -1)
    return jnp.take(v, inverse_order, axis=axis)


def idctn(x, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
    """Computes the multidimensional inverse discrete cosine transform of the input.

    JAX implementation of :func:`scipy.fft.idctn`.

    Args:
      x: array.
      type: the DCT type; only type 2 is supported.
      s: the shape of the transform along ``axes`` (padding or truncating).
      axes: the axes to transform (default: the last ``len(s)``, or all).
      norm: ``None`` or ``"backward"`` or ``"ortho"``.

    Returns:
      The N-dimensional inverse DCT of ``x``.
    """
    x = ensure_arraylike("idctn", x)
    _check("idctn", type, norm)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax_elementwise.complex(idctn(x.real, type=type, s=s, axes=axes, norm=norm),
                                       idctn(x.imag, type=type, s=s, axes=axes, norm=norm))
    s, axes = _sizes(x, s, axes)
    if len(axes) == 1:
        return idct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    if s is not None:
        for a, size in zip(axes, s):
            x = _resize(x, size, a)
    for a in axes:
        x = idct(x, axis=a, norm=norm)
    return x
