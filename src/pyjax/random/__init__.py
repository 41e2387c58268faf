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

from pyjax._src.random.distributions import normal, uniform
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
from pyjax._src.random.prng import random_clone_p

__all__ = [
    "KeyDTypeLike", "PRNGKey", "PRNGSpec", "PRNGSpecDesc", "bits", "clone", "default_prng_impl",
    "fold_in", "key", "key_data", "key_dtype", "key_impl", "normal", "random_clone_p",
    "resolve_prng_impl", "split", "uniform", "wrap_key_data",
]
