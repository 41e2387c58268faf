"""The uniform distribution on [loc, loc + scale] (jax.scipy.stats.uniform)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.numpy.util import aval_of
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """-log(scale) inside [loc, loc + scale], -inf outside."""
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.log(scale))
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return jnp.where(outside, -np.inf, log_probs)


def pdf(x, loc=0, scale=1):
    """The uniform density."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """0 below loc, 1 above loc + scale, linear between."""
    x, loc, scale = promote("uniform.cdf", x, loc, scale)
    dtype = aval_of(x).dtype
    zero, one = jnp.array(0, dtype), jnp.array(1, dtype)
    upper = lax.add(loc, scale)
    conditions = [lax.lt(x, loc), lax.gt(x, upper), lax.ge(x, loc) & lax.le(x, upper)]
    return jnp.select(conditions, [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
    """``loc + scale * q`` for q in [0, 1]; NaN otherwise."""
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, lax.add(loc, lax.mul(scale, q)))
