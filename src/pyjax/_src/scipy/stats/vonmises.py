"""The von Mises distribution on the circle (jax.scipy.stats.vonmises):
density ``exp(kappa cos x) / (2 pi I0(kappa))``."""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import special as lax_special
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.stats._common import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    """Log of the density (through the scaled Bessel function, for large kappa); NaN for ``kappa <= 0``."""
    x, kappa = promote("vonmises.logpdf", x, kappa)
    return jnp.where(kappa > 0, kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax_special.bessel_i0e(kappa)),
                     np.nan)


def pdf(x, kappa):
    """The density."""
    return jnp.exp(logpdf(x, kappa))
