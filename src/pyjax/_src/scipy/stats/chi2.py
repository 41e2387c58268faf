"""The chi-squared distribution with ``df`` degrees of freedom (jax.scipy.stats.chi2)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import special as lax_special
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import gammainc, gammaincc
from pyjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, df, loc=0, scale=1):
    """Log of the density ``y**(df/2 - 1) exp(-y/2) / (2**(df/2) Gamma(df/2) scale)``,
    ``y = (x - loc) / scale``; -inf below ``loc``."""
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    half = df / 2
    log_norm = -(lax_special.lgamma(half) + np.log(2.0).astype(x.dtype) * df / 2)
    return jnp.where(x < loc, -np.inf, log_norm - jnp.log(scale) + (half - 1) * jnp.log(y) - y / 2)


def pdf(x, df, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _half_y(x, loc, scale):
    return jnp.clip((x - loc) / (scale * 2), 0, np.inf)


def cdf(x, df, loc=0, scale=1):
    """The regularized lower incomplete gamma ``P(df / 2, y / 2)``."""
    x, df, loc, scale = promote("chi2.cdf", x, df, loc, scale)
    return gammainc(df / 2, _half_y(x, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    """Log of the distribution function."""
    return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """The regularized upper incomplete gamma ``Q(df / 2, y / 2)``."""
    x, df, loc, scale = promote("chi2.sf", x, df, loc, scale)
    return gammaincc(df / 2, _half_y(x, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """Log of the survival function."""
    return jnp.log(sf(x, df, loc, scale))
