"""flax unchanged on pyjax: a linen MLP and an nnx CNN (with BatchNorm,
Dropout and nnx.Optimizer) trained on scikit-learn's digits
(examples/ecosystem/flax_digits.py)."""

import pytest

from tests.ecosystem._util import jax_reference, require, run_example

require("flax", "optax", "msgpack", "yaml", "rich", "treescope", "sklearn")


@pytest.fixture(scope="module")
def out():
    return run_example("flax_digits.py")


def test_linen_mlp_classifies_digits(out):
    r, ref = out["results"], jax_reference("flax")["results"]
    assert r["linen_mlp_test_accuracy"] > 0.9
    assert r["linen_mlp_params"] == ref["linen_mlp_params"] == 64 * 64 + 64 + 64 * 10 + 10
    assert r["linen_mlp_test_accuracy"] == pytest.approx(ref["linen_mlp_test_accuracy"], abs=0.01)
    assert r["linen_mlp_train_loss"] == pytest.approx(ref["linen_mlp_train_loss"], rel=0.02)


def test_nnx_cnn_with_optimizer_classifies_digits(out):
    r, ref = out["results"], jax_reference("flax")["results"]
    assert r["nnx_cnn_test_accuracy"] > 0.85
    assert r["nnx_optimizer_steps"] == 42
    assert r["nnx_cnn_params"] == ref["nnx_cnn_params"]
    assert r["nnx_cnn_test_accuracy"] == pytest.approx(ref["nnx_cnn_test_accuracy"], abs=0.02)
    assert r["nnx_cnn_train_loss"] == pytest.approx(ref["nnx_cnn_train_loss"], rel=0.1)
