"""pyjax.scipy.stats.expon: The exponential distribution."""

from pyjax._src.scipy.stats.expon import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
