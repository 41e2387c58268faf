"""shard_map, recorded from JAX 0.11.0 with 8 CPU devices into ``shard_map.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_shard_map.py

The jaxprs of shard_map programs (the body at per-device shapes, its
varying-manual-axes types ``{V:x}``, the ``pvary`` JAX inserts, psum as
``psum_invariant``), their values (run per device), and the argument
checks' error texts. Each program's source starts with PRELUDE.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

PRELUDE = """
P = jax.sharding.PartitionSpec
AxisType = jax.sharding.AxisType
NS = jax.sharding.NamedSharding
mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Explicit))
auto = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto, AxisType.Auto))
def put(shape, spec, m=None):
  return jax.device_put(np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape), NS(m or mesh, spec))
x = np.arange(128., dtype=np.float32).reshape(8, 16)
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


# --- the example
program("must_psum_explicit", "jaxpr", """
f = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))
result = jax.make_jaxpr(f)(put((8, 16), P('x', 'y')))
""")
program("must_psum_explicit_value", "value", """
f = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))
result = f(put((8, 16), P('x', 'y')))
""")
program("psum_explicit_type", "text", """
f = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))
r = f(put((8, 16), P('x', 'y')))
result = f"{jax.typeof(r)} {r.sharding.spec} {[s.data.shape for s in r.addressable_shards]}"
""")
program("psum_explicit_jit", "jaxpr", """
f = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))
result = jax.make_jaxpr(jax.jit(f))(put((8, 16), P('x', 'y')))
""")
program("explicit_unplaced_arg", "error", """
f = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))
jax.make_jaxpr(f)(x)
""")

