"""optax on a linear regression with known weights: adam, adamw, a chain with
gradient clipping and a warmup-cosine schedule, sgd with exponential decay,
and L-BFGS with its zoom line search. Runs unchanged on JAX and on pyjax:

    python examples/ecosystem/optax_regression.py              # JAX
    python -m pyjax run examples/ecosystem/optax_regression.py # pyjax

Prints one JSON line: each optimiser's final loss and largest weight error.
"""

import json
import time

import numpy as np

import jax
import jax.numpy as jnp
import optax

start = time.perf_counter()
rng = np.random.default_rng(0)
true_w = np.array([1.5, -2.0, 0.5, 3.0], np.float32)
true_b = np.float32(0.25)
X = rng.normal(size=(256, 4)).astype(np.float32)
y = X @ true_w + true_b + 0.01 * rng.normal(size=256).astype(np.float32)
X, y = jnp.asarray(X), jnp.asarray(y)


def loss_fn(params):
    pred = X @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


def init_params():
    return {"w": jnp.zeros(4, jnp.float32), "b": jnp.zeros((), jnp.float32)}


def fit(optimizer, steps):
    params = init_params()
    state = optimizer.init(params)

    @jax.jit
    def step(params, state):
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    for _ in range(steps):
        params, state, _ = step(params, state)
    return params


def fit_lbfgs(steps):
    optimizer = optax.lbfgs()
    params = init_params()
    state = optimizer.init(params)
    value_and_grad = optax.value_and_grad_from_state(loss_fn)

    @jax.jit
    def step(params, state):
        value, grad = value_and_grad(params, state=state)
        updates, state = optimizer.update(grad, state, params, value=value, grad=grad, value_fn=loss_fn)
        return optax.apply_updates(params, updates), state

    for _ in range(steps):
        params, state = step(params, state)
    return params


schedule = optax.warmup_cosine_decay_schedule(0.0, 0.1, warmup_steps=20, decay_steps=300, end_value=1e-3)
runs = {
    "adam": lambda: fit(optax.adam(0.05), 300),
    "adamw": lambda: fit(optax.adamw(0.05, weight_decay=1e-4), 300),
    "chain_clip_cosine": lambda: fit(optax.chain(optax.clip_by_global_norm(1.0), optax.scale_by_adam(),
                                                 optax.scale_by_schedule(schedule), optax.scale(-1.0)), 300),
    "sgd_exp_decay": lambda: fit(optax.sgd(optax.exponential_decay(0.1, 100, 0.5)), 300),
    "lbfgs": lambda: fit_lbfgs(20),
}
results = {}
for name, run in runs.items():
    params = run()
    results[name] = {
        "loss": float(loss_fn(params)),
        "max_weight_error": float(jnp.max(jnp.abs(params["w"] - true_w))),
        "bias_error": float(jnp.abs(params["b"] - true_b)),
    }
results["schedule_at_10_and_200"] = [float(schedule(10)), float(schedule(200))]
print(json.dumps({"library": "optax", "version": optax.__version__, "jax": jax.__version__,
                  "results": results, "seconds": round(time.perf_counter() - start, 3)}))
