"""Records ``extend.json``: primitives defined only through jax.extend and
jax.interpreters (cases_extend.PRELUDE) under eager evaluation, jit, grad,
vmap and make_jaxpr in JAX 0.11.0 — values, jaxpr text, the rule tables as a
library reads them, and the errors for missing rules.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_extend.py

The test (tests/test_extend_golden.py) runs the same prelude and expressions
under pyjax and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("extend"))
