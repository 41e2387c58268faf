"""pyjax.scipy.stats.binom: The binomial distribution."""

from pyjax._src.scipy.stats.binom import logpmf, pmf  # noqa: F401
