"""Records ``key_sharding.json``: JAX 0.11.0's typed PRNG key arrays on
meshes, on the cases of cases_key_sharding.py.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_key_sharding.py

tests/random/test_key_sharding.py runs the same prelude and expressions
under pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("key_sharding"))
