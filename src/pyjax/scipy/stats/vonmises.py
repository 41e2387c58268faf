"""pyjax.scipy.stats.vonmises: The von Mises distribution on the circle."""

from pyjax._src.scipy.stats.vonmises import logpdf, pdf  # noqa: F401
