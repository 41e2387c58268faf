"""pyjax.scipy.integrate: integration of sampled data (JAX's jax.scipy.integrate)."""

from pyjax._src.scipy.integrate import trapezoid  # noqa: F401
