"""pyjax.scipy.stats.beta: The beta distribution on [loc, loc + scale]."""

from pyjax._src.scipy.stats.beta import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
