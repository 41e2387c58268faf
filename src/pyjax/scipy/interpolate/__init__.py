"""pyjax.scipy.interpolate: interpolation on a regular grid (JAX's jax.scipy.interpolate)."""

from pyjax._src.scipy.interpolate import RegularGridInterpolator  # noqa: F401
