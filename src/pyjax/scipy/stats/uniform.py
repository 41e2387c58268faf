"""pyjax.scipy.stats.uniform: The uniform distribution on [loc, loc + scale]."""

from pyjax._src.scipy.stats.uniform import cdf, logpdf, pdf, ppf  # noqa: F401
