"""Primitives defined only through jax.extend and jax.interpreters, under
eager evaluation, jit, grad, vmap and make_jaxpr, against JAX 0.11.0.

tests/golden/cases_extend.py holds the prelude (the primitives, defined
the way a library defines them) and the expressions; extend.json is their
recording from JAX 0.11.0 (tests/golden/record_extend.py). Here the same
prelude runs with `jax` meaning pyjax, and every expression must give JAX's
text, or JAX's error class and message.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))

from cases_extend import CASES, PRELUDE, run_case  # noqa: E402

RECORDED = json.loads((GOLDEN / "extend.json").read_text())


def as_pyjax(source: str) -> str:
    """The prelude with every `jax` import naming pyjax instead."""
    source = re.sub(r"^import jax$", "import pyjax as jax", source, flags=re.M)
    source = re.sub(r"^import jax\.([\w.]+) as (\w+)$", r"import pyjax.\1 as \2", source, flags=re.M)
    return re.sub(r"^from jax(\.[\w.]+)? import", r"from pyjax\1 import", source, flags=re.M)


@pytest.fixture(scope="module")
def namespace():
    ns: dict = {}
    exec(as_pyjax(PRELUDE), ns)
    return ns


def test_recording_is_current():
    assert RECORDED["meta"]["jax_version"] == "0.11.0"
    assert set(RECORDED["cases"]) == set(CASES)
    assert all(RECORDED["cases"][k]["expr"] == v for k, v in CASES.items()), "re-record extend.json"


def test_prelude_imports_only_public_extension_modules():
    imported = {n.module for n in ast.walk(ast.parse(PRELUDE)) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(ast.parse(PRELUDE)) if isinstance(n, ast.Import) for a in n.names}
    assert imported <= {"numpy", "jax", "jax.numpy", "jax.core", "jax.extend.core", "jax.interpreters"}, imported


def _close(a, b) -> bool:
    # Values are printed lists of floats: equal to float32 rounding.
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 2e-6 * max(1.0, abs(b))
    return a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_jax(namespace, name):
    want = RECORDED["cases"][name]
    got = run_case(namespace, CASES[name])
    if "error" in want:
        assert (got.get("error"), got.get("message")) == (want["error"], want["message"]), got
        return
    assert "error" not in got, got
    if want["text"].startswith("["):
        assert _close(ast.literal_eval(got["text"]), ast.literal_eval(want["text"])), (got["text"], want["text"])
    else:
        assert got["text"] == want["text"]
