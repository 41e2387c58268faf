"""pyjax.interpreters.xla: the few names JAX 0.11 still keeps here."""

from __future__ import annotations

from typing import Any

from pyjax._src import core as _core
from pyjax._src.xla_bridge import CpuClient as Backend

# type -> the function canonicalizing a value of that type's dtype (JAX's
# table; pyjax canonicalizes in core.concrete_aval and keeps this for libraries).
canonicalize_dtype_handlers: dict = {}


def apply_primitive(prim: _core.Primitive, *args, **params) -> Any:
    """Runs `prim` eagerly on concrete operands. Older libraries define
    `p.def_impl(partial(xla.apply_primitive, p))` beside a lowering: such an
    impl leaves the primitive's evaluation rule to the lowering
    (`mlir.register_lowering(p, mlir.lower_fun(f))`)."""
    trace = _core._default_trace[0]
    token = _core._trace_ctx.set(trace)
    try:
        return trace.process_primitive(prim, args, params)
    finally:
        _core._trace_ctx.reset(token)


apply_primitive.defers_to_lowering = True  # (read by Primitive.def_impl's registration)


__all__ = ["Backend", "apply_primitive", "canonicalize_dtype_handlers"]
