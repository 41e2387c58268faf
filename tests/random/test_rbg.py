"""The rbg and unsafe_rbg PRNGs and lax.rng_bit_generator against JAX 0.11.0.

Every case of tests/golden/record_rbg_vectors.py runs under pyjax with the
config it was recorded under (x64, jax_threefry_partitionable,
jax_default_prng_impl) and is compared bit for bit with what JAX drew
(tests/golden/rbg_vectors.json): key data, bits, samples, their dtypes and
shapes; where JAX refused, pyjax must raise the same class and message.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import random

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
_spec = importlib.util.spec_from_file_location("record_rbg_vectors", GOLDEN / "record_rbg_vectors.py")
cases_module = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cases_module
_spec.loader.exec_module(cases_module)
RECORDED = json.loads((GOLDEN / "rbg_vectors.json").read_text(encoding="utf-8"))["cases"]
CASES = {c.name: c for c in cases_module.CASES}


def _compare(record: dict, value, where: str, ulp: int = 0) -> None:
    if "tuple" in record:
        assert isinstance(value, (tuple, list)) and len(value) == len(record["tuple"]), where
        for i, (r, v) in enumerate(zip(record["tuple"], value)):
            _compare(r, v, f"{where}[{i}]", ulp)
        return
    actual = np.asarray(value)
    assert str(actual.dtype) == record["dtype"], f"{where}: dtype {actual.dtype} != {record['dtype']}"
    assert list(actual.shape) == record["shape"], f"{where}: shape {actual.shape} != {record['shape']}"
    if "value" in record:
        expected = np.array(record["value"], dtype=actual.dtype).reshape(actual.shape)
        np.testing.assert_array_equal(actual, expected, err_msg=where)
        return
    if actual.dtype.kind == "c":
        actual = np.stack([actual.real, actual.imag], axis=-1)
    got = actual.view(f"u{actual.dtype.itemsize}")
    expected = np.array(record["bits"], dtype=got.dtype).reshape(got.shape)
    if ulp:
        # Units in the last place of max(|value|, 1), as test_vectors.py
        # allows samplers through a transcendental; the bits under them are
        # the same (the uniform cases are bit-exact).
        want = expected.view(actual.dtype).astype(np.float64)
        scale = np.maximum(np.abs(want), 1.0).astype(actual.dtype)
        allowed = ulp * np.spacing(scale).astype(np.float64)
        assert (np.abs(actual.astype(np.float64) - want) <= allowed).all(), (
            f"{where}: further apart than {ulp} ulp\n  pyjax: {actual!r}\n  jax:   {want!r}")
        return
    assert np.array_equal(got, expected), (
        f"{where}: not bit-identical\n  pyjax: {actual!r}\n  jax:   {expected.view(actual.dtype)!r}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name):
    assert name in RECORDED, f"{name} not recorded: run tests/golden/record_rbg_vectors.py"
    c, record = CASES[name], RECORDED[name]
    assert record["expr"] == c.expr, "stale recording: re-run record_rbg_vectors.py"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # uint64 truncated to uint32 without x64, as JAX warns
        if "error" in record:
            with pytest.raises(Exception) as info:
                cases_module.run_case(c, jax, jnp, random, np)
            _skip_if_iree_declares(info.value)
            assert type(info.value).__name__ == record["error"]
            assert str(info.value) == record["message"]
            return
        try:
            value = cases_module.run_case(c, jax, jnp, random, np)
        except Exception as e:
            _skip_if_iree_declares(e)
            raise
    _compare(record, value, name, c.ulp)


def _skip_if_iree_declares(error):
    # Under PYJAX_BACKEND=iree (docs/iree.md): rbg keys' random_bits and
    # random_split, random_gamma and the LAPACK primitives are declared, not
    # lowered; the case is NumPy-backend only (as tests/conftest.py's
    # numpy_backend marker, decided per case by the primitive it reaches).
    if type(error).__name__ == "IreeUnsupportedError":
        pytest.skip(f"NumPy backend only (PYJAX_BACKEND=iree): {str(error).split(' Run this', 1)[0]}")


def test_every_recorded_case_is_listed():
    assert set(RECORDED) == set(CASES)
