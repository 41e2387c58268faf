"""custom_vjp's remat optimisation (`defvjp(..., optimize_remat=True)`: the
forward rule as one `remat_opt` equation, replaced by the plain function
where dead-code elimination finds its residuals unused), pinned to JAX
0.11.0's recorded jaxprs and values (tests/golden/remat_opt.json, recorded
by tests/golden/record_remat_opt.py from cases_remat_opt.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("remat_opt")


namespace, test_recording_is_current, test_case_matches_jax = case_set.standard_tests(CASES)
