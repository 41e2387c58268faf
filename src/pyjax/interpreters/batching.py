"""pyjax.interpreters.batching: vmap's rules (JAX's `jax.interpreters.batching`).

`fancy_primitive_batchers[p] = rule(axis_data, batched_args, batch_dims,
**params)` and `primitive_batchers[p] = rule(batched_args, batch_dims,
**params)` write the primitive's own `batch` slot, which pyjax's vmap
reads. A batch dim is an int, or None for an operand that is not batched;
a rule returns `(out, out_dim)` (lists for multiple results).
"""

from __future__ import annotations

from pyjax._src.extend_rules import (
    axis_primitive_batchers, bdim_at_front, broadcast, defbroadcasting, defreducer, defvectorized,
    fancy_primitive_batchers, primitive_batchers, register_vmappable, unregister_vmappable,
)

__all__ = ["axis_primitive_batchers", "bdim_at_front", "broadcast", "defbroadcasting", "defreducer", "defvectorized",
           "fancy_primitive_batchers", "primitive_batchers", "register_vmappable", "unregister_vmappable"]
