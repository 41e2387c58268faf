"""pyjax.scipy.stats.gumbel_l: The left-skewed Gumbel distribution."""

from pyjax._src.scipy.stats.gumbel_l import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
