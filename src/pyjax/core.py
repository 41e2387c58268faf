"""pyjax.core: the tracing core's public names (JAX 0.11's `jax.core`).

Tracer and Trace are the bases of every pyjax tracer and trace, and
ShapedArray (an AbstractValue) is the type of every traced array.
The names JAX 0.11 moved to `jax.extend.core` raise AttributeError here,
saying where they went.
"""

from __future__ import annotations

from typing import Any

from pyjax._src import core as _core
from pyjax._src.api_context import ensure_compile_time_eval
from pyjax._src.avals import AbstractValue, ShapedArray
from pyjax._src.core import Trace, Tracer
from pyjax._src.extend_core import ParamDict, eval_context, max_dim, min_dim
from pyjax._src.jaxpr import Literal as _Literal
from pyjax._src.jaxpr import Var as _Var
from pyjax._src.jaxpr import eval_jaxpr as _eval_jaxpr

Atom = _Var | _Literal
Value = Any


def eval_jaxpr(jaxpr, consts, *args, propagate_source_info=True) -> list[Any]:
    """Evaluates `jaxpr` on `consts` (its constvars) and `args` under the
    current trace: executed eagerly, or staged/transformed when traced."""
    return _eval_jaxpr(jaxpr, consts, *args)


# type -> the function giving a value of that type its aval (deprecated in JAX).
pytype_aval_mappings: dict = {}

_MOVED = {
    "CallPrimitive": "jax.extend.core.CallPrimitive", "DebugInfo": "jax.extend.core.DebugInfo",
    "DropVar": "jax.extend.core.DropVar", "Effect": "jax.extend.core.Effect", "Effects": "jax.extend.core.Effects",
    "InconclusiveDimensionOperation": "jax.errors.InconclusiveDimensionOperation",
    "JaxprTypeError": "jax.errors.JaxprTypeError", "abstract_token": "jax.ffi.abstract_token",
    "check_jaxpr": "jax.extend.core.check_jaxpr", "concrete_or_error": "jax.extend.core.concrete_or_error",
    "find_top_trace": "jax.extend.core.find_top_trace", "gensym": "jax.extend.core.gensym",
    "get_opaque_trace_state": "jax.extend.core.get_opaque_trace_state",
    "jaxprs_in_params": "jax.extend.core.jaxprs_in_params", "new_jaxpr_eqn": "jax.extend.core.new_jaxpr_eqn",
    "no_effects": "jax.extend.core.no_effects",
    "nonempty_axis_env_DO_NOT_USE": "jax.extend.core.nonempty_axis_env_DO_NOT_USE",
    "primal_dtype_to_tangent_dtype": "jax.extend.core.primal_dtype_to_tangent_dtype",
    "unsafe_am_i_under_a_jit_DO_NOT_USE": "jax.extend.core.unsafe_am_i_under_a_jit_DO_NOT_USE",
    "unsafe_am_i_under_a_vmap_DO_NOT_USE": "jax.extend.core.unsafe_am_i_under_a_vmap_DO_NOT_USE",
    "unsafe_get_axis_names_DO_NOT_USE": "jax.extend.core.unsafe_get_axis_names_DO_NOT_USE",
    "valid_jaxtype": "jax.extend.core.valid_jaxtype",
}
_REMOVED = ("is_concrete", "is_constant_dim", "is_constant_shape", "JaxprPpContext", "JaxprPpSettings", "OutputType",
            "aval_mapping_handlers", "call", "concretization_function_error", "custom_typechecks",
            "literalable_types", "no_axis_name", "trace_ctx")


def __getattr__(name: str):
    if name in _MOVED:
        raise AttributeError(f"jax.core.{name} was deprecated in JAX v0.10.0 and removed in JAX v0.11.0. "
                             f"Use {_MOVED[name]}.")
    if name in _REMOVED:
        raise AttributeError(f"jax.core.{name} was deprecated and removed in JAX v0.11.0.")
    raise AttributeError(f"module 'jax.core' has no attribute '{name}'")


__all__ = ["AbstractValue", "Atom", "ParamDict", "ShapedArray", "Trace", "Tracer", "Value",
           "ensure_compile_time_eval", "eval_context", "eval_jaxpr", "max_dim", "min_dim", "pytype_aval_mappings"]
del _core
