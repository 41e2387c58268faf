"""pyjax.scipy.stats.t: Student's t distribution with `df` degrees of freedom."""

from pyjax._src.scipy.stats.t import logpdf, pdf  # noqa: F401
