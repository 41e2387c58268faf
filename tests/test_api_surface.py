"""pyjax has every public name of JAX 0.11's documented modules, or says why not.

The reference is tests/golden/api_surface.json (recorded from JAX 0.11.0 by
tests/golden/record_api_surface.py); the reasons are
pyjax.tools.api_surface.DECLARED_ABSENT.
"""

from __future__ import annotations

import pytest

from pyjax.tools import api_surface

REFERENCE = api_surface.load_reference()
RESULT = api_surface.compare(REFERENCE)


def test_reference_is_jax_0_11():
    assert REFERENCE["jax_version"] == "0.11.0"
    assert "jax.numpy" in REFERENCE["modules"] and "jit" in REFERENCE["modules"]["jax"]


@pytest.mark.parametrize("module_name", sorted(REFERENCE["modules"]))
def test_no_name_missing_without_a_reason(module_name):
    missing = RESULT[module_name]["missing"]
    assert not missing, (f"{module_name} lacks {missing}: implement them, or give each a reason in "
                         "pyjax.tools.api_surface.DECLARED_ABSENT")


def test_declared_absent_table_is_current():
    assert api_surface.stale_declarations(REFERENCE) == []
    # Names whose typo would hide them from the stale check are caught here too.
    assert not [p for p in api_surface.stale_declarations(REFERENCE) if "not a name" in p]


def test_every_reason_names_an_issue():
    for key, reason in api_surface.DECLARED_ABSENT.items():
        assert reason.startswith("issue "), (key, reason)


def test_report_counts_every_recorded_name():
    totals = api_surface.totals(RESULT)
    assert sum(totals.values()) == sum(len(v) for v in REFERENCE["modules"].values())
    text = api_surface.render(REFERENCE, RESULT)
    assert text.splitlines()[-1].startswith(f"total: {totals['present']}/")


def test_declared_reason_walks_up_the_module_path():
    assert api_surface.declared_reason("jax.interpreters.mlir.lower_fun") == api_surface.ISSUE27
    assert api_surface.declared_reason("jax.jit") is None


@pytest.mark.parametrize("module_name", api_surface.SIGNATURES_CHECKED)
def test_signatures_match_jax(module_name):
    assert api_surface.signature_mismatches(REFERENCE, module_name) == []


def test_signature_parser():
    strip = api_surface._strip_defaults
    assert api_surface._parameters(strip("(x, /, *, axis=None)")) == ["x", "/", "*", "axis"]
    text = "(a: ArrayLike, b=<function f at 1>, *args, c: dict[str, int] = {1: 2}, **kw) -> int"
    assert api_surface._parameters(strip(text)) == ["a", "b", "*args", "c", "**kw"]
