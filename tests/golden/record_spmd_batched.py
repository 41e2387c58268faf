"""Records ``spmd_batched.json``: the programs of ``programs_spmd_batched.py`` run by JAX 0.11.0 on 8 CPU devices.

    /tmp/jax-ref/bin/python tests/golden/record_spmd_batched.py

The same recorder as every program set (``record_core.py``), with the
device count fixed first: placement facts depend on it, and JAX reads
``JAX_NUM_CPU_DEVICES`` when its backend starts.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["JAX_NUM_CPU_DEVICES"] = "8"
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.argv = [sys.argv[0], "spmd_batched"]

import record_core  # noqa: E402

if __name__ == "__main__":
    sys.exit(record_core.main())
