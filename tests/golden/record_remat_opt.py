"""Records ``remat_opt.json``: JAX 0.11.0's custom_vjp remat optimisation
(`optimize_remat=True`, the remat_opt primitive) on the cases of
cases_remat_opt.py: jaxprs under vjp, grad, checkpoint, jit, scan and
vmap, and gradients.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_remat_opt.py

tests/test_remat_opt.py runs the same prelude and expressions under pyjax
and compares the strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_cases import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("remat_opt"))
