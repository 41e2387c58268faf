"""optax unchanged on pyjax: five optimisers fit a linear regression to its
known weights (examples/ecosystem/optax_regression.py)."""

import pytest

from tests.ecosystem._util import jax_reference, require, run_example

require("optax", "absl")


@pytest.fixture(scope="module")
def out():
    return run_example("optax_regression.py")


@pytest.mark.parametrize("name", ["adam", "adamw", "chain_clip_cosine", "sgd_exp_decay", "lbfgs"])
def test_optimizer_recovers_the_true_weights(out, name):
    fit = out["results"][name]
    # The data's noise (sd 0.01) sets the floor: ~1e-4 loss, ~1e-3 weight error.
    assert fit["loss"] < 2e-4
    assert fit["max_weight_error"] < 5e-3 and fit["bias_error"] < 5e-3
    ref = jax_reference("optax")["results"][name]
    assert fit["max_weight_error"] == pytest.approx(ref["max_weight_error"], abs=1e-4)
    assert fit["loss"] == pytest.approx(ref["loss"], rel=1e-3)


def test_schedule_values_match_jax(out):
    ref = jax_reference("optax")["results"]["schedule_at_10_and_200"]
    assert out["results"]["schedule_at_10_and_200"] == pytest.approx(ref, rel=1e-6)
    assert out["jax"] == "0.11.0"
