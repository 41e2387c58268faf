"""The generalized normal distribution with shape ``beta`` (jax.scipy.stats.gennorm):
density ``beta / (2 Gamma(1/beta)) exp(-|x|**beta)``."""

from __future__ import annotations

from pyjax._src.lax import special as lax_special
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, beta):
    """Log of the density."""
    x, beta = promote("gennorm.logpdf", x, beta)
    return jnp.log(0.5 * beta) - lax_special.lgamma(1 / beta) - jnp.abs(x) ** beta


def pdf(x, beta):
    """The density."""
    return jnp.exp(logpdf(x, beta))


def cdf(x, beta):
    """``(1 + sign(x) P(1/beta, |x|**beta)) / 2``."""
    x, beta = promote("gennorm.cdf", x, beta)
    return 0.5 * (1 + jnp.sign(x) * lax_special.igamma(1 / beta, jnp.abs(x) ** beta))
