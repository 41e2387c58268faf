"""pyjax.scipy.stats.pareto: The Pareto distribution with shape ``b``."""

from pyjax._src.scipy.stats.pareto import cdf, logcdf, logpdf, logsf, pdf, ppf, sf  # noqa: F401
