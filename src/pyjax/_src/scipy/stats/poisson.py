"""The Poisson distribution with mean `mu` (jax.scipy.stats.poisson)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import gammaincc, gammaln, xlogy
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    """``k log mu - lgamma(k + 1) - mu`` at non-negative integers k (shifted by loc); -inf elsewhere."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    zero = const(k, 0)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.ne(jnp.round(k), k)), -np.inf, log_probs)


def pmf(k, mu, loc=0):
    """The probability mass function."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(X <= k) = Q(floor(k + 1), mu), the regularized upper incomplete gamma."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    zero = const(k, 0)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))
