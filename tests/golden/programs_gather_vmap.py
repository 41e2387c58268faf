"""vmap of gather, the scatters, dynamic_slice, dynamic_update_slice and pad,
recorded from JAX 0.11.0 into ``gather_vmap.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py gather_vmap

A batched operand with unbatched indices becomes a leading window axis;
batched indices with an unbatched operand a leading index axis; both
batched, a leading operand_batching_dims/start_indices_batching_dims pair.
dynamic_slice and dynamic_update_slice always become a gather and a scatter
under vmap (their scalar starts stacked into one index array), as in JAX.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- gather ----

program("take_batched_operand", "jaxpr", """
idx = np.array([[2], [0]], np.int32)
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
f = lambda x: lax.gather(x, idx, dn, (1, 3))
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((4, 5, 3)))
""")

program("take_batched_indices", "jaxpr", """
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
f = lambda i: lax.gather(jnp.arange(12.).reshape(4, 3), i, dn, (1, 3), indices_are_sorted=True, unique_indices=True)
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.zeros((2, 5, 1), jnp.int32))
""")

program("take_both_batched_fill", "jaxpr", """
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
f = lambda x, i: lax.gather(x, i, dn, (1, 3), mode='fill', fill_value=-1.0)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(2, 0)))(jnp.ones((4, 3, 6)), jnp.zeros((6, 2, 1), jnp.int32))
""")

program("take_along_axis_both_batched", "jaxpr", """
f = lambda x, i: jnp.take_along_axis(x, i, axis=1)
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones((3, 2, 5)), jnp.zeros((3, 2, 4), jnp.int32))
""")

program("fancy_index_batched_indices", "jaxpr", """
x = jnp.arange(10.)
result = jax.make_jaxpr(jax.vmap(lambda i: x[i]))(jnp.zeros((3, 4), jnp.int32))
""")

# ---- scatter ----

program("scatter_add_batched_operand", "jaxpr", """
idx = np.array([[1], [3]], np.int32)
dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
f = lambda x, u: lax.scatter_add(x, idx, u, dn)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(1, None)))(jnp.ones((5, 3, 2)), jnp.ones((2, 2)))
""")

program("scatter_batched_indices_only", "jaxpr", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
f = lambda i, u: lax.scatter(jnp.zeros(6), i, u, dn, mode='clip')
result = jax.make_jaxpr(jax.vmap(f))(jnp.zeros((3, 2, 1), jnp.int32), jnp.ones((3, 2)))
""")

program("scatter_mul_min_max_all_batched", "jaxpr", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
def f(x, i, u):
  return (lax.scatter_mul(x, i, u, dn), lax.scatter_min(x, i, u, dn), lax.scatter_max(x, i, u, dn),
          lax.scatter_sub(x, i, u, dn))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, 1, 0)))(jnp.ones((3, 6)), jnp.zeros((2, 3, 1), jnp.int32),
                                                         jnp.ones((3, 2)))
""")

program("at_set_batched_index", "jaxpr", """
f = lambda x, i, v: x.at[i].set(v)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(None, 0, 0)))(jnp.zeros(5), jnp.arange(3), jnp.ones(3))
""")

# ---- dynamic_slice / dynamic_update_slice ----

program("dynamic_slice_batched_operand", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)), in_axes=1))(jnp.ones((4, 3, 5)))
""")

program("dynamic_slice_batched_start", "jaxpr", """
x = jnp.arange(20.).reshape(4, 5)
result = jax.make_jaxpr(jax.vmap(lambda i: lax.dynamic_slice(x, (i, 1), (2, 3))))(jnp.arange(3))
""")

program("dynamic_slice_both_batched", "jaxpr", """
f = lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, 0, None)))(jnp.ones((3, 4, 5)), jnp.arange(3), 1)
""")

program("dynamic_index_in_dim_batched", "jaxpr", """
f = lambda x, i: lax.dynamic_index_in_dim(x, i, axis=1, keepdims=True)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(2, 0)))(jnp.ones((2, 4, 3)), jnp.arange(3))
""")

program("dynamic_update_slice_batched_operand", "jaxpr", """
f = lambda x: lax.dynamic_update_slice(x, jnp.ones((2,)), (1,))
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones((3, 5)))
""")

program("dynamic_update_slice_batched_update_and_start", "jaxpr", """
f = lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 0))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(None, 1, 0)))(jnp.zeros((4, 3)), jnp.ones((2, 3, 3)), jnp.arange(3))
""")

# ---- pad ----

program("pad_batched_padding_value", "jaxpr", """
f = lambda x, v: lax.pad(x, v, ((1, 2, 1),))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(1, 0)))(jnp.ones((4, 3)), jnp.arange(3.))
""")

program("pad_only_padding_value_batched", "jaxpr", """
f = lambda x, v: lax.pad(x, v, ((0, 1, 0), (2, 0, 0)))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(None, 0)))(jnp.ones((2, 3)), jnp.arange(3.))
""")

# ---- values ----

program("value_dynamic_slice_clamped_starts", "value", """
x = jnp.arange(30.).reshape(3, 10)
result = jax.vmap(lambda r, i: lax.dynamic_slice(r, (i,), (4,)))(x, jnp.array([-2, 3, 9]))
""")

program("value_dynamic_update_slice_per_example", "value", """
x = jnp.zeros((3, 6))
result = jax.vmap(lambda r, u, i: lax.dynamic_update_slice(r, u, (i,)))(x, jnp.arange(6.).reshape(3, 2), jnp.array([0, 4, 7]))
""")

program("value_scatter_add_repeated_indices", "value", """
i = jnp.array([[0, 0, 2], [1, 1, 1]])
result = jax.vmap(lambda i, u: jnp.zeros(4).at[i].add(u))(i, jnp.arange(6.).reshape(2, 3))
""")
