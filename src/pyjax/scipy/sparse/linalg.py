"""pyjax.scipy.sparse.linalg: Krylov solvers (JAX's jax.scipy.sparse.linalg)."""

from pyjax._src.scipy.sparse.linalg import bicgstab, cg, gmres  # noqa: F401
