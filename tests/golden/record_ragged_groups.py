"""Records ``ragged_groups.json``: JAX 0.11.0's lax.ragged_all_to_all with axis_index_groups on the
cases of cases_ragged_groups.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_ragged_groups.py

tests/test_ragged_groups.py runs the same prelude and expressions under
pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("ragged_groups"))
