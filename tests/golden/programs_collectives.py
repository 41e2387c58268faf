"""Collectives over named axes (ppermute, pshuffle, pbroadcast, all_gather,
psum_scatter, all_to_all, axis_index, psum) whose JAX 0.11.0 behaviour is
recorded in collectives.json: the array ops they become under
vmap(axis_name=...), nested and tuple axis names, their gradients, values
and errors (see programs_core.py for the format; record with
`record_core.py collectives`)."""

from programs_core import program_set

PROGRAMS, program = program_set()

# ---- ppermute / pshuffle: a gather along the batch axis
program("ppermute_cycle", "jaxpr", """
f = jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 2), (2, 3), (3, 0)]), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((4, 3)))
""")
program("ppermute_in_axes_1", "jaxpr", """
f = jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 0)]), axis_name='i', in_axes=1)
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")
program("ppermute_value", "value", """
f = jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 2), (1, 0), (2, 1)]), axis_name='i')
result = f(jnp.arange(6.0).reshape(3, 2))
""")
program("ppermute_outer_name_nested", "jaxpr", """
f = jax.vmap(jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 0)]), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 5)))
""")
program("ppermute_unmapped_value", "value", """
f = jax.vmap(lambda v: lax.ppermute(2.0, 'i', [(0, 1), (1, 2), (2, 0)]) + v, axis_name='i')
result = f(jnp.arange(3.0))
""")
program("error_ppermute_partial_perm", "error", """
result = jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 0)]), axis_name='i')(jnp.ones((4, 3)))
""")
program("error_ppermute_tuple_names", "error", """
f = jax.vmap(jax.vmap(lambda v: lax.ppermute(v, ('i', 'j'), [(0, 1), (1, 2), (2, 0)]), axis_name='j'), axis_name='i')
result = f(jnp.ones((2, 3)))
""")
program("error_ppermute_unbound", "error", """
result = jax.make_jaxpr(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 0)]))(jnp.ones(2))
""")
program("error_ppermute_eager", "error", """
result = lax.ppermute(jnp.ones(2), 'i', [(0, 1), (1, 0)])
""")
program("pshuffle_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.pshuffle(v, 'i', [1, 2, 0]), axis_name='i'))(jnp.ones(3))
""")
program("pshuffle_value", "value", """
result = jax.vmap(lambda v: lax.pshuffle(v, 'i', [2, 0, 1]), axis_name='i')(jnp.arange(3) * 10)
""")
program("error_pshuffle_not_permutation", "error", """
result = jax.vmap(lambda v: lax.pshuffle(v, 'i', [1, 1, 0]), axis_name='i')(jnp.ones(3))
""")
program("grad_vmap_ppermute", "jaxpr", """
perm = [(0, 1), (1, 2), (2, 0)]
f = lambda x: jnp.sum(jax.vmap(lambda v: lax.ppermute(v, 'i', perm) * v, axis_name='i')(x))
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((3, 2)))
""")
program("vmap_grad_ppermute_value", "value", """
perm = [(0, 1), (1, 2), (2, 3), (3, 0)]
g = jax.grad(lambda v: jnp.sum(lax.ppermute(v, 'i', perm) * jnp.sin(v)))
result = jax.vmap(g, axis_name='i')(jnp.arange(8.0).reshape(4, 2))
""")

# ---- pbroadcast
program("pbroadcast_unmapped", "jaxpr", """
f = jax.vmap(lambda v: lax.pbroadcast(jnp.ones(2), 'i', 1) + v, axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((4, 2)))
""")
program("error_pbroadcast_batched", "error", """
result = jax.vmap(lambda v: lax.pbroadcast(v, 'i', 0), axis_name='i')(jnp.ones((4, 2)))
""")
program("error_pbroadcast_source", "error", """
result = jax.vmap(lambda v: lax.pbroadcast(jnp.ones(2), 'i', 7), axis_name='i')(jnp.ones((4, 2)))
""")
program("error_pbroadcast_eager", "error", """
result = lax.pbroadcast(jnp.ones(2), 'i', 0)
""")

