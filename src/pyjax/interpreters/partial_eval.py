"""pyjax.interpreters.partial_eval: tracing functions to jaxprs (JAX's
`jax.interpreters.partial_eval`)."""

from __future__ import annotations

from pyjax._src.extend_pe import (
    DynamicJaxprTracer, JaxprTracer, PartialVal, Val, custom_partial_eval_rules, dce_jaxpr, dce_jaxpr_call_rule,
    dce_jaxpr_closed_call_rule, dce_jaxpr_consts, dce_rules, partial_eval_jaxpr_custom_rules,
    trace_to_jaxpr_dynamic, trace_to_jaxpr_nounits,
)

__all__ = ["DynamicJaxprTracer", "JaxprTracer", "PartialVal", "Val", "custom_partial_eval_rules", "dce_jaxpr",
           "dce_jaxpr_call_rule", "dce_jaxpr_closed_call_rule", "dce_jaxpr_consts", "dce_rules",
           "partial_eval_jaxpr_custom_rules", "trace_to_jaxpr_dynamic", "trace_to_jaxpr_nounits"]
