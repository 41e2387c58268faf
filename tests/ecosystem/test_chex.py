"""chex unchanged on pyjax: assertions pass and fail as on JAX, a chex
dataclass is a pytree through jit and grad, variants run a test with and
without jit, restrict_backends sees compilations
(examples/ecosystem/chex_checks.py)."""

import pytest

from tests.ecosystem._util import jax_reference, require, run_example

require("chex", "absl", "toolz")


@pytest.fixture(scope="module")
def out():
    return run_example("chex_checks.py")


def test_every_outcome_matches_jax(out):
    ref = jax_reference("chex")["results"]
    assert out["results"] == ref


def test_failing_assertions_fail(out):
    r = out["results"]
    for name in ("assert_shape_bad", "assert_rank_bad", "assert_type_bad", "trees_all_close_bad",
                 "tree_all_finite_bad", "max_traces_retrace"):
        assert r[name].startswith("AssertionError: [Chex]"), (name, r[name])
    assert r["assert_shape_ok"] == r["trees_all_close_ok"] == "ok"


def test_dataclass_and_variants(out):
    r = out["results"]
    assert r["dataclass_jit"] == [[0.0, 3.0, 6.0], 3.0]
    assert r["dataclass_grad"] == [0.0, 2.0, 4.0]
    assert r["variants_run"] == 4 and r["variants_errors"] == []
    assert r["variants_failed"] == ["test_fails__with_jit", "test_fails__without_jit"]
    assert r["restrict_backends"].startswith("RestrictedBackendError")