# ---- all_gather
program("all_gather_axis1", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.all_gather(v, 'i', axis=1), axis_name='i'))(jnp.ones((4, 2, 3)))
""")
program("all_gather_tiled", "jaxpr", """
f = jax.vmap(lambda v: lax.all_gather(v, 'i', axis=1, tiled=True), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((4, 2, 3)))
""")
program("all_gather_unmapped", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.all_gather(2.0, 'i'), axis_name='i'))(jnp.ones((4, 2)))
""")
program("all_gather_in_axes_1", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.all_gather(v, 'i'), axis_name='i', in_axes=1))(jnp.ones((2, 4, 3)))
""")
program("all_gather_outer_name_nested", "jaxpr", """
f = jax.vmap(jax.vmap(lambda v: lax.all_gather(v, 'i', axis=1), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 5)))
""")
program("all_gather_inner_name_nested", "jaxpr", """
f = jax.vmap(jax.vmap(lambda v: lax.all_gather(v, 'j', tiled=True), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 5)))
""")
program("all_gather_value_tiled", "value", """
result = jax.vmap(lambda v: lax.all_gather(v, 'i', tiled=True), axis_name='i')(jnp.arange(6).reshape(3, 2))
""")
program("error_all_gather_tuple_names", "error", """
f = jax.vmap(jax.vmap(lambda v: lax.all_gather(v, ('i', 'j')), axis_name='j'), axis_name='i')
result = f(jnp.ones((2, 3, 5)))
""")
program("error_all_gather_groups", "error", """
f = jax.vmap(lambda v: lax.all_gather(v, 'i', axis_index_groups=[[0, 1], [2, 3]]), axis_name='i')
result = f(jnp.ones((4, 3)))
""")
program("error_all_gather_unbound", "error", """
result = jax.make_jaxpr(lambda v: lax.all_gather(v, 'i'))(jnp.ones(3))
""")
program("vmap_grad_all_gather", "jaxpr", """
g = jax.grad(lambda v: jnp.sum(lax.all_gather(v, 'i') ** 2))
result = jax.make_jaxpr(jax.vmap(g, axis_name='i'))(jnp.ones((4, 3)))
""")
program("vmap_grad_all_gather_mixed_value", "value", """
g = jax.grad(lambda v: jnp.sum(lax.all_gather(v, 'i', axis=1) * jnp.arange(3.0)[None, :] * v[:, None]))
result = jax.vmap(g, axis_name='i')(jnp.arange(6.0).reshape(3, 2))
""")

# ---- psum_scatter
program("psum_scatter_untiled", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.psum_scatter(v, 'i'), axis_name='i'))(jnp.ones((4, 4, 3)))
""")
program("psum_scatter_tiled_dim1", "jaxpr", """
f = jax.vmap(lambda v: lax.psum_scatter(v, 'i', scatter_dimension=1, tiled=True), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((4, 3, 8)))
""")
program("psum_scatter_in_axes_1", "jaxpr", """
f = jax.vmap(lambda v: lax.psum_scatter(v, 'i', scatter_dimension=1), axis_name='i', in_axes=1)
result = jax.make_jaxpr(f)(jnp.ones((3, 4, 4)))
""")
program("psum_scatter_outer_name_nested", "jaxpr", """
f = jax.vmap(jax.vmap(lambda v: lax.psum_scatter(v, 'i'), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 2, 5)))
""")
program("psum_scatter_value_int", "value", """
result = jax.vmap(lambda v: lax.psum_scatter(v, 'i', tiled=True), axis_name='i')(jnp.arange(72).reshape(3, 6, 4))
""")
program("error_psum_scatter_tuple_names", "error", """
f = jax.vmap(jax.vmap(lambda v: lax.psum_scatter(v, ('i', 'j')), axis_name='j'), axis_name='i')
result = f(jnp.ones((2, 3, 6, 5)))
""")
program("error_psum_scatter_unbound", "error", """
result = lax.psum_scatter(jnp.ones((2, 2)), 'i')
""")
program("vmap_grad_psum_scatter", "jaxpr", """
g = jax.grad(lambda v: jnp.sum(lax.psum_scatter(v, 'i') ** 2))
result = jax.make_jaxpr(jax.vmap(g, axis_name='i'))(jnp.ones((4, 4, 3)))
""")

