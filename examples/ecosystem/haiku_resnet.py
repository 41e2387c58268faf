"""dm-haiku: hk.transform / init / apply of an MLP (trained a few optax
steps), and hk.transform_with_state of a ResNet block (Conv2D, BatchNorm
with its moving averages, a projection shortcut). Runs unchanged on JAX and
on pyjax:

    python -m pyjax run examples/ecosystem/haiku_resnet.py

Prints one JSON line: parameter shapes, output statistics, losses.
"""

import json
import time

import numpy as np

import jax
import jax.numpy as jnp
import haiku as hk
import optax

start = time.perf_counter()
results = {}
rng = np.random.default_rng(0)


def mlp_fn(x):
    return hk.nets.MLP([32, 32, 1], activation=jax.nn.gelu)(x)


mlp = hk.transform(mlp_fn)
x = jnp.asarray(rng.normal(size=(64, 3)), jnp.float32)
y = jnp.sum(x ** 2, axis=1, keepdims=True)
params = mlp.init(jax.random.PRNGKey(42), x)
results["mlp_param_shapes"] = {f"{m}/{n}": list(v.shape) for m, d in sorted(params.items())
                               for n, v in sorted(d.items())}
out = mlp.apply(params, None, x)
results["mlp_output_mean_std"] = [float(out.mean()), float(out.std())]


def loss(params):
    return jnp.mean((mlp.apply(params, None, x) - y) ** 2)


opt = optax.adam(1e-2)
state = opt.init(params)


@jax.jit
def step(params, state):
    value, grads = jax.value_and_grad(loss)(params)
    updates, state = opt.update(grads, state)
    return optax.apply_updates(params, updates), state, value


results["mlp_initial_loss"] = float(loss(params))
for _ in range(100):
    params, state, _ = step(params, state)
results["mlp_final_loss"] = float(loss(params))


class ResNetBlock(hk.Module):
    def __init__(self, channels, stride=1, name=None):
        super().__init__(name=name)
        self.channels, self.stride = channels, stride

    def __call__(self, x, is_training):
        shortcut = x
        if self.stride != 1 or x.shape[-1] != self.channels:
            shortcut = hk.Conv2D(self.channels, 1, stride=self.stride, with_bias=False, name="proj")(x)
        h = hk.Conv2D(self.channels, 3, stride=self.stride, with_bias=False)(x)
        h = hk.BatchNorm(True, True, 0.9)(h, is_training)
        h = jax.nn.relu(h)
        h = hk.Conv2D(self.channels, 3, with_bias=False)(h)
        h = hk.BatchNorm(True, True, 0.9)(h, is_training)
        return jax.nn.relu(h + shortcut)


block = hk.transform_with_state(lambda x, is_training: ResNetBlock(8, stride=2)(x, is_training))
images = jnp.asarray(rng.normal(size=(4, 8, 8, 3)), jnp.float32)
params, bn_state = block.init(jax.random.PRNGKey(0), images, True)
results["resnet_param_shapes"] = {f"{m}/{n}": list(v.shape) for m, d in sorted(params.items())
                                  for n, v in sorted(d.items())}
apply = jax.jit(block.apply, static_argnums=(4,))
train_out, bn_state = apply(params, bn_state, None, images, True)
eval_out, _ = apply(params, bn_state, None, images, False)
results["resnet_out_shape"] = list(train_out.shape)
results["resnet_train_out_mean_std"] = [float(train_out.mean()), float(train_out.std())]
results["resnet_eval_out_mean_std"] = [float(eval_out.mean()), float(eval_out.std())]
results["resnet_state_keys"] = sorted(f"{m}/{n}" for m, d in bn_state.items() for n in d)
mean_ema = bn_state[min(bn_state)]["average"]  # the first BatchNorm's mean_ema
results["resnet_mean_ema_abs_mean"] = float(jnp.mean(jnp.abs(mean_ema)))
grads = jax.grad(lambda p: jnp.sum(block.apply(p, bn_state, None, images, True)[0]))(params)
results["resnet_grad_norm"] = float(optax.global_norm(grads))
print(json.dumps({"library": "haiku", "version": hk.__version__, "jax": jax.__version__,
                  "results": results, "seconds": round(time.perf_counter() - start, 3)}))
