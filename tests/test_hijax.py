"""The hijax names of jax.experimental — primal_tangent_dtype (a dtype whose
tangents have another dtype: to_edtype/from_edtype and their JVPs), EArray
and cur_qdd — pinned to JAX 0.11.0's recorded behaviour
(tests/golden/hijax.json, recorded by tests/golden/record_hijax.py from
cases_hijax.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))

from cases_hijax import CASES, PRELUDE, run_case  # noqa: E402
from test_extend_golden import as_pyjax  # noqa: E402


RECORDED = json.loads((GOLDEN / "hijax.json").read_text())


@pytest.fixture(scope="module")
def namespace():
    ns: dict = {}
    exec(as_pyjax(PRELUDE), ns)
    return ns


def test_recording_is_current():
    assert RECORDED["meta"]["jax_version"] == "0.11.0"
    assert {k: v["expr"] for k, v in RECORDED["cases"].items()} == CASES, "re-record hijax.json"


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_jax(namespace, name):
    want = RECORDED["cases"][name]
    got = run_case(namespace, CASES[name])
    if "error" in want:
        assert (got.get("error"), got.get("message")) == (want["error"], want["message"]), got
    else:
        assert got.get("text") == want["text"], got
