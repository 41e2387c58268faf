"""pyjax.scipy.stats.betabinom: The beta-binomial distribution."""

from pyjax._src.scipy.stats.betabinom import logpmf, pmf  # noqa: F401
