"""A case set (``cases_NAME.py``: PRELUDE, CASES, run_case) and its JAX
0.11.0 recording (``NAME.json``, made by ``record_cases.py NAME``), as the
tests that compare pyjax with it use them."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import SimpleNamespace

GOLDEN = Path(__file__).resolve().parent
for _path in (GOLDEN, GOLDEN.parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


def load(name: str) -> SimpleNamespace:
    """The set's CASES, PRELUDE and run_case, and its recording."""
    cases = importlib.import_module(f"cases_{name}")
    recorded = json.loads((GOLDEN / f"{name}.json").read_text())
    return SimpleNamespace(name=name, CASES=cases.CASES, PRELUDE=cases.PRELUDE, run_case=cases.run_case,
                           RECORDED=recorded)


def pyjax_namespace(case_set: SimpleNamespace) -> dict:
    """The prelude run under pyjax (`import jax` spelled as pyjax)."""
    from test_extend_golden import as_pyjax

    namespace: dict = {}
    exec(as_pyjax(case_set.PRELUDE), namespace)
    return namespace


def assert_recording_is_current(case_set: SimpleNamespace) -> None:
    recorded = case_set.RECORDED
    assert recorded["meta"]["jax_version"] == "0.11.0"
    assert {k: v["expr"] for k, v in recorded["cases"].items()} == case_set.CASES, \
        f"re-record {case_set.name}.json"


def assert_case_matches(case_set: SimpleNamespace, namespace: dict, case: str) -> None:
    """pyjax's result (text, or error class and message) equals JAX's."""
    want = case_set.RECORDED["cases"][case]
    got = case_set.run_case(namespace, case_set.CASES[case])
    if "error" in want:
        assert (got.get("error"), got.get("message")) == (want["error"], want["message"]), got
    else:
        assert got.get("text") == want["text"], got


def standard_tests(case_set: SimpleNamespace):
    """What every case-set test module runs, for it to bind at module level:
    ``namespace, test_recording_is_current, test_case_matches_jax =
    case_set.standard_tests(CASES)`` (a module-scoped fixture and two tests)."""
    import pytest

    @pytest.fixture(scope="module")
    def namespace():
        return pyjax_namespace(case_set)

    def test_recording_is_current():
        assert_recording_is_current(case_set)

    @pytest.mark.parametrize("name", sorted(case_set.CASES))
    def test_case_matches_jax(namespace, name):
        assert_case_matches(case_set, namespace, name)

    return namespace, test_recording_is_current, test_case_matches_jax
