"""What the distributions added with issue 26 share."""

from __future__ import annotations

from pyjax._src.scipy import jnp_pending as jnp


def log1mexp(x):
    """log(1 - exp(-|x|)), accurately for small and large |x|
    (Maechler, "Accurately Computing log(1 - exp(-|a|))")."""
    x = jnp.abs(x)
    return jnp.where(x < jnp.log(2.0).astype(x.dtype), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))
