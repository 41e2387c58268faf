"""pyjax.scipy.stats.nbinom: The negative binomial distribution."""

from pyjax._src.scipy.stats.nbinom import logpmf, pmf  # noqa: F401
