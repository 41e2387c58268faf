"""pyjax.scipy.optimize: minimization (JAX's jax.scipy.optimize)."""

from pyjax._src.scipy.optimize.minimize import OptimizeResults, minimize  # noqa: F401
