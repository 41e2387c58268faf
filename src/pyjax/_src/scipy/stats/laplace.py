"""The Laplace (double exponential) distribution (jax.scipy.stats.laplace)."""

from __future__ import annotations

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, loc=0, scale=1):
    """Log of the Laplace density: ``-|x - loc| / scale - log(2 scale)``."""
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    two = const(x, 2)
    linear_term = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear_term, lax.log(lax.mul(two, scale))))


def pdf(x, loc=0, scale=1):
    """The Laplace density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``exp(z) / 2`` for z <= 0, ``1 - exp(-z) / 2`` above; z = (x - loc) / scale."""
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    half, one, zero = const(x, 0.5), const(x, 1), const(x, 0)
    diff = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(diff, zero), lax.mul(half, lax.exp(diff)),
                      lax.sub(one, lax.mul(half, lax.exp(lax.neg(diff)))))
