"""jax.experimental.sparse.linalg: spsolve (a CSR system solved on the host by
SciPy's SuperLU, as JAX's CPU backend does) and lobpcg_standard."""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.rules import unimplemented, SHARDING_OF_SPARSE
from pyjax._src.ad_util import Zero
from pyjax._src.avals import ShapedArray
from pyjax._src.extend_rules import defjvp
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.sparse.legacy import csr_matvec_p, csr_rows
import pyjax.numpy as jnp

spsolve_p = core.Primitive("spsolve")
spsolve_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _spsolve_impl(data, indices, indptr, b, *, tol, reorder):
    import scipy.sparse
    import scipy.sparse.linalg

    del tol, reorder  # SuperLU's own ordering; the direct solve has no tolerance
    data, indices, indptr, b = map(np.asarray, (data, indices, indptr, b))
    n = b.size
    A = scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))
    x = scipy.sparse.linalg.spsolve(A, b)
    return jnp.asarray(np.asarray(x, dtype=b.dtype))


def _spsolve_shape_rule(data, indices, indptr, b, *, tol, reorder):
    if data.dtype != b.dtype:
        raise ValueError(f"data types do not match: data.dtype={data.dtype} b.dtype={b.dtype}")
    if not (indices.ndim == indptr.ndim == b.ndim == data.ndim == 1):
        raise ValueError("spsolve: all arguments must be one-dimensional")
    if indptr.size != b.size + 1 or data.shape != indices.shape:
        raise ValueError("spsolve: inconsistent CSR arguments")
    return ShapedArray(b.shape, b.dtype)


def _csr_transpose(data, indices, indptr):
    """The CSR buffers of A^T: stored elements reordered by column."""
    n = indptr.shape[0] - 1
    rows = csr_rows(indptr, data.shape[0])
    order = jnp.lexsort((rows, indices))
    counts = jnp.zeros(n + 1, indptr.dtype).at[indices + 1].add(1, mode="drop")
    return data[order], rows[order], jnp.cumsum(counts).astype(indptr.dtype)


def _spsolve_jvp_data(g, data, indices, indptr, b, **params):
    # d(A^{-1} b) = -A^{-1} (dA x)
    x = spsolve_p.bind(data, indices, indptr, b, **params)
    dAx = csr_matvec_p.bind(g, indices, indptr, x, shape=(b.shape[0], b.shape[0]), transpose=False)
    return -spsolve_p.bind(data, indices, indptr, dAx, **params)


def _spsolve_transpose(ct, data, indices, indptr, b, **params):
    assert is_undefined_primal(b) and not is_undefined_primal(data)
    if type(ct) is Zero:
        return [None, None, None, Zero(b.aval)]
    return [None, None, None, spsolve_p.bind(*_csr_transpose(data, indices, indptr), ct, **params)]


spsolve_p.def_impl(_spsolve_impl)
spsolve_p.def_abstract_eval(_spsolve_shape_rule)
defjvp(spsolve_p, _spsolve_jvp_data, None, None,
       lambda g, data, indices, indptr, b, **params: spsolve_p.bind(data, indices, indptr, g, **params))
spsolve_p.def_transpose(_spsolve_transpose)
spsolve_p.def_batch(unimplemented(""))  # (JAX 0.11 has none either)


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
    """Solve ``A x = b`` for a square sparse ``A`` given in CSR form.

    ``A`` is described by the CSR buffers ``data``, ``indices`` and ``indptr``.
    A dedicated QR-based solver exists only for CUDA GPUs; on other backends
    the solve is delegated to :func:`scipy.sparse.linalg.spsolve`. ``vmap`` is
    not supported.

    Args:
      data: stored (nonzero) values of ``A``.
      indices: column index of each stored value.
      indptr: row pointers of ``A``.
      b: right-hand side vector.
      tol: singularity threshold (default 1e-6).
      reorder: fill-reducing ordering; ``0`` means none, and ``1``, ``2``,
        ``3`` select symrcm (the default), symamd and csrmetisnd.

    Returns:
      The solution ``x``, with the dtype and size of ``b``.
    """
    return spsolve_p.bind(jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr), jnp.asarray(b), tol=tol,
                          reorder=reorder)


