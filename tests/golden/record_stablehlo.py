"""Records ``stablehlo.json``: the StableHLO text JAX 0.11.0 prints for every
program of ``stablehlo_programs.py`` (``jit(f).lower(...).as_text(debug_info=False)``).

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_stablehlo.py

It refuses to record with any JAX other than 0.11.0, runs each program
with ``programs_core.run_program`` (the runner every golden set shares),
checks that it produced text, and writes the file deterministically.
(The set is named ``stablehlo_programs.py``, not ``programs_*.py``, so that
tests/test_golden.py leaves it to tests/backends/test_stablehlo.py.)
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
from jax import lax  # noqa: E402

import programs_core  # noqa: E402
import stablehlo_programs  # noqa: E402

REFERENCE_VERSION = "0.11.0"
OUTPUT = HERE / "stablehlo.json"


def record(programs, output: Path, recorded_by: str, **meta) -> int:
  """Runs `programs` on JAX 0.11.0 and writes their texts to `output`
  (shared with record_stablehlo_sharded.py; `meta` adds to the file's meta)."""
  if jax.__version__ != REFERENCE_VERSION:
    print(f"refusing to record: jax {jax.__version__}, need {REFERENCE_VERSION}", file=sys.stderr)
    return 1
  records = {}
  for program in programs:
    record = programs_core.run_program(program, jax, jnp, lax)
    if record["kind"] != "text":
      print(f"{program.name}: expected text, got {record}", file=sys.stderr)
      return 1
    record["source"] = program.source
    records[program.name] = record
  document = {
      "meta": {"jax_version": jax.__version__, "platform": jax.default_backend(),
               "x64": bool(jax.config.read("jax_enable_x64")), "recorded_by": recorded_by, **meta},
      "programs": records,
  }
  output.write_text(json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
  print(f"recorded {len(records)} programs to {output}")
  return 0


def main() -> int:
  return record(stablehlo_programs.PROGRAMS, OUTPUT, "tests/golden/record_stablehlo.py")


if __name__ == "__main__":
  sys.exit(main())
