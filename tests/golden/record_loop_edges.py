"""Records loop_edges.json: every case of loop_edge_cases.py run by JAX
0.11.0, eagerly and under jit.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_loop_edges.py
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
from jax import lax  # noqa: E402

import loop_edge_cases  # noqa: E402


def main() -> int:
    if jax.__version__ != "0.11.0":
        print(f"refusing to record: jax {jax.__version__}, need 0.11.0", file=sys.stderr)
        return 1
    records = {}
    for name, fn, args in loop_edge_cases.cases(jax, lax, jnp, np):
        records[name] = {"eager": loop_edge_cases.encode(jax, np, fn(*args)),
                         "jit": loop_edge_cases.encode(jax, np, jax.jit(fn)(*args))}
    text = json.dumps({"meta": {"jax_version": jax.__version__}, "cases": records}, indent=1, sort_keys=True)
    (HERE / "loop_edges.json").write_text(text + "\n")
    print(f"recorded {len(records)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
