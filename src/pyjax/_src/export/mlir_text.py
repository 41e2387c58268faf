"""The StableHLO text of an `Exported` (`Exported.mlir_module()`)."""

from __future__ import annotations

_export_lowering = None


def set_export_lowering(lower) -> None:
    """Installs the function `Exported.mlir_module()` calls (backends/stablehlo wires it)."""
    global _export_lowering
    _export_lowering = lower


def export_module_text(exp) -> str:
    """The module as JAX's export serializes it (see backends/stablehlo/export_module.py)."""
    if _export_lowering is None:
        raise NotImplementedError("no StableHLO lowering is installed (pyjax's backends/stablehlo wires it)")
    return _export_lowering(exp)
