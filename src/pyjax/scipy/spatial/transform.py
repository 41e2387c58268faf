"""pyjax.scipy.spatial.transform: rotations (JAX's jax.scipy.spatial.transform)."""

from pyjax._src.scipy.spatial.transform import Rotation, Slerp  # noqa: F401
