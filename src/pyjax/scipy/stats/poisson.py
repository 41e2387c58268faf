"""pyjax.scipy.stats.poisson: The Poisson distribution with mean `mu`."""

from pyjax._src.scipy.stats.poisson import cdf, entropy, logpmf, pmf  # noqa: F401
