"""jax.experimental.compilation_cache.compilation_cache: `set_cache_dir` and
`reset_cache` (docs/compilation_cache.md). The IREE backend keeps its
compiled modules there; the NumPy backend compiles in milliseconds and
caches nothing on disk."""

from pyjax._src.compilation_cache import reset_cache, set_cache_dir  # noqa: F401
