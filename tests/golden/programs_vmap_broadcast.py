"""The broadcast batcher's equation order (JAX 0.11.0, recorded in
vmap_broadcast.json; record with `record_core.py vmap_broadcast`).

JAX batches an n-ary elementwise primitive in two passes over its operands,
in argument order: each operand of nonzero rank gets its batch axis at the
front (an unbatched one a size-1 axis there), then a batched per-example
scalar gets trailing size-1 axes. The programs put unbatched operands before
and after batched ones, so the order of the emitted equations shows."""

from programs_core import program_set

PROGRAMS, program = program_set()


program("jacfwd_tanh_matvec", "jaxpr", """
W = jnp.arange(12.0).reshape(3, 4) / 10
result = jax.make_jaxpr(jax.jacfwd(lambda x: jnp.tanh(W @ x)))(jnp.ones(4))
""")
program("jacfwd_sin_times_weight", "jaxpr", """
w = jnp.ones(3)
result = jax.make_jaxpr(jax.jacfwd(lambda x: jnp.sin(x) * w))(jnp.ones(3))
""")
program("jacrev_weight_times_tanh", "jaxpr", """
W = jnp.ones((2, 3))
result = jax.make_jaxpr(jax.jacrev(lambda x: W @ jnp.tanh(x)))(jnp.ones(3))
""")
program("hessian_quartic", "jaxpr", "result = jax.make_jaxpr(jax.hessian(lambda x: jnp.sum(x ** 4 * jnp.cos(x))))(jnp.ones(3))")
program("unbatched_first_moved_second", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda a, b: a * b, in_axes=(None, 1)))(jnp.ones(3), jnp.ones((3, 4)))")
program("moved_first_unbatched_second", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda a, b: a - b, in_axes=(1, None)))(jnp.ones((3, 4)), jnp.ones(3))")
program("two_different_batch_axes", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda a, b: a + b, in_axes=(1, 2)))(jnp.ones((2, 5, 4)), jnp.ones((2, 4, 5)))")
program("same_batch_axis_fast_path", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda a, b: a * b, in_axes=(1, 1)))(jnp.ones((2, 5)), jnp.ones((2, 5)))")
program("per_example_scalar_times_matrix", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda s, m: s * m))(jnp.ones(3), jnp.ones((3, 2, 4)))")
program("matrix_times_per_example_scalar_moved", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda m, s: m / s, in_axes=(2, 0)))(jnp.ones((2, 4, 3)), jnp.ones(3))")
program("per_example_scalar_unbatched_matrix", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda s, m: s * m, in_axes=(0, None)))(jnp.ones(3), jnp.ones((2, 4)))")
program("unbatched_matrix_per_example_scalar", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda m, s: jnp.maximum(m, s), in_axes=(None, 0)))(jnp.ones((2, 4)), jnp.ones(3))")
program("unbatched_scalar_operand", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda x: jnp.float32(2) - x, in_axes=1))(jnp.ones((2, 3)))")
program("comparison_unbatched_first", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda a, b: a < b, in_axes=(None, 1)))(jnp.ones(2), jnp.ones((2, 3)))")
program("atan2_mixed", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda a, b: jnp.arctan2(a, b), in_axes=(None, 0)))(jnp.ones((2, 3)), jnp.ones((4, 2, 3)))")
program("pow_batched_exponent_scalar", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda x, p: x ** p, in_axes=(None, 0)))(jnp.ones((2, 3)), jnp.arange(4.0))")
program("nested_vmap_outer_sum", "jaxpr", """
f = jax.vmap(jax.vmap(lambda a, b: a + b, in_axes=(None, 0)), in_axes=(0, None))
result = jax.make_jaxpr(f)(jnp.ones((3, 2)), jnp.ones((4, 2)))
""")
program("per_example_grads_weight_first", "jaxpr", """
f = jax.vmap(jax.grad(lambda w, x: jnp.sum(jnp.sin(w * x))), in_axes=(None, 0))
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones((5, 3)))
""")
program("add_any_in_jvp_of_vmap", "jaxpr", """
f = jax.vmap(lambda w, x: w * x + x * w, in_axes=(None, 0))
result = jax.make_jaxpr(lambda w, x: jax.jvp(f, (w, x), (w, x)))(jnp.ones(3), jnp.ones((2, 3)))
""")
program("per_example_scalar_then_moved_matrix", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda s, m: s * m, in_axes=(0, 2)))(jnp.ones(3), jnp.ones((2, 4, 3)))")
program("moved_vector_then_unbatched_vector", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(lambda x, w: x * w, in_axes=(1, None)))(jnp.ones((4, 3)), jnp.ones(4))")
program("jacfwd_exp_matvec_times_bias", "jaxpr", """
A = jnp.ones((3, 2))
b = jnp.arange(3.0)
result = jax.make_jaxpr(jax.jacfwd(lambda x: jnp.exp(A @ x) * b))(jnp.ones(2))
""")
program("jacfwd_logistic_layer", "jaxpr", """
W = jnp.ones((4, 3))
result = jax.make_jaxpr(jax.jacfwd(lambda x: jax.nn.sigmoid(W @ x) / W.sum(1)))(jnp.ones(3))
""")
program("vmap_in_axes_1_sub_unbatched_then_scalar", "jaxpr", """
f = jax.vmap(lambda x, y: (x - y, jnp.float32(3) * x), in_axes=(1, None))
result = jax.make_jaxpr(f)(jnp.ones((2, 5, 3)), jnp.ones((2, 3)))
""")
program("value_per_example_scalar_times_matrix", "value",
        "result = jax.vmap(lambda s, m: s * m, in_axes=(0, 2))(jnp.arange(3.0), jnp.arange(24.0).reshape(2, 4, 3))")
program("value_unbatched_first_moved_second", "value",
        "result = jax.vmap(lambda a, b: a - b, in_axes=(None, 1))(jnp.arange(3.0), jnp.arange(12.0).reshape(3, 4))")
program("value_jacfwd_tanh_matvec", "value", """
W = jnp.arange(12.0).reshape(3, 4) / 10
result = jax.jacfwd(lambda x: jnp.tanh(W @ x))(jnp.arange(4.0) / 4)
""")
