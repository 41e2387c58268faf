"""Collectives in a jit traced inside a named vmap (JAX 0.11.0, recorded in
vmap_axis_env.json; record with `record_core.py vmap_axis_env`).

The vmap's axis names and sizes are visible to the jit's trace (JAX's axis
environment): the staged body keeps the collective over the name, and the
vmap resolves it when it batches the jit equation. The jit cache is keyed on
the environment, so the same jitted function traced outside the vmap (or
under another axis size) is traced again."""

from programs_core import program_set

PROGRAMS, program = program_set()


program("psum", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: lax.psum(x, 'i')), axis_name='i'))(jnp.ones((3, 2)))")
program("pmean_center", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: x - lax.pmean(x, 'i')), axis_name='i'))(jnp.ones((3, 2)))")
program("axis_index", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: lax.axis_index('i') * x), axis_name='i'))(jnp.ones((3, 2)))")
program("pmax_plus_axis_index", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: lax.pmax(x, 'i') + lax.axis_index('i')), axis_name='i'))(jnp.ones((3, 2)))")
program("psum_two_names", "jaxpr", """
f = jax.vmap(jax.vmap(jax.jit(lambda x: lax.psum(x, ('i', 'j'))), axis_name='j'), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 4)))
""")
program("psum_constant_is_the_size", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: lax.psum(1, 'i')), axis_name='i'))(jnp.ones((3, 2)))")
program("all_gather", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: lax.all_gather(x, 'i')), axis_name='i'))(jnp.ones((3, 2)))")
program("no_collective", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(jnp.sin), axis_name='i'))(jnp.ones((3, 2)))")
program("psum_in_axes_1", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: lax.psum(x, 'i')), axis_name='i', in_axes=1))(jnp.ones((3, 2)))")
program("psum_of_unbatched_closure", "jaxpr", """
c = jnp.ones(2)
result = jax.make_jaxpr(jax.vmap(lambda x: jax.jit(lambda y: lax.psum(y, 'i'))(c) + x, axis_name='i'))(jnp.ones((3, 2)))
""")
program("unbatched_closure_no_collective", "jaxpr", """
c = jnp.ones(2)
result = jax.make_jaxpr(jax.vmap(lambda x: jax.jit(lambda y: y * 2)(c) + x, axis_name='i'))(jnp.ones((3, 2)))
""")
program("unbatched_argument_and_psum", "jaxpr", """
f = jax.vmap(jax.jit(lambda x, y: (lax.psum(x, 'i'), y * 2)), axis_name='i', in_axes=(0, None))
result = jax.make_jaxpr(f)(jnp.ones((3, 2)), 2.0)
""")
program("psum_int32", "jaxpr",
        "result = jax.make_jaxpr(jax.vmap(jax.jit(lambda x: lax.psum(x, 'i')), axis_name='i'))(jnp.ones(3, jnp.int32))")
program("jit_of_vmap_of_jit", "jaxpr",
        "result = jax.make_jaxpr(jax.jit(jax.vmap(jax.jit(lambda x: lax.psum(x, 'i')), axis_name='i')))(jnp.ones((3, 2)))")
program("vmap_of_jit_of_vmap", "jaxpr", """
f = jax.vmap(jax.jit(jax.vmap(lambda x: lax.psum(x, ('i', 'j')), axis_name='j')), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 4)))
""")
program("nested_jits", "jaxpr", """
f = jax.vmap(jax.jit(lambda x: jax.jit(lambda y: lax.psum(y, 'i'))(x)), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")
program("grad_of_jit_psum", "jaxpr", """
f = jax.vmap(jax.grad(jax.jit(lambda x: lax.psum(x, 'i').sum())), axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")
program("jit_in_scan_body", "jaxpr", """
def f(x):
  return lax.scan(lambda c, y: (c + jax.jit(lambda z: lax.psum(z, 'i'))(y), None), x, jnp.ones((2,)))[0]
result = jax.make_jaxpr(jax.vmap(f, axis_name='i'))(jnp.ones(3))
""")
program("value_normalize", "value",
        "result = jax.vmap(jax.jit(lambda x: x / lax.psum(x, 'i')), axis_name='i')(jnp.arange(1.0, 5.0))")
program("value_axis_index", "value",
        "result = jax.vmap(jax.jit(lambda x: x * lax.axis_index('i')), axis_name='i')(jnp.ones((4, 2)))")
program("value_psum_two_names", "value", """
f = jax.vmap(jax.vmap(jax.jit(lambda x: lax.psum(x, ('i', 'j'))), axis_name='j'), axis_name='i')
result = f(jnp.arange(24.0).reshape(2, 3, 4))
""")
program("value_constant_psum_per_size", "value", """
g = jax.jit(lambda x: lax.psum(1, 'i'))
result = jnp.concatenate([jax.vmap(g, axis_name='i')(jnp.ones(3)), jax.vmap(g, axis_name='i')(jnp.ones(5))])
""")
program("value_cache_same_function_new_size", "value", """
g = jax.jit(lambda x: x * lax.psum(1, 'i') + lax.pmax(x, 'i'))
a = jax.vmap(g, axis_name='i')(jnp.arange(3.0))
result = jnp.concatenate([a, jax.vmap(g, axis_name='i')(jnp.arange(5.0))])
""")
program("value_grad_of_jit_psum", "value",
        "result = jax.vmap(jax.grad(jax.jit(lambda x: lax.psum(x, 'i').sum())), axis_name='i')(jnp.ones((3, 2)))")
program("error_unbound_name_inside_jit", "error",
        "result = jax.vmap(jax.jit(lambda x: lax.psum(x, 'k')), axis_name='i')(jnp.ones(3))")
program("error_cached_under_vmap_then_called_outside", "error", """
g = jax.jit(lambda x: lax.psum(1, 'i'))
jax.vmap(g, axis_name='i')(jnp.ones(3))
result = g(1.0)
""")
program("error_traced_under_vmap_then_traced_outside", "error", """
g = jax.jit(lambda x: lax.psum(x, 'i'))
jax.vmap(g, axis_name='i')(jnp.ones(3))
result = jax.make_jaxpr(g)(1.0)
""")
program("error_axis_index_unbound_inside_jit", "error",
        "result = jax.vmap(jax.jit(lambda x: lax.axis_index('j') * x), axis_name='i')(jnp.ones(3))")
program("cond_branch_psum_of_unbatched_closure", "jaxpr", """
c = jnp.ones(2)
f = jax.vmap(lambda x: lax.cond(True, lambda: lax.psum(c, 'i'), lambda: c) + x, axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")
program("scan_body_psum_of_unbatched_carry", "jaxpr", """
c = jnp.ones(2)
f = jax.vmap(lambda x: lax.scan(lambda a, _: (lax.psum(a, 'i'), None), c, None, length=2)[0] + x, axis_name='i')
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")
program("value_cond_branch_psum_of_unbatched_closure", "value", """
c = jnp.arange(2.0)
result = jax.vmap(lambda x: lax.cond(True, lambda: lax.psum(c, 'i'), lambda: c) + x, axis_name='i')(jnp.ones((3, 2)))
""")
program("value_while_body_pmax_of_unbatched", "value", """
c = jnp.arange(2.0)
f = jax.vmap(lambda x: lax.fori_loop(0, 2, lambda i, a: lax.psum(a, 'i'), c) * x, axis_name='i')
result = f(jnp.ones((3, 2)))
""")
