"""pyjax.numpy.linalg: NumPy's linear algebra (JAX's jax.numpy.linalg)."""

from pyjax._src.numpy.linalg import (  # noqa: F401
    EigResult, EighResult, QRResult, SlogdetResult, SVDResult, cholesky, eig, eigh, eigvals, eigvalsh, inv,
    lstsq, pinv, qr, solve, svd, svdvals,
)
from pyjax._src.numpy.linalg_det import cond, det, matrix_power, matrix_rank, slogdet  # noqa: F401
from pyjax._src.numpy.linalg_norms import (  # noqa: F401
    cross, diagonal, matmul, matrix_norm, matrix_transpose, multi_dot, norm, outer, tensordot, tensorinv,
    tensorsolve, trace, vecdot, vector_norm,
)
