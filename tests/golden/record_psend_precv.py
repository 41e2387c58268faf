"""Records ``psend_precv.json``: JAX 0.11.0's lax.psend / lax.precv on the
cases of cases_psend_precv.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_psend_precv.py

tests/test_psend_precv.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("psend_precv"))
