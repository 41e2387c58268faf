"""pyjax.scipy.stats.gennorm: The generalized normal distribution with shape ``beta``."""

from pyjax._src.scipy.stats.gennorm import cdf, logpdf, pdf  # noqa: F401
