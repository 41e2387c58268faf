"""pyjax.random: JAX's pseudo-random number generation, bit for bit.

Randomness is an explicit function of a key: the same key, shape and dtype
give the same values as JAX 0.11 (threefry2x32, with
``jax_threefry_partitionable`` on or off).

    >>> import pyjax as jax
    >>> key = jax.random.key(0)
    >>> k1, k2 = jax.random.split(key)
    >>> jax.random.normal(k1, (3,))
    Array([ 1.0040143, -0.9063372, -0.7481722], dtype=float32)
"""

from pyjax._src.random.discrete import (
    bernoulli,
    categorical,
    choice,
    geometric,
    gumbel,
    permutation,
    rademacher,
    randint,
)
from pyjax._src.random.distributions import (
    cauchy,
    double_sided_maxwell,
    exponential,
    laplace,
    logistic,
    lognormal,
    maxwell,
    normal,
    pareto,
    rayleigh,
    triangular,
    truncated_normal,
    uniform,
    wald,
    weibull_min,
)
from pyjax._src.random.gamma import (
    ball,
    beta,
    chisquare,
    dirichlet,
    f,
    gamma,
    generalized_normal,
    loggamma,
    t,
)
from pyjax._src.random.keys import (
    KeyDTypeLike,
    PRNGKey,
    PRNGSpec,
    PRNGSpecDesc,
    bits,
    clone,
    default_prng_impl,
    fold_in,
    key,
    key_data,
    key_dtype,
    key_impl,
    resolve_prng_impl,
    split,
    wrap_key_data,
)
from pyjax._src.random.loops import binomial, multinomial, poisson
from pyjax._src.random.multivariate import multivariate_normal, orthogonal
from pyjax._src.random.prng import random_clone_p, random_gamma_p
from pyjax._src.random import key_reuse as _key_reuse  # noqa: F401  (jax_debug_key_reuse's eager checks)

__all__ = [
    "KeyDTypeLike", "PRNGKey", "PRNGSpec", "PRNGSpecDesc", "ball", "bernoulli", "beta", "binomial",
    "bits", "categorical", "cauchy", "chisquare", "choice", "clone", "default_prng_impl",
    "dirichlet", "double_sided_maxwell", "exponential", "f", "fold_in", "gamma",
    "generalized_normal", "geometric", "gumbel", "key", "key_data", "key_dtype", "key_impl",
    "laplace", "loggamma", "logistic", "lognormal", "maxwell", "multinomial",
    "multivariate_normal", "normal", "orthogonal", "pareto", "permutation", "poisson",
    "rademacher", "randint", "random_clone_p", "random_gamma_p", "rayleigh", "resolve_prng_impl",
    "split", "t", "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
    "wrap_key_data",
]


def _place_samplers() -> None:
    # out_sharding= places a sample (random/sampler_sharding.py's wrapper around each sampler).
    import inspect

    from pyjax._src.random.sampler_sharding import sampler_with_out_sharding

    import sys

    names = globals()
    wrapped = {}
    for name in __all__:
        fn = names.get(name)
        if callable(fn) and not isinstance(fn, type):
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if "out_sharding" in params:
                names[name] = wrapped[id(fn)] = sampler_with_out_sharding(fn)
    # The samplers call each other (truncated_normal draws with uniform) as
    # JAX's call its public, placing ones: the modules' own names are wrapped too.
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("pyjax._src.random.") and module is not None:
            for attr, value in list(vars(module).items()):
                if id(value) in wrapped and callable(value):
                    setattr(module, attr, wrapped[id(value)])


_place_samplers()
del _place_samplers
