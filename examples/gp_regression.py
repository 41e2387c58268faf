"""Gaussian-process regression with an RBF kernel: Cholesky solves via lax.linalg."""

import numpy as np

from _impl import load

jax, jnp, lax, args = load(__doc__)

rng = np.random.default_rng(0)
x_train = jnp.asarray(np.linspace(-3, 3, 20, dtype=np.float32))
y_train = jnp.sin(x_train) + jnp.asarray(rng.standard_normal(20).astype(np.float32) * 0.05)
x_test = jnp.asarray(np.linspace(-3, 3, 7, dtype=np.float32))


def rbf(a, b, length=1.0):
    return jnp.exp(-0.5 * (a[:, None] - b[None, :]) ** 2 / length ** 2)


@jax.jit
def posterior_mean(x_train, y_train, x_test, noise=1e-2):
    K = rbf(x_train, x_train) + noise * jnp.eye(x_train.shape[0])
    L = lax.linalg.cholesky(K)
    z = lax.linalg.triangular_solve(L, y_train[:, None], left_side=True, lower=True)
    alpha = lax.linalg.triangular_solve(L, z, left_side=True, lower=True, transpose_a=True)
    return (rbf(x_test, x_train) @ alpha)[:, 0]


mean = posterior_mean(x_train, y_train, x_test)
print("posterior mean:", [round(float(v), 3) for v in mean])
print("close to sin:", bool(jnp.max(jnp.abs(mean - jnp.sin(x_test))) < 0.1))