# ---- all_to_all / pswapaxes
program("all_to_all_same_axis", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 0), axis_name='i'))(jnp.ones((4, 4, 3)))
""")
program("all_to_all_split0_concat1", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1), axis_name='i'))(jnp.ones((4, 4, 3)))
""")
program("all_to_all_split1_concat0", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.all_to_all(v, 'i', 1, 0), axis_name='i'))(jnp.ones((4, 3, 4)))
""")
program("all_to_all_tiled", "jaxpr", """
f = jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1, tiled=True), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((4, 8, 3)))
""")
program("all_to_all_negative_axes", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda v: lax.all_to_all(v, 'i', -2, -1), axis_name='i'))(jnp.ones((4, 4, 3)))
""")
program("all_to_all_outer_name_nested", "jaxpr", """
f = jax.vmap(jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 2, 5)))
""")
program("all_to_all_tuple_names", "jaxpr", """
f = jax.vmap(jax.vmap(lambda v: lax.all_to_all(v, ('i', 'j'), 0, 0), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 6, 5)))
""")
program("all_to_all_value", "value", """
result = jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1), axis_name='i')(jnp.arange(18).reshape(3, 3, 2))
""")
program("pswapaxes_value", "value", """
result = jax.vmap(lambda v: lax.pswapaxes(v, 'i', 1), axis_name='i')(jnp.arange(18.0).reshape(3, 2, 3))
""")
program("error_all_to_all_size", "error", """
result = jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1), axis_name='i')(jnp.ones((4, 3, 3)))
""")
program("error_all_to_all_tiled_size", "error", """
result = jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1, tiled=True), axis_name='i')(jnp.ones((4, 6, 3)))
""")
program("error_all_to_all_unbound", "error", """
result = jax.make_jaxpr(lambda v: lax.all_to_all(v, 'i', 0, 0))(jnp.ones((2, 2)))
""")
program("vmap_grad_all_to_all", "jaxpr", """
g = jax.grad(lambda v: jnp.sum(lax.all_to_all(v, 'i', 0, 0) ** 2))
result = jax.make_jaxpr(jax.vmap(g, axis_name='i'))(jnp.ones((4, 4, 3)))
""")

# ---- axis_index, axis_size, psum with tuple names; errors outside vmap
program("axis_index_tuple_nested", "jaxpr", """
f = jax.vmap(jax.vmap(lambda v: lax.axis_index(('i', 'j')), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 5)))
""")
program("axis_index_tuple_value", "value", """
f = jax.vmap(jax.vmap(lambda v: lax.axis_index(('j', 'i')) * 10 + v, axis_name='j'), axis_name='i')
result = f(jnp.zeros((2, 3), jnp.int32))
""")
program("axis_size_tuple_value", "value", """
f = jax.vmap(jax.vmap(lambda v: v * lax.axis_size(('i', 'j')), axis_name='j'), axis_name='i')
result = f(jnp.ones((2, 3)))
""")
program("vmap_grad_axis_index", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(jax.grad(lambda v: v * lax.axis_index('i')), axis_name='i'))(jnp.ones(4))
""")
program("psum_tuple_names_outer_first", "jaxpr", """
f = jax.vmap(jax.vmap(lambda x: lax.psum(x, ('j', 'i')), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 4)))
""")
program("psum_unbatched_tracer", "jaxpr", """
f = lambda w, x: jax.vmap(lambda v: lax.psum(w, 'i') + v, axis_name='i')(x)
result = jax.make_jaxpr(f)(1.0, jnp.ones(3))
""")
program("psum_positional_and_named", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.psum(x, ('i', 0)), axis_name='i'))(jnp.ones((3, 4, 2)))
""")
program("vmap_grad_psum", "jaxpr", """
g = jax.grad(lambda v: jnp.sum(lax.psum(v, 'i') * v))
result = jax.make_jaxpr(jax.vmap(g, axis_name='i'))(jnp.ones((4, 3)))
""")
program("vmap_grad_psum_value", "value", """
g = jax.grad(lambda v: jnp.sum(lax.psum(v, 'i') * v))
result = jax.vmap(g, axis_name='i')(jnp.arange(6.0).reshape(3, 2))
""")
program("jit_vmap_all_gather", "jaxpr", """
result = jax.make_jaxpr(jax.jit(jax.vmap(lambda v: lax.all_gather(v, 'i') * v, axis_name='i')))(jnp.ones((3, 2)))
""")
program("error_axis_index_unbound", "error", """
result = jax.make_jaxpr(lambda v: lax.axis_index('i') * v)(jnp.ones(3))
""")
program("error_axis_index_eager", "error", """
result = lax.axis_index('i')
""")
program("error_axis_size_unbound", "error", """
result = lax.axis_size('i')
""")
program("error_pmax_unbound", "error", """
result = jax.make_jaxpr(lambda v: lax.pmax(v, 'i'))(jnp.ones(3))
""")
program("error_pmin_eager", "error", """
result = lax.pmin(jnp.ones(3), 'i')
""")
program("error_psum_constant_traced", "error", """
result = jax.make_jaxpr(lambda v: lax.psum(1, 'i') * v)(jnp.ones(3))
""")

