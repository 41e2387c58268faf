"""jax.experimental: of its names pyjax has `shard_map` (the deprecated
module kept by JAX 0.11; see docs/shard_map.md)."""

from pyjax.experimental import shard_map  # noqa: F401
