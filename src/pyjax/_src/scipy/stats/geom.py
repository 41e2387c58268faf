"""The geometric distribution (jax.scipy.stats.geom): ``(1 - p)**(k - 1) p``
for ``k = 1, 2, ...`` (shifted by loc)."""

from __future__ import annotations

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import xlog1py
from pyjax._src.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    """Log of the probability mass; -inf for ``k - loc <= 0``."""
    k, p, loc = promote("geom.logpmf", k, p, loc)
    x = k - loc
    return jnp.where(x <= 0, -np.inf, xlog1py(x - 1, -p) + jnp.log(p))


def pmf(k, p, loc=0):
    """The probability mass function."""
    return jnp.exp(logpmf(k, p, loc))
