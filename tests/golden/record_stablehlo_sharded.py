"""Records ``stablehlo_sharded.json``: the StableHLO text JAX 0.11.0 prints on 8 CPU
devices for every program of ``stablehlo_sharded_programs.py`` (``jit(f).lower(...).as_text(debug_info=False)``).

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_stablehlo_sharded.py

It refuses to record with any JAX other than 0.11.0, runs each program
with ``programs_core.run_program`` (the runner every golden set shares),
checks that it produced text, and writes the file deterministically.
(The set is named ``stablehlo_sharded_programs.py``, not ``programs_*.py``, so that
tests/test_golden.py leaves it to tests/backends/test_stablehlo_sharded.py.)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

os.environ["JAX_NUM_CPU_DEVICES"] = "8"  # (read when JAX's backend starts)

import record_stablehlo  # noqa: E402  (sets the platform, imports JAX)
import stablehlo_sharded_programs  # noqa: E402

OUTPUT = HERE / "stablehlo_sharded.json"


def main() -> int:
  return record_stablehlo.record(stablehlo_sharded_programs.PROGRAMS, OUTPUT, "tests/golden/record_stablehlo_sharded.py",
                                 devices=record_stablehlo.jax.device_count())


if __name__ == "__main__":
  sys.exit(main())
