"""The Cauchy distribution (jax.scipy.stats.cauchy)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """Log of the Cauchy density: ``-log(pi scale (1 + z**2))``, z = (x - loc) / scale."""
    x, loc, scale = promote("cauchy.logpdf", x, loc, scale)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.mul(const(x, np.pi), scale))
    return lax.neg(lax.add(normalize_term, lax.log1p(lax.mul(scaled_x, scaled_x))))


def pdf(x, loc=0, scale=1):
    """The Cauchy density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``1/2 + arctan(z) / pi``."""
    x, loc, scale = promote("cauchy.cdf", x, loc, scale)
    pi = const(x, np.pi)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    return lax.add(const(x, 0.5), lax.mul(lax.div(const(x, 1.0), pi), jnp.arctan(scaled_x)))


def logcdf(x, loc=0, scale=1):
    """Log of the distribution function."""
    return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """The survival function, by symmetry."""
    x, loc, scale = promote("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    x, loc, scale = promote("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q, loc=0, scale=1):
    """The inverse survival function: ``loc + scale * tan(pi/2 - pi q)``."""
    q, loc, scale = promote("cauchy.isf", q, loc, scale)
    unscaled = lax.tan(lax.sub(const(q, np.pi / 2), lax.mul(const(q, np.pi), q)))
    return lax.add(lax.mul(unscaled, scale), loc)


def ppf(q, loc=0, scale=1):
    """The quantile function: ``loc + scale * tan(pi q - pi/2)``."""
    q, loc, scale = promote("cauchy.ppf", q, loc, scale)
    unscaled = lax.tan(lax.sub(lax.mul(const(q, np.pi), q), const(q, np.pi / 2)))
    return lax.add(lax.mul(unscaled, scale), loc)
