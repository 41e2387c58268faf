"""The gamma distribution with shape `a` (jax.scipy.stats.gamma)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import gammainc, gammaincc, gammaln, xlogy
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0, scale=1):
    """Log of the gamma density: ``(a-1) log y - y - gammaln(a) - log(scale)``,
    y = (x - loc) / scale; -inf below loc."""
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = const(x, 1)
    # Outside the support y is set to 1, whose log is harmless (the result is replaced).
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(xlogy(lax.sub(a, one), y), y)
    shape_terms = lax.add(gammaln(a), lax.log(scale))
    return jnp.where(ok, lax.sub(log_linear_term, shape_terms), -np.inf)


def pdf(x, a, loc=0, scale=1):
    """The gamma density."""
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """The distribution function: the regularized lower incomplete gamma P(a, y)."""
    x, a, loc, scale = promote("gamma.cdf", x, a, loc, scale)
    return gammainc(a, lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), scale), const(x, np.inf)))


def logcdf(x, a, loc=0, scale=1):
    """Log of the distribution function."""
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """The survival function: Q(a, y), 1 below loc."""
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, const(y, 0)), 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    """Log of the survival function."""
    return lax.log(sf(x, a, loc, scale))
