"""Records ``custom_remat.json``: JAX 0.11.0's jax.custom_remat (default
checkpoint, jax_remat3 off) on the cases of cases_custom_remat.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_custom_remat.py

tests/test_custom_remat.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("custom_remat"))
