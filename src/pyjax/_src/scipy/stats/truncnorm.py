"""The truncated normal distribution (jax.scipy.stats.truncnorm): the normal
``N(loc, scale**2)`` restricted to standardized bounds ``[a, b]``."""

from __future__ import annotations

import numpy as np

from pyjax._src.jit import jit
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import log_ndtr, logsumexp, ndtr
from pyjax._src.scipy.stats import norm
from pyjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_sub(x, y):
    """log(exp(x) - exp(y)), stably."""
    return logsumexp(jnp.array([x, y]), b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]), axis=0)


def _log_gauss_mass(a, b):
    """log(ndtr(b) - ndtr(a)): through the tail nearer zero on either side,
    or directly when the interval holds the centre."""
    a, b = jnp.broadcast_arrays(jnp.array(a), jnp.array(b))
    left, right = b <= 0, a > 0
    lo = jnp.where(right, -b, a)
    hi = jnp.where(right, -a, b)
    tail = _log_sub(log_ndtr(hi), log_ndtr(lo))
    central = jnp.log1p(-ndtr(a) - ndtr(-b))
    return jnp.where(~(left | right), central, tail)


@jit
def logpdf(x, a, b, loc=0, scale=1):
    """Log of the density; -inf outside ``[a, b]``, NaN for ``a >= b``."""
    x, a, b, loc, scale = promote("truncnorm.logpdf", x, a, b, loc, scale)
    val = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    z = (x - loc) / scale
    val = jnp.where((z < a) | (z > b), -np.inf, val)
    return jnp.where(a >= b, np.nan, val)


def pdf(x, a, b, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


@jit
def logcdf(x, a, b, loc=0, scale=1):
    """Log of the distribution function."""
    x, a, b, loc, scale = promote("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = jnp.broadcast_arrays(x, a, b)
    z = (x - loc) / scale
    total = _log_gauss_mass(a, b)
    below = _log_gauss_mass(a, z) - total
    above = _log_gauss_mass(z, b) - total
    # Near 1, through the upper mass for accuracy.
    out = jnp.select([z >= b, z <= a, below > -0.1, z > a], [0, -np.inf, jnp.log1p(-jnp.exp(above)), below])
    return jnp.where(a >= b, np.nan, out)


@jit
def cdf(x, a, b, loc=0, scale=1):
    """The distribution function."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


@jit
def logsf(x, a, b, loc=0, scale=1):
    """Log of the survival function (the mirrored distribution's logcdf)."""
    x, a, b, loc, scale = promote("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@jit
def sf(x, a, b, loc=0, scale=1):
    """The survival function."""
    return jnp.exp(logsf(x, a, b, loc, scale))
