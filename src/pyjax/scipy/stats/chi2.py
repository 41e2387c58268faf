"""pyjax.scipy.stats.chi2: The chi-squared distribution with ``df`` degrees of freedom."""

from pyjax._src.scipy.stats.chi2 import cdf, logcdf, logpdf, logsf, pdf, sf  # noqa: F401
