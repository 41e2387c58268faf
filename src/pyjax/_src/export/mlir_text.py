"""The StableHLO text of an `Exported` (`Exported.mlir_module()`)."""

from __future__ import annotations


def export_module_text(exp) -> str:
    """The module as pyjax lowers the exported jaxpr, with export's module attribute."""
    from pyjax._src import stages

    if stages._stablehlo_lowering is None:
        raise NotImplementedError("no StableHLO lowering is installed (pyjax's backends/stablehlo wires it)")
    module = stages._stablehlo_lowering(exp._jaxpr, exp.fun_name, exp.out_tree, [False] * len(exp.in_avals), True)
    poly = "true" if exp.uses_global_constants else "false"
    return str(module).replace(" attributes {", f" attributes {{jax.uses_shape_polymorphism = {poly}, ", 1)
