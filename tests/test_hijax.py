"""The hijax names of jax.experimental — primal_tangent_dtype (a dtype whose
tangents have another dtype: to_edtype/from_edtype and their JVPs), EArray
and cur_qdd — pinned to JAX 0.11.0's recorded behaviour
(tests/golden/hijax.json, recorded by tests/golden/record_hijax.py from
cases_hijax.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("hijax")


@pytest.fixture(scope="module")
def namespace():
    return case_set.pyjax_namespace(CASES)


def test_recording_is_current():
    case_set.assert_recording_is_current(CASES)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_case_matches_jax(namespace, name):
    case_set.assert_case_matches(CASES, namespace, name)
