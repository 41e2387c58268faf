"""pyjax.scipy.cluster.vq: vector quantisation (JAX's jax.scipy.cluster.vq)."""

from pyjax._src.scipy.cluster.vq import vq  # noqa: F401
