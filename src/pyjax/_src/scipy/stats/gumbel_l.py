"""The left-skewed Gumbel distribution (jax.scipy.stats.gumbel_l):
``cdf = 1 - exp(-exp(z))``, ``z = (x - loc) / scale``."""

from __future__ import annotations

import numpy as np

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import xlog1py, xlogy
from pyjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _z(name, x, loc, scale):
    x, loc, scale = promote(name, x, loc, scale)
    return (x - loc) / scale, scale > 0, scale


def logpdf(x, loc=0, scale=1):
    """Log of the density ``exp(z - exp(z)) / scale``; NaN for ``scale <= 0``."""
    z, ok, scale = _z("gumbel_l.logpdf", x, loc, scale)
    return jnp.where(ok, xlogy(-1, scale) + (z - jnp.exp(z)), np.nan)


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log of the distribution function."""
    z, ok, _ = _z("gumbel_l.logcdf", x, loc, scale)
    return jnp.where(ok, jnp.log(-jnp.expm1(-jnp.exp(z))), np.nan)


def cdf(x, loc=0, scale=1):
    """The distribution function."""
    return jnp.exp(logcdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """Log of the survival function: ``-exp(z)``."""
    z, ok, _ = _z("gumbel_l.logsf", x, loc, scale)
    return jnp.where(ok, -jnp.exp(z), np.nan)


def sf(x, loc=0, scale=1):
    """The survival function."""
    return jnp.exp(logsf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """The quantile function ``loc + scale log(-log(1 - p))``; NaN outside (0, 1)."""
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    return jnp.where((p > 0) & (p < 1), loc + scale * jnp.log(xlog1py(-1, -p)), np.nan)
