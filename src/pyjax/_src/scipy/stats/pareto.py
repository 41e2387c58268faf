"""The Pareto distribution with shape ``b`` (jax.scipy.stats.pareto): density
``b / scale / y**(b + 1)`` for ``y = (x - loc) / scale >= 1``."""

from __future__ import annotations

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, b, loc=0, scale=1):
    """Log of the density; -inf below ``loc + scale``."""
    x, b, loc, scale = promote("pareto.logpdf", x, b, loc, scale)
    y = (x - loc) / scale
    return jnp.where(x < loc + scale, -np.inf, -(jnp.log(scale / b) + (b + 1) * jnp.log(y)))


def pdf(x, b, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """``1 - y**-b``; 0 below ``loc + scale``."""
    x, b, loc, scale = promote("pareto.cdf", x, b, loc, scale)
    y = (x - loc) / scale
    return jnp.where(x < loc + scale, jnp.zeros_like(y), 1 - y ** (-b))


def logcdf(x, b, loc=0, scale=1):
    """Log of the distribution function."""
    x, b, loc, scale = promote("pareto.logcdf", x, b, loc, scale)
    y = (x - loc) / scale
    return jnp.where(x < loc + scale, -np.inf, jnp.log1p(-(y ** (-b))))


def logsf(x, b, loc=0, scale=1):
    """Log of the survival function: ``-b log y``; 0 below ``loc + scale``."""
    x, b, loc, scale = promote("pareto.logsf", x, b, loc, scale)
    y = (x - loc) / scale
    return jnp.where(x < loc + scale, jnp.zeros_like(y), -(b * jnp.log(y)))


def sf(x, b, loc=0, scale=1):
    """The survival function."""
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """The quantile function; NaN outside [0, 1]."""
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc + scale * (1 - q) ** (-(1 / b)))
