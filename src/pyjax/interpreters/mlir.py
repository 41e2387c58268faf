"""pyjax.interpreters.mlir: how a library says "lower this primitive as
this function" (`register_lowering(p, lower_fun(f))`).

pyjax's backend runs jaxprs itself (NumPy code, not StableHLO), so a
lowering written as a JAX function becomes the primitive's evaluation rule
there: jit runs `f` on the operands, which computes what the lowered
function would. Lowering rules written against MLIR's builders need
StableHLO (issue 27): they are recorded, not run; the primitive's `def_impl`
evaluates it, under jit too.
"""

from __future__ import annotations

from pyjax._src.extend_mlir import lower_fun, register_lowering

__all__ = ["lower_fun", "register_lowering"]
