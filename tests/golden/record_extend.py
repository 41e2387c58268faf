"""Records ``extend.json``: primitives defined only through jax.extend and
jax.interpreters (cases_extend.PRELUDE) under eager evaluation, jit, grad,
vmap and make_jaxpr in JAX 0.11.0 — values, jaxpr text, the rule tables as a
library reads them, and the errors for missing rules.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_extend.py

The test (tests/test_extend_golden.py) runs the same prelude and expressions
under pyjax and compares the strings.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "extend.json"
sys.path.insert(0, str(HERE))

from cases_extend import CASES, PRELUDE, run_case  # noqa: E402


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
    document = {"meta": {"jax_version": jax.__version__, "recorded_by": "tests/golden/record_extend.py"},
                "cases": records}
    OUTPUT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(records)} cases to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