# ---- more transposes, unbatched operands, dtypes
program("vmap_grad_all_gather_tiled", "jaxpr", """
g = jax.grad(lambda v: jnp.sum(jnp.sin(lax.all_gather(v, 'i', axis=1, tiled=True))))
result = jax.make_jaxpr(jax.vmap(g, axis_name='i'))(jnp.ones((3, 2, 2)))
""")
program("vmap_grad_psum_scatter_tiled", "jaxpr", """
g = jax.grad(lambda v: jnp.sum(lax.psum_scatter(v, 'i', scatter_dimension=1, tiled=True) ** 2))
result = jax.make_jaxpr(jax.vmap(g, axis_name='i'))(jnp.ones((2, 3, 4)))
""")
program("vmap_grad_all_to_all_tiled", "jaxpr", """
g = jax.grad(lambda v: jnp.sum(jnp.sin(lax.all_to_all(v, 'i', 0, 1, tiled=True))))
result = jax.make_jaxpr(jax.vmap(g, axis_name='i'))(jnp.ones((2, 4, 3)))
""")
program("vmap_jvp_all_gather", "jaxpr", """
f = lambda v: jax.jvp(lambda u: lax.all_gather(u, 'i'), (v,), (jnp.ones_like(v),))
result = jax.make_jaxpr(jax.vmap(f, axis_name='i'))(jnp.ones((3, 2)))
""")
program("pmean_tuple_names_nested", "jaxpr", """
f = jax.vmap(jax.vmap(lambda x: lax.pmean(x, ('i', 'j')), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")
program("psum_bool_value", "value", """
result = jax.vmap(lambda x: lax.psum(x > 1, 'i'), axis_name='i')(jnp.arange(4.0))
""")
program("psum_bool_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.psum(x > 1, 'i'), axis_name='i'))(jnp.arange(4.0))
""")
program("error_psum_groups_with_positional", "error", """
result = jax.vmap(lambda x: lax.psum(x, ('i', 0), axis_index_groups=[[0, 1]]), axis_name='i')(jnp.ones((2, 2)))
""")
program("all_to_all_unbatched_operand", "jaxpr", """
f = jax.vmap(lambda v: lax.all_to_all(jnp.ones((3, 2)), 'i', 0, 1) + v, axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((3, 2, 3)))
""")
program("psum_scatter_unbatched_operand", "jaxpr", """
f = jax.vmap(lambda v: lax.psum_scatter(jnp.ones((3, 2)), 'i') + v, axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")
program("ppermute_pytree_int", "value", """
f = jax.vmap(lambda v: lax.ppermute((v, v * 2), 'i', [(0, 1), (1, 0)])[1], axis_name='i')
result = f(jnp.arange(4).reshape(2, 2))
""")
program("all_gather_pytree_tuple_axis_name_single", "jaxpr", """
f = jax.vmap(lambda v: lax.all_gather({'a': v, 'b': v[0]}, ('i',))['b'], axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")

# ---- make_jaxpr(axis_env=...): named axes bound while tracing
program("axis_env_psum", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.psum(x, 'i'), axis_env=[('i', 2)])(jnp.ones(3))
""")
program("axis_env_two_axes_pmean", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.pmean(x, ('i', 'j')), axis_env=[('i', 2), ('j', 3)])(jnp.ones(3))
""")
program("axis_env_all_gather_axis_index", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.all_gather(x, 'i') + lax.axis_index('i'), axis_env=[('i', 2)])(jnp.ones(3))
""")
program("axis_env_ppermute", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 0)]), axis_env=[('i', 2)])(jnp.ones(3))
""")
program("axis_env_all_to_all", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.all_to_all(x, 'i', 0, 0), axis_env=[('i', 4)])(jnp.ones((4, 8)))
""")
# all_to_all's type depends on the axis size, not only on its operand and
# params: the same operand traced under sizes 2 and 4 gets two types.
program("axis_env_all_to_all_type_follows_the_size", "jaxpr", """
f = lambda x: lax.all_to_all(x, 'i', 0, 1, tiled=True)
j2 = jax.make_jaxpr(f, axis_env=[('i', 2)])(jnp.ones((4, 8)))
j4 = jax.make_jaxpr(f, axis_env=[('i', 4)])(jnp.ones((4, 8)))
result = j4
""")
program("axis_env_unbound_name", "error", """
result = jax.make_jaxpr(lambda x: lax.psum(x, 'k'), axis_env=[('i', 2)])(jnp.ones(3))
""")
