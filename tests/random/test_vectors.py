"""pyjax.random against the bits JAX 0.11.0 drew (tests/golden/random_vectors.json).

Every case of tests/golden/record_random_vectors.py is run under pyjax with
the same config and compared: integers, bools and key data exactly; floats
bit for bit when the case's ``ulp`` is 0, otherwise within that many units in
the last place. Non-zero ``ulp`` is set only for cases whose floats pass
through a transcendental (erf_inv, log, log1p, exp, tan, pow, lgamma ...):
XLA evaluates those with its own approximations, pyjax's NumPy backend with
NumPy/SciPy, and the last bits can differ. Cases marked ``fma`` allow one
rounding of the largest magnitude: XLA on the CPU fuses ``a * b + c`` into a
single fused multiply-add, NumPy rounds twice. The random *bits* under them
are always identical: the uniform cases on [0, 1) at ulp 0 show it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import random

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
_spec = importlib.util.spec_from_file_location("record_random_vectors", GOLDEN / "record_random_vectors.py")
cases_module = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cases_module
_spec.loader.exec_module(cases_module)
RECORDED = json.loads((GOLDEN / "random_vectors.json").read_text(encoding="utf-8"))["cases"]
CASES = {c.name: c for c in cases_module.CASES}


def _ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # Distance in representable values: map the sign-magnitude bit patterns
    # onto a monotonic integer line.
    bits = a.dtype.itemsize * 8
    ia = a.view(f"i{a.dtype.itemsize}").astype(object if bits == 64 else np.int64)
    ib = b.view(f"i{b.dtype.itemsize}").astype(object if bits == 64 else np.int64)
    low = -(2 ** (bits - 1))
    ia = np.where(ia < 0, low - ia, ia)
    ib = np.where(ib < 0, low - ib, ib)
    return np.abs(ia - ib)


def _dtype(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name)) if name == "bfloat16" else np.dtype(name)


def _compare(record: dict, value, ulp: int, where: str, fma: bool = False) -> None:
    if "tuple" in record:
        assert isinstance(value, (tuple, list)) and len(value) == len(record["tuple"]), where
        for i, (r, v) in enumerate(zip(record["tuple"], value)):
            _compare(r, v, ulp, f"{where}[{i}]", fma)
        return
    actual = np.asarray(value)
    assert str(actual.dtype) == record["dtype"], f"{where}: dtype {actual.dtype} != {record['dtype']}"
    assert list(actual.shape) == record["shape"], f"{where}: shape {actual.shape} != {record['shape']}"
    if "value" in record:
        np.testing.assert_array_equal(actual, np.array(record["value"], dtype=actual.dtype).reshape(actual.shape), err_msg=where)
        return
    dtype = _dtype(record["dtype"])
    if dtype.kind == "c":
        part = np.dtype(f"f{dtype.itemsize // 2}")
        expected_parts = np.array(record["bits"], dtype=f"u{part.itemsize}").view(part)
        actual_parts = np.stack([actual.real, actual.imag], axis=-1)
        expected, actual = expected_parts.reshape(actual_parts.shape), actual_parts
    else:
        expected = np.array(record["bits"], dtype=f"u{dtype.itemsize}").view(dtype).reshape(actual.shape)
    if fma:
        # One rounding of the fused multiply-add apart: an ulp of the largest magnitude.
        wide = expected.astype(np.float64)
        allowed = (max(ulp, 1) * np.spacing(np.abs(expected).max(initial=0))).astype(np.float64)
        assert np.all(np.abs(actual.astype(np.float64) - wide) <= allowed), (
            f"{where}: more than an fma rounding apart\n  pyjax: {actual!r}\n  jax:   {expected!r}")
        return
    if ulp == 0:
        assert np.array_equal(actual.view(f"u{actual.dtype.itemsize}"), expected.view(f"u{expected.dtype.itemsize}")), (
            f"{where}: not bit-identical\n  pyjax: {actual!r}\n  jax:   {expected!r}")
        return
    both_nan = np.isnan(actual.astype(np.float64)) & np.isnan(expected.astype(np.float64))
    distance = np.where(both_nan, 0, _ulp_distance(actual, expected))
    assert distance.max(initial=0) <= ulp, (
        f"{where}: {distance.max()} ulp apart (allowed {ulp})\n  pyjax: {actual!r}\n  jax:   {expected!r}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    assert name in RECORDED, f"{name} not recorded: run tests/golden/record_random_vectors.py"
    c = CASES[name]
    assert RECORDED[name]["expr"] == c.expr, "stale recording: re-run record_random_vectors.py"
    value = cases_module.run_case(c, jax, jnp, random, np)
    _compare(RECORDED[name], value, c.ulp, name, c.fma)


def test_every_recorded_case_is_listed():
    assert set(RECORDED) == set(CASES)
