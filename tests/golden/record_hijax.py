"""Records ``hijax.json``: JAX 0.11.0's primal_tangent_dtype, EArray and
cur_qdd (jax.experimental) on the cases of cases_hijax.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_hijax.py

tests/test_hijax.py runs the same prelude and expressions under pyjax and
compares the strings.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "hijax.json"
sys.path.insert(0, str(HERE))

from cases_hijax import CASES, PRELUDE, run_case  # noqa: E402


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
    document = {"meta": {"jax_version": jax.__version__, "recorded_by": "tests/golden/record_hijax.py"},
                "cases": records}
    OUTPUT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(records)} cases to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
