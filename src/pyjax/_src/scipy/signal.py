"""jax.scipy.signal: convolution, correlation, detrending and windowed-FFT
spectral estimates (stft/istft, welch, csd), built from jnp and lax so that
they trace, jit, vmap and differentiate.

Direct convolutions go through ``lax.conv_general_dilated`` (one channel,
one batch), FFT convolutions through ``jnp.fft``. Window names other than
``'hann'`` are evaluated by ``scipy.signal.get_window`` when SciPy is
installed, as in JAX.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from pyjax._src import dtypes
from pyjax._src.api import vmap
from pyjax._src.lax import convolution as lax_conv
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.numpy.util import (
    aval_of, canonicalize_axis, check_arraylike, promote_dtypes_complex, promote_dtypes_inexact,
)
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve", "istft", "stft",
           "welch"]

ModeString = Literal["full", "same", "valid"]


def _shape(x) -> tuple[int, ...]:
    return tuple(aval_of(x).shape)


def fftconvolve(in1, in2, mode: ModeString = "full", axes: Sequence[int] | None = None):
    """Convolve two N-dimensional arrays using the fast Fourier transform.

    JAX implementation of :func:`scipy.signal.fftconvolve`.

    Args:
      in1: left-hand input to the convolution.
      in2: right-hand input; must have ``in1.ndim == in2.ndim``.
      mode: ``"full"`` (default), ``"same"`` (centred, the size of ``in1``) or
        ``"valid"`` (only where the inputs fully overlap).
      axes: optional axes along which to convolve; the other axes are mapped
        over and must agree in size.

    Returns:
      The convolution, of the inputs' common inexact dtype.
    """
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in ["same", "full", "valid"]:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    fn = lambda a, b: _fftconvolve_unbatched(a, b, mode)
    if axes is None:
        return fn(in1, in2)
    axes_t = (axes,) if isinstance(axes, int) else tuple(axes)
    axes_t = tuple(canonicalize_axis(ax, in1.ndim) for ax in axes_t)
    mapped = sorted(set(range(in1.ndim)) - set(axes_t))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} in2.shape={in2.shape} "
                         f"axes={axes_t}")
    # Each mapped axis is vmapped over, innermost first, so the result keeps its place.
    for ax in mapped:
        fn = vmap(fn, in_axes=ax, out_axes=ax)
    return fn(in1, in2)


def _fftconvolve_unbatched(in1, in2, mode: str):
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == "valid":
        no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
        swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as "
                             "large as the other in every dimension.")
        if swap:
            in1, in2 = in2, in1
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape)):
        # An outer product: no transform needed.
        conv = in1 * in2
    else:
        complex_in = jnp.iscomplexobj(in1)
        forward = jnp.fft.fftn if complex_in else jnp.fft.rfftn
        inverse = jnp.fft.ifftn if complex_in else jnp.fft.irfftn
        conv = inverse(forward(in1, full_shape) * forward(in2, full_shape), full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape))
    starts = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape))
    return lax_slicing.dynamic_slice(conv, starts, out_shape)


def _convolve_nd(in1, in2, mode: str, *, precision):
    if mode not in ["full", "same", "valid"]:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes {in1.shape} and {in2.shape}.")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    shape_o = in2.shape
    if swap:
        in1, in2 = in2, in1
    shape = in2.shape
    # conv_general_dilated correlates: flipping the kernel makes it a convolution.
    kernel = jnp.flip(in2)
    if mode == "valid":
        padding = [(0, 0) for _ in shape]
    elif mode == "same":
        # Centred on in1's original extent even after a swap (SciPy's rule).
        padding = [(s - 1 - (so - 1) // 2, s - so + (so - 1) // 2) for s, so in zip(shape, shape_o)]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    out = lax_conv.conv_general_dilated(in1[None, None], kernel[None, None], (1,) * len(shape), padding,
                                        precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode: ModeString = "full", method: str = "auto", precision=None):
    """Convolution of two N-dimensional arrays.

    JAX implementation of :func:`scipy.signal.convolve`.

    Args:
      in1: left-hand input to the convolution.
      in2: right-hand input; must have ``in1.ndim == in2.ndim``.
      mode: ``"full"`` (default), ``"same"`` or ``"valid"``.
      method: ``"auto"`` (default, always direct), ``"direct"``
        (:func:`jax.lax.conv_general_dilated`) or ``"fft"``.
      precision: the precision of the direct computation (:class:`jax.lax.Precision`).

    Returns:
      The convolution, of the inputs' common inexact dtype.
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ["direct", "auto"]:
        return _convolve_nd(in1, in2, mode, precision=precision)
    raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def convolve2d(in1, in2, mode: ModeString = "full", boundary: str = "fill", fillvalue: float = 0,
               precision=None):
    """Convolution of two 2-dimensional arrays.

    JAX implementation of :func:`scipy.signal.convolve2d`; only
    ``boundary='fill'`` with ``fillvalue=0`` is supported.
    """
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("convolve2d() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError("convolve2d() only supports 2-dimensional inputs.")
    return _convolve_nd(in1, in2, mode, precision=precision)


def correlate(in1, in2, mode: ModeString = "full", method: str = "auto", precision=None):
    """Cross-correlation of two N-dimensional arrays.

    JAX implementation of :func:`scipy.signal.correlate`: the convolution of
    ``in1`` with ``in2`` flipped and conjugated.
    """
    in2 = jnp.asarray(in2)
    return convolve(in1, jnp.flip(in2.conj()), mode, precision=precision, method=method)


def correlate2d(in1, in2, mode: ModeString = "full", boundary: str = "fill", fillvalue: float = 0,
                precision=None):
    """Cross-correlation of two 2-dimensional arrays.

    JAX implementation of :func:`scipy.signal.correlate2d`; only
    ``boundary='fill'`` with ``fillvalue=0`` is supported.
    """
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("correlate2d() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError("correlate2d() only supports 2-dimensional inputs.")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape
    # SciPy centres "same" and "valid" on in1; the flips below keep that
    # placement whichever operand _convolve_nd ends up sliding.
    if mode == "valid" and swap and not same_shape:
        return _convolve_nd(jnp.flip(in2), in1.conj(), mode, precision=precision)
    if mode == "full" and swap:
        return _convolve_nd(jnp.flip(in2), in1.conj(), mode, precision=precision).conj()
    return jnp.flip(_convolve_nd(jnp.flip(in1), in2.conj(), mode, precision=precision))


def detrend(data, axis: int = -1, type: str = "linear", bp: int | Sequence[int] | np.ndarray = 0,
            overwrite_data: None = None):
    """Remove a linear or piecewise-linear trend (or the mean) along an axis.

    JAX implementation of :func:`scipy.signal.detrend`.

    Args:
      data: the input array.
      axis: the axis along which to detrend (default: the last).
      type: ``'linear'`` (default) fits and removes a least-squares line per
        piece; ``'constant'`` removes the mean.
      bp: breakpoints (static) between which separate lines are fitted.
      overwrite_data: not supported.

    Returns:
      The detrended array, of an inexact dtype.
    """
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ["constant", "linear"]:
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (arr,) = promote_dtypes_inexact(jnp.asarray(data))
    if type == "constant":
        return arr - arr.mean(axis, keepdims=True)
    n = arr.shape[axis]
    # Breakpoints are static: computed with NumPy.
    bps = np.sort(np.unique(np.r_[0, bp, n]))
    if bps[0] < 0 or bps[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data along given axis.")
    moved = jnp.moveaxis(arr, axis, 0)
    shape = moved.shape
    flat = moved.reshape(n, -1)
    for start, stop in zip(bps[:-1], bps[1:]):
        npts = int(stop - start)
        design = jnp.vstack([jnp.ones(npts, dtype=flat.dtype),
                             jnp.arange(1, npts + 1, dtype=flat.dtype) / np.asarray(npts, flat.dtype)]).T
        piece = slice(int(start), int(stop))
        coef = jnp.linalg.lstsq(design, flat[piece])[0]
        flat = flat.at[piece].add(-jnp.matmul(design, coef, precision=lax_dot.Precision.HIGHEST))
    return jnp.moveaxis(flat.reshape(shape), 0, axis)


# ---- windowed FFTs ----


def _hann(n: int):
    # The periodic Hann window, the default, computed without SciPy.
    if n == 1:
        return jnp.array([1.0])
    return jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2


def _named_window(window, n: int):
    if isinstance(window, str) and window == "hann":
        return _hann(n)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use window={window!r}") from err
    return get_window(window, n)


def _triage_segments(window, nperseg: int | None, input_length: int, dtype) -> tuple[Any, int]:
    """(window array, nperseg) from a window name/tuple or array and an optional nperseg."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(f"nperseg={n} is greater than input_length={input_length}, using nperseg={input_length}")
            n = input_length
        return jnp.array(_named_window(window, n), dtype=dtype), n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _median_bias(n: int):
    """The bias of the median of n periodograms relative to their mean
    (Allen et al., FINDCHIRP, appendix B)."""
    ii_2 = jnp.arange(2.0, n, 2)
    return 1 + jnp.sum(1.0 / (ii_2 + 1) - 1.0 / ii_2)


def _segments(x, nperseg: int, noverlap: int):
    """x[..., L] -> x[..., nseg, nperseg], the overlapping segments."""
    length = x.shape[-1]
    if nperseg == 1 and noverlap == 0:
        return x[..., None]
    step = nperseg - noverlap
    starts = np.arange(0, length - nperseg + 1, step)
    index = starts[:, None] + np.arange(nperseg)[None, :]
    return x[..., index]


def _fft_helper(x, win, detrend_func: Callable, nperseg: int, noverlap: int, nfft: int | None, sides: str):
    if x.dtype.kind == "i":
        x = x.astype(win.dtype)
    batch_rank = x.ndim - 1
    result = detrend_func(_segments(x, nperseg, noverlap))
    if jnp.iscomplexobj(win):
        (result,) = promote_dtypes_complex(result)
    result = win.reshape((1,) * batch_rank + (1, nperseg)) * result
    if sides == "twosided":
        return jnp.fft.fft(result, n=nfft)
    return jnp.fft.rfft(result.real, n=nfft)


def _odd_ext(x, n: int, axis: int = -1):
    """Extends x by n points at each end by odd reflection about the end points."""
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. "
                         f"It must not exceed x.shape[axis]-1, which is {x.shape[axis] - 1}.")
    take = lambda lo, hi: lax_slicing.slice_in_dim(x, lo, hi, axis=axis)
    size = x.shape[axis]
    left_end, right_end = take(0, 1), take(size - 1, size)
    left_ext = jnp.flip(take(1, n + 1), axis=axis)
    right_ext = jnp.flip(take(size - n - 1, size - 1), axis=axis)
    return jnp.concatenate((2 * left_end - left_ext, x, 2 * right_end - right_ext), axis=axis)


def _padder(mode: str, **kwargs):
    def pad(x, n, axis=-1):
        widths = [(0, 0)] * x.ndim
        widths[axis] = (n, n)
        return jnp.pad(x, widths, mode, **kwargs)
    return pad


_BOUNDARIES = {
    "even": _padder("reflect"),
    "odd": _odd_ext,
    "constant": _padder("edge"),
    "zeros": _padder("constant", constant_values=0.0),
    None: lambda x, *args, **kwargs: x,
}


def _static_int(value, what: str) -> int:
    return int(value)


def _pad_to_common_length(x, y):
    # The shorter signal is zero-padded to the longer one's length.
    if x.shape[-1] < y.shape[-1]:
        return jnp.concatenate((x, jnp.zeros((*x.shape[:-1], y.shape[-1] - x.shape[-1]), x.dtype)), -1), y
    return x, jnp.concatenate((y, jnp.zeros((*y.shape[:-1], x.shape[-1] - y.shape[-1]), x.dtype)), -1)


def _detrend_function(detrend_type, axis: int):
    # What each segment goes through before its FFT.
    if isinstance(detrend_type, str):
        return lambda d: detrend(d, type=detrend_type, axis=-1)
    if callable(detrend_type):
        if axis != -1:
            # The callable sees segments with time where the caller's axis was.
            def detrend_func(d):
                return jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
            return detrend_func
        return detrend_type
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _spectral_scale(win, fs, scaling: str, mode: str):
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    (scale,) = promote_dtypes_complex(scale)
    return scale


def _segment_times(length: int, nperseg: int, noverlap: int, fs, dtype, extended: bool):
    # The middle of each segment, in the signal's time (a boundary
    # extension shifts it back by half a segment).
    time = jnp.arange(nperseg / 2, length - nperseg / 2 + 1, nperseg - noverlap, dtype=dtype) / fs
    return time - (nperseg / 2) / fs if extended else time


def _spectral_helper(x, y, fs=1.0, window="hann", nperseg: int | None = None, noverlap: int | None = None,
                     nfft: int | None = None, detrend_type: bool | str | Callable = "constant",
                     return_onesided: bool = True, scaling: str = "density", axis: int = -1, mode: str = "psd",
                     boundary: str | None = None, padded: bool = False):
    """(freqs, times, result) shared by stft, csd and welch; y=None is the
    auto-spectrum of x."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: {list(_BOUNDARIES.keys())}")
    axis = canonicalize_axis(int(axis), np.ndim(x))
    if y is None:
        check_arraylike("spectral_helper", x)
        (x,) = promote_dtypes_inexact(x)
        y_arr = x
        outershape = tuple(s for i, s in enumerate(x.shape) if i != axis)
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        check_arraylike("spectral_helper", x, y)
        x, y_arr = promote_dtypes_inexact(x, y)
        if x.ndim != y_arr.ndim:
            raise ValueError("two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        try:
            outershape = jnp.broadcast_shapes(tuple(s for i, s in enumerate(x.shape) if i != axis),
                                              tuple(s for i, s in enumerate(y_arr.shape) if i != axis))
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = dtypes.to_complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype

    if nperseg is not None:
        nperseg = _static_int(nperseg, "nperseg of windowed-FFT")
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg_int = _triage_segments(window, nperseg, input_length=x.shape[axis], dtype=x.dtype)
    noverlap_int = nperseg_int // 2 if noverlap is None else _static_int(noverlap, "noverlap of windowed-FFT")
    nfft_int = nperseg_int if nfft is None else _static_int(nfft, "nfft of windowed-FFT")

    if y is None:
        if x.size == 0:
            return jnp.zeros(x.shape, freq_dtype), jnp.zeros(x.shape, freq_dtype), jnp.zeros(x.shape, result_dtype)
    elif x.size == 0 or y_arr.size == 0:
        shape = tuple(outershape[:axis]) + (min(x.shape[axis], y_arr.shape[axis]),) + tuple(outershape[axis:])
        return jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype), jnp.zeros(shape, result_dtype)

    x = jnp.moveaxis(x, axis, -1)
    if y is not None and y_arr.ndim > 1:
        y_arr = jnp.moveaxis(y_arr, axis, -1)
    if y is not None and x.shape[-1] != y_arr.shape[-1]:
        x, y_arr = _pad_to_common_length(x, y_arr)

    if nfft_int < nperseg_int:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap_int >= nperseg_int:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg_int - noverlap_int

    if boundary is not None:
        extend = _BOUNDARIES[boundary]
        x = extend(x, nperseg_int // 2, axis=-1)
        if y is not None:
            y_arr = extend(y_arr, nperseg_int // 2, axis=-1)
    if padded:
        # Zero-pad to a whole number of segments.
        nadd = (-(x.shape[-1] - nperseg_int) % nstep) % nperseg_int
        x = jnp.concatenate((x, jnp.zeros((*x.shape[:-1], nadd), x.dtype)), axis=-1)
        if y is not None:
            y_arr = jnp.concatenate((y_arr, jnp.zeros((*y_arr.shape[:-1], nadd), x.dtype)), axis=-1)

    detrend_func = _detrend_function(detrend_type, axis)
    scale = _spectral_scale(win, fs, scaling, mode)

    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and (jnp.iscomplexobj(x) or jnp.iscomplexobj(y)):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False")
    freqs = (jnp.fft.fftfreq if sides == "twosided" else jnp.fft.rfftfreq)(nfft_int, 1 / fs, dtype=freq_dtype)

    result = _fft_helper(x, win, detrend_func, nperseg_int, noverlap_int, nfft_int, sides)
    if y is not None:
        result = jnp.conjugate(result) * _fft_helper(y_arr, win, detrend_func, nperseg_int, noverlap_int,
                                                     nfft_int, sides)
    elif mode == "psd":
        result = jnp.conjugate(result) * result
    result = result * scale
    if sides == "onesided" and mode == "psd":
        # Energy of the negative frequencies folded onto the positive ones
        # (not DC, nor Nyquist for an even nfft).
        end = None if nfft_int % 2 else -1
        result = result.at[..., 1:end].multiply(2)

    time = _segment_times(x.shape[-1], nperseg_int, noverlap_int, fs, freq_dtype, boundary is not None)
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    return freqs, time, jnp.moveaxis(result, -1, axis)


def stft(x, fs=1.0, window: str = "hann", nperseg: int = 256, noverlap: int | None = None,
         nfft: int | None = None, detrend: bool = False, return_onesided: bool = True,
         boundary: str | None = "zeros", padded: bool = True, axis: int = -1):
    """Compute the short-time Fourier transform (STFT).

    JAX implementation of :func:`scipy.signal.stft`.

    Args:
      x: a time series.
      fs: sampling frequency (default 1.0).
      window: a window name, a (name, parameter) tuple, or an array (default ``'hann'``).
      nperseg: segment length (default 256).
      noverlap: overlap between segments (default ``nperseg // 2``).
      nfft: FFT length, if zero-padding is wanted (default ``nperseg``).
      detrend: ``False`` (default), ``'constant'``, ``'linear'`` or a callable.
      return_onesided: a one-sided spectrum for real input (default True).
      boundary: how the signal is extended at both ends: ``'zeros'`` (default),
        ``'even'``, ``'odd'``, ``'constant'`` or ``None``.
      padded: zero-pad the end to a whole number of segments (default True).
      axis: the time axis (default -1).

    Returns:
      ``(f, t, Zxx)``: sample frequencies, segment times, and the STFT.
    """
    return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                            scaling="spectrum", axis=axis, mode="stft", boundary=boundary, padded=padded)


def csd(x, y, fs=1.0, window: str = "hann", nperseg: int | None = None, noverlap: int | None = None,
        nfft: int | None = None, detrend: str = "constant", return_onesided: bool = True,
        scaling: str = "density", axis: int = -1, average: str = "mean"):
    """Estimate the cross power spectral density with Welch's method.

    JAX implementation of :func:`scipy.signal.csd`. ``y=None`` computes the
    PSD of ``x`` (as ``welch``) with a real result; any array ``y`` gives a
    complex result.

    Returns:
      ``(f, Pxy)``: sample frequencies and the cross spectral density.
    """
    freqs, _, pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                                     scaling, axis, mode="psd")
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                bias = _median_bias(pxy.shape[-1]).astype(pxy.dtype)
                if jnp.iscomplexobj(pxy):
                    pxy = jnp.median(jnp.real(pxy), axis=-1) + 1j * jnp.median(jnp.imag(pxy), axis=-1)
                else:
                    pxy = jnp.median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == "mean":
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = jnp.reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


def welch(x, fs=1.0, window: str = "hann", nperseg: int | None = None, noverlap: int | None = None,
          nfft: int | None = None, detrend: str = "constant", return_onesided: bool = True,
          scaling: str = "density", axis: int = -1, average: str = "mean"):
    """Estimate the power spectral density with Welch's method.

    JAX implementation of :func:`scipy.signal.welch`: the averaged modified
    periodograms of overlapping segments.

    Returns:
      ``(f, Pxx)``: sample frequencies and the power spectral density.
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                     detrend=detrend, return_onesided=return_onesided, scaling=scaling, axis=axis, average=average)
    return freqs, pxx.real


def _overlap_and_add(frames, step: int):
    """frames[..., nframes, length] summed at offsets of `step` into
    [..., step * (nframes - 1) + length]."""
    *batch, nframes, length = frames.shape
    out_len = step * (nframes - 1) + length
    index = (np.arange(nframes) * step)[:, None] + np.arange(length)[None, :]
    out = jnp.zeros((*batch, out_len), frames.dtype)
    return out.at[..., index].add(frames)


def istft(Zxx, fs=1.0, window: str = "hann", nperseg: int | None = None, noverlap: int | None = None,
          nfft: int | None = None, input_onesided: bool = True, boundary: bool = True, time_axis: int = -1,
          freq_axis: int = -2):
    """Perform the inverse short-time Fourier transform (ISTFT).

    JAX implementation of :func:`scipy.signal.istft`, the inverse of
    :func:`jax.scipy.signal.stft` by weighted overlap-add.

    Returns:
      ``(t, x)``: the sample times and the reconstructed time series.
    """
    check_arraylike("istft", Zxx)
    Zxx = jnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = jnp.asarray(Zxx, dtype=dtypes.to_complex_dtype(Zxx.dtype))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg_int = _static_int(nperseg or n_default, "nperseg: segment length of STFT")
    if nperseg_int < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = n_default
        if input_onesided and nperseg_int == n_default + 1:
            nfft_int += 1  # an odd nperseg: no FFT padding
    else:
        nfft_int = _static_int(nfft, "nfft of STFT")
    if nfft_int < nperseg_int:
        raise ValueError(f"FFT length ({nfft_int}) must be longer than nperseg ({nperseg_int}).")
    noverlap_int = _static_int(noverlap or nperseg_int // 2, "noverlap of STFT")
    if noverlap_int >= nperseg_int:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg_int - noverlap_int

    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer = tuple(i for i in range(Zxx.ndim) if i not in {time_axis, freq_axis})
        Zxx = jnp.transpose(Zxx, outer + (freq_axis, time_axis))

    inverse = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    # xsubs[..., T, N]: T samples per frame, N frames.
    xsubs = inverse(Zxx, axis=-2, n=nfft)[..., :nperseg_int, :]
    if isinstance(window, (str, tuple)):
        win = jnp.asarray(_named_window(window, nperseg_int)).astype(xsubs.dtype)
    else:
        win = jnp.asarray(window)
        if len(win.shape) != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg_int:
            raise ValueError(f"window must have length of {nperseg_int}")
    xsubs = xsubs * win.sum()  # undoes stft's 'spectrum' scaling
    win = win.reshape((1,) * (xsubs.ndim - 2) + (nperseg_int, 1))
    x = _overlap_and_add((xsubs * win).swapaxes(-2, -1), nstep)
    win_squared = jnp.repeat(win * win, xsubs.shape[-1], axis=-1)
    norm = _overlap_and_add(win_squared.swapaxes(-2, -1), nstep)
    if boundary:
        half = nperseg_int // 2
        x = x[..., half:-half]
        norm = norm[..., half:-half]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = jnp.moveaxis(x, -1, time_axis)
    time = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return time, x
