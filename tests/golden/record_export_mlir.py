"""Records ``export_mlir.json``: the text of ``Exported.mlir_module()`` JAX
0.11.0 prints for each program of ``export_mlir_programs.py``, without
location information (the module re-parsed and printed without debug info),
and under "lowered" ``jit(f).lower(*args).as_text(debug_info=False)`` for its
host-callback programs (ordered effects and their tokens).

    /tmp/jax-ref/bin/python tests/golden/record_export_mlir.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ.pop("JAX_ENABLE_X64", None)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402
from jax._src.interpreters import mlir  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402

import export_mlir_programs  # noqa: E402

REFERENCE_VERSION = "0.11.0"


def without_locations(text: str) -> str:
    with mlir.make_ir_context():
        return ir.Module.parse(text).operation.get_asm(enable_debug_info=False)


def main() -> int:
    if jax.__version__ != REFERENCE_VERSION:
        print(f"refusing to record with JAX {jax.__version__} (need {REFERENCE_VERSION})")
        return 1
    records = {}
    for name, (fun, specs) in export_mlir_programs.programs(jax, jnp, export).items():
        exported = export.export(jax.jit(fun))(*specs)
        records[name] = without_locations(exported.mlir_module())
    jax.config.update("jax_enable_x64", True)
    try:
        programs = export_mlir_programs.programs(jax, jnp, export)
        x64 = {name: without_locations(export.export(jax.jit(programs[name][0]))(*programs[name][1]).mlir_module())
               for name in export_mlir_programs.X64}
    finally:
        jax.config.update("jax_enable_x64", False)
    lowered = {name: jax.jit(fun).lower(*args).as_text(debug_info=False)
               for name, (fun, args) in export_mlir_programs.lowered(jax, jnp, np).items()}
    document = {"meta": {"jax_version": jax.__version__, "x64": bool(jax.config.read("jax_enable_x64")),
                         "recorded_by": "tests/golden/record_export_mlir.py"}, "programs": records,
                "lowered": lowered, "x64": x64}
    (HERE / "export_mlir.json").write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(records)} exported and {len(lowered)} lowered programs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
