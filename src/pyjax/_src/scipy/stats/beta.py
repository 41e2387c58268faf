"""The beta distribution on [loc, loc + scale] (jax.scipy.stats.beta)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import betainc, betaln, xlog1py, xlogy
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0, scale=1):
    """Log of the beta density: ``(a-1) log y + (b-1) log(1-y) - betaln(a, b) - log(scale)``,
    y = (x - loc) / scale; -inf outside the support, NaN for non-positive a, b or scale."""
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    one, zero = const(x, 1), const(a, 0)
    shape_term = lax.neg(betaln(a, b))
    y = lax.div(lax.sub(x, loc), scale)
    # xlogy/xlog1py make the a = 1 and b = 1 edges exact (0 * log 0 = 0).
    log_linear_term = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(shape_term, log_linear_term), lax.log(scale))
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    result = jnp.where(outside, -np.inf, log_probs)
    invalid = jnp.logical_or(jnp.logical_or(lax.le(a, zero), lax.le(b, zero)), lax.le(scale, zero))
    return jnp.where(invalid, np.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    """The beta density."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
    return lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), scale), const(x, 1))


def cdf(x, a, b, loc=0, scale=1):
    """The distribution function: the regularized incomplete beta I_y(a, b)."""
    x, a, b, loc, scale = promote("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """Log of the distribution function."""
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """The survival function, I_{1-y}(b, a) (accurate near the upper end)."""
    x, a, b, loc, scale = promote("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log of the survival function."""
    return lax.log(sf(x, a, b, loc, scale))
