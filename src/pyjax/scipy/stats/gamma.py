"""pyjax.scipy.stats.gamma: The gamma distribution with shape `a`."""

from pyjax._src.scipy.stats.gamma import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
