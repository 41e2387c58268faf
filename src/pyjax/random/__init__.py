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
from pyjax._src.random.prng import random_clone_p, random_gamma_p
import threading as _threading

from pyjax._src.lazy_names import install as _install_lazy, names_from as _names_from
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


# The less common samplers' modules load on first use (pyjax._src.lazy_names).
_LAZY = {
    **_names_from("pyjax._src.random.discrete",
                  "bernoulli categorical choice geometric gumbel permutation rademacher randint"),
    **_names_from("pyjax._src.random.gamma", "ball beta chisquare dirichlet f gamma generalized_normal loggamma t"),
    **_names_from("pyjax._src.random.loops", "binomial multinomial poisson"),
    **_names_from("pyjax._src.random.multivariate", "multivariate_normal orthogonal"),
}
_WRAPPERS: dict = {}  # id(a sampler) -> the sampler taking out_sharding= (kept alive with it)
_PLACING = _threading.RLock()  # (two threads' first reads wrap each sampler once)


def _place_samplers() -> None:
    with _PLACING:
        _place_loaded_samplers()


def _place_loaded_samplers() -> None:
    # out_sharding= places a sample (random/sampler_sharding.py's wrapper
    # around each sampler): every public sampler loaded so far is wrapped,
    # once, here and in the modules that define and call it.
    import inspect
    import sys

    from pyjax._src.random.sampler_sharding import sampler_with_out_sharding

    names = globals()
    done = {id(w) for w, _ in _WRAPPERS.values()}
    for name in __all__:
        fn = names.get(name)
        if fn is None and name in _LAZY and _LAZY[name] in sys.modules:
            fn = getattr(sys.modules[_LAZY[name]], name)
        if fn is None or not callable(fn) or isinstance(fn, type):
            continue
        if id(fn) in done:
            names[name] = fn
            continue
        if id(fn) not in _WRAPPERS:
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if "out_sharding" not in params:
                continue
            _WRAPPERS[id(fn)] = (sampler_with_out_sharding(fn), fn)
        names[name] = _WRAPPERS[id(fn)][0]
    # The samplers call each other (truncated_normal draws with uniform) as
    # JAX's call its public, placing ones: the modules' own names are wrapped too.
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("pyjax._src.random.") and module is not None:
            for attr, value in list(vars(module).items()):
                if id(value) in _WRAPPERS and callable(value):
                    setattr(module, attr, _WRAPPERS[id(value)][0])


def _load_sampler(name: str, value):
    _place_samplers()
    return globals().get(name, value)


_place_samplers()
_install_lazy(globals(), _LAZY, on_load=_load_sampler)
