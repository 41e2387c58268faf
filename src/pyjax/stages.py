"""jax.stages: the stages of ahead-of-time compilation.

``jax.jit(f)`` is a ``Wrapped``; ``.trace(*args)`` gives a ``Traced`` (the
jaxpr and output types), ``.lower()`` a ``Lowered`` (the program for the
backend), ``.compile()`` a ``Compiled`` (call it with arguments of the traced
types). ``args_info`` on each stage is a tree of ``ArgInfo``.
"""

from pyjax._src.stage_types import ArgInfo, CompilerOptions, Wrapped
from pyjax._src.stages import Compiled, Lowered, Traced

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]
