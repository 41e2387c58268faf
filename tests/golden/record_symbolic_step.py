"""Records ``symbolic_step.json``: JAX 0.11.0's jax.numpy slicing with a symbolic step on the
cases of cases_symbolic_step.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_symbolic_step.py

tests/test_symbolic_step.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("symbolic_step"))
