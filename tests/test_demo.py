"""The demo trains to high accuracy, and jit changes nothing but speed."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

import pyjax as jax  # noqa: E402
from pyjax import demo  # noqa: E402


def test_demo_trains_an_accurate_model():
    result = demo.train(epochs=4, seed=0, quiet=True)
    assert result["test_accuracy"] > 0.93
    assert result["losses"][-1] < result["losses"][0]


def test_same_loss_with_and_without_jit():
    jitted = demo.train(epochs=1, seed=1, quiet=True)["losses"]
    with jax.disable_jit():
        eager = demo.train(epochs=1, seed=1, quiet=True)["losses"]
    np.testing.assert_allclose(jitted, eager, rtol=1e-4)


def test_demo_command_line(capsys):
    demo.main(["--epochs", "1", "--seed", "2"])
    out = capsys.readouterr().out
    assert "jaxpr of the update step" in out and "test accuracy" in out and "steps/s" in out
