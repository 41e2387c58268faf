"""pyjax.custom_derivatives: custom JVP and VJP rules (JAX's `jax.custom_derivatives`)."""

from __future__ import annotations

from typing import Any

from pyjax._src.api_jac import closure_convert
from pyjax._src.custom_derivatives import SymbolicZero, custom_jvp, custom_jvp_call_p, zero_from_primal
from pyjax._src.custom_gradient import custom_gradient
from pyjax._src.custom_vjp import CustomVJPPrimal, custom_vjp, custom_vjp_call_p
from pyjax._src.linear_call import linear_call
from pyjax._src.remat_opt import remat_opt_p
from pyjax._src.tree_util import tree_map


def custom_vjp_primal_tree_values(tree: Any) -> Any:
    """The tree with each CustomVJPPrimal replaced by its value (what a
    custom_vjp forward rule defined with optimize_remat or symbolic zeros
    unwraps)."""
    return tree_map(lambda x: x.value if isinstance(x, CustomVJPPrimal) else x, tree,
                    is_leaf=lambda x: isinstance(x, CustomVJPPrimal))


__all__ = ["CustomVJPPrimal", "SymbolicZero", "closure_convert", "custom_gradient", "custom_jvp", "custom_jvp_call_p",
           "custom_vjp", "custom_vjp_call_p", "custom_vjp_primal_tree_values", "linear_call", "remat_opt_p",
           "zero_from_primal"]
