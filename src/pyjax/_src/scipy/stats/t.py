"""Student's t distribution with `df` degrees of freedom (jax.scipy.stats.t)."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import special as lax_special
from pyjax._src.scipy.stats._common import const, promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """Log of the t density:
    ``lgamma((df + 1) / 2) - lgamma(df / 2) - log(pi df scale**2) / 2 - (df + 1) / 2 log1p(z**2 / df)``."""
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    two = const(x, 2)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    df_over_two = lax.div(df, two)
    df_plus_one_over_two = lax.add(df_over_two, const(x, 0.5))
    normalize_const = lax.mul(lax.mul(scale, scale), const(x, np.pi))
    normalize_log = lax.div(lax.log(lax.mul(normalize_const, df)), two)
    normalize_term = lax.sub(lax.add(lax_special.lgamma(df_over_two), normalize_log),
                             lax_special.lgamma(df_plus_one_over_two))
    quadratic = lax.div(lax.mul(scaled_x, scaled_x), df)
    return lax.neg(lax.add(normalize_term, lax.mul(df_plus_one_over_two, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
    """The t density."""
    return lax.exp(logpdf(x, df, loc, scale))
