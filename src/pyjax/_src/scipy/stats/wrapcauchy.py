"""The wrapped Cauchy distribution (jax.scipy.stats.wrapcauchy) on [0, 2 pi]:
density ``(1 - c**2) / (2 pi (1 + c**2 - 2 c cos x))``."""

from __future__ import annotations

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.stats._common import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
    """Log of the density; -inf outside [0, 2 pi], NaN unless ``0 < c < 1``."""
    x, c = promote("wrapcauchy.logpdf", x, c)
    inside = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    return jnp.where((c > 0) & (c < 1), jnp.where((x >= 0) & (x <= np.pi * 2), inside, -np.inf), np.nan)


def pdf(x, c):
    """The density."""
    return jnp.exp(logpdf(x, c))
