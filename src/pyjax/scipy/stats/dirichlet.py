"""pyjax.scipy.stats.dirichlet: The Dirichlet distribution on the simplex."""

from pyjax._src.scipy.stats.dirichlet import logpdf, pdf  # noqa: F401
