"""Records ``pallas_extras.json``: JAX 0.11.0's Pallas cost estimator, debug
checks, run_state and deprecated names on the cases of
cases_pallas_extras.py (kernels in interpret mode, on CPU).

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_pallas_extras.py

tests/test_pallas_extras.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("pallas_extras"))
