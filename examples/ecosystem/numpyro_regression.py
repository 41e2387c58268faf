"""numpyro: NUTS on a Bayesian linear regression (Normal priors on the
coefficients and intercept, a HalfNormal on the noise) with data drawn
from known coefficients. Runs unchanged on JAX and on pyjax:

    python -m pyjax run examples/ecosystem/numpyro_regression.py

Prints one JSON line: posterior means and standard deviations, r_hat-free
diagnostics (effective sample sizes, divergences).
"""

import json
import time

import numpy as np

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.diagnostics import effective_sample_size
from numpyro.infer import MCMC, NUTS

start = time.perf_counter()
rng = np.random.default_rng(0)
true_coef = np.array([2.0, -1.0, 0.5], np.float32)
true_intercept, true_sigma = 1.0, 0.3
X = rng.normal(size=(100, 3)).astype(np.float32)
y = (X @ true_coef + true_intercept + true_sigma * rng.normal(size=100)).astype(np.float32)


def model(X, y=None):
    coef = numpyro.sample("coef", dist.Normal(jnp.zeros(3), 5.0).to_event(1))
    intercept = numpyro.sample("intercept", dist.Normal(0.0, 5.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    numpyro.sample("obs", dist.Normal(X @ coef + intercept, sigma), obs=y)


mcmc = MCMC(NUTS(model), num_warmup=300, num_samples=500, progress_bar=False)
mcmc.run(jax.random.PRNGKey(0), jnp.asarray(X), jnp.asarray(y))
samples = mcmc.get_samples()
extra = mcmc.get_extra_fields()
results = {
    "coef_mean": [float(v) for v in samples["coef"].mean(0)],
    "coef_std": [float(v) for v in samples["coef"].std(0)],
    "intercept_mean": float(samples["intercept"].mean()),
    "sigma_mean": float(samples["sigma"].mean()),
    "num_samples": int(samples["coef"].shape[0]),
    "divergences": int(extra["diverging"].sum()),
    "coef_ess": [float(v) for v in effective_sample_size(np.asarray(samples["coef"])[None])],
}
# The least-squares fit: the posterior under these weak priors sits on it.
design = np.hstack([X, np.ones((100, 1), np.float32)])
results["least_squares"] = [float(v) for v in np.linalg.lstsq(design, y, rcond=None)[0]]
print(json.dumps({"library": "numpyro", "version": numpyro.__version__, "jax": jax.__version__,
                  "results": results, "seconds": round(time.perf_counter() - start, 3)}))
