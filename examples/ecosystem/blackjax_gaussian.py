"""blackjax: NUTS with window adaptation (step size and diagonal mass
matrix) on a 2-d Gaussian with known mean and standard deviations, sampled
with jax.lax.scan. Runs unchanged on JAX and on pyjax:

    python -m pyjax run examples/ecosystem/blackjax_gaussian.py

Prints one JSON line: the sample means and standard deviations, the tuned
step size, the acceptance rate.
"""

import json
import time

import jax
import jax.numpy as jnp
import blackjax

start = time.perf_counter()
true_mean = jnp.array([1.0, -2.0])
true_std = jnp.array([0.5, 2.0])


def logdensity(x):
    return -0.5 * jnp.sum(((x - true_mean) / true_std) ** 2)


# A fixed kernel first: ten NUTS steps from the same keys.
fixed = blackjax.nuts(logdensity, step_size=0.5, inverse_mass_matrix=jnp.ones(2))
fixed_state, fixed_step, fixed_positions = fixed.init(jnp.zeros(2)), jax.jit(fixed.step), []
for key in jax.random.split(jax.random.PRNGKey(1), 10):
    fixed_state, info = fixed_step(key, fixed_state)
    fixed_positions.append([float(v) for v in fixed_state.position] + [int(info.num_integration_steps)])

warmup = blackjax.window_adaptation(blackjax.nuts, logdensity)
(state, parameters), _ = warmup.run(jax.random.PRNGKey(0), jnp.zeros(2), num_steps=200)
kernel = blackjax.nuts(logdensity, **parameters).step


@jax.jit
def sample(state, key):
    def one_step(state, key):
        state, info = kernel(key, state)
        return state, (state.position, info.acceptance_rate)

    return jax.lax.scan(one_step, state, jax.random.split(key, 1000))


_, (positions, acceptance) = sample(state, jax.random.PRNGKey(1))
results = {
    "mean": [float(v) for v in positions.mean(axis=0)],
    "std": [float(v) for v in positions.std(axis=0)],
    "step_size": float(parameters["step_size"]),
    "inverse_mass_matrix": [float(v) for v in parameters["inverse_mass_matrix"]],
    "acceptance_rate": float(acceptance.mean()),
    "num_samples": int(positions.shape[0]),
    "fixed_kernel_positions_and_steps": fixed_positions,
}
print(json.dumps({"library": "blackjax", "version": blackjax.__version__, "jax": jax.__version__,
                  "results": results, "seconds": round(time.perf_counter() - start, 3)}))
