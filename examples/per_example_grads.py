"""Per-example gradients with vmap(grad) — and their mean equals the batch gradient."""

import numpy as np

from _impl import load

jax, jnp, lax, args = load(__doc__)

rng = np.random.default_rng(0)
w = jnp.asarray(rng.standard_normal((5, 3)).astype(np.float32))
xs = jnp.asarray(rng.standard_normal((8, 5)).astype(np.float32))
ys = jnp.asarray(rng.standard_normal((8, 3)).astype(np.float32))


def loss(w, x, y):
    return jnp.sum((jnp.tanh(x @ w) - y) ** 2)


per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))(w, xs, ys)
batch = jax.grad(lambda w: jnp.sum(jax.vmap(loss, in_axes=(None, 0, 0))(w, xs, ys)))(w)
print("per-example shape:", per_example.shape)
print("norms:", [round(float(n), 4) for n in jnp.sqrt(jnp.sum(per_example ** 2, axis=(1, 2)))])
print("sum equals batch gradient:", bool(jnp.allclose(jnp.sum(per_example, axis=0), batch, atol=1e-4)))
