"""The normal distribution N(loc, scale**2) (jax.scipy.stats.norm)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy import special
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """Log of the normal density: ``-((x - loc) / scale)**2 / 2 - log(sqrt(2 pi) scale)``."""
    x, loc, scale = promote("norm.logpdf", x, loc, scale)
    scale_sqrd = lax.square(scale)
    log_normalizer = lax.log(lax.mul(const(x, 2 * np.pi), scale_sqrd))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sqrd)
    return lax.div(lax.add(log_normalizer, quadratic), const(x, -2))


def pdf(x, loc=0, scale=1):
    """The normal density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The normal distribution function."""
    x, loc, scale = promote("norm.cdf", x, loc, scale)
    return special.ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
    """Log of the distribution function, accurate far into the lower tail."""
    x, loc, scale = promote("norm.logcdf", x, loc, scale)
    return special.log_ndtr(lax.div(lax.sub(x, loc), scale))


def ppf(q, loc=0, scale=1):
    """The quantile function (the inverse of cdf)."""
    return jnp.asarray(special.ndtri(q) * scale + loc, float)


def sf(x, loc=0, scale=1):
    """The survival function, 1 - cdf, computed by symmetry (no cancellation)."""
    x, loc, scale = promote("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    x, loc, scale = promote("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q, loc=0, scale=1):
    """The inverse survival function: ppf(1 - q)."""
    return ppf(lax.sub(const(q, 1), q), loc, scale)
