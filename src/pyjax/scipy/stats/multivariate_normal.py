"""pyjax.scipy.stats.multivariate_normal: The multivariate normal distribution."""

from pyjax._src.scipy.stats.multivariate_normal import logpdf, pdf  # noqa: F401
