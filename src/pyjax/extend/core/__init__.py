"""pyjax.extend.core: primitives, jaxprs and the tracing state, for libraries.

    from jax.extend.core import Primitive
    p = Primitive("my_op")
    p.def_impl(impl)                      # eager (and compiled) evaluation
    p.def_abstract_eval(abstract_eval)    # avals -> aval(s)
    ad.primitive_jvps[p] = jvp_rule       # jax.interpreters.ad
    batching.primitive_batchers[p] = batch_rule

`Primitive` is the class of every pyjax primitive (`isinstance(lax.sin_p,
Primitive)`), and `Jaxpr` is `ClosedJaxpr`, as in JAX 0.11.
"""

from __future__ import annotations

from pyjax._src.extend_core import (
    CallPrimitive, ClosedJaxpr, DebugInfo, DropVar, Effect, Effects, Jaxpr, JaxprEqn, JaxprTypeError, Literal,
    Primitive, TraceTag, Var, array_types, call_impl, check_jaxpr, concrete_or_error, find_top_trace, gensym,
    get_opaque_trace_state, jaxpr_as_fun, jaxprs_in_params, mapped_aval, new_jaxpr_eqn, no_effects,
    nonempty_axis_env_DO_NOT_USE, primal_dtype_to_tangent_dtype, set_current_trace, subjaxprs,
    take_current_trace, unmapped_aval, unsafe_am_i_under_a_jit_DO_NOT_USE, unsafe_am_i_under_a_vmap_DO_NOT_USE,
    unsafe_get_axis_names_DO_NOT_USE, valid_jaxtype,
)
from pyjax.extend.core import primitives  # noqa: E402
from pyjax._src.tokens import AbstractToken, Token  # noqa: E402
from pyjax._src.shape_poly import InconclusiveDimensionOperation  # noqa: E402

__all__ = [
    "AbstractToken", "CallPrimitive", "InconclusiveDimensionOperation", "ClosedJaxpr", "DebugInfo", "DropVar", "Effect", "Effects", "Jaxpr", "JaxprEqn",
    "JaxprTypeError", "Literal", "Primitive", "TraceTag", "Var", "array_types", "call_impl", "check_jaxpr",
    "concrete_or_error", "find_top_trace", "gensym", "get_opaque_trace_state", "jaxpr_as_fun", "jaxprs_in_params",
    "mapped_aval", "new_jaxpr_eqn", "no_effects", "nonempty_axis_env_DO_NOT_USE", "primal_dtype_to_tangent_dtype",
    "primitives", "set_current_trace", "subjaxprs", "take_current_trace", "Token", "unmapped_aval",
    "unsafe_am_i_under_a_jit_DO_NOT_USE", "unsafe_am_i_under_a_vmap_DO_NOT_USE", "unsafe_get_axis_names_DO_NOT_USE",
    "valid_jaxtype",
]
