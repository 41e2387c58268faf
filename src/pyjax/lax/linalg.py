"""pyjax.lax.linalg: linear-algebra primitives (JAX's jax.lax.linalg)."""

from pyjax._src.lax.linalg import *  # noqa: F401,F403
from pyjax._src.lax.qdwh import qdwh  # noqa: E402,F401
