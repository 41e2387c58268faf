"""pyjax.experimental.custom_partitioning (JAX 0.11's): on one process with
no XLA partitioner, a call runs the function's body as given."""

from pyjax._src.custom_partitioning import (
    BATCHING, ArrayMapping, CompoundFactor, SdyShardingRule, custom_partitioning, custom_partitioning_p,
)

__all__ = ["ArrayMapping", "BATCHING", "CompoundFactor", "SdyShardingRule", "custom_partitioning",
           "custom_partitioning_p"]
