"""pyjax.scipy.cluster: clustering (JAX's jax.scipy.cluster)."""

from pyjax.scipy.cluster import vq  # noqa: F401
