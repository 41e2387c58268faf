"""pyjax.debug: printing, logging, callbacks and breakpoints from inside
traced programs (JAX's jax.debug; docs/debugging.md)."""

from pyjax._src.debugger import breakpoint  # noqa: A004
from pyjax._src.debugging import DebugEffect, OrderedDebugEffect, debug_callback as callback, debug_print as print  # noqa: F401,A004
from pyjax._src.debugging import debug_log as log
from pyjax._src.sharding.visualize import inspect_array_sharding, visualize_array_sharding, visualize_sharding

__all__ = ["breakpoint", "callback", "inspect_array_sharding", "log", "print", "visualize_array_sharding",
           "visualize_sharding"]
