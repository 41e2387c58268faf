"""pyjax.scipy.sparse: sparse linear algebra (JAX's jax.scipy.sparse)."""

from pyjax.scipy.sparse import linalg  # noqa: F401
