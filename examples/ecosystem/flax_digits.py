"""flax on scikit-learn's 8x8 digits: a linen MLP trained with optax, and an
nnx CNN (Conv, BatchNorm, Dropout, avg_pool) trained with nnx.Optimizer and
nnx.jit / nnx.value_and_grad. Runs unchanged on JAX and pyjax:

    python -m pyjax run examples/ecosystem/flax_digits.py

Prints one JSON line: each model's final training loss and test accuracy.
"""

import json
import time

import numpy as np
from sklearn.datasets import load_digits

import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
import optax
from flax import nnx

start = time.perf_counter()
digits = load_digits()
images = (digits.images / 16.0).astype(np.float32)
labels = digits.target.astype(np.int32)
order = np.random.default_rng(0).permutation(len(labels))
train, test = order[:1400], order[1400:]
x_train, y_train = jnp.asarray(images[train]), jnp.asarray(labels[train])
x_test, y_test = jnp.asarray(images[test]), jnp.asarray(labels[test])
batches = [np.random.default_rng(1 + e).permutation(1400).reshape(-1, 100) for e in range(6)]
results = {}


# --- linen MLP ------------------------------------------------------------------
class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = x.reshape((x.shape[0], -1))
        x = nn.relu(nn.Dense(64)(x))
        return nn.Dense(10)(x)


mlp = MLP()
params = mlp.init(jax.random.PRNGKey(0), x_train[:1])
tx = optax.adam(1e-2)
opt_state = tx.init(params)


def mlp_loss(params, x, y):
    logits = mlp.apply(params, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


@jax.jit
def mlp_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


for epoch in batches[:4]:
    for idx in epoch:
        params, opt_state, loss = mlp_step(params, opt_state, x_train[idx], y_train[idx])
results["linen_mlp_train_loss"] = float(mlp_loss(params, x_train, y_train))
results["linen_mlp_test_accuracy"] = float(jnp.mean(jnp.argmax(mlp.apply(params, x_test), -1) == y_test))
results["linen_mlp_params"] = int(sum(p.size for p in jax.tree_util.tree_leaves(params)))


# --- nnx CNN ----------------------------------------------------------------------
class CNN(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(1, 16, kernel_size=(3, 3), rngs=rngs)
        self.bn = nnx.BatchNorm(16, rngs=rngs)
        self.conv2 = nnx.Conv(16, 16, kernel_size=(3, 3), rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.linear = nnx.Linear(16 * 4 * 4, 10, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.bn(self.conv1(x[..., None])))
        x = nnx.avg_pool(nnx.relu(self.conv2(x)), window_shape=(2, 2), strides=(2, 2))
        return self.linear(self.dropout(x.reshape(x.shape[0], -1)))


model = CNN(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(5e-3), wrt=nnx.Param)


def cnn_loss(model, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()


@nnx.jit
def cnn_step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(cnn_loss)(model, x, y)
    optimizer.update(model, grads)
    return loss


@nnx.jit
def cnn_eval(model, x, y):
    logits = model(x)
    return cnn_loss(model, x, y), jnp.mean(jnp.argmax(logits, -1) == y)


model.train()
for epoch in batches[:3]:
    for idx in epoch:
        loss = cnn_step(model, optimizer, x_train[idx], y_train[idx])
model.eval()
train_loss, _ = cnn_eval(model, x_train, y_train)
_, test_accuracy = cnn_eval(model, x_test, y_test)
results["nnx_cnn_train_loss"] = float(train_loss)
results["nnx_cnn_test_accuracy"] = float(test_accuracy)
results["nnx_cnn_params"] = int(sum(p.size for p in jax.tree_util.tree_leaves(nnx.state(model, nnx.Param))))
results["nnx_optimizer_steps"] = int(optimizer.step[...])
print(json.dumps({"library": "flax", "version": flax.__version__, "jax": jax.__version__,
                  "results": results, "seconds": round(time.perf_counter() - start, 3)}))
