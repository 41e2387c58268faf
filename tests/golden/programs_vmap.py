"""vmap programs whose JAX 0.11.0 behaviour is recorded in vmap.json (see
programs_core.py for the format; record with `record_core.py vmap`)."""

from programs_core import program_set

PROGRAMS, program = program_set()


program("seed_vmap_dot", "jaxpr", "result = jax.make_jaxpr(jax.vmap(jnp.dot))(jnp.ones((32, 5)), jnp.ones((32, 5)))")
program("add_unbatched_operand", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x, y: x + y, in_axes=(0, None)))(jnp.ones((3, 4)), jnp.ones(4))")
program("mul_different_in_axes", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x, y: x * y, in_axes=(1, 0)))(jnp.ones((4, 3)), jnp.ones((3, 4)))")
program("sum_axis0", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jnp.sum(x, axis=0)))(jnp.ones((3, 4, 5)))")
program("gram_in_axes_2", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: x.T @ x, in_axes=2))(jnp.ones((4, 3, 7)))")
program("softmax_rows", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jax.nn.softmax(x)))(jnp.ones((2, 5)))")
program("reshape", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: x.reshape(2, 2)))(jnp.ones((3, 4)))")
program("static_slice", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: x[1:]))(jnp.ones((3, 4)))")
program("dense_shared_weights", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x, w: jnp.maximum(x @ w, 0.0), in_axes=(0, None)))(jnp.ones((8, 3)), jnp.ones((3, 2)))
""")
program("per_example_grads", "jaxpr", """
f = jax.vmap(jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w))), in_axes=(None, 0))
result = jax.make_jaxpr(f)(jnp.ones((3, 2)), jnp.ones((5, 3)))
""")
program("vmap_of_jit", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jax.jit(jnp.sin)(x)))(jnp.ones(3))")
program("out_axes_1", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: x * 2.0, out_axes=1))(jnp.ones((3, 4)))")
program("out_axes_none_unbatched", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x, y: y * 2.0, in_axes=(0, None), out_axes=None))(jnp.ones(3), 1.0)")
program("unbatched_output_broadcast", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: (x, 1.0)))(jnp.ones(3))")
program("nested_vmap_outer_product", "jaxpr", "result = jax.make_jaxpr(jax.vmap(jax.vmap(lambda x, y: x * y, in_axes=(None, 0)), in_axes=(0, None)))(jnp.ones(3), jnp.ones(4))")
program("pytree_in_axes", "jaxpr", """
f = lambda p, x: p["w"] * x + p["b"]
result = jax.make_jaxpr(jax.vmap(f, in_axes=({"w": None, "b": 0}, 0)))({"w": jnp.ones(2), "b": jnp.ones((3, 2))}, jnp.ones((3, 2)))
""")
program("negative_in_axis", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jnp.sum(x), in_axes=-1))(jnp.ones((2, 3)))")
program("concatenate_with_unbatched", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x, y: jnp.concatenate([x, y]), in_axes=(0, None)))(jnp.ones((3, 2)), jnp.ones(4))")
program("where_batched_predicate", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jnp.where(x > 0, x, 0.0)))(jnp.ones((3, 2)))")
program("max_reduction_keepdims", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jnp.max(x, axis=1, keepdims=True)))(jnp.ones((2, 3, 4)))")
program("pmean_center", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: x - jax.lax.pmean(x, 'i'), axis_name='i'))(jnp.ones((3, 2)))")
program("pmax_named", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jax.lax.pmax(x, 'i'), axis_name='i'))(jnp.ones(3))")
program("axis_index", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jax.lax.axis_index('i') * x, axis_name='i'))(jnp.ones(3))")
program("all_gather", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jax.lax.all_gather(x, 'i'), axis_name='i'))(jnp.ones((3, 2)))")
program("psum_constant", "jaxpr", "result = jax.make_jaxpr(jax.vmap(lambda x: jax.lax.psum(1, 'i'), axis_name='i'))(jnp.ones(3))")
program("nested_psum_two_names", "jaxpr", "result = jax.make_jaxpr(jax.vmap(jax.vmap(lambda x: jax.lax.psum(x, ('i', 'j')), axis_name='j'), axis_name='i'))(jnp.ones((2, 3)))")
program("value_normalize", "value", "result = jax.vmap(lambda x: x / jax.lax.psum(x, 'i'), axis_name='i')(jnp.arange(4.0))")
program("value_per_example_grads", "value", """
result = jax.vmap(jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w))), in_axes=(None, 0))(jnp.ones((3, 2)) / 3, jnp.arange(15.0).reshape(5, 3) / 10)
""")
program("error_inconsistent_sizes", "error", "result = jax.vmap(lambda x, y: x + y)(jnp.ones(3), jnp.ones(4))")
program("error_in_axes_length", "error", "result = jax.vmap(lambda x: x, in_axes=(0, 1))(jnp.ones(3))")
program("error_out_axes_none_batched", "error", "result = jax.vmap(lambda x: x, out_axes=None)(jnp.ones(3))")
program("error_axis_out_of_range", "error", "result = jax.vmap(lambda x: x, in_axes=2)(jnp.ones(3))")
program("error_unbound_axis_name", "error", "result = jax.lax.psum(jnp.ones(3), 'i')")
