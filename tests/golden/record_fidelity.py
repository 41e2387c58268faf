"""Records ``fidelity.json``: small fidelity cases of issue 26 item 5
(cases_fidelity.py) in JAX 0.11.0 — iterating over traced arrays, static
arguments equal in value but not in type, vmap outputs left unmapped, and
arithmetic on typed PRNG keys.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_fidelity.py

The test (tests/test_fidelity.py) runs the same prelude and expressions
under pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("fidelity"))
