"""pyjax.scipy.fft: discrete cosine transforms (JAX's jax.scipy.fft)."""

from pyjax._src.scipy.fft import dct, dctn, idct, idctn  # noqa: F401
