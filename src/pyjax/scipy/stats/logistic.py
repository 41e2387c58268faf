"""pyjax.scipy.stats.logistic: The logistic distribution."""

from pyjax._src.scipy.stats.logistic import cdf, isf, logpdf, pdf, ppf, sf  # noqa: F401
