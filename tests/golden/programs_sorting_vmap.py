"""vmap of sort, top_k and approx_top_k, recorded from JAX 0.11.0 into
``sorting_vmap.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py sorting_vmap

sort aligns every operand with the first batched one (unbatched operands are
broadcast to its shape) and sorts the shifted dimension; top_k and
approx_top_k keep the batch axis where it is.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


program("sort_in_axes_1", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.sort(x, dimension=0), in_axes=1))(jnp.ones((4, 3, 2)))
""")

program("sort_key_val_unbatched_values", "jaxpr", """
f = lambda k, v: lax.sort_key_val(k, v)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(1, None)))(jnp.ones((5, 3)), jnp.arange(5))
""")

program("sort_three_operands_two_keys", "jaxpr", """
f = lambda a, b, c: lax.sort((a, b, c), dimension=1, num_keys=2)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(None, 2, 0)))(jnp.ones((2, 4)), jnp.ones((2, 4, 3)), jnp.ones((3, 2, 4)))
""")

program("argsort_batched", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(jnp.argsort))(jnp.ones((3, 5)))
""")

program("top_k_batch_after_axis", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.top_k(x, 2, axis=0), in_axes=1))(jnp.ones((5, 3)))
""")

program("top_k_batch_last", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.top_k(x, 3), in_axes=-1))(jnp.ones((2, 6, 4)))
""")

program("approx_max_k_batched", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.approx_max_k(x, 2), in_axes=1))(jnp.ones((8, 3)))
""")

program("approx_min_k_dimension_0", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.approx_min_k(x, 2, reduction_dimension=0)))(jnp.ones((3, 6, 2)))
""")

program("value_sort_two_keys_mixed", "value", """
a = jnp.array([1, 0, 1, 0])
b = jnp.array([[3., 1., 2., 0.], [0., 1., 2., 3.]])
result = jax.vmap(lambda a, b: lax.sort((a, b), num_keys=2)[1], in_axes=(None, 0))(a, b)
""")

program("value_top_k_indices", "value", """
x = jnp.array([[1., 5., 3., 5.], [4., 2., 8., 0.], [0., 0., 1., 9.]])
result = jax.vmap(lambda r: lax.top_k(r, 2)[1], in_axes=1)(x.T)
""")
