"""jax.scipy.stats: probability distributions (log-densities, densities,
distribution functions and their inverses), one module per distribution."""
