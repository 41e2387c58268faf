"""Loops at the edges of their shape (issue 19, item 3): zero carries, zero
xs, zero ys, length 0, identity bodies (a loop whose carries are all
forwarded has no outputs at all), constant bodies, conds returning inputs or
literals, fori_loops with equal bounds, nesting — eagerly, under jit, and
with the native tier forced (built at the first call, checked, then used).

Each result is compared with JAX 0.11.0's, recorded in
tests/golden/loop_edges.json by tests/golden/record_loop_edges.py from the
same cases (tests/golden/loop_edge_cases.py)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings

GOLDEN = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN))
import loop_edge_cases  # noqa: E402

RECORDED = json.loads((GOLDEN / "loop_edges.json").read_text())["cases"]
CASES = {name: (fn, args) for name, fn, args in loop_edge_cases.cases(pyjax, lax, jnp, np)}


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(RECORDED)


def _check(got, expected: dict):
    assert loop_edge_cases.encode(pyjax, np, got) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(name):
    fn, args = CASES[name]
    _check(fn(*args), RECORDED[name]["eager"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_jax(name):
    fn, args = CASES[name]
    jitted = pyjax.jit(fn)
    _check(jitted(*args), RECORDED[name]["jit"])
    _check(jitted(*args), RECORDED[name]["jit"])  # the cached program too


@pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED, reason="the native tier needs a C compiler")
@pytest.mark.parametrize("name", sorted(CASES))
def test_native_forced_matches_jax(name, monkeypatch):
    # PYJAX_NATIVE_LOOPS_AFTER=0: every loop builds its native tier at once
    # (the first call checks it against the Python loop, later calls run it).
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    fn, args = CASES[name]
    jitted = pyjax.jit(lambda *a: fn(*a))  # a new function: nothing cached
    for _ in range(3):
        _check(jitted(*args), RECORDED[name]["jit"])
    for _ in range(2):  # eager loops compile their equation alone, native tier included
        _check(fn(*args), RECORDED[name]["eager"])


def test_loops_with_no_outputs_compile():
    # The programs: a SyntaxError from generated code before the fix.
    xs = jnp.arange(3.0)
    c, ys = lax.scan(lambda c, x: (c, None), 1.0, xs)
    assert c == 1.0 and ys is None
    assert lax.while_loop(lambda c: False, lambda c: c, 1.0) == 1.0
    assert pyjax.jit(lambda xs: lax.scan(lambda c, x: (c, None), 1.0, xs)[0])(xs) == 1.0
