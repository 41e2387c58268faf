"""Records ``custom_remat.json``: JAX 0.11.0's jax.custom_remat (default
checkpoint, jax_remat3 off) on the cases of cases_custom_remat.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_custom_remat.py

tests/test_custom_remat.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "custom_remat.json"
sys.path.insert(0, str(HERE))

from cases_custom_remat import CASES, PRELUDE, run_case  # noqa: E402


def main() -> int:
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("JAX_ENABLE_X64", None)
    import jax

    if jax.__version__ != "0.11.0":
        print(f"refusing to record: jax {jax.__version__}, need 0.11.0", file=sys.stderr)
        return 1
    namespace: dict = {}
    exec(PRELUDE, namespace)
    records = {name: run_case(namespace, expr) for name, expr in CASES.items()}
    document = {"meta": {"jax_version": jax.__version__, "recorded_by": "tests/golden/record_custom_remat.py"},
                "cases": records}
    OUTPUT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(records)} cases to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
