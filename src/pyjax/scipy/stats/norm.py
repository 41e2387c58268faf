"""pyjax.scipy.stats.norm: The normal distribution N(loc, scale**2)."""

from pyjax._src.scipy.stats.norm import cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
