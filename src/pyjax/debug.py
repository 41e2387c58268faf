"""pyjax.debug: printing and callbacks from inside traced programs (JAX's jax.debug).

``jax.debug.breakpoint`` is not provided.
"""

from pyjax._src.debugging import DebugEffect, OrderedDebugEffect, debug_callback as callback, debug_print as print  # noqa: F401,A004

__all__ = ["callback", "print"]
