"""The Bernoulli distribution (jax.scipy.stats.bernoulli)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import xlog1py, xlogy
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k, p, loc=0):
    """``log p`` at k = loc + 1, ``log(1 - p)`` at k = loc, -inf elsewhere."""
    k, p, loc = promote("bernoulli.logpmf", k, p, loc)
    zero, one = const(k, 0), const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.gt(x, one)), -np.inf, log_probs)


def pmf(k, p, loc=0):
    """The probability mass function."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """0 below 0, 1 - p on [0, 1), 1 from 1; NaN for NaN inputs or p outside [0, 1]."""
    k, p = promote("bernoulli.cdf", k, p)
    zero, one = const(k, 0), const(k, 1)
    conditions = [jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one), lax.lt(k, zero),
                  jnp.logical_and(lax.ge(k, zero), lax.lt(k, one)), lax.ge(k, one)]
    return jnp.select(conditions, [jnp.nan, zero, one - p, one])


def ppf(q, p):
    """The quantile function: 0 for q <= 1 - p, else 1 (NaN outside the domain)."""
    q, p = promote("bernoulli.ppf", q, p)
    zero, one = const(q, 0), const(q, 1)
    invalid = jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return jnp.where(invalid, jnp.nan, jnp.where(lax.le(q, one - p), zero, one))
