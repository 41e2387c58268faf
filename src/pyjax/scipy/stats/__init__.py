"""pyjax.scipy.stats: probability distributions (JAX's jax.scipy.stats), one
submodule per distribution (``stats.norm.logpdf(x)``), and statistics of
samples (mode, rankdata, sem, gaussian_kde)."""

from pyjax._src.scipy.stats._core import mode, rankdata, sem  # noqa: F401
from pyjax._src.scipy.stats.kde import gaussian_kde  # noqa: F401
from pyjax.scipy.stats import (  # noqa: F401
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
