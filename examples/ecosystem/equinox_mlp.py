"""equinox: an eqx.nn.MLP fitting sin(x) and a small eqx.nn.Conv2d network
telling horizontal from vertical bars, trained with eqx.filter_jit,
eqx.filter_value_and_grad and optax.adam. Runs unchanged on JAX and pyjax:

    python -m pyjax run examples/ecosystem/equinox_mlp.py

Prints one JSON line: initial and final losses, the conv net's accuracy.
"""

import json
import time

import numpy as np

import jax
import jax.numpy as jnp
import equinox as eqx
import optax

start = time.perf_counter()
results = {}

# --- MLP regression ---------------------------------------------------------
x = jnp.linspace(-3.0, 3.0, 64).reshape(-1, 1)
y = jnp.sin(x)
model = eqx.nn.MLP(in_size=1, out_size=1, width_size=32, depth=2, activation=jax.nn.tanh,
                   key=jax.random.PRNGKey(0))


def mlp_loss(model, x, y):
    return jnp.mean((jax.vmap(model)(x) - y) ** 2)


optimizer = optax.adam(1e-2)
opt_state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))


@eqx.filter_jit
def mlp_step(model, opt_state, x, y):
    loss, grads = eqx.filter_value_and_grad(mlp_loss)(model, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, eqx.filter(model, eqx.is_inexact_array))
    return eqx.apply_updates(model, updates), opt_state, loss


results["mlp_initial_loss"] = float(mlp_loss(model, x, y))
for _ in range(300):
    model, opt_state, loss = mlp_step(model, opt_state, x, y)
results["mlp_final_loss"] = float(mlp_loss(model, x, y))
results["mlp_params"] = sum(p.size for p in jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_array)))

# --- Conv2d classifier --------------------------------------------------------
rng = np.random.default_rng(0)
images, labels = [], []
for i in range(128):
    img = 0.3 * rng.normal(size=(8, 8))
    k = rng.integers(1, 7)
    if i % 2:
        img[k, :] += 1.0  # a horizontal bar
    else:
        img[:, k] += 1.0  # a vertical bar
    images.append(img[None])
    labels.append(i % 2)
images = jnp.asarray(np.stack(images), jnp.float32)
labels = jnp.asarray(labels)


class ConvNet(eqx.Module):
    conv: eqx.nn.Conv2d
    linear: eqx.nn.Linear

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.conv = eqx.nn.Conv2d(1, 4, kernel_size=3, padding=1, key=k1)
        self.linear = eqx.nn.Linear(4 * 8 * 8, 2, key=k2)

    def __call__(self, img):
        return self.linear(jnp.ravel(jax.nn.relu(self.conv(img))))


net = ConvNet(jax.random.PRNGKey(1))


def conv_loss(net, images, labels):
    logits = jax.vmap(net)(images)
    return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, labels))


conv_opt = optax.adam(1e-2)
conv_state = conv_opt.init(eqx.filter(net, eqx.is_array))


@eqx.filter_jit
def conv_step(net, state, images, labels):
    loss, grads = eqx.filter_value_and_grad(conv_loss)(net, images, labels)
    updates, state = conv_opt.update(grads, state, eqx.filter(net, eqx.is_array))
    return eqx.apply_updates(net, updates), state, loss


results["conv_initial_loss"] = float(conv_loss(net, images, labels))
for _ in range(40):
    net, conv_state, loss = conv_step(net, conv_state, images, labels)
results["conv_final_loss"] = float(conv_loss(net, images, labels))
predictions = jnp.argmax(jax.vmap(net)(images), axis=-1)
results["conv_accuracy"] = float(jnp.mean(predictions == labels))
print(json.dumps({"library": "equinox", "version": eqx.__version__, "jax": jax.__version__,
                  "results": results, "seconds": round(time.perf_counter() - start, 3)}))
