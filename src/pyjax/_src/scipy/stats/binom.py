"""The binomial distribution (jax.scipy.stats.binom): ``C(n, k) p**k (1 - p)**(n - k)``."""

from __future__ import annotations

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import gammaln, xlog1py, xlogy
from pyjax._src.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """Log of the probability mass; -inf outside ``loc <= k < loc + n + 1``."""
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    log_comb = gammaln(n + 1) - (gammaln(y + 1) + gammaln(n - y + 1))
    log_powers = xlogy(y, p) + xlog1py(n - y, -p)
    # An event of probability one (or the empty trial): exactly 0.
    certain = ((y == 0) & (n == 0)) | (log_powers == 0)
    log_probs = jnp.where(certain, 0.0, log_comb + log_powers)
    return jnp.where((k >= loc) & (k < loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
    """The probability mass function."""
    return jnp.exp(logpmf(k, n, p, loc))
