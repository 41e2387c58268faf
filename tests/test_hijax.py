"""The hijax names of jax.experimental — primal_tangent_dtype (a dtype whose
tangents have another dtype: to_edtype/from_edtype and their JVPs), EArray
and cur_qdd — pinned to JAX 0.11.0's recorded behaviour
(tests/golden/hijax.json, recorded by tests/golden/record_hijax.py from
cases_hijax.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("hijax")


namespace, test_recording_is_current, test_case_matches_jax = case_set.standard_tests(CASES)
