"""dm-haiku unchanged on pyjax: transform/init/apply of an MLP (trained
with optax) and transform_with_state of a ResNet block with BatchNorm
(examples/ecosystem/haiku_resnet.py)."""

import pytest

from tests.ecosystem._util import jax_reference, require, run_example

require("haiku", "jmp", "tabulate", "optax")


@pytest.fixture(scope="module")
def out():
    return run_example("haiku_resnet.py")


def test_mlp_init_apply_and_training(out):
    r, ref = out["results"], jax_reference("haiku")["results"]
    # The same PRNG key gives the same initial parameters as on JAX.
    assert r["mlp_param_shapes"] == ref["mlp_param_shapes"]
    assert r["mlp_output_mean_std"] == pytest.approx(ref["mlp_output_mean_std"], rel=1e-5)
    assert r["mlp_initial_loss"] == pytest.approx(ref["mlp_initial_loss"], rel=1e-5)
    assert r["mlp_final_loss"] < 0.05 * r["mlp_initial_loss"]
    assert r["mlp_final_loss"] == pytest.approx(ref["mlp_final_loss"], rel=0.02)


def test_resnet_block_with_state(out):
    r, ref = out["results"], jax_reference("haiku")["results"]
    assert r["resnet_param_shapes"] == ref["resnet_param_shapes"]
    assert r["resnet_state_keys"] == ref["resnet_state_keys"]
    assert r["resnet_out_shape"] == [4, 4, 4, 8]
    for key in ("resnet_train_out_mean_std", "resnet_eval_out_mean_std"):
        assert r[key] == pytest.approx(ref[key], rel=1e-5)
    assert r["resnet_mean_ema_abs_mean"] == pytest.approx(ref["resnet_mean_ema_abs_mean"], rel=1e-5)
    assert r["resnet_grad_norm"] == pytest.approx(ref["resnet_grad_norm"], rel=1e-4)
