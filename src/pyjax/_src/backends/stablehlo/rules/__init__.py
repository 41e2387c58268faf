"""The lowering rules, one module per primitive family. Each module's
`register(prims)` fills the table from `prims` (name -> Primitive, the
primitives pyjax defines) when the backend is first used."""

from __future__ import annotations

FAMILIES = ("elementwise", "shapes", "reductions", "calls", "control_flow", "indexing", "windows",
            "sorting", "random", "sparse", "callbacks", "special", "shardy", "collectives", "fft", "declared")
