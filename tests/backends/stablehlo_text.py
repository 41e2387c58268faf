"""What the StableHLO golden tests share (test_stablehlo.py, test_stablehlo_sharded.py):
their parameters, and the exact comparison of a program's text with JAX's."""

from __future__ import annotations

import difflib

import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax


def params(programs: dict, known_gaps: dict) -> list:
    """One parameter per program; a known gap is a strict xfail with its reason."""
    return [pytest.param(name, marks=[pytest.mark.xfail(reason=known_gaps[name], strict=True)]
                         if name in known_gaps else [], id=name) for name in programs]


def check_text(program, want: str) -> None:
    """Fails with a unified diff unless pyjax prints `want` for `program`."""
    import programs_core

    record = programs_core.run_program(program, pyjax, jnp, lax)
    assert record["kind"] == "text", f"{program.name}: {record}"
    got = record["text"]
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "jax 0.11.0", "pyjax"))
        pytest.fail(f"{program.name}: StableHLO text differs\n{diff}")
