"""pyjax.scipy.stats.geom: The geometric distribution."""

from pyjax._src.scipy.stats.geom import logpmf, pmf  # noqa: F401
