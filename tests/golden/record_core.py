"""Records ``core.json``: every program of ``programs_core.py`` run by JAX.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_core.py

It refuses to record with any JAX other than 0.11.0, checks that each
program produced the kind it declares (``expect``), and writes the file
deterministically (sorted keys, fixed indentation), so re-recording an
unchanged program list gives a byte-identical file.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Record on the CPU with the default (32-bit) configuration, whatever the
# environment says; the facts must not depend on the machine.
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ.pop("JAX_ENABLE_X64", None)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import importlib  # noqa: E402

# `record_core.py [SET]` records tests/golden/programs_SET.py into SET.json
# (default: core). Every program set shares Program/run_program from
# programs_core.py, so all sets are encoded and compared the same way.
SET_NAME = sys.argv[1] if len(sys.argv) > 1 else "core"
programs_set = importlib.import_module(f"programs_{SET_NAME}")
programs_core = importlib.import_module("programs_core")

REFERENCE_VERSION = "0.11.0"
OUTPUT = HERE / f"{SET_NAME}.json"


def main() -> int:
  if jax.__version__ != REFERENCE_VERSION:
    print(f"refusing to record: jax {jax.__version__}, need {REFERENCE_VERSION}",
          file=sys.stderr)
    return 1
  jax.config.update("jax_pprint_use_color", False)
  records = {}
  wrong = []
  for program in programs_set.PROGRAMS:
    record = programs_core.run_program(program, jax, jnp, lax)
    record["source"] = program.source
    records[program.name] = record
    if record["kind"] != program.expect:
      wrong.append(f"{program.name}: expected {program.expect}, got {record}")
  if wrong:
    print("programs that did not do what they declare:", *wrong, sep="\n  ",
          file=sys.stderr)
    return 1
  document = {
      "meta": {
          "jax_version": jax.__version__,
          "jaxlib_version": jax.lib.__version__ if hasattr(jax.lib, "__version__") else None,
          "platform": jax.default_backend(),
          "x64": bool(jax.config.read("jax_enable_x64")),
          "recorded_by": f"tests/golden/record_core.py {SET_NAME}",
      },
      "programs": records,
  }
  text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False)
  OUTPUT.write_text(text + "\n", encoding="utf-8")
  kinds = {}
  for record in records.values():
    kinds[record["kind"]] = kinds.get(record["kind"], 0) + 1
  print(f"recorded {len(records)} programs to {OUTPUT}: "
        + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
  return 0


if __name__ == "__main__":
  sys.exit(main())
