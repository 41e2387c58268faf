"""pyjax.scipy.stats: probability distributions (JAX's jax.scipy.stats), one
submodule per distribution: ``stats.norm.logpdf(x)``."""

from pyjax.scipy.stats import (  # noqa: F401
    bernoulli,
    beta,
    cauchy,
    dirichlet,
    gamma,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
    uniform,
)
