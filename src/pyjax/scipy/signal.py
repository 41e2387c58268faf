"""pyjax.scipy.signal: signal processing (JAX's jax.scipy.signal)."""

from pyjax._src.scipy.signal import (  # noqa: F401
    convolve,
    convolve2d,
    correlate,
    correlate2d,
    csd,
    detrend,
    fftconvolve,
    istft,
    stft,
    welch,
)
