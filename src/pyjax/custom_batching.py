"""Custom batching rules: `custom_vmap` and `sequential_vmap` (jax.custom_batching)."""

from pyjax._src.custom_batching import custom_vmap, sequential_vmap

__all__ = ["custom_vmap", "sequential_vmap"]
