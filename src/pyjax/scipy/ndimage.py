"""pyjax.scipy.ndimage: N-dimensional interpolation (JAX's jax.scipy.ndimage)."""

from pyjax._src.scipy.ndimage import map_coordinates  # noqa: F401
