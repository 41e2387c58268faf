"""pyjax.debug: printing and callbacks from inside traced programs (JAX's jax.debug).

``jax.debug.breakpoint`` is not provided.
"""

from pyjax._src.debugging import DebugEffect, OrderedDebugEffect, debug_callback as callback, debug_print as print  # noqa: F401,A004
from pyjax._src.sharding.visualize import inspect_array_sharding, visualize_array_sharding, visualize_sharding

__all__ = ["callback", "inspect_array_sharding", "print", "visualize_array_sharding", "visualize_sharding"]
