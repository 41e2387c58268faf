"""jax.example_libraries on pyjax: stax layers and every optimizer, against
JAX 0.11.0's results for the same workloads (tests/golden/example_libraries.json,
recorded by tests/golden/record_example_libraries.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax
from pyjax.example_libraries import optimizers, stax

GOLDEN = Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN))
import example_libraries_workloads  # noqa: E402

RECORD = json.loads((GOLDEN / "example_libraries.json").read_text())
EXPECTED = RECORD["results"]


@pytest.fixture(scope="module")
def results():
    return example_libraries_workloads.run(pyjax)


def test_recording_is_from_jax_0_11():
    assert RECORD["jax_version"] == "0.11.0"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_workload_matches_jax(results, name):
    want, got = EXPECTED[name], results.get(name)
    assert got is not None, f"{name}: not produced"
    if isinstance(want, str):
        assert got == want
    else:
        # Training losses: the same program in float32; summation orders
        # differ slightly between XLA and NumPy, and 20 steps amplify that.
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-4, atol=2e-5, err_msg=name)


def test_training_reduces_the_loss(results):
    for name in ("mlp_adam_losses", "mlp_sgd_losses", "cnn_adam_losses"):
        losses = results[name]
        assert losses[-1] < 0.8 * losses[0], name


def test_optimizer_state_is_a_pytree_through_jit():
    opt_init, opt_update, get_params = optimizers.momentum(0.1, 0.9)
    state = opt_init({"w": pyjax.numpy.ones(3)})
    state = pyjax.jit(opt_update)(0, {"w": pyjax.numpy.ones(3)}, state)
    assert isinstance(state, optimizers.OptimizerState)
    np.testing.assert_allclose(get_params(state)["w"], np.full(3, 0.9, np.float32))


def test_update_refuses_a_gradient_of_another_structure():
    opt_init, opt_update, _ = optimizers.sgd(0.1)
    state = opt_init({"w": pyjax.numpy.ones(3)})
    with pytest.raises(TypeError, match="did not match the parameter tree structure"):
        opt_update(0, [pyjax.numpy.ones(3)], state)


def test_layers_are_init_apply_pairs():
    init_fun, apply_fun = stax.serial(stax.Dense(4), stax.Relu, stax.Flatten)
    shape, params = init_fun(pyjax.random.key(0), (2, 3))
    assert shape == (2, 4)
    assert apply_fun(params, pyjax.numpy.ones((2, 3))).shape == (2, 4)
