"""The multinomial distribution (jax.scipy.stats.multinomial):
``n! prod(p_i**x_i / x_i!)`` for counts ``x`` summing to ``n``."""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.numpy.util import promote_args_numeric
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import gammaln, xlogy
from pyjax._src.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """Log of the probability mass of the integer counts ``x`` (last axis)."""
    (p,) = promote("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    log_probs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    # The whole array's count is compared with n, as JAX does.
    return jnp.where(jnp.equal(jnp.sum(x), n), log_probs, -np.inf)


def pmf(x, n, p):
    """The probability mass function."""
    return jnp.exp(logpmf(x, n, p))
