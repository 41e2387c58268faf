"""Records ``profiler.json``: profiler_workloads.run under JAX 0.11.0.

    /tmp/jax-ref/bin/python tests/golden/record_profiler.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402

import profiler_workloads  # noqa: E402


def main() -> int:
    if jax.__version__ != "0.11.0":
        print(f"refusing to record: jax {jax.__version__}, need 0.11.0", file=sys.stderr)
        return 1
    record = {"jax_version": jax.__version__, "results": profiler_workloads.run(jax)}
    (HERE / "profiler.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(record['results'])} facts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