# ---------------------------------------------------------------------------
# lobpcg_standard


def _check_inputs(A, X):
    n, k = X.shape
    if k == 0:
        raise ValueError(f"must have search dim > 0, got {k}")
    if k * 5 >= n:
        raise ValueError(f"expected search dim * 5 < matrix dim (got {k * 5}, {n})")
    out = A(jnp.zeros((n, 1), dtype=X.dtype))
    if out.dtype != X.dtype:
        raise ValueError(f"A, X must have same dtypes (were {out.dtype}, {X.dtype})")
    if out.shape != (n, 1):
        raise ValueError(f"A must be ({n}, {n}) matrix A, got output {out.shape}")


def _orthonormalize(S):
    # Cholesky-QR twice: stable enough for LOBPCG's small blocks, and jit-friendly.
    for _ in range(2):
        G = S.T @ S
        G = G + jnp.eye(G.shape[0], dtype=G.dtype) * (jnp.finfo(G.dtype).eps * jnp.trace(G))
        L = jnp.linalg.cholesky(G)
        S = jnp.linalg.solve(L, S.T).T
    return S


def lobpcg_standard(A, X, m: int = 100, tol=None):
    """Find the ``k`` largest eigenpairs of a Hermitian operator with LOBPCG.

    LOBPCG (Locally Optimal Block Preconditioned Conjugate Gradient) [1] is an
    iterative block eigensolver that maps well onto accelerators.

    Args:
      A: a Hermitian ``(n, n)`` matrix, or a callable applying it to an
        ``(n, j)`` block.
      X: ``(n, k)`` starting block for the ``k`` wanted eigenvectors. It is
        orthonormalized internally, so it only needs linearly independent
        columns. Requires ``0 < 5 * k < n``.
      m: iteration cap; the search never leaves the Krylov space spanned by
        ``X, A X, ..., A^m X``.
      tol: convergence threshold. A pair ``(lambda, v)`` counts as converged
        once ``|A v - lambda v|`` drops below
        ``tol * 10 * n * (lambda + |A v|)``, a rough bound on the rounding
        error of an exact eigenvector; iteration stops early when all ``k``
        pairs converge. Defaults to the machine epsilon of ``X``'s dtype.

    Returns:
      ``(theta, U, i)``: the ``(k,)`` eigenvalues, the ``(n, k)``
      eigenvectors, and the number of iterations run.

    [1] Knyazev, A. V. (2001). Toward the optimal preconditioned eigensolver:
        locally optimal block preconditioned conjugate gradient method.
    """
    from pyjax import lax

    op = A if callable(A) else (lambda x: A @ x)
    _check_inputs(op, X)
    n, k = X.shape
    tol = jnp.finfo(X.dtype).eps if tol is None else tol

    def rayleigh_ritz(S):
        S = _orthonormalize(S)
        w, V = jnp.linalg.eigh(S.T @ op(S))
        V = V[:, ::-1][:, :k]  # the top k, largest first
        return w[::-1][:k], S @ V, S, V

    def residual(X, theta):
        AX = op(X)
        R = AX - X * theta
        bound = tol * 10 * n * (jnp.abs(theta) + jnp.linalg.norm(AX, axis=0))
        return R, jnp.all(jnp.linalg.norm(R, axis=0) < bound)

    theta, X, _, _ = rayleigh_ritz(X)
    R, done = residual(X, theta)
    theta1, X1, S, V = rayleigh_ritz(jnp.concatenate([X, R], axis=1))
    P = S[:, k:] @ V[k:]

    def cond(state):
        i, _, _, _, done = state
        return (i < m) & ~done

    def body(state):
        i, X, P, theta, _ = state
        R, _ = residual(X, theta)
        theta, X_new, S, V = rayleigh_ritz(jnp.concatenate([X, R, P], axis=1))
        P = S[:, k:] @ V[k:]
        _, done = residual(X_new, theta)
        return i + 1, X_new, P, theta, done

    R1, done1 = residual(X1, theta1)
    state = (jnp.asarray(1), X1, P, theta1, done1)
    i, X, _, theta, _ = lax.while_loop(cond, body, state) if m > 1 else state
    return theta, X, i
