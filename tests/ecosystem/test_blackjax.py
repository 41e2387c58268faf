"""blackjax unchanged on pyjax: NUTS with window adaptation samples a 2-d
Gaussian whose mean and standard deviations are known
(examples/ecosystem/blackjax_gaussian.py).

The sampler's first steps are bitwise JAX's; the adaptation's step sizes
then drift apart by float32 ulps (pyjax's exp/log are within a few ulps of
XLA's) and the chains diverge, as chaotic samplers do, so the results are
checked against the truth within Monte Carlo error, and against JAX's
statistically."""

import pytest

from tests.ecosystem._util import jax_reference, require, run_example

require("blackjax", "optax")

TRUE_MEAN, TRUE_STD = [1.0, -2.0], [0.5, 2.0]


@pytest.fixture(scope="module")
def out():
    return run_example("blackjax_gaussian.py")


def test_nuts_recovers_mean_and_std(out):
    r = out["results"]
    assert r["num_samples"] == 1000
    for got, mean, std in zip(r["mean"], TRUE_MEAN, TRUE_STD):
        assert abs(got - mean) < 0.2 * std  # ~3 Monte Carlo standard errors
    for got, std in zip(r["std"], TRUE_STD):
        assert got == pytest.approx(std, rel=0.12)


def test_fixed_kernel_steps_are_jaxs(out):
    # Same keys, same step size: the same trajectories, to the bit.
    ref = jax_reference("blackjax")["results"]["fixed_kernel_positions_and_steps"]
    assert out["results"]["fixed_kernel_positions_and_steps"] == ref


def test_adaptation_tunes_like_jax(out):
    r, ref = out["results"], jax_reference("blackjax")["results"]
    # Dual averaging aims at 0.8 acceptance; the mass matrix at the variances.
    assert 0.7 < r["acceptance_rate"] < 0.98 and 0.7 < ref["acceptance_rate"] < 0.98
    assert r["step_size"] == pytest.approx(ref["step_size"], rel=0.35)
    for got, variance in zip(r["inverse_mass_matrix"], [s * s for s in TRUE_STD]):
        assert got == pytest.approx(variance, rel=0.6)
