"""jax.experimental: of its names pyjax has `shard_map` (the deprecated
module kept by JAX 0.11; see docs/shard_map.md), `io_callback` and
`checkify` (docs/debugging.md), `compilation_cache` (docs/compilation_cache.md)."""

from pyjax.experimental import shard_map  # noqa: F401
from pyjax._src.effects import io_callback  # noqa: F401
from pyjax.experimental import checkify  # noqa: F401
from pyjax.experimental import compilation_cache  # noqa: F401
