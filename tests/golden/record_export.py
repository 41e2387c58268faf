"""Records ``export.json``: JAX 0.11.0's results for ``export_cases.py``.

    /tmp/jax-ref/bin/python tests/golden/record_export.py
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

import export_cases  # noqa: E402

REFERENCE_VERSION = "0.11.0"


def main() -> int:
    if jax.__version__ != REFERENCE_VERSION:
        print(f"refusing to record with JAX {jax.__version__} (need {REFERENCE_VERSION})")
        return 1
    results = {name: export_cases.render(thunk) for name, thunk in export_cases.cases(jax, jnp, np, export).items()}
    (HERE / "export.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(results)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
