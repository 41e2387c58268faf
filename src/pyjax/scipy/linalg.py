"""pyjax.scipy.linalg: SciPy's linear algebra (JAX's jax.scipy.linalg)."""

from pyjax._src.scipy.linalg import (  # noqa: F401
    block_diag,
    cho_factor,
    cho_solve,
    cholesky,
    det,
    eigh,
    expm,
    inv,
    lu,
    lu_factor,
    lu_solve,
    qr,
    solve,
    solve_triangular,
    svd,
)
