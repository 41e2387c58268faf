"""The Poisson distribution with mean `mu` (jax.scipy.stats.poisson)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.numpy.util import ensure_arraylike, promote_dtypes_inexact
from pyjax._src.scipy.special import entr, gammaincc, gammaln, xlogy
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    """``k log mu - lgamma(k + 1) - mu`` at non-negative integers k (shifted by loc); -inf elsewhere."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    zero = const(k, 0)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.ne(jnp.round(k), k)), -np.inf, log_probs)


def pmf(k, mu, loc=0):
    """The probability mass function."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(X <= k) = Q(floor(k + 1), mu), the regularized upper incomplete gamma."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    zero = const(k, 0)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))


def _entropy_by_summation(mu, max_k: int, upper):
    # -sum p log p over k < upper (static max_k bounds it under jit).
    k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = jnp.where(k < jnp.ceil(upper).astype(k.dtype)[None, :], pmf(k, mu, 0), 0.0)
    return jnp.sum(entr(probs), axis=0)


def entropy(mu, loc=0):
    """Shannon entropy of the Poisson distribution (in nats).

    As JAX computes it: direct summation of ``-p log p`` for ``mu < 10``
    (``k < mu + 20``) and ``mu < 100`` (``k < mu + 10 sqrt(mu) + 20``), and
    the asymptotic ``log(2 pi e mu) / 2 - 1 / (12 mu)`` beyond; ``loc`` does
    not change it.
    """
    mu, loc = ensure_arraylike("poisson.entropy", mu, loc)
    mu, loc = promote_dtypes_inexact(mu, loc)
    shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    flat = jnp.ravel(mu)
    small = _entropy_by_summation(flat, 35, flat + 20)
    medium = _entropy_by_summation(flat, 250, flat + 10 * jnp.sqrt(flat) + 20)
    large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    out = jnp.where(flat == 0, jnp.zeros_like(flat), jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.broadcast_to(out.reshape(mu.shape), shape)
