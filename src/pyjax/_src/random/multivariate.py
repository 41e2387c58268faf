"""Samplers that draw vectors and matrices: multivariate_normal and orthogonal.

Both transform standard normals with a matrix factorisation (Cholesky, SVD,
eigh, QR) from lax.linalg; the NumPy backend computes those with the same
LAPACK routines XLA calls on the CPU.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy import ufuncs as jnp_ufuncs
from pyjax._src.numpy.shape_ops import broadcast_shapes, expand_dims
from pyjax._src.random.discrete import _concrete_int
from pyjax._src.random.distributions import normal
from pyjax._src.random.keys import canonicalize_shape, check_prng_key, check_shape
from pyjax._src.random.numpy_ops import promote_dtypes_inexact, shape_of


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky", *,
                        out_sharding=None):
    """Draw vectors from a multivariate normal distribution.

    Standard normal draws are multiplied by a factor of ``cov`` and shifted by ``mean``.

    Args:
      key: the PRNG key to consume.
      mean: the means, an array of shape ``(..., n)``.
      cov: the covariances, an array of shape ``(..., n, n)``.
      shape: batch shape of the result, broadcast-compatible with ``mean.shape[:-1]``
        and ``cov.shape[:-2]``; ``None`` (the default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).
      method: how ``cov`` is factored: ``'cholesky'`` (the default), ``'eigh'`` or
        ``'svd'``; the last two also accept singular ``cov``.

    Returns:
      A floating array of shape ``(*shape, n)``.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jax.random.multivariate_normal(jax.random.key(0), jnp.zeros(2), jnp.eye(2), (3,)).shape
      (3, 2)
    """
    key, _ = check_prng_key("multivariate_normal", key)
    mean, cov = promote_dtypes_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    if dtype is None:
        dtype = mean.dtype
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dtype}")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@jit(static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    if not len(shape_of(mean)) >= 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {len(shape_of(mean))}")
    if not len(shape_of(cov)) >= 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {len(shape_of(cov))}")
    n = mean.shape[-1]
    if shape_of(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {shape_of(cov)}.")
    if shape is None:
        shape = tuple(broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
    else:
        check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    # Any factor A with A A^T = cov maps standard normals z to mean + A z.
    # (jax.numpy.linalg's functions, jitted as JAX's are: the same jaxpr.)
    from pyjax._src.numpy import linalg as jnp_linalg

    if method == "svd":
        u, s, _ = jnp_linalg.svd(cov)
        factor = u * jnp_ufuncs.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp_linalg.eigh(cov)
        factor = v * jnp_ufuncs.sqrt(w[..., None, :])
    else:
        factor = jnp_linalg.cholesky(cov)
    normal_samples = normal(key, shape + mean.shape[-1:], dtype)
    return mean + _matvec(factor, normal_samples)


def _matvec(factor, vectors):
    # As JAX: einsum('...ij,...j->...i'), whose path for a single factor is
    # one unbatched product of the draws with the factor.
    from pyjax._src.numpy.einsum import einsum

    return einsum("...ij,...j->...i", factor, vectors)


def orthogonal(key, n: int, shape=(), dtype=None, m: int | None = None, *, out_sharding=None):
    """Draw a Haar-random orthogonal (or unitary) matrix.

    Complex dtypes draw from the unitary group. When ``m != n`` the result is
    semi-orthogonal: orthonormal rows if ``n <= m``, orthonormal columns if
    ``m <= n``. The construction is Mezzadri's (https://arxiv.org/abs/math-ph/0609050):
    the QR factor of a normal matrix with the signs of R's diagonal folded in.

    Args:
      key: the PRNG key to consume.
      n: the number of rows.
      shape: batch shape of the result (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).
      m: the number of columns (default ``n``).

    Returns:
      An array of shape ``(*shape, n, m)``.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> q = jax.random.orthogonal(jax.random.key(0), 3)
      >>> bool(jnp.allclose(q @ q.T, jnp.eye(3), atol=1e-5))
      True
    """
    columns = n if m is None else m
    shape = canonicalize_shape(shape)
    key, _ = check_prng_key("orthogonal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    check_shape("orthogonal", shape)
    n = _concrete_int(n, "The error occurred in jax.random.orthogonal()")
    columns = _concrete_int(columns, "The error occurred in jax.random.orthogonal()")
    return _orthogonal(key, n, columns, shape, dtype)


@jit(static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, _m, shape, dtype):
    # Q of the QR of a normal matrix, with the signs of R's diagonal taken out
    # so that the distribution is the Haar measure.
    z = normal(key, (*shape, max(n, _m), min(n, _m)), dtype)
    q, r = lax_linalg.qr(z, full_matrices=False)
    d = _diagonal(r)
    x = q * expand_dims(jnp_ufuncs.sign(d), -2)
    if n < _m:
        return x.mT
    return x


def _diagonal(x):
    # The main diagonal of the last two axes (jnp.linalg.diagonal).
    k = min(shape_of(x)[-2:])
    parts = [x[..., i, i][..., None] for i in range(k)]
    return lax_shapes.concatenate(parts, len(shape_of(x)) - 2)


__all__ = ["multivariate_normal", "orthogonal"]
