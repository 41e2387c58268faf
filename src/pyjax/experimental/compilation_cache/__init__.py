"""jax.experimental.compilation_cache: the persistent compilation cache
(docs/compilation_cache.md)."""

from pyjax.experimental.compilation_cache import compilation_cache  # noqa: F401
