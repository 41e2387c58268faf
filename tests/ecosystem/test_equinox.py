"""equinox unchanged on pyjax: an eqx.nn.MLP and an eqx.nn.Conv2d network
trained with filter_jit / filter_value_and_grad and optax
(examples/ecosystem/equinox_mlp.py)."""

import pytest

from tests.ecosystem._util import jax_reference, require, run_example

require("equinox", "jaxtyping", "wadler_lindig", "optax")


@pytest.fixture(scope="module")
def out():
    return run_example("equinox_mlp.py")


def test_mlp_fits_sin(out):
    r, ref = out["results"], jax_reference("equinox")["results"]
    assert r["mlp_initial_loss"] > 0.3 and r["mlp_final_loss"] < 1e-3
    assert r["mlp_params"] == ref["mlp_params"] == 1153
    assert r["mlp_initial_loss"] == pytest.approx(ref["mlp_initial_loss"], rel=1e-5)
    assert r["mlp_final_loss"] == pytest.approx(ref["mlp_final_loss"], rel=0.05)


def test_conv_net_learns_the_bars(out):
    r, ref = out["results"], jax_reference("equinox")["results"]
    assert r["conv_final_loss"] < 0.05 < r["conv_initial_loss"]
    assert r["conv_accuracy"] == ref["conv_accuracy"] == 1.0
    assert r["conv_final_loss"] == pytest.approx(ref["conv_final_loss"], rel=0.05)
