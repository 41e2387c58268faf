"""The logistic distribution (jax.scipy.stats.logistic)."""

from __future__ import annotations

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import expit, logit
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """Log of the logistic density: ``-2 log(2 cosh(z / 2)) - log(scale)``, z = (x - loc) / scale."""
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    x = lax.div(lax.sub(x, loc), scale)
    two = const(x, 2)
    half_x = lax.div(x, two)
    # log(e^(z/2) + e^(-z/2)) by logaddexp, which does not overflow.
    return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_x, lax.neg(half_x))), lax.log(scale))


def pdf(x, loc=0, scale=1):
    """The logistic density."""
    return lax.exp(logpdf(x, loc, scale))


def ppf(x, loc=0, scale=1):
    """The quantile function: ``loc + scale * logit(q)``."""
    x, loc, scale = promote("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def sf(x, loc=0, scale=1):
    """The survival function: ``expit(-(x - loc) / scale)``."""
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def isf(x, loc=0, scale=1):
    """The inverse survival function: ``loc - scale * logit(q)``."""
    x, loc, scale = promote("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


def cdf(x, loc=0, scale=1):
    """The distribution function: ``expit((x - loc) / scale)``."""
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return expit(lax.div(lax.sub(x, loc), scale))
