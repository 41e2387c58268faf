"""pyjax.scipy.stats.truncnorm: The truncated normal distribution."""

from pyjax._src.scipy.stats.truncnorm import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
