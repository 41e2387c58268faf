"""The multivariate normal distribution (jax.scipy.stats.multivariate_normal)."""

from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.numpy.linalg import _promote_inexact
from pyjax._src.numpy.util import aval_of
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.linalg import _vectorized

__all__ = ["logpdf", "pdf"]


def _squared_norm(y):
    """einsum('...i,...i->...', y, y): one dot_general, batched over the leading axes."""
    nd = aval_of(y).ndim
    batch = tuple(range(nd - 1))
    out = lax_dot.dot_general(y, y, (((nd - 1,), (nd - 1,)), (batch, batch)), None, aval_of(y).dtype)
    return lax._convert_element_type(out, aval_of(y).dtype, aval_of(y).weak_type)


def logpdf(x, mean, cov, allow_singular=None):
    """Log of the multivariate normal density.

    Args:
      x: (..., n) points.
      mean: (..., n) means (or a scalar: a one-dimensional normal).
      cov: (..., n, n) covariances, or a scalar variance shared by all axes.
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = _promote_inexact(x, mean, cov)
    if not aval_of(mean).shape:
        return -1 / 2 * jnp.square(x - mean) / cov - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov))
    n = aval_of(mean).shape[-1]
    if not aval_of(cov).shape:
        y = x - mean
        return -1 / 2 * _squared_norm(y) / cov - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov))
    if aval_of(cov).ndim < 2 or aval_of(cov).shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    # With cov = L L^T, the quadratic form is |L^-1 (x - mean)|**2 and
    # log det cov = 2 sum log diag L.
    L = lax_linalg.cholesky(cov)
    solve = partial(lax_linalg.triangular_solve, lower=True, transpose_a=True)
    y = _vectorized(solve, "(n,n),(n)->(n)", L, x - mean)
    log_det_half = jnp.sum(jnp.log(jnp.diagonal(L, axis1=-1, axis2=-2)), axis=-1)
    return -1 / 2 * _squared_norm(y) - n / 2 * jnp.log(2 * np.pi) - log_det_half


def pdf(x, mean, cov):
    """The multivariate normal density."""
    return lax.exp(logpdf(x, mean, cov))
