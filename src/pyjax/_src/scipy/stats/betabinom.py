"""The beta-binomial distribution (jax.scipy.stats.betabinom):
``C(n, k) B(k + a, n - k + b) / B(a, b)``."""

from __future__ import annotations

import numpy as np

from pyjax._src.jit import jit
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import betaln
from pyjax._src.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


@jit
def logpmf(k, n, a, b, loc=0):
    """Log of the probability mass (``k`` rounded down); -inf outside the
    support, NaN for ``n < 0``, ``a <= 0`` or ``b <= 0``."""
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = jnp.floor(k) - loc
    log_comb = -(jnp.log1p(n) + betaln(n - y + 1, y + 1))
    log_probs = log_comb + betaln(y + a, n - y + b) - betaln(a, b)
    log_probs = jnp.where((y == 0) & (n == 0), 0.0, log_probs)
    log_probs = jnp.where((y < -loc) | (y > n) | (y + a <= 0), -np.inf, log_probs)
    return jnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    """The probability mass function."""
    return jnp.exp(logpmf(k, n, a, b, loc))
