"""jax.flatten_util: ravel a pytree of arrays into one flat vector."""

from pyjax._src.flatten_util import ravel_pytree

__all__ = ["ravel_pytree"]
