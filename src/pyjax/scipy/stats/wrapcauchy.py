"""pyjax.scipy.stats.wrapcauchy: The wrapped Cauchy distribution."""

from pyjax._src.scipy.stats.wrapcauchy import logpdf, pdf  # noqa: F401
