"""The exponential distribution (jax.scipy.stats.expon): density
``exp(-(x - loc) / scale) / scale`` for ``x >= loc``."""

from __future__ import annotations

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """Log of the density; -inf below ``loc``."""
    x, loc, scale = promote("expon.logpdf", x, loc, scale)
    return jnp.where(x < loc, -np.inf, -((x - loc) / scale + jnp.log(scale)))


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``1 - exp(-(x - loc) / scale)``, 0 below ``loc``."""
    x, loc, scale = promote("expon.cdf", x, loc, scale)
    z = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(z), -jnp.expm1(z))


def logsf(x, loc=0, scale=1):
    """Log of the survival function: ``-(x - loc) / scale``, 0 below ``loc``."""
    x, loc, scale = promote("expon.sf", x, loc, scale)
    z = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(z), z)


def sf(x, loc=0, scale=1):
    """The survival function ``1 - cdf``."""
    return jnp.exp(logsf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log of the distribution function."""
    return jnp.log1p(-sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """The quantile function; NaN outside [0, 1]."""
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc - scale * jnp.log1p(-q))
