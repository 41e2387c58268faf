"""jax.custom_remat, pinned to JAX 0.11.0's recorded behaviour under its
default checkpoint (tests/golden/custom_remat.json, recorded by
tests/golden/record_custom_remat.py from cases_custom_remat.py), and where
pyjax goes further than JAX 0.11 (which raises NotImplementedError): plain
reverse mode and vmap work on the wrapped function's body."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("custom_remat")


namespace, test_recording_is_current, test_case_matches_jax = case_set.standard_tests(CASES)


import pyjax as jax  # noqa: E402
import pyjax.numpy as jnp  # noqa: E402


def _rules():
    return (lambda policy, x: (x, None)), (lambda res, x: (x, None)), (lambda res, g: (g,))


def test_staged_as_one_equation_holding_the_body():
    g = jax.custom_remat(lambda x: jnp.sin(x) * 2, *_rules())
    jaxpr = jax.make_jaxpr(g)(1.0)
    assert [e.primitive.name for e in jaxpr.eqns] == ["custom_remat"]
    assert [e.primitive.name for e in jaxpr.eqns[0].params["jaxpr"].eqns] == ["sin", "mul"]


def test_reverse_mode_and_vmap_use_the_body():
    g = jax.custom_remat(lambda x: jnp.sin(x) * 2, *_rules())
    x = jnp.float32(0.5)
    assert jax.grad(g)(x) == jax.grad(lambda x: jnp.sin(x) * 2)(x)
    xs = jnp.array([0.1, 0.2, 0.3])
    assert (jax.vmap(g)(xs) == jnp.sin(xs) * 2).all()


def test_rules_must_be_callable():
    with pytest.raises(TypeError, match="custom_remat: f_bwd must be callable, got int"):
        jax.custom_remat(jnp.sin, *_rules()[:2], 3)
