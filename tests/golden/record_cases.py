"""Records ``NAME.json`` from JAX 0.11.0 for a case set ``cases_NAME.py``
(a PRELUDE, a dict of CASES and ``run_case``): the recorder that
record_extend.py, record_fidelity.py, record_hijax.py, record_key_reuse.py,
record_pallas_extras.py, record_remat_opt.py and record_custom_remat.py
run for their set.

    /tmp/jax-ref/bin/python tests/golden/record_cases.py NAME

The matching tests run the same prelude and expressions under pyjax and
compare the strings.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main(name: str) -> int:
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("JAX_ENABLE_X64", None)
    import jax

    if jax.__version__ != "0.11.0":
        print(f"refusing to record: jax {jax.__version__}, need 0.11.0", file=sys.stderr)
        return 1
    cases = importlib.import_module(f"cases_{name}")
    namespace: dict = {}
    exec(cases.PRELUDE, namespace)
    records = {case: cases.run_case(namespace, expr) for case, expr in cases.CASES.items()}
    document = {"meta": {"jax_version": jax.__version__, "recorded_by": f"tests/golden/record_{name}.py"},
                "cases": records}
    output = HERE / f"{name}.json"
    output.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(records)} cases to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
