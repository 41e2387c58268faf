"""The Dirichlet distribution on the simplex (jax.scipy.stats.dirichlet)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.linalg import _promote_inexact
from pyjax._src.numpy.util import aval_of
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import gammaln, xlogy
from pyjax._src.scipy.stats._common import const

__all__ = ["logpdf", "pdf"]


def _is_simplex(x):
    total = jnp.sum(x, axis=0)
    return jnp.all(x > 0, axis=0) & (abs(total - 1) < 1e-6)


def logpdf(x, alpha):
    """Log of the Dirichlet density.

    Args:
      x: points on the simplex along axis 0, with K entries (or K - 1: the
        last is then one minus their sum).
      alpha: (K,) concentrations.

    Returns:
      The log-density; -inf for points off the simplex.
    """
    x, alpha = _promote_inexact(x, alpha)
    if aval_of(alpha).ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={aval_of(alpha).shape}")
    k = aval_of(alpha).shape[0]
    if aval_of(x).shape[0] not in (k, k - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one entry fewer; got "
                         f"x.shape={aval_of(x).shape}, alpha.shape={aval_of(alpha).shape}")
    one = const(x, 1)
    if aval_of(x).shape[0] != k:
        x = jnp.concatenate([x, lax.sub(one, jnp.sum(x, 0, keepdims=True))], axis=0)
    normalize_term = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    if aval_of(x).ndim > 1:
        alpha = lax_shapes.broadcast_in_dim(alpha, aval_of(alpha).shape + (1,) * (aval_of(x).ndim - 1), (0,))
    log_probs = lax.sub(jnp.sum(xlogy(lax.sub(alpha, one), x), axis=0), normalize_term)
    return jnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x, alpha):
    """The Dirichlet density."""
    return lax.exp(logpdf(x, alpha))
