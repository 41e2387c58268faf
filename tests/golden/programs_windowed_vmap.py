"""vmap of the windowed and cumulative reductions and of lax.reduce, recorded
from JAX 0.11.0 into ``windowed_vmap.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py windowed_vmap

The batch axis gets a window of its own (size 1, stride 1, no padding) —
in place for reduce_window_sum/max/min, at the front for the general
reduce_window, select_and_gather_add and select_and_scatter_add (max-pool
gradients per example); cumulative reductions scan the shifted axis; the
general reduce moves every operand's batch axis to the front.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


program("reduce_window_sum_in_axes_1", "jaxpr", """
f = lambda x: lax.reduce_window(x, 0., lax.add, (2, 2), (1, 2), ((0, 1), (1, 0)))
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((4, 3, 6)))
""")

program("reduce_window_max_same_padding", "jaxpr", """
f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (3,), (2,), 'SAME')
result = jax.make_jaxpr(jax.vmap(f, in_axes=-1))(jnp.ones((7, 3)))
""")

program("reduce_window_min_dilated", "jaxpr", """
f = lambda x: lax.reduce_window(x, jnp.inf, lax.min, (2,), (1,), 'VALID', base_dilation=(2,), window_dilation=(2,))
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones((3, 5)))
""")

program("reduce_window_general_variadic_mixed", "jaxpr", """
def f(x, y):
  return lax.reduce_window((x, y), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (2,), (1,), 'VALID')
result = jax.make_jaxpr(jax.vmap(f, in_axes=(1, None)))(jnp.ones((5, 3)), jnp.ones(5))
""")

program("max_pool_grad_per_example", "jaxpr", """
f = lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), 'VALID') ** 2)
result = jax.make_jaxpr(jax.vmap(jax.grad(f)))(jnp.ones((3, 4, 4)))
""")

program("max_pool_jvp_tangent_unbatched", "jaxpr", """
f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), 'VALID')
g = lambda x, t: jax.jvp(f, (x,), (t,))[1]
result = jax.make_jaxpr(jax.vmap(g, in_axes=(0, None)))(jnp.ones((3, 6)), jnp.ones(6))
""")

program("cumsum_in_axes_1", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.cumsum(x, axis=1), in_axes=1))(jnp.ones((2, 3, 4)))
""")

program("cummax_reverse", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.cummax(x, axis=0, reverse=True), in_axes=1))(jnp.ones((4, 3)))
""")

program("cumprod_cumlogsumexp_out_axes_1", "jaxpr", """
f = lambda x: (lax.cumprod(x), lax.cumlogsumexp(x, reverse=True), lax.cummin(x))
result = jax.make_jaxpr(jax.vmap(f, out_axes=1))(jnp.ones((3, 5)))
""")

program("reduce_variadic_argmax", "jaxpr", """
def f(x, i):
  def pick(a, b):
    take = a[0] >= b[0]
    return lax.select(take, a[0], b[0]), lax.select(take, a[1], b[1])
  return lax.reduce((x, i), (-jnp.inf, 0), pick, (0,))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(1, None)))(jnp.ones((4, 3)), jnp.arange(4))
""")

program("reduce_two_axes", "jaxpr", """
f = lambda x: lax.reduce(x, 0., lambda a, b: a * 0.5 + b, (0, 2))
result = jax.make_jaxpr(jax.vmap(f, in_axes=2))(jnp.ones((3, 2, 5, 2)))
""")

program("value_reduce_window_and_cumsum", "value", """
x = jnp.arange(24.).reshape(4, 6)
f = lambda r: lax.reduce_window(lax.cumsum(r), -jnp.inf, lax.max, (3,), (2,), 'SAME')
result = jax.vmap(f)(x)
""")
