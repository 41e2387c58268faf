"""The negative binomial distribution (jax.scipy.stats.nbinom):
``C(k + n - 1, k) p**n (1 - p)**k``."""

from __future__ import annotations

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import gammaln, xlogy
from pyjax._src.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """Log of the probability mass; -inf below ``loc``."""
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    log_comb = gammaln(y + n) - gammaln(n) - gammaln(y + 1)
    return jnp.where(k < loc, -np.inf, log_comb + xlogy(n, p) + xlogy(y, 1 - p))


def pmf(k, n, p, loc=0):
    """The probability mass function."""
    return jnp.exp(logpmf(k, n, p, loc))
