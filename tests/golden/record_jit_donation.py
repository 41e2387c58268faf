"""Records ``jit_donation.json``: JAX 0.11.0's jit donation (CPU) on the
cases of cases_jit_donation.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_jit_donation.py

tests/test_jit_donation.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("jit_donation"))
