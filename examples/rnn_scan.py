"""An Elman RNN with lax.scan, trained to predict a sine wave's next value."""

import numpy as np

from _impl import load

jax, jnp, lax, args = load(__doc__)

T, H = 40, 16
t = np.linspace(0, 4 * np.pi, T + 1, dtype=np.float32)
xs, ys = jnp.asarray(np.sin(t[:-1])[:, None]), jnp.asarray(np.sin(t[1:]))
rng = np.random.default_rng(0)
params = {
    "Wx": jnp.asarray(rng.standard_normal((1, H)).astype(np.float32) * 0.3),
    "Wh": jnp.asarray(rng.standard_normal((H, H)).astype(np.float32) * 0.3),
    "b": jnp.zeros(H),
    "Wo": jnp.asarray(rng.standard_normal((H,)).astype(np.float32) * 0.3),
}


def loss(params):
    def step(h, x):
        h = jnp.tanh(x @ params["Wx"] + h @ params["Wh"] + params["b"])
        return h, h @ params["Wo"]

    _, preds = lax.scan(step, jnp.zeros(H), xs)
    return jnp.mean((preds - ys) ** 2)


update = jax.jit(lambda p: jax.tree.map(lambda w, g: w - 0.1 * g, p, jax.grad(loss)(p)))
print(f"initial loss {float(loss(params)):.5f}")
for i in range(60):
    params = update(params)
print(f"final loss {float(loss(params)):.5f}")
