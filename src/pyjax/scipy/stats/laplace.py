"""pyjax.scipy.stats.laplace: The Laplace (double exponential) distribution."""

from pyjax._src.scipy.stats.laplace import cdf, logpdf, pdf  # noqa: F401
