"""pyjax.scipy.stats.cauchy: The Cauchy distribution."""

from pyjax._src.scipy.stats.cauchy import cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
