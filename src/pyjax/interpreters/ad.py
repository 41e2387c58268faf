"""pyjax.interpreters.ad: forward- and reverse-mode rules (JAX's `jax.interpreters.ad`).

`primitive_jvps[p] = rule` and `primitive_transposes[p] = rule` write the
primitive's own `jvp` and `transpose` slots, which pyjax's JVP and
transpose interpreters read; reading them gives a built-in primitive's rule
too. Rules take JAX's arguments: `jvp(primals, tangents, **params) ->
(primal_out, tangent_out)` with symbolic `Zero` tangents, `transpose(ct,
*args, **params) -> cts` with `UndefinedPrimal` for the linear arguments.
"""

from __future__ import annotations

from pyjax._src.ad_util import Zero, add_any_p as add_jaxvals_p, add_tangents
from pyjax._src.ad_util import instantiate as instantiate_zeros
from pyjax._src.extend_ad import jvp, linearize
from pyjax._src.extend_rules import (
    add_jaxvals, defbilinear, defjvp, defjvp2, deflinear, deflinear2, get_primitive_transpose, primitive_jvps,
    primitive_transposes, zeros_like_aval,
)
from pyjax._src.interpreters.jvp import JVPTrace, JVPTracer
from pyjax._src.interpreters.transpose import UndefinedPrimal, is_undefined_primal

__all__ = ["JVPTrace", "JVPTracer", "UndefinedPrimal", "Zero", "add_jaxvals", "add_jaxvals_p", "add_tangents",
           "defbilinear", "defjvp", "defjvp2", "deflinear", "deflinear2", "get_primitive_transpose",
           "instantiate_zeros", "is_undefined_primal", "jvp", "linearize", "primitive_jvps", "primitive_transposes",
           "zeros_like_aval"]
