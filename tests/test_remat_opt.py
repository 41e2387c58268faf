"""custom_vjp's remat optimisation (`defvjp(..., optimize_remat=True)`: the
forward rule as one `remat_opt` equation, replaced by the plain function
where dead-code elimination finds its residuals unused), pinned to JAX
0.11.0's recorded jaxprs and values (tests/golden/remat_opt.json, recorded
by tests/golden/record_remat_opt.py from cases_remat_opt.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))

from cases_remat_opt import CASES, PRELUDE, run_case  # noqa: E402
from test_extend_golden import as_pyjax  # noqa: E402


RECORDED = json.loads((GOLDEN / "remat_opt.json").read_text())


@pytest.fixture(scope="module")
def namespace():
    ns: dict = {}
    exec(as_pyjax(PRELUDE), ns)
    return ns


def test_recording_is_current():
    assert RECORDED["meta"]["jax_version"] == "0.11.0"
    assert {k: v["expr"] for k, v in RECORDED["cases"].items()} == CASES, "re-record remat_opt.json"


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_jax(namespace, name):
    want = RECORDED["cases"][name]
    got = run_case(namespace, CASES[name])
    if "error" in want:
        assert (got.get("error"), got.get("message")) == (want["error"], want["message"]), got
    else:
        assert got.get("text") == want["text"], got