# --- Auto meshes: the body's types, pvary
program("psum_auto", "jaxpr", """
f = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None))
result = jax.make_jaxpr(f)(x)
""")
program("psum_auto_value", "value", """
f = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None))
result = f(x)
""")
program("psum_both_axes", "value", """
f = jax.shard_map(lambda v: lax.psum(v, ('x', 'y')), mesh=auto, in_specs=P('x', 'y'), out_specs=P())
result = f(x)
""")
program("psum_both_axes_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v: lax.psum(v, ('x', 'y')), mesh=auto, in_specs=P('x', 'y'), out_specs=P())
result = jax.make_jaxpr(f)(x)
""")
program("pvary_inserted", "jaxpr", """
f = jax.shard_map(lambda a, b: a * 2 + b, mesh=auto, in_specs=(P('x'), P()), out_specs=P('x'))
result = jax.make_jaxpr(f)(x, np.ones(16, np.float32))
""")
program("pvary_inserted_value", "value", """
f = jax.shard_map(lambda a, b: a * 2 + b, mesh=auto, in_specs=(P('x'), P()), out_specs=P('x'))
result = f(x, np.arange(16, dtype=np.float32))
""")
program("psum_of_invariant", "jaxpr", """
f = jax.shard_map(lambda a: lax.psum(a, 'x'), mesh=auto, in_specs=P(None, 'y'), out_specs=P(None, 'y'))
result = jax.make_jaxpr(f)(x)
""")
program("psum_of_invariant_value", "value", """
f = jax.shard_map(lambda a: lax.psum(a, 'x'), mesh=auto, in_specs=P(None, 'y'), out_specs=P(None, 'y'))
result = f(x)
""")
program("pmean_value", "value", """
f = jax.shard_map(lambda a: lax.pmean(a, 'x'), mesh=auto, in_specs=P('x'), out_specs=P())
result = f(x)
""")
program("pmean_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a: lax.pmean(a, 'x'), mesh=auto, in_specs=P('x'), out_specs=P())
result = jax.make_jaxpr(f)(x)
""")
program("pmax_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a: lax.pmax(a, 'x'), mesh=auto, in_specs=P('x'), out_specs=P('x'))
result = jax.make_jaxpr(f)(x)
""")
program("pmax_value", "value", """
f = jax.shard_map(lambda a: lax.pmax(a, 'x'), mesh=auto, in_specs=P('x'), out_specs=P('x'))
result = f(x)
""")
program("pmin_value", "value", """
f = jax.shard_map(lambda a: lax.pmin(a, ('x', 'y')), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
result = f(x)
""")
program("all_gather_tiled", "jaxpr", """
f = jax.shard_map(lambda a: lax.all_gather(a, 'x', tiled=True), mesh=auto, in_specs=P('x'), out_specs=P('x'))
result = jax.make_jaxpr(f)(x)
""")
program("all_gather_tiled_value", "value", """
f = jax.shard_map(lambda a: lax.all_gather(a, 'x', tiled=True), mesh=auto, in_specs=P('x'), out_specs=P('x'))
result = f(x)
""")
program("all_gather_untiled_value", "value", """
f = jax.shard_map(lambda a: lax.all_gather(a, 'y', axis=1), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None, 'y'))
result = f(x)
""")
program("all_gather_untiled", "jaxpr", """
f = jax.shard_map(lambda a: lax.all_gather(a, 'y', axis=1), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None, 'y'))
result = jax.make_jaxpr(f)(x)
""")
program("psum_scatter_tiled", "jaxpr", """
f = jax.shard_map(lambda a: lax.psum_scatter(a, 'x', scatter_dimension=1, tiled=True), mesh=auto, in_specs=P('x'), out_specs=P(None, 'x'))
result = jax.make_jaxpr(f)(x)
""")
program("psum_scatter_tiled_value", "value", """
f = jax.shard_map(lambda a: lax.psum_scatter(a, 'x', scatter_dimension=1, tiled=True), mesh=auto, in_specs=P('x'), out_specs=P(None, 'x'))
result = f(x)
""")
program("psum_scatter_untiled_value", "value", """
f = jax.shard_map(lambda a: lax.psum_scatter(a, 'y'), mesh=auto, in_specs=P(None, 'x'), out_specs=P(('x', 'y')))
result = f(np.arange(32., dtype=np.float32).reshape(2, 16))
""")
program("ppermute_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a: lax.ppermute(a, 'x', [(0, 1), (1, 2), (2, 3), (3, 0)]), mesh=auto, in_specs=P('x'), out_specs=P('x'))
result = jax.make_jaxpr(f)(x)
""")
program("ppermute_value", "value", """
f = jax.shard_map(lambda a: lax.ppermute(a, 'x', [(0, 1), (1, 2), (2, 3), (3, 0)]), mesh=auto, in_specs=P('x'), out_specs=P('x'))
result = f(x)
""")
program("ppermute_partial_value", "value", """
f = jax.shard_map(lambda a: lax.ppermute(a, 'x', [(0, 2), (1, 0)]), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
result = f(x)
""")
program("all_to_all_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a: lax.all_to_all(a, 'x', 1, 0, tiled=True), mesh=auto, in_specs=P('x'), out_specs=P(None, 'x'))
result = jax.make_jaxpr(f)(x)
""")
program("all_to_all_value", "value", """
f = jax.shard_map(lambda a: lax.all_to_all(a, 'x', 1, 0, tiled=True), mesh=auto, in_specs=P('x'), out_specs=P(None, 'x'))
result = f(x)
""")
program("axis_index_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a: a + lax.axis_index('x'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
result = jax.make_jaxpr(f)(x)
""")
program("axis_index_value", "value", """
f = jax.shard_map(lambda a: a * 0 + lax.axis_index('x') * 10 + lax.axis_index('y'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
result = f(x)
""")
program("axis_size_value", "value", """
f = jax.shard_map(lambda a: a * lax.axis_size('x') + lax.axis_size(('x', 'y')), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
result = f(x)
""")
program("two_outputs_value", "value", """
f = jax.shard_map(lambda a, b: (a @ b, lax.psum(a.sum(0), 'x')), mesh=auto, in_specs=(P('x', None), P()), out_specs=(P('x'), P()))
r1, r2 = f(x, np.ones((16, 3), np.float32))
result = np.concatenate([np.asarray(r1).ravel(), np.asarray(r2).ravel()])
""")
program("matmul_psum_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a, b: lax.psum(a @ b, 'y'), mesh=auto, in_specs=(P('x', 'y'), P('y', None)), out_specs=P('x', None))
result = jax.make_jaxpr(f)(x, np.ones((16, 3), np.float32))
""")
program("matmul_psum_value", "value", """
f = jax.shard_map(lambda a, b: lax.psum(a @ b, 'y'), mesh=auto, in_specs=(P('x', 'y'), P('y', None)), out_specs=P('x', None))
result = f(x, np.arange(48, dtype=np.float32).reshape(16, 3))
""")
program("jit_of_shard_map_value", "value", """
f = jax.jit(jax.shard_map(lambda a: lax.psum(a, 'y') * 2, mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None)))
result = f(x)
""")
program("axis_names_subset", "jaxpr", """
f = jax.shard_map(lambda a: a * 2, mesh=auto, in_specs=P('x'), out_specs=P('x'), axis_names={'x'})
result = jax.make_jaxpr(f)(x)
""")
program("check_vma_false", "jaxpr", """
f = jax.shard_map(lambda a: lax.psum(a, 'y'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None), check_vma=False)
result = jax.make_jaxpr(f)(x)
""")
program("check_vma_false_value", "value", """
f = jax.shard_map(lambda a: lax.psum(a, 'y'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None), check_vma=False)
result = f(x)
""")
program("experimental_shard_map", "jaxpr", """
import importlib
shard_map = importlib.import_module(jax.__name__ + '.experimental.shard_map').shard_map
f = shard_map(lambda a: a + 1, auto, P('x'), P('x'))
result = jax.make_jaxpr(f)(x)
""")
program("pytree_args_value", "value", """
f = jax.shard_map(lambda d: d['a'] + d['b'], mesh=auto, in_specs=({'a': P('x'), 'b': P('x')},), out_specs=P('x'))
result = f({'a': x, 'b': x * 2})
""")
program("in_specs_prefix_value", "value", """
f = jax.shard_map(lambda a, b: a - b, mesh=auto, in_specs=P('x'), out_specs=P('x'))
result = f(x, x * 3)
""")
program("grad_of_shard_map", "jaxpr", """
f = jax.shard_map(lambda a: lax.psum(a, 'y'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
program("grad_of_shard_map_value", "value", """
f = jax.shard_map(lambda a: lax.psum(jnp.sin(a), 'y'), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', None))
result = jax.grad(lambda a: f(a).sum())(x)
""")

# --- errors
program("err_rank_too_long", "error", """
f = jax.shard_map(lambda a: a, mesh=auto, in_specs=P('x', 'y', None), out_specs=P('x'))
f(x)
""")
program("err_not_divisible", "error", """
f = jax.shard_map(lambda a: a, mesh=auto, in_specs=P('x'), out_specs=P('x'))
f(np.ones((6, 4), np.float32))
""")
program("err_out_spec_drops_varying", "error", """
f = jax.shard_map(lambda a: a, mesh=auto, in_specs=P('x'), out_specs=P())
f(x)
""")
program("err_out_spec_too_long", "error", """
f = jax.shard_map(lambda a: a.sum(), mesh=auto, in_specs=P('x'), out_specs=P('x'))
f(x)
""")
program("err_in_specs_structure", "error", """
f = jax.shard_map(lambda a, b: a, mesh=auto, in_specs=(P('x'), P('x'), P('x')), out_specs=P('x'))
f(x, x)
""")
program("err_out_specs_structure", "error", """
f = jax.shard_map(lambda a: (a, a), mesh=auto, in_specs=P('x'), out_specs=(P('x'),))
f(x)
""")
program("err_duplicate_axis_in_spec", "error", """
f = jax.shard_map(lambda a: a, mesh=auto, in_specs=P('x', 'x'), out_specs=P('x'))
f(x)
""")
program("err_out_spec_drops_varying_y", "error", """
f = jax.shard_map(lambda a: a * 2, mesh=auto, in_specs=P('x', 'y'), out_specs=P('x'))
f(x)
""")

# --- vmap of shard_map: the batch axis is a whole axis of every block
program("vmap_of_shard_map", "jaxpr", """
f = jax.shard_map(lambda a, b: lax.psum(a * b, 'y'), mesh=auto, in_specs=(P('x', 'y'), P('y')), out_specs=P('x', None))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(np.ones((3, 8, 16), np.float32), np.ones(16, np.float32))
""")
program("vmap_of_shard_map_value", "value", """
f = jax.shard_map(lambda a, b: lax.psum(a * b, 'y'), mesh=auto, in_specs=(P('x', 'y'), P('y')), out_specs=P('x', None))
result = jax.vmap(f, in_axes=(2, None), out_axes=1)(np.arange(384., dtype=np.float32).reshape(8, 16, 3), np.arange(16, dtype=np.float32))
""")
program("vmap_of_shard_map_collectives_value", "value", """
ring = [(i, (i + 1) % 4) for i in range(4)]
f = jax.shard_map(lambda a: lax.all_gather(lax.ppermute(a, 'x', ring), 'y', axis=0, tiled=True), mesh=auto, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
result = jax.vmap(f)(np.arange(256., dtype=np.float32).reshape(2, 8, 16))
""")

# --- None in in_specs: the argument is passed whole, closed over by the body
program("static_arg_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v, n: v * n, mesh=auto, in_specs=(P('x'), None), out_specs=P('x'))
result = jax.make_jaxpr(f)(jnp.arange(8.), 3)
""")
program("static_arg_value", "value", """
f = jax.shard_map(lambda v, n: v * n, mesh=auto, in_specs=(P('x'), None), out_specs=P('x'))
result = f(put((8,), P('x'), auto), 3)
""")
program("static_arg_concrete_array_const", "jaxpr", """
f = jax.shard_map(lambda v, n: v * n, mesh=auto, in_specs=(P('x'), None), out_specs=P('x'))
result = jax.make_jaxpr(lambda v: f(v, jnp.float32(3.)))(jnp.arange(8.))
""")
program("static_arg_python_literal", "jaxpr", """
f = jax.shard_map(lambda v, n: v * n, mesh=auto, in_specs=(P('x'), None), out_specs=P('x'))
result = jax.make_jaxpr(lambda v: f(v, 2))(jnp.arange(8.))
""")
program("static_arg_grad_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v, n: v * n, mesh=auto, in_specs=(P('x'), None), out_specs=P('x'))
result = jax.make_jaxpr(jax.grad(lambda v, n: f(v, n).sum(), argnums=(0, 1)))(jnp.arange(8.), 2.)
""")
program("static_arg_grad_value", "value", """
f = jax.shard_map(lambda v, n: v * n, mesh=auto, in_specs=(P('x'), None), out_specs=P('x'))
g = jax.grad(lambda v, n: f(v, n).sum(), argnums=(0, 1))(jnp.arange(8.), 2.)
result = jnp.concatenate([g[0], g[1][None]])
""")
program("static_arg_in_dict", "value", """
f = jax.shard_map(lambda v, d: v * d['a'], mesh=auto, in_specs=(P('x'), {'a': None}), out_specs=P('x'))
result = f(put((8,), P('x'), auto), {'a': 2.0})
""")
program("static_all_in_specs_none", "value", """
f = jax.shard_map(lambda v: v * 2, mesh=auto, in_specs=None, out_specs=P('x'))
result = f(put((8,), P('x'), auto))
""")
program("static_arg_explicit_sharded_error", "error", """
f = jax.shard_map(lambda v, n: v * n, mesh=mesh, in_specs=(P('x'), None), out_specs=P('x'))
result = f(put((8,), P('x')), put((8,), P('x')))
""")
program("static_arg_explicit_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v, n: v * n, mesh=mesh, in_specs=(P('x'), None), out_specs=P('x'))
result = jax.make_jaxpr(f)(put((8,), P('x')), 3)
""")
