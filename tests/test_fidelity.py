"""Small fidelity gaps found by comparison with JAX 0.11.0 (issue 26 item 5),
each pinned to JAX's recorded behaviour (tests/golden/fidelity.json,
recorded by tests/golden/record_fidelity.py): iterating over a traced array
binds one `unstack`; static arguments equal in value but not in type are
different cache entries; a vmap output left unmapped (out_axes=None) comes
back as the value it was; arithmetic on typed PRNG keys raises JAX's
TypeError."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))

from cases_fidelity import CASES, PRELUDE, run_case  # noqa: E402
from test_extend_golden import as_pyjax  # noqa: E402

RECORDED = json.loads((GOLDEN / "fidelity.json").read_text())


@pytest.fixture(scope="module")
def namespace():
    ns: dict = {}
    exec(as_pyjax(PRELUDE), ns)
    return ns


def test_recording_is_current():
    assert RECORDED["meta"]["jax_version"] == "0.11.0"
    assert {k: v["expr"] for k, v in RECORDED["cases"].items()} == CASES, "re-record fidelity.json"


def normalise(message: str | None) -> str | None:
    """JAX lists the accepted dtype classes of its dtype errors in the order
    of a Python set of classes, which changes from process to process: the
    list is compared as a set."""
    if message is None:
        return None
    match = re.search(r"(subtypes of )(.*)\.$", message)
    if match is None:
        return message
    names = ", ".join(sorted(match.group(2).split(", ")))
    return message[:match.start(2)] + names + "."


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_jax(namespace, name):
    want = RECORDED["cases"][name]
    got = run_case(namespace, CASES[name])
    if "error" in want:
        assert (got.get("error"), normalise(got.get("message"))) == (want["error"], normalise(want["message"])), got
    else:
        assert got.get("text") == want["text"], got
