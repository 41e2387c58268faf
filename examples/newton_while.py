"""Newton's method for square roots with lax.while_loop (vectorised over inputs)."""

from _impl import load

jax, jnp, lax, args = load(__doc__)


@jax.jit
def newton_sqrt(a):
    def cond(state):
        x, i = state
        return jnp.logical_and(jnp.max(jnp.abs(x * x - a)) > 1e-5 * jnp.max(a), i < 50)

    def body(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, iterations = lax.while_loop(cond, body, (jnp.maximum(a, 1.0), 0))
    return x, iterations


a = jnp.asarray([2.0, 9.0, 0.25, 100.0])
x, iterations = newton_sqrt(a)
print("sqrt:", [round(float(v), 5) for v in x], "iterations:", int(iterations))
print("max error:", float(jnp.max(jnp.abs(x - jnp.sqrt(a)))) < 1e-4)
