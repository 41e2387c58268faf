"""pyjax.scipy.stats.multinomial: The multinomial distribution."""

from pyjax._src.scipy.stats.multinomial import logpmf, pmf  # noqa: F401
