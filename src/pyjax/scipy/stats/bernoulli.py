"""pyjax.scipy.stats.bernoulli: The Bernoulli distribution."""

from pyjax._src.scipy.stats.bernoulli import cdf, logpmf, pmf, ppf  # noqa: F401
