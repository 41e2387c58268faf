"""Records ``key_reuse.json``: JAX 0.11.0's key-reuse checker on the cases of
cases_key_reuse.py (static signatures and errors of jitted functions, the
eager checks under jax_debug_key_reuse).

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_key_reuse.py

tests/random/test_key_reuse.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("key_reuse"))
