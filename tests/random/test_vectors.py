"""pyjax.random against the bits JAX 0.11.0 drew (tests/golden/random_vectors.json).

Every case of tests/golden/record_random_vectors.py is run under pyjax with
the same config and compared: integers, bools and key data exactly; floats
bit for bit when the case's ``ulp`` is 0 (large draws through a SHA-256 of
their bytes), otherwise within that many units in the last place of
max(|value|, 1): the largest difference measured on the recorded draws. Non-zero ``ulp`` is set only for cases whose floats pass
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
    if "sha256" in record:  # a large draw: bit-identical or not
        assert cases_module.digest(actual, np) == record["sha256"], f"{where}: not bit-identical (digest)"
        return
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
    if ulp == 0 and not fma:
        assert np.array_equal(actual.view(f"u{actual.dtype.itemsize}"), expected.view(f"u{expected.dtype.itemsize}")), (
            f"{where}: not bit-identical\n  pyjax: {actual!r}\n  jax:   {expected!r}")
        return
    # Units in the last place of max(|value|, 1) (of the largest magnitude in
    # the array for fma cases): near a zero of the sampler's formula, errors
    # of the transcendental under it are absolute, not relative.
    wide = expected.astype(np.float64)
    floor = np.abs(wide).max(initial=0) if fma else 1.0
    scale = np.maximum(np.abs(wide), floor).astype(expected.dtype)
    allowed = max(ulp, 1) * np.spacing(scale).astype(np.float64)
    both_nan = np.isnan(wide) & np.isnan(actual.astype(np.float64))
    close = both_nan | (np.abs(actual.astype(np.float64) - wide) <= allowed)
    assert close.all(), (
        f"{where}: further apart than {max(ulp, 1)} ulp{' (fma)' if fma else ''}\n"
        f"  pyjax: {actual!r}\n  jax:   {expected!r}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    assert name in RECORDED, f"{name} not recorded: run tests/golden/record_random_vectors.py"
    c = CASES[name]
    assert RECORDED[name]["expr"] == c.expr, "stale recording: re-run record_random_vectors.py"
    value = cases_module.run_case(c, jax, jnp, random, np)
    _compare(RECORDED[name], value, c.ulp, name, c.fma)


def test_every_recorded_case_is_listed():
    assert set(RECORDED) == set(CASES)


# ---- coverage: issue 10 asks every distribution at two shapes, both x64 modes
COVERAGE = cases_module.coverage(RECORDED)


@pytest.mark.parametrize("family", cases_module.REQUIRED_FAMILIES)
def test_every_distribution_is_recorded(family):
    assert COVERAGE.get(family), f"no recorded case draws from {family}: add one to record_random_vectors.py"


@pytest.mark.parametrize("family", cases_module.REQUIRED_FAMILIES)
def test_two_shapes_and_both_x64_modes(family):
    combos = COVERAGE.get(family, set())
    shapes = {shape for shape, _, _ in combos}
    # PRNGKey has one shape, (2,), whatever the seed.
    assert family == "PRNGKey" or len(shapes) >= 2, f"{family}: recorded at shapes {sorted(shapes)} only"
    assert {x64 for _, _, x64 in combos} == {False, True}, f"{family}: not recorded under both x64 modes"


@pytest.mark.parametrize("family", sorted(cases_module.FLOAT_SAMPLERS))
def test_float_samplers_cover_their_dtypes(family):
    # float32 exists in both modes, float64 under x64; float16 and bfloat16
    # wherever JAX accepts them (record_random_vectors.UNSUPPORTED).
    wanted = {("float32", False), ("float32", True), ("float64", True)}
    wanted |= {(d, False) for d in ("float16", "bfloat16") if (family, d) not in cases_module.UNSUPPORTED}
    have = {(dtype, x64) for _, dtype, x64 in COVERAGE.get(family, set())}
    assert wanted <= have, f"{family}: missing {sorted(wanted - have)}"
    for dtype, x64 in wanted:
        shapes = {shape for shape, d, x in COVERAGE[family] if (d, x) == (dtype, x64)}
        assert len(shapes) >= 2, f"{family}: {dtype}{' (x64)' if x64 else ''} at one shape only"
