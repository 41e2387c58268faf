"""custom_vjp's remat optimisation (`defvjp(..., optimize_remat=True)`: the
forward rule as one `remat_opt` equation, replaced by the plain function
where dead-code elimination finds its residuals unused), pinned to JAX
0.11.0's recorded jaxprs and values (tests/golden/remat_opt.json, recorded
by tests/golden/record_remat_opt.py from cases_remat_opt.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("remat_opt")


@pytest.fixture(scope="module")
def namespace():
    return case_set.pyjax_namespace(CASES)


def test_recording_is_current():
    case_set.assert_recording_is_current(CASES)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_case_matches_jax(namespace, name):
    case_set.assert_case_matches(CASES, namespace, name)
