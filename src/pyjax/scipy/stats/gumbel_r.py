"""pyjax.scipy.stats.gumbel_r: The right-skewed Gumbel distribution."""

from pyjax._src.scipy.stats.gumbel_r import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
