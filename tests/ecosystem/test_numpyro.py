"""numpyro unchanged on pyjax: NUTS on a Bayesian linear regression; the
posterior means sit within tolerance of the true coefficients and of the
least-squares fit (examples/ecosystem/numpyro_regression.py).

The chains are JAX's in distribution, not bit for bit (float32 ulps in
exp/log during adaptation send them apart, as in blackjax's test)."""

import pytest

from tests.ecosystem._util import jax_reference, require, run_example

require("numpyro", "multipledispatch", "tqdm")

TRUE_COEF, TRUE_INTERCEPT, TRUE_SIGMA = [2.0, -1.0, 0.5], 1.0, 0.3


@pytest.fixture(scope="module")
def out():
    return run_example("numpyro_regression.py")


def test_posterior_means_recover_the_truth(out):
    r = out["results"]
    assert r["num_samples"] == 500 and r["divergences"] == 0
    for got, true in zip(r["coef_mean"], TRUE_COEF):
        assert abs(got - true) < 0.1  # the data's noise: posterior sd ~0.03
    assert abs(r["intercept_mean"] - TRUE_INTERCEPT) < 0.1
    assert abs(r["sigma_mean"] - TRUE_SIGMA) < 0.06


def test_posterior_matches_least_squares_and_jax(out):
    r, ref = out["results"], jax_reference("numpyro")["results"]
    # Weak priors: the posterior mean is the least-squares fit, within MC error.
    for got, ls, sd in zip(r["coef_mean"], r["least_squares"], r["coef_std"]):
        assert abs(got - ls) < 0.5 * sd
    for got, want in zip(r["coef_mean"], ref["coef_mean"]):
        assert abs(got - want) < 0.01
    for got, want in zip(r["coef_std"], ref["coef_std"]):
        assert got == pytest.approx(want, rel=0.25)
    assert min(r["coef_ess"]) > 100
