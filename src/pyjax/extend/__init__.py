"""pyjax.extend: the interfaces libraries build on (JAX's `jax.extend`).

`jax.extend.core` defines primitives and reads jaxprs; rules are registered
through `jax.interpreters.ad` and `jax.interpreters.batching`, whose tables
are views of each primitive's own rule slots (docs/extending.md).
"""

from pyjax.extend import backend, core, linear_util, random, sharding, source_info_util

__all__ = ["backend", "core", "linear_util", "random", "sharding", "source_info_util"]
