"""Placement in the type, recorded from JAX 0.11.0 with 8 CPU devices into ``sharding.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_sharding.py

(which sets ``JAX_NUM_CPU_DEVICES=8``; the test suite runs with the same
count, set in tests/conftest.py). Devices and their reprs; meshes,
partition specs and shardings with their reprs and errors; Arrays placed
with ``device_put`` (addressable shards, indices, replica ids, assembled
values); the sharded types ``jax.typeof`` prints and jaxpr binders carry
under Explicit axes; the sharding rules' ShardingTypeErrors; out_sharding,
reshard, auto_axes / explicit_axes, with_sharding_constraint; memory kinds.
Each program's source starts with PRELUDE (names for the mesh and specs).
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
def put(shape, spec, m=None, **kw):
  return jax.device_put(np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape), NS(m or mesh, spec, **kw))
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


# --- the example, step by step
program("must_typeof", "text", """
with jax.sharding.set_mesh(mesh):
  a = jax.device_put(jnp.zeros((8, 16)), jax.NamedSharding(mesh, P('x', 'y')))
  b = jax.device_put(jnp.zeros((16, 4)), jax.NamedSharding(mesh, P('y', None)))
  result = f"{jax.typeof(a)} {jax.typeof(b)}"
""")
program("must_matmul_ambiguous", "error", """
with jax.sharding.set_mesh(mesh):
  a = jax.device_put(jnp.zeros((8, 16)), jax.NamedSharding(mesh, P('x', 'y')))
  b = jax.device_put(jnp.zeros((16, 4)), jax.NamedSharding(mesh, P('y', None)))
  jax.make_jaxpr(lambda p, q: p @ q)(a, b)
""")
program("must_add_incompatible", "error", """
with jax.sharding.set_mesh(mesh):
  a = jax.device_put(jnp.zeros((8, 16)), jax.NamedSharding(mesh, P('x', 'y')))
  c = jax.device_put(jnp.zeros((8, 16)), jax.NamedSharding(mesh, P('y', 'x')))
  jax.make_jaxpr(lambda p, q: p + q)(a, c)
""")
program("must_dot_general_out_sharding", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = jax.device_put(jnp.zeros((8, 16)), jax.NamedSharding(mesh, P('x', 'y')))
  b = jax.device_put(jnp.zeros((16, 4)), jax.NamedSharding(mesh, P('y', None)))
  def f(p, q):
    return jax.lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=P('x', None))
  result = jax.make_jaxpr(f)(a, b)
""")
program("must_pinned_host", "text", """
with jax.sharding.set_mesh(mesh):
  h = jax.device_put(jnp.zeros((8, 16)), jax.NamedSharding(mesh, P('x', 'y'), memory_kind='pinned_host'))
  result = str(jax.typeof(h))
""")

# --- devices
program("devices_repr", "text", "result = repr(jax.devices())")
program("device_attributes", "text", """
d = jax.devices()[3]
result = repr((d.id, d.platform, d.device_kind, d.process_index, repr(d), str(d)))
""")
program("device_counts", "text", """
result = repr((jax.device_count(), jax.local_device_count(), jax.process_index(), jax.process_count(),
               len(jax.local_devices()), jax.devices('cpu')[:2]))
""")
program("devices_unknown_backend", "error", "jax.devices('gpu')")
program("num_cpu_devices_after_init", "error", """
jax.devices()
jax.config.update('jax_num_cpu_devices', 4)
""")

# --- meshes
program("mesh_repr", "text", "result = repr(mesh)")
program("mesh_str", "text", "result = str(mesh)")
program("mesh_auto_repr", "text", "result = repr(auto) + ' ' + str(auto)")
program("make_mesh_default_types", "text", "result = repr(jax.make_mesh((2, 4), ('a', 'b')))")
program("make_mesh_one_axis", "text", "result = repr(jax.make_mesh((8,), ('i',)))")
program("mesh_properties", "text", """
result = repr((dict(mesh.shape), mesh.axis_names, mesh.axis_sizes, mesh.size, mesh.shape_tuple, mesh.axis_types,
               mesh.empty, mesh.devices.shape, mesh.explicit_axes, auto.auto_axes))
""")
program("mesh_devices", "text", "result = str(mesh.devices)")
program("mesh_device_ids", "text", "result = str(mesh.device_ids)")
program("mesh_from_devices", "text", """
m = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))
result = repr(m) + ' ' + repr(m.devices[1, 2])
""")
program("mesh_bad_ndim", "error", "jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ('a',))")
program("make_mesh_bad_types", "error", "jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,))")
program("abstract_mesh_repr", "text", "result = repr(mesh.abstract_mesh)")
program("abstract_mesh_direct", "text", """
result = repr(jax.sharding.AbstractMesh((2, 4), ('a', 'b'))) + ' ' + repr(
    jax.sharding.AbstractMesh((2, 4), ('a', 'b'), axis_types=(AxisType.Explicit, AxisType.Manual)))
""")
program("mesh_equality", "text", """
result = repr((mesh == jax.make_mesh((4, 2), ('x', 'y')), mesh == auto,
               hash(mesh) == hash(jax.make_mesh((4, 2), ('x', 'y')))))
""")
program("axis_type_repr", "text", "result = repr((list(AxisType), str(AxisType.Explicit)))")

# --- the mesh in context
program("context_empty", "text", "result = repr(jax.sharding.get_abstract_mesh()) + ' ' + repr(jax.sharding.get_mesh())")
program("context_set_mesh", "text", """
with jax.sharding.set_mesh(mesh):
  inside = repr(jax.sharding.get_abstract_mesh()) + ' | ' + repr(jax.sharding.get_mesh())
result = inside + ' | ' + repr(jax.sharding.get_abstract_mesh())
""")
program("context_use_abstract_mesh", "text", """
with jax.sharding.set_mesh(mesh):
  with jax.sharding.use_abstract_mesh(mesh.abstract_mesh.update_axis_types({'x': AxisType.Auto})):
    inside = repr(jax.sharding.get_abstract_mesh())
result = inside
""")
program("context_set_mesh_global", "text", """
jax.sharding.set_mesh(mesh)
inside = repr(jax.sharding.get_mesh())
jax.sharding.set_mesh(None)
result = inside + ' | ' + repr(jax.sharding.get_mesh())
""")

# --- partition specs
program("pspec_reprs", "text", """
result = repr([P(), P(None), P('x'), P('x', None), P(('x', 'y'), None), P(('x',)), P('x', P.UNCONSTRAINED),
               P.UNCONSTRAINED])
""")
program("pspec_equality", "text", """
result = repr((P('x') == P('x'), P('x') == P('x', None), hash(P('x')) == hash(P('x')), P(('x',)) == P('x'),
               P('x', 'y')[1], len(P('x', None)), tuple(P('x', ('y', 'x'))), P('x') == 3))
""")
program("pspec_unreduced_repr", "text", "result = repr(P('x', unreduced={'y'}))")

# --- shardings
program("named_sharding_repr", "text", "result = repr(NS(mesh, P('x', 'y')))")
program("named_sharding_auto_repr", "text", "result = repr(NS(auto, P(None, 'y')))")
program("named_sharding_memory_kind", "text", "result = repr(NS(mesh, P('x'), memory_kind='pinned_host'))")
program("named_sharding_with_memory_kind", "text", "result = repr(NS(mesh, P('x')).with_memory_kind('unpinned_host'))")
program("named_sharding_properties", "text", """
s = NS(mesh, P('x'))
result = repr((s.spec, s.memory_kind, s.num_devices, s.is_fully_replicated, s.is_fully_addressable,
               s.device_set == set(jax.devices()), s.shard_shape((8, 4)), NS(mesh, P()).is_fully_replicated))
""")
program("named_sharding_equality", "text", """
result = repr((NS(mesh, P('x')) == NS(mesh, P('x')), NS(mesh, P('x')) == NS(mesh, P('x', None)),
               NS(mesh, P('x')) == NS(auto, P('x'))))
""")
program("named_sharding_indices_map", "text", "result = repr(NS(mesh, P('y', 'x')).devices_indices_map((4, 8)))")
program("named_sharding_indices_tuple_axes", "text", "result = repr(NS(mesh, P(('x', 'y'))).devices_indices_map((16,)))")
program("named_sharding_unknown_axis", "error", "NS(mesh, P('z'))")
program("named_sharding_duplicate_axis", "error", "NS(mesh, P('x', 'x'))")
program("named_sharding_bad_memory_kind", "error", "NS(mesh, P('x'), memory_kind='foo')")
program("single_device_sharding", "text", """
s = jax.sharding.SingleDeviceSharding(jax.devices()[1])
result = repr((s, s.device_set, s.memory_kind, s.is_fully_replicated, s.num_devices, s.devices_indices_map((2,))))
""")
program("make_single_device_sharding", "text",
        "result = repr(jax.sharding.make_single_device_sharding(jax.devices()[5]))")
program("default_array_sharding", "text", """
x = jnp.zeros(3)
result = repr((x.sharding, x.device, x.devices()))
""")

# --- placed arrays
program("device_put_sharding_repr", "text", "result = repr(put((8, 4), P('x')).sharding)")
program("device_put_value", "value", "result = put((8, 4), P('x', 'y')) * 1")
program("device_put_asarray", "text", "result = repr(np.asarray(put((8, 4), P('y', 'x'))))")
program("device_get", "text", "result = repr(jax.device_get(put((4, 8), P(None, ('x', 'y')))))")
program("shards_indices", "text", """
a = put((8, 4), P('x'))
result = repr([(s.device.id, s.index, s.replica_id, s.data.shape) for s in a.addressable_shards])
""")
program("shards_replicas", "text", """
a = put((4, 8), P(None, 'y'))
result = repr([(s.device.id, s.index, s.replica_id) for s in a.addressable_shards])
""")
program("shard_repr", "text", "result = repr(put((8, 4), P('x', 'y')).addressable_shards[5])")
program("shard_data_sharding", "text", "result = repr(put((8, 4), P('x')).addressable_shards[3].data.sharding)")
program("addressable_data", "text", "result = repr(put((8, 4), P('x', 'y')).addressable_data(3))")
program("placed_array_flags", "text", """
a = put((8, 4), P('x'))
r = put((8, 4), P())
result = repr((a.is_fully_addressable, a.is_fully_replicated, r.is_fully_replicated, len(a.global_shards),
               a.devices() == set(jax.devices())))
""")
program("placed_array_repr", "text", "result = repr(put((2, 4), P(None, 'x')))")
program("device_put_single_device", "text", """
y = jax.device_put(jnp.arange(3.0), jax.devices()[3])
result = repr((y.sharding, y.device, y.addressable_shards[0]))
""")
program("device_put_pspec_under_mesh", "text", """
with jax.sharding.set_mesh(mesh):
  b = jax.device_put(np.zeros((8, 4), np.float32), P('x', 'y'))
result = repr((jax.typeof(b), b.sharding))
""")
program("device_put_pspec_without_mesh", "error", "jax.device_put(np.zeros((8, 4)), P('x'))")
program("device_put_indivisible_explicit", "error", "jax.device_put(np.zeros((6, 4)), NS(mesh, P('x')))")
program("device_put_indivisible_auto", "error", "jax.device_put(np.zeros((7,)), NS(auto, P('x')))")
program("device_put_rank_too_small", "error", "jax.device_put(np.zeros((8, 4)), NS(mesh, P(None, None, 'y')))")
program("make_array_from_callback", "text", """
data = np.arange(32.0, dtype=np.float32).reshape(8, 4)
a = jax.make_array_from_callback((8, 4), NS(mesh, P('x', 'y')), lambda idx: data[idx])
result = repr((jax.typeof(a), [s.data.shape for s in a.addressable_shards][:2], np.asarray(a).sum()))
""")
program("make_array_from_single_device_arrays", "text", """
s = NS(mesh, P('x'))
arrs = [jax.device_put(np.full((2, 4), float(d.id), np.float32), d) for d in s._device_assignment]
a = jax.make_array_from_single_device_arrays((8, 4), s, arrs)
result = repr((jax.typeof(a), np.asarray(a)[:, 0]))
""")

# --- types
program("typeof_explicit", "text", "result = repr(jax.typeof(put((8, 4), P('x'))))")
program("typeof_tuple_axes", "text", "result = str(jax.typeof(put((16,), P(('x', 'y')))))")
program("typeof_auto_mesh", "text", "result = str(jax.typeof(put((8, 4), P('x', 'y'), auto)))")
program("typeof_mixed_mesh", "text", """
m = jax.make_mesh((2, 4), ('a', 'b'), axis_types=(AxisType.Explicit, AxisType.Auto))
result = str(jax.typeof(put((8, 4), P('a', 'b'), m)))
""")
program("typeof_sharding_repr", "text", "result = repr(jax.typeof(put((8, 4), P('x'))).sharding)")
program("typeof_eager_add", "text", """
a = put((8, 16), P('x', 'y'))
result = repr((jax.typeof(a + a), (a + a).sharding))
""")
program("typeof_eager_sum", "text", """
a = put((8, 16), P('x', 'y'))
s = jnp.sum(a, axis=0)
result = repr((jax.typeof(s), s.sharding))
""")
program("typeof_eager_sin", "text", "result = repr(jnp.sin(put((8, 4), P('x'))).sharding)")
program("typeof_memory_kind", "text", "result = repr(jax.typeof(put((8, 16), P('x', 'y'), memory_kind='pinned_host')))")

# --- jaxprs with sharded binders
program("jaxpr_elementwise", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p: jnp.sin(p) * 2.0 + p)(a)
""")
program("jaxpr_broadcast_replicated", "jaxpr", """
a = put((8, 16), P('x', 'y'))
b = put((8, 16), P(None, None))
result = jax.make_jaxpr(lambda p, q: p * q)(a, b)
""")
program("jaxpr_broadcast_rank", "jaxpr", """
a = put((8, 16), P('x', 'y'))
b = put((16,), P('y'))
result = jax.make_jaxpr(lambda p, q: p + q)(a, b)
""")
program("jaxpr_broadcast_size_one", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p, q: p - q)(a, jnp.ones((1, 16)))
""")
program("jaxpr_dot_batch", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = put((4, 8, 16), P('x', None, 'y'))
  b = put((4, 16, 2), P('x', None, None))
  result = jax.make_jaxpr(lambda p, q: jnp.einsum('bij,bjk->bik', p, q, out_sharding=P('x', None, None)))(a, b)
""")
program("jaxpr_matmul_free_dims", "jaxpr", """
a = put((8, 16), P('x', None))
b = put((16, 4), P(None, 'y'))
result = jax.make_jaxpr(lambda p, q: p @ q)(a, b)
""")
program("jaxpr_matmul_one_side_contracting", "jaxpr", """
a = put((8, 16), P('x', 'y'))
b = put((16, 4), P(None, None))
result = jax.make_jaxpr(lambda p, q: p @ q)(a, b)
""")
program("error_dot_batch_mismatch", "error", """
a = put((4, 8, 16), P('x', None, None))
b = put((4, 16, 2), P('y', None, None))
jax.make_jaxpr(lambda p, q: jax.lax.dot_general(p, q, (((2,), (1,)), ((0,), (0,)))))(a, b)
""")
program("error_dot_contracting_mismatch", "error", """
a = put((8, 16), P(None, 'x'))
b = put((16, 4), P('y', None))
jax.make_jaxpr(lambda p, q: p @ q)(a, b)
""")
program("error_mesh_mismatch", "error", """
a = put((8, 16), P('x', 'y'))
m2 = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Explicit))
b = put((8, 16), P('x', 'y'), m2)
jax.make_jaxpr(lambda p, q: p + q)(a, b)
""")
program("error_mul_incompatible", "error", """
a = put((8, 16), P('x', None))
b = put((8, 16), P('y', None))
jax.make_jaxpr(lambda p, q: p * q)(a, b)
""")
program("jaxpr_reduce_sum", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p: jnp.sum(p, axis=1))(a)
""")
program("jaxpr_reduce_max_all", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p: jnp.max(p))(a)
""")
program("jaxpr_transpose", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p: p.T)(a)
""")
program("jaxpr_broadcast_in_dim", "jaxpr", """
a = put((8,), P('x'))
result = jax.make_jaxpr(lambda p: jnp.broadcast_to(p[:, None], (8, 6)))(a)
""")
program("jaxpr_reshape_merge_trailing", "jaxpr", """
a = put((8, 4, 2), P('x', None, None))
result = jax.make_jaxpr(lambda p: p.reshape(8, 8))(a)
""")
program("jaxpr_reshape_out_sharding", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  result = jax.make_jaxpr(lambda p: jnp.reshape(p, (128,), out_sharding=P('x')))(a)
""")
program("jaxpr_reshape_merge_sharded", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p: p.reshape(128))(a)
""")
program("error_reshape_split_sharded", "error", """
a = put((8, 16), P('x', 'y'))
jax.make_jaxpr(lambda p: p.reshape(2, 4, 16))(a)
""")
program("jaxpr_grad", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(jax.grad(lambda p: jnp.sum(jnp.sin(p) * p)))(a)
""")
program("jaxpr_jit_param", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(jax.jit(lambda p: p * 2.0))(a)
""")
program("jaxpr_scan_carry", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p: jax.lax.scan(lambda c, x: (c + x, c), p, jnp.zeros((3, 8, 16)))[0])(a)
""")
program("jit_output_sharding", "text", """
a = put((8, 16), P('x', 'y'))
out = jax.jit(lambda p: p * 2.0)(a)
result = repr((jax.typeof(out), out.sharding, float(np.asarray(out).sum())))
""")
program("jit_dot_out_sharding", "text", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  b = put((16, 4), P('y', None))
  out = jax.jit(lambda p, q: jnp.matmul(p, q, out_sharding=P('x', None)))(a, b)
  result = repr((jax.typeof(out), out.sharding, np.asarray(out)[:2]))
""")

# --- reshard, auto_axes, explicit_axes, with_sharding_constraint
program("reshard_jaxpr", "jaxpr", """
a = put((8, 16), P('x', 'y'))
result = jax.make_jaxpr(lambda p: jax.sharding.reshard(p, NS(mesh, P(None, 'x'))))(a)
""")
program("reshard_eager", "text", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  r = jax.sharding.reshard(a, P(None, 'x'))
  result = repr((r.sharding, jax.typeof(r), [s.index for s in r.addressable_shards][:3]))
""")
program("reshard_pspec_without_mesh", "error", "jax.sharding.reshard(put((8, 16), P('x', 'y')), P('y', None))")
program("reshard_auto_axis_error", "error", """
with jax.sharding.set_mesh(auto):
  jax.sharding.reshard(put((8, 16), P('x', 'y'), auto), P('x', None))
""")
program("auto_axes_jaxpr", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  f = jax.sharding.auto_axes(lambda x: x * 2, out_sharding=P('x', None))
  result = jax.make_jaxpr(f)(a)
""")
program("explicit_axes_jaxpr", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  g = jax.sharding.explicit_axes(lambda x: x * 2, in_sharding=P('x', None))
  result = jax.make_jaxpr(jax.sharding.auto_axes(lambda b: g(b), out_sharding=P('x', 'y')))(a)
""")
program("wsc_explicit_assert", "error", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  jax.make_jaxpr(lambda a: jax.lax.with_sharding_constraint(a, P('x', None)))(a)
""")
program("wsc_explicit_match", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  result = jax.make_jaxpr(lambda a: jax.lax.with_sharding_constraint(a, P('x', 'y')) + 1.0)(a)
""")
program("wsc_auto_jaxpr", "jaxpr", """
with jax.sharding.set_mesh(auto):
  a = put((8, 16), P('x', 'y'), auto)
  result = jax.make_jaxpr(lambda a: jax.lax.with_sharding_constraint(a, P('x', None)))(a)
""")
program("out_sharding_pspec_without_mesh", "error", """
a = put((8, 16), P('x', 'y'))
jax.make_jaxpr(lambda p: jax.lax.dot_general(p, p, (((1,), (1,)), ((), ())), out_sharding=P('x', None)))(a)
""")
program("memory_space_enum", "text", "result = repr(list(jax.memory.Space))")

# --- creation with out_sharding, joining, slicing, cumulative ops, control flow
program("zeros_out_sharding_jaxpr", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(lambda: jnp.zeros((8, 4), out_sharding=P('x')))()
""")
program("full_out_sharding_jaxpr", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(lambda: jnp.full((8, 4), 2.0, out_sharding=P('x', 'y')))()
""")
program("arange_out_sharding_jaxpr", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(lambda: jnp.arange(8, out_sharding=P('x')))()
""")
program("ones_out_sharding_eager", "text", """
with jax.sharding.set_mesh(mesh):
  z = jnp.ones((8, 4), out_sharding=P(None, 'y'))
  result = repr((jax.typeof(z), z.sharding, [s.data.shape for s in z.addressable_shards][:2]))
""")
program("concatenate_same_sharding", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: jnp.concatenate([x, x], axis=1))(a)
""")
program("concatenate_mismatch", "error", """
jax.make_jaxpr(lambda x, y: jnp.concatenate([x, y], axis=1))(put((8, 4), P('x')), put((8, 4), P('y')))
""")
program("slice_keeps_sharding", "jaxpr", """
a = put((8, 4), P(None, 'y'))
result = jax.make_jaxpr(lambda x: x[2:4])(a)
""")
program("slice_sharded_indivisible", "error", """
a = put((8, 4), P('x', None))
jax.make_jaxpr(lambda x: x[1:4])(a)
""")
program("slice_to_scalar", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(lambda x: x[3, 1])(a)
""")
program("pad_sharded", "jaxpr", """
a = put((8, 4), P(None, 'y'))
result = jax.make_jaxpr(lambda x: jax.lax.pad(x, 0.0, ((1, 1, 0), (0, 0, 0))))(a)
""")
program("rev_keeps_sharding", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(lambda x: jax.lax.rev(x, (0,)))(a)
""")
program("cumsum_unsharded_axis", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: jax.lax.cumsum(x, axis=1))(a)
""")
program("cumsum_sharded_axis_error", "error", """
a = put((8, 4), P('x'))
jax.make_jaxpr(lambda x: jax.lax.cumsum(x, axis=0))(a)
""")
program("where_same_sharding", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(lambda x: jnp.where(x > 2.0, x, 0.0))(a)
""")
program("select_mismatch", "error", """
jax.make_jaxpr(lambda c, x, y: jax.lax.select(c, x, y))(
    put((8, 4), P('x')) > 0, put((8, 4), P('x')), put((8, 4), P('y')))
""")
program("convert_keeps_sharding", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: x.astype(jnp.int32))(a)
""")
program("cond_carries_sharding", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(lambda x: jax.lax.cond(True, lambda v: v * 2.0, lambda v: v + 1.0, x))(a)
""")
program("while_carries_sharding", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(lambda x: jax.lax.fori_loop(0, 3, lambda i, v: v * 2.0, x))(a)
""")
program("vmap_sharded_operand", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(jax.vmap(lambda v: jnp.sin(v) * 2.0))(a)
""")
program("grad_of_matmul_out_sharding", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 16), P('x', 'y'))
  b = put((16, 4), P('y', None))
  result = jax.make_jaxpr(jax.grad(lambda p: jnp.sum(jnp.matmul(p, b, out_sharding=P('x', None)))))(a)
""")
program("eager_concatenate", "text", """
a = put((8, 4), P('x'))
c = jnp.concatenate([a, a], axis=1)
result = repr((jax.typeof(c), c.sharding))
""")

# --- jit's in_shardings / out_shardings (eager placement)
program("jit_out_shardings", "text", """
x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
r = jax.jit(lambda a: a * 2, out_shardings=NS(mesh, P('x')))(x)
result = repr((jax.typeof(r), r.sharding, np.asarray(r)[:, 0]))
""")
program("jit_in_shardings", "text", """
x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
r = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x', 'y')))(x)
result = repr((jax.typeof(r), r.sharding))
""")
program("jit_out_shardings_auto", "text", """
x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
r = jax.jit(lambda a: a * 2, out_shardings=NS(auto, P('x')))(x)
result = repr((jax.typeof(r), r.sharding))
""")
program("jit_in_shardings_mismatch", "error", """
x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x', 'y')))(jax.device_put(x, NS(mesh, P('y'))))
""")
program("jit_out_shardings_tuple", "text", """
x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
r1, r2 = jax.jit(lambda a: (a, a.sum(0)), out_shardings=(NS(mesh, P('x')), NS(mesh, P('y'))))(x)
result = repr((jax.typeof(r1), jax.typeof(r2), r2.sharding))
""")

# --- ShapeDtypeStruct with a sharding; memory spaces
program("sds_repr", "text", "result = repr(jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NS(mesh, P('x'))))")
program("sds_jaxpr", "jaxpr", """
s = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NS(mesh, P('x')))
result = jax.make_jaxpr(lambda a: a * 2)(s)
""")
program("sds_eval_shape", "text", """
s = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NS(mesh, P('x')))
result = repr(jax.eval_shape(lambda a: a * 2, s))
""")
program("device_put_memory_space_eager", "text", """
a = put((8, 4), P('x'))
h = jax.device_put(a, jax.memory.Space.Host)
d = jax.device_put(h, jax.memory.Space.Device)
result = repr((jax.typeof(h), h.sharding, jax.typeof(d), d.sharding))
""")
program("device_put_memory_space_jaxpr", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda v: jax.device_put(v, jax.memory.Space.Host))(a)
""")
program("device_put_pinned_host_jaxpr", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda v: jax.device_put(v, NS(mesh, P('x'), memory_kind='pinned_host')))(a)
""")
program("device_put_sharded_jaxpr", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda v: jax.device_put(v, NS(mesh, P(None, 'y'))) * 2.0)(a)
""")

# --- drawing the device grid (rich, no color terminal)
program("visualize_2d", "text", """
jax.debug.visualize_array_sharding(put((8, 4), P('x', 'y')))
result = ''
""")
program("visualize_1d", "text", """
jax.debug.visualize_array_sharding(put((8,), P('x')))
result = ''
""")
program("visualize_columns", "text", """
jax.debug.visualize_array_sharding(put((8, 4), P(None, 'y')))
result = ''
""")
program("visualize_replicated", "text", """
jax.debug.visualize_array_sharding(put((8, 4), P()))
result = ''
""")
program("visualize_sharding_wide", "text", """
jax.debug.visualize_sharding((4, 32), NS(mesh, P('y', 'x')))
result = ''
""")
program("visualize_single_device", "text", """
jax.debug.visualize_array_sharding(jax.device_put(jnp.zeros((4, 4)), jax.devices()[2]))
result = ''
""")
program("visualize_3d_error", "error", "jax.debug.visualize_array_sharding(put((2, 2, 2), P('x')))")
program("inspect_array_sharding_eager", "text", """
seen = []
jax.debug.inspect_array_sharding(put((8, 4), P('x')), callback=seen.append)
result = repr(seen)
""")

# --- jit equations under a mesh name it (ctx_mesh)
program("jit_ctx_mesh", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.jit(lambda a: a * 2))(jnp.ones(3))
""")
program("jit_ctx_mesh_cumsum", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(lambda x: jnp.cumsum(x, axis=1))(put((8, 4), P('x')))
""")
program("jit_ctx_mesh_grad", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  a = put((8, 4), P('x'))
  result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jax.jit(lambda v: v * 2.0)(x))))(a)
""")
program("jit_ctx_mesh_vmap", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(jax.jit(lambda v: v * 2.0)))(put((8, 4), P('x')))
""")
program("jit_no_mesh_no_ctx_mesh", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  pass
result = jax.make_jaxpr(jax.jit(lambda a: a * 2))(jnp.ones(3))
""")

# --- jax.random samplers with out_sharding
program("random_bits_out_sharding", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(lambda k: jax.random.bits(k, (8, 4), out_sharding=P('x')))(jax.random.key(0))
""")
program("random_normal_out_sharding", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(lambda k: jax.random.normal(k, (8, 4), out_sharding=P('x')))(jax.random.key(0))
""")
program("random_uniform_out_sharding_eager", "text", """
with jax.sharding.set_mesh(mesh):
  r = jax.random.uniform(jax.random.key(0), (8, 4), out_sharding=P('x', 'y'))
  result = repr((jax.typeof(r), r.sharding, np.asarray(r)[0]))
""")
program("random_randint_out_sharding_eager", "text", """
with jax.sharding.set_mesh(mesh):
  r = jax.random.randint(jax.random.key(1), (8,), 0, 10, out_sharding=P('x'))
  result = repr((jax.typeof(r), np.asarray(r)))
""")

# --- grad's seed under a mesh in context
program("grad_seed_auto_context", "jaxpr", """
with jax.sharding.set_mesh(auto):
  result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(x * 2.0)))(jnp.ones(3))
""")
program("value_and_grad_explicit_context", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.value_and_grad(lambda x: jnp.sum(jnp.sin(x))))(np.ones(3, np.float32))
""")

# --- more rules: dynamic_update_slice, split, sort, top_k, gather (indexing)
program("dus_same_sharding", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x, u: jax.lax.dynamic_update_slice(x, u, (0, 0)))(a, put((8, 4), P('x')))
""")
program("dus_mismatch", "error", """
jax.make_jaxpr(lambda x, u: jax.lax.dynamic_update_slice(x, u, (0, 0)))(put((8, 4), P('x')), put((8, 2), P('y')))
""")
program("split_sharded", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(lambda x: jax.lax.split(x, (2, 2), axis=1))(a)
""")
program("sort_sharded", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: jnp.sort(x, axis=1))(a)
""")
program("take_sharded", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: x[:, 1])(a)
""")

# --- typical model code on typed values
program("nn_mean_var", "jaxpr", """
a = put((8, 16), P('x', None))
result = jax.make_jaxpr(lambda x: (jnp.mean(x, axis=-1), jnp.var(x, axis=-1)))(a)
""")
program("nn_softmax", "jaxpr", """
a = put((8, 16), P('x', None))
result = jax.make_jaxpr(lambda x: jax.nn.softmax(x, axis=-1))(a)
""")
program("nn_relu_mlp", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  x = put((8, 16), P('x', None))
  w = put((16, 4), P(None, 'y'))
  b = put((4,), P('y'))
  result = jax.make_jaxpr(lambda x, w, b: jax.nn.relu(x @ w + b))(x, w, b)
""")
program("fancy_index_sharded", "error", """
a = put((8, 4), P('x'))
jax.make_jaxpr(lambda x: x[jnp.array([0, 2])])(a)
""")
program("at_set_sharded", "error", """
a = put((8, 4), P('x'))
jax.make_jaxpr(lambda x: x.at[:, 0].set(1.0))(a)
""")
program("argmax_sharded", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: jnp.argmax(x, axis=1))(a)
""")
program("expand_squeeze_sharded", "jaxpr", """
a = put((8, 4), P('x', 'y'))
result = jax.make_jaxpr(lambda x: jnp.squeeze(x[:, None, :], 1) * 2.0)(a)
""")
program("stack_sharded", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: jnp.stack([x, x]))(a)
""")
program("einsum_contract_free", "jaxpr", """
a = put((8, 16), P('x', None))
b = put((4, 16), P('y', None))
result = jax.make_jaxpr(lambda p, q: jnp.einsum('ij,kj->ik', p, q))(a, b)
""")
program("grad_mlp_explicit", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  x = put((8, 16), P('x', None))
  w = put((16, 4), P(None, 'y'))
  result = jax.make_jaxpr(jax.grad(lambda w, x: jnp.sum(jnp.sin(x @ w))))(w, x)
""")
program("eager_mlp_values", "text", """
with jax.sharding.set_mesh(mesh):
  x = put((8, 16), P('x', None))
  w = put((16, 4), P(None, 'y'))
  y = jnp.tanh(x @ w / 100.0)
  result = repr((jax.typeof(y), y.sharding, np.round(np.asarray(y)[:2], 4)))
""")
program("gather_unsharded_dim", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: x[:, jnp.array([0, 2])])(a)
""")
program("scatter_unsharded_dim", "error", """
a = put((8, 4), P('x'))
jax.make_jaxpr(lambda x: x.at[:, jnp.array([0, 2])].add(1.0))(a)
""")
program("unstack_sharded", "jaxpr", """
a = put((2, 8, 4), P(None, 'x'))
result = jax.make_jaxpr(lambda x: jnp.unstack(x))(a)
""")
program("take_along_axis_sharded", "jaxpr", """
a = put((8, 4), P('x'))
result = jax.make_jaxpr(lambda x: jnp.take_along_axis(x, jnp.zeros((8, 1), jnp.int32), axis=1))(a)
""")
program("scatter_replicated_operand", "jaxpr", """
a = put((8, 4), P(None, None))
result = jax.make_jaxpr(lambda x: x.at[jnp.array([1, 3])].set(0.0))(a)
""")

# --- jit's in_shardings / out_shardings as params of the jit equation
program("jit_in_shardings_param", "jaxpr", """
f = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x')))
result = jax.make_jaxpr(f)(np.ones((8, 4), np.float32))
""")
program("jit_in_out_shardings_placed_arg", "jaxpr", """
f = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x')), out_shardings=NS(mesh, P('x')))
result = jax.make_jaxpr(lambda a: f(a))(put((8, 4), P('x')))
""")
program("jit_shardings_with_ctx_mesh", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  h = jax.jit(lambda a: a.sum(0), in_shardings=P('x'), out_shardings=P())
  result = jax.make_jaxpr(h)(np.ones((8, 4), np.float32))
""")
program("jit_out_shardings_only", "jaxpr", """
g = jax.jit(lambda a: a * 2, out_shardings=NS(mesh, P('x', 'y')))
result = jax.make_jaxpr(g)(np.ones((8, 4), np.float32))
""")
program("jit_shardings_unspecified_entries", "jaxpr", """
with jax.sharding.set_mesh(auto):
  g = jax.jit(lambda a, b: (a * 2, b), in_shardings=(P('x'), None), out_shardings=P(None, 'y'))
  result = jax.make_jaxpr(lambda a: g(a, a))(np.ones((8, 4), np.float32))
""")
program("jit_shardings_pytree_prefix", "jaxpr", """
x = np.ones((8, 4), np.float32)
result = jax.make_jaxpr(jax.jit(lambda a, b: a['u'] + b, in_shardings=({'u': NS(auto, P('x'))}, None)))({'u': x}, x)
""")
program("jit_shardings_single_device", "jaxpr", """
f = jax.jit(lambda a: a, in_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[1]))
result = jax.make_jaxpr(f)(np.ones((8, 4), np.float32))
""")
program("jit_shardings_mismatched_tracer_kept", "jaxpr", """
f = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x')))
result = jax.make_jaxpr(f)(put((8, 4), P(None, 'y')))
""")
program("jit_shardings_eager_types", "text", """
x = np.ones((8, 4), np.float32)
f = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x')))
g = jax.jit(lambda a: a * 2, out_shardings=NS(mesh, P('x', 'y')))
result = f"{jax.typeof(f(x))} {jax.typeof(g(x))}"
""")
program("jit_shardings_eager_mismatch", "error", """
f = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x')))
f(put((8, 4), P(None, 'y')))
""")
program("jit_in_shardings_pspec_no_mesh", "error", """
jax.jit(lambda a: a, in_shardings=P('x'))(np.ones((8, 4), np.float32))
""")
program("jit_out_shardings_pspec_no_mesh", "error", """
jax.jit(lambda a: a, out_shardings=P('x'))(np.ones((8, 4), np.float32))
""")
program("jit_in_shardings_wrong_length", "error", """
f = jax.jit(lambda a: a, in_shardings=(NS(mesh, P('x')), NS(mesh, P('x'))))
jax.make_jaxpr(f)(np.ones((8, 4), np.float32))
""")
program("jit_shardings_grad", "jaxpr", """
f = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x')))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(put((8, 4), P('x')))
""")
_TWO_OUT = """
x = np.ones((8, 4), np.float32)
s1 = NS(auto, P('x')); s2 = NS(auto, P(None, 'y'))
f = jax.jit(lambda a, b: (jnp.sin(a) * b, a + 1), in_shardings=(s1, s2), out_shardings=(s2, None))
"""
program("jit_shardings_jvp", "jaxpr", _TWO_OUT + """
result = jax.make_jaxpr(lambda a, b: jax.jvp(f, (a, b), (a, b)))(x, x)
""")
program("jit_shardings_jvp_one_tangent", "jaxpr", _TWO_OUT + """
result = jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: f(a, b), (a,), (a,)))(x, x)
""")
program("jit_shardings_linearize", "jaxpr", _TWO_OUT + """
result = jax.make_jaxpr(lambda a, b: jax.linearize(f, a, b)[1](a, b))(x, x)
""")
program("jit_shardings_vjp", "jaxpr", _TWO_OUT + """
result = jax.make_jaxpr(lambda a, b: jax.vjp(f, a, b)[1]((a, b)))(x, x)
""")
program("jit_shardings_vmap_explicit", "jaxpr", """
f = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x')))
result = jax.make_jaxpr(jax.vmap(f))(np.ones((8, 4), np.float32))
""")
for _spec in ("P('x')", "P(None, 'y')", "P()"):
  for _ax in (0, 2):
    for _spmd in ("None", "'y'"):
      if _spmd == "'y'" and "'y'" in _spec:
        continue
      program(f"jit_shardings_vmap_{_spec[2:-1].replace(', ', '_').replace(chr(39), '') or 'rep'}_{_ax}_{_spmd.strip(chr(39))}",
              "jaxpr", f"""
f = jax.jit(lambda a: a, in_shardings=NS(auto, {_spec}), out_shardings=NS(auto, {_spec}))
result = jax.make_jaxpr(jax.vmap(f, in_axes={_ax}, out_axes={_ax}, spmd_axis_name={_spmd}))(np.ones((8, 4, 2), np.float32))
""")
program("jit_shardings_vmap_spmd_duplicate", "error", """
f = jax.jit(lambda a: a, in_shardings=NS(auto, P(None, 'y')))
jax.make_jaxpr(jax.vmap(f, spmd_axis_name='y'))(np.ones((8, 4, 2), np.float32))
""")
program("jit_shardings_remat_grad", "jaxpr", """
f = jax.jit(lambda a: jnp.sin(a) * 2, in_shardings=NS(auto, P('x')), out_shardings=NS(auto, P('x')))
result = jax.make_jaxpr(jax.grad(lambda a: jax.checkpoint(lambda a: f(a).sum())(a)))(np.ones((8, 4), np.float32))
""")
program("jit_shardings_dce", "jaxpr", """
f = jax.jit(lambda a, b: (a * 2, b + 1), in_shardings=(NS(auto, P('x')), NS(auto, P(None, 'y'))),
            out_shardings=(NS(auto, P('x')), NS(auto, P('y'))))
result = jax.make_jaxpr(jax.grad(lambda a, b: f(a, b)[0].sum()))(np.ones((8, 4), np.float32), np.ones((8, 4), np.float32))
""")

# --- vmap over Explicit-typed arrays; spmd_axis_name
program("vmap_explicit_spmd_same_axis", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r: jnp.sin(r).sum(), spmd_axis_name='x'))(put((8, 4), P('x', None)))
""")
program("vmap_explicit_spmd_unplaced", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r: r * 2, spmd_axis_name='x'))(np.ones((8, 4), np.float32))
""")
program("vmap_explicit_spmd_unsplit_batch", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r: r * 2, spmd_axis_name='y'))(put((8, 4), P(None, 'y')))
""")
program("vmap_explicit_spmd_conflict", "error", """
with jax.sharding.set_mesh(mesh):
  jax.make_jaxpr(jax.vmap(lambda r: r, in_axes=1, spmd_axis_name='x'))(put((8, 4), P(None, 'y')))
""")
program("vmap_explicit_per_example_type", "text", """
seen = []
with jax.sharding.set_mesh(mesh):
  out = jax.vmap(lambda r: (seen.append(str(jax.typeof(r))), r * 2)[1], spmd_axis_name='x')(put((8, 4), P('x')))
  jax.make_jaxpr(jax.vmap(lambda r: (seen.append(str(jax.typeof(r))), r)[1], in_axes=1))(put((8, 4), P(None, 'y')))
result = ' '.join(seen) + ' ' + str(jax.typeof(out))
""")
program("vmap_explicit_unbatched_output_typed", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r, s: (r, s), in_axes=(0, None)))(put((8, 4), P('x')), jnp.ones(4))
""")
program("vmap_explicit_unbatched_output_spmd", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r, s: (r, s), in_axes=(0, None), spmd_axis_name='x'))(
      put((8, 4), P('x')), jnp.ones(4))
""")
program("vmap_explicit_inconsistent_inputs", "error", """
with jax.sharding.set_mesh(mesh):
  jax.make_jaxpr(jax.vmap(lambda r, s: r + s))(put((8, 4), P('x')), np.ones((8, 4), np.float32))
""")
program("vmap_explicit_unmapped_on_axis", "error", """
with jax.sharding.set_mesh(mesh):
  jax.make_jaxpr(jax.vmap(lambda r, s: r + s, in_axes=(0, None)))(put((8, 4), P('x')), put((8, 4), P(None, 'x')))
""")
program("vmap_explicit_moved_out_axis", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r: r * 2, out_axes=1))(put((8, 4), P('x')))
""")
program("vmap_explicit_mixed_in_axes", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r, s: r + s, in_axes=(0, 1)))(put((8, 4), P('x')), put((4, 8), P(None, 'x')))
""")
program("vmap_explicit_tuple_axis", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.vmap(lambda r: r * 2, spmd_axis_name=('x', 'y')))(put((8, 4), P(('x', 'y'))))
""")
program("vmap_explicit_jit_unbatched_out", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  g = jax.jit(lambda r, s: (r * 2, s))
  result = jax.make_jaxpr(jax.vmap(g, in_axes=(0, None), out_axes=(0, 0)))(put((8, 4), P('x')), jnp.ones(4))
""")

# --- sharding rules of sorting, tiling, windows, convolution, linalg, fft, one-operand families
_SQ = """
bsq = put((4, 8, 8), P('x', None, None))
bsq2 = put((4, 8, 8), P('x', 'y', None))
"""
for _name, _expect, _body in [
    ("sort_keeps_type", "jaxpr", "result = jax.make_jaxpr(lambda v: jax.lax.sort(v))(put((8, 4), P('x')))"),
    ("sort_split_dimension", "error", "jax.make_jaxpr(lambda v: jax.lax.sort(v))(put((8, 4), P(None, 'y')))"),
    ("sort_split_dimension0", "error", "jax.make_jaxpr(lambda v: jax.lax.sort(v, dimension=0))(put((8, 4), P('x')))"),
    ("sort_unequal_shardings", "error",
     "jax.make_jaxpr(lambda u, v: jax.lax.sort((u, v), num_keys=1))(put((8, 4), P('x')), put((8, 4), P()))"),
    ("argsort_typed_iota", "jaxpr", "result = jax.make_jaxpr(jnp.argsort)(put((8, 4), P('x')))"),
    ("argsort_split_dimension", "error", "jax.make_jaxpr(jnp.argsort)(put((8, 4), P(None, 'y')))"),
    ("sort_grad", "jaxpr", "result = jax.make_jaxpr(jax.grad(lambda v: jnp.sort(v).sum()))(put((8, 4), P('x')))"),
    ("top_k_keeps_type", "jaxpr", "result = jax.make_jaxpr(lambda v: jax.lax.top_k(v, 2))(put((8, 4), P('x')))"),
    ("top_k_split_axis", "error", "jax.make_jaxpr(lambda v: jax.lax.top_k(v, 2))(put((8, 4), P(None, 'y')))"),
    ("approx_max_k_type", "text", "result = str(jax.eval_shape(lambda v: jax.lax.approx_max_k(v, 2), put((8, 4), P('x'))))"),
    ("cumsum_other_axis", "jaxpr", "result = jax.make_jaxpr(lambda v: jnp.cumsum(v, 1))(put((8, 4), P('x')))"),
    ("cummax_split_axis", "error", "jax.make_jaxpr(lambda v: jax.lax.cummax(v, 0))(put((8, 4), P('x')))"),
    ("tile_split_dimension", "error", "jax.make_jaxpr(lambda v: jnp.tile(v, (2, 1)))(put((8, 4), P('x')))"),
    ("tile_unsplit_dimension", "text", "result = str(jax.eval_shape(lambda v: jnp.tile(v, (1, 2)), put((8, 4), P('x'))))"),
    ("fft_keeps_type", "jaxpr", "result = jax.make_jaxpr(jnp.fft.fft)(put((8, 4), P(None, 'y')))"),
    ("rfft_keeps_type", "text", "result = str(jax.eval_shape(jnp.fft.rfft, put((8, 4), P('x'))))"),
    ("fft2_type", "text", "result = str(jax.eval_shape(jnp.fft.fft2, put((8, 4), P('x'))))"),
    ("conv_replicated_kernel", "jaxpr", """result = jax.make_jaxpr(lambda v, w: jax.lax.conv_general_dilated(v, w, (1, 1), 'SAME'))(
    put((8, 2, 4, 4), P('x')), put((3, 2, 3, 3), P()))"""),
    ("conv_split_features", "error", """jax.make_jaxpr(lambda v, w: jax.lax.conv_general_dilated(v, w, (1, 1), 'SAME'))(
    put((8, 2, 4, 4), P('x', 'y')), put((3, 2, 3, 3), P()))"""),
    ("conv_split_kernel", "error", """jax.make_jaxpr(lambda v, w: jax.lax.conv_general_dilated(v, w, (1, 1), 'SAME'))(
    put((8, 2, 4, 4), P('x')), put((4, 2, 3, 3), P('y')))"""),
    ("conv_out_sharding", "jaxpr", """result = jax.make_jaxpr(lambda v, w: jax.lax.conv_general_dilated(v, w, (1, 1), 'SAME',
    out_sharding=P('x', 'y')))(put((8, 2, 4, 4), P('x', 'y')), put((4, 2, 3, 3), P()))"""),
    ("conv_grad", "jaxpr", """result = jax.make_jaxpr(lambda v, w: jax.grad(lambda v: jax.lax.conv_general_dilated(
    v, w, (1, 1), 'SAME').sum())(v))(put((8, 2, 4, 4), P('x')), put((4, 2, 3, 3), P()))"""),
    ("reduce_window_sum_type", "jaxpr", """result = jax.make_jaxpr(lambda v: jax.lax.reduce_window(v, 0., jax.lax.add, (1, 2), (1, 2),
    'VALID'))(put((8, 4), P(None, 'y')))"""),
    ("reduce_window_indivisible", "error", """jax.make_jaxpr(lambda v: jax.lax.reduce_window(v, -jnp.inf, jax.lax.max, (2, 1),
    (1, 1), 'VALID'))(put((8, 4), P('x')))"""),
    ("reduce_window_grad_indivisible", "error", """jax.make_jaxpr(jax.grad(lambda u: jax.lax.reduce_window(u, -jnp.inf,
    jax.lax.max, (2, 1), (1, 1), 'VALID').sum()))(put((8, 4), P('x')))"""),
    ("clamp_operand_type", "jaxpr", "result = jax.make_jaxpr(lambda v: jax.lax.clamp(0., v, 1.))(put((8, 4), P('x')))"),
    ("convert_element_type_type", "jaxpr", "result = jax.make_jaxpr(lambda v: v.astype(jnp.int32))(put((8, 4), P('x')))"),
    ("bitcast_narrower", "jaxpr", "result = jax.make_jaxpr(lambda v: jax.lax.bitcast_convert_type(v, jnp.int16))(put((8, 4), P('x')))"),
    ("bitcast_round_trip", "text", """result = str(jax.eval_shape(lambda v: jax.lax.bitcast_convert_type(
    jax.lax.bitcast_convert_type(v, jnp.int16), jnp.float32), put((8, 4), P('x'))))"""),
    ("reduce_generic_type", "jaxpr", """result = jax.make_jaxpr(lambda v: jax.lax.reduce((v, v), (0., 0.),
    lambda x, y: (x[0] + y[0], x[1] * y[1]), (1,)))(put((8, 4), P('x')))"""),
    ("unary_family_types", "text", """v = put((8, 4), P('x'))
result = ' '.join(str(jax.eval_shape(f, v)) for f in (jnp.tanh, jnp.sin, jnp.abs, jnp.sqrt, jax.lax.erf_inv,
    jnp.round, lambda u: u ** 3, lambda u: jax.lax.reduce_precision(u, 5, 10), jnp.isfinite,
    lambda u: jax.lax.population_count(u.astype(jnp.int32))))"""),
    ("add_illegal_result", "error", "jax.make_jaxpr(lambda v: v + v.T)(put((8, 8), P('x')))"),
    ("add_illegal_result_batched", "error", "jax.make_jaxpr(lambda v: v + jnp.swapaxes(v, 1, 2))(put((4, 8, 8), P('x', 'y')))"),
    ("cholesky_illegal_symmetrize", "error", "jax.make_jaxpr(jax.lax.linalg.cholesky)(put((8, 8), P('x')))"),
    ("qr_batch_type", "jaxpr", _SQ + "result = jax.make_jaxpr(jnp.linalg.qr)(bsq)"),
    ("eigh_batch_type", "text", _SQ + "result = str(jax.eval_shape(jnp.linalg.eigh, bsq))"),
    ("svd_batch_type", "text", _SQ + "result = str(jax.eval_shape(jnp.linalg.svd, bsq))"),
    ("lu_batch_type", "jaxpr", _SQ + "result = jax.make_jaxpr(jax.lax.linalg.lu)(bsq)"),
    ("eig_batch_type", "text", _SQ + "result = str(jax.eval_shape(jnp.linalg.eig, bsq))"),
    ("hessenberg_batch_type", "text", _SQ + "result = str(jax.eval_shape(jax.lax.linalg.hessenberg, bsq))"),
    ("symmetric_product_batch_type", "text",
     _SQ + "result = str(jax.eval_shape(lambda v: jax.lax.linalg.symmetric_product(v, v), bsq))"),
    ("householder_product_batch_type", "text",
     _SQ + "result = str(jax.eval_shape(lambda v: jax.lax.linalg.householder_product(v, v[..., 0]), bsq))"),
    ("lu_pivots_batch_type", "text", """p = jax.device_put(np.zeros((4, 8), np.int32), NS(mesh, P('x')))
result = str(jax.eval_shape(lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, 8), p))"""),
    ("tridiagonal_solve_batch_type", "text", """d = put((4, 8), P('x'))
result = str(jax.eval_shape(lambda d: jax.lax.linalg.tridiagonal_solve(d, d, d, d[..., None]), d))"""),
    ("schur_split_matrix", "error", "jax.make_jaxpr(jax.scipy.linalg.schur)(put((8, 8), P('x')))"),
    ("triangular_solve_batch_type", "jaxpr",
     _SQ + "result = jax.make_jaxpr(lambda v: jax.lax.linalg.triangular_solve(v, v, left_side=True))(bsq)"),
    ("triangular_solve_split_b", "error",
     _SQ + "jax.make_jaxpr(lambda v: jax.lax.linalg.triangular_solve(v, v, left_side=True))(bsq2)"),
    ("triangular_solve_split_a", "error", _SQ + """jax.make_jaxpr(lambda a, b: jax.lax.linalg.triangular_solve(a, b,
    left_side=True))(put((4, 8, 8), P('x', None, 'y')), bsq)"""),
    ("linalg_unequal_batch", "error", _SQ + """jax.make_jaxpr(lambda a, b: jax.lax.linalg.triangular_solve(a, b,
    left_side=True))(bsq, put((4, 8, 8), P()))"""),
]:
  program(_name, _expect, "with jax.sharding.set_mesh(mesh):\n" + "\n".join("  " + l for l in _body.strip("\n").split("\n")) + "\n")

# --- JVP constants made with lax._one / lax._zero: resharded onto the operand's mesh
for _fn in ("jnp.tanh", "jax.nn.sigmoid", "jnp.expm1", "jnp.log1p", "jnp.arcsinh", "jnp.arccosh", "jnp.arctanh",
            "jnp.abs"):
  program(f"jvp_constant_on_mesh_{_fn.split('.')[-1]}", "jaxpr",
          f"result = jax.make_jaxpr(lambda v: jax.jvp({_fn}, (v,), (v,)))(put((8, 4), P('x')))\n")
program("jvp_constant_on_auto_mesh", "jaxpr",
        "result = jax.make_jaxpr(lambda v: jax.jvp(jnp.tanh, (v,), (v,)))(put((8, 4), P('x'), auto))\n")
program("grad_tanh_constant_on_mesh", "jaxpr",
        "result = jax.make_jaxpr(jax.grad(lambda u: jnp.tanh(u).sum()))(put((8, 4), P('x')))\n")

# --- issue 21's remaining items: eager values under set_mesh, the empty mesh, jit in_shardings divisibility
program("typeof_no_mesh_sharding", "text", """
x = jnp.ones(3)
result = repr((jax.typeof(x).sharding, jax.typeof(x).sharding.mesh, jax.typeof(jnp.float32(1) + 1).sharding, str(jax.typeof(x))))
""")
for _m in ("mesh", "auto"):
  program(f"eager_under_set_mesh_{_m}", "text", f"""
x = jnp.ones(3)
with jax.sharding.set_mesh({_m}):
  y = jnp.ones((2, 3))
  z = x * 2
  result = repr((jax.typeof(y).sharding, y.sharding, jax.typeof(z).sharding, z.sharding, repr(jax.typeof(y))))
""")
program("eager_grad_under_set_mesh_mesh", "text", """
with jax.sharding.set_mesh(mesh):
  g = jax.grad(lambda a: (a * 2).sum())(jnp.ones((8, 4)))
  result = repr((g.sharding, jax.typeof(g).sharding))
""")
program("grad_seed_auto_context_placed", "jaxpr", """
with jax.sharding.set_mesh(auto):
  result = jax.make_jaxpr(jax.grad(lambda a: (a * 2).sum()))(put((8, 4), P('x'), auto))
""")
program("grad_seed_auto_placed_no_context", "jaxpr",
        "result = jax.make_jaxpr(jax.grad(lambda a: (a * 2).sum()))(put((8, 4), P('x'), auto))\n")
for _spec in ("P('x')", "P(None, 'y')"):
  program(f"jit_in_shardings_indivisible_{'x' if 'x' in _spec else 'y'}", "error", f"""
jax.make_jaxpr(jax.jit(lambda a: a * 2, in_shardings=NS(mesh, {_spec})))(np.ones((6, 3), np.float32))
""")
program("jit_in_shardings_indivisible_pytree", "error", """
jax.make_jaxpr(jax.jit(lambda a, b: a['k'] * b, in_shardings=({'k': NS(auto, P('x'))}, NS(auto, P()))))(
    {'k': np.ones((6, 3), np.float32)}, np.ones((6, 3), np.float32))
""")

# --- issue 21, the rest: values traced under an Explicit set_mesh typed on it where JAX's rules fall
# back to the context mesh (n-ary ops, iota, broadcast_in_dim, ...): grad's seed reshard, cholesky's select_n
program("traced_scalar_operand_grad_seed", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.grad(lambda a: (a * 2).sum()))(np.ones((8, 4), np.float32))
""")
program("traced_unary_sum_grad_no_seed", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.grad(lambda a: jnp.sum(jnp.sin(a))))(np.ones((8, 4), np.float32))
""")
program("traced_context_mesh_types", "text", """
def where(v):
  return 'E' if jax.typeof(v).sharding.mesh.empty else 'M'
def f(a):
  r = dict(a=a, mul_py=a * 2., mul_np=a * np.ones(4, np.float32), add_self=a + a, neg=-a, sin=jnp.sin(a),
           astype=a.astype(np.int32), iota=jax.lax.iota(np.int32, 3), full=jax.lax.full((3,), 1.),
           bcast=jax.lax.broadcast_in_dim(a, (2, 8, 4), (1, 2)), sum=a.sum(), sum_scaled=(a * 2).sum(),
           eq=a == 1, where=jnp.where(a > 0, a, 0.), dot=a @ a.T, dot_scaled=(a * 2) @ a.T,
           cat=jnp.concatenate([a, a]), ones_like=jnp.ones_like(a), zeros=jnp.zeros(3), maximum=jnp.maximum(a, 0.),
           square=jnp.square(a), reshape=jnp.reshape(a, (32,)), take=a[jnp.array([0, 1])])
  out.append(' '.join(f'{k}:{where(v)}' for k, v in r.items()))
  return a
out = []
with jax.sharding.set_mesh(mesh):
  jax.make_jaxpr(f)(np.ones((8, 4), np.float32))
result = out[0]
""")
program("traced_constants_on_context_mesh", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(lambda a: (a * 2, a + np.ones(4, np.float32), a + jnp.ones(4), jnp.arange(3) + 1))(
      np.ones((8, 4), np.float32))
""")
program("cholesky_placed_batch_select_n", "error", """
with jax.sharding.set_mesh(mesh):
  jax.make_jaxpr(jax.lax.linalg.cholesky)(put((4, 8, 8), P('x')))
""")
program("cholesky_unplaced_batch_under_mesh", "jaxpr", """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.lax.linalg.cholesky)(np.ones((4, 8, 8), np.float32))
""")

# --- eager results: on operands placed on Auto axes laid out as XLA propagates; constants and jit results
# made under set_mesh placed on its mesh
program("eager_auto_placed_layouts", "text", """
import contextlib
lines = []
for ctx in (False, True):
  for spec in (P(), P('x'), P(None, 'y'), P('x', 'y')):
    a = put((8, 4), spec, auto)
    with (jax.sharding.set_mesh(auto) if ctx else contextlib.nullcontext()):
      outs = [('a*2', a * 2), ('sin', jnp.sin(a)), ('sum', a.sum()), ('sum0', a.sum(0)), ('T', a.T),
              ('a+b', a + jnp.ones((8, 4))), ('sum1', a.sum(1))]
      lines.append(f"{ctx} {spec} " + " ".join(f"{n}={v.sharding.spec}" for n, v in outs))
result = "\\n".join(lines)
""")
for _m in ("mesh", "auto"):
  program(f"eager_constants_under_set_mesh_{_m}", "text", f"""
with jax.sharding.set_mesh({_m}):
  vals = [jnp.float32(3), jnp.float32(np.ones(3)), jnp.int32(2), jnp.asarray(np.ones(3)), jnp.array([1., 2.]),
          jnp.asarray(np.float32(2))]
  result = "\\n".join(f"{{v.sharding}} {{jax.typeof(v)}}" for v in vals)
""")
  program(f"jit_result_under_set_mesh_{_m}", "text", f"""
b = jnp.ones((8, 4))
with jax.sharding.set_mesh({_m}):
  vals = [jax.jit(jnp.sin)(b), jax.jit(lambda t: t)(b), jax.jit(lambda t: (t.sum(0), t * 2))(b)[0],
          jax.jit(lambda t: t + 1)(b), jax.jit(lambda t: t.sum())(b)]
  result = "\\n".join(f"{{v.sharding}} {{jax.typeof(v)}}" for v in vals)
""")

# --- .at[...](out_sharding=): the gather / scatter under auto_axes, the result resharded
_AT = """
with jax.sharding.set_mesh(mesh):
  a = put((8, 4), P('x', 'y'))
  i = jnp.array([1, 3])
"""
program("at_get_out_sharding", "jaxpr", _AT + "  result = jax.make_jaxpr(lambda x: x.at[:, i].get(out_sharding=P('x', None)))(a)\n")
program("at_set_out_sharding", "jaxpr", _AT + "  result = jax.make_jaxpr(lambda x: x.at[i].set(0., out_sharding=P('x', 'y')))(a)\n")
program("at_add_out_sharding", "jaxpr", _AT + "  result = jax.make_jaxpr(lambda x: x.at[i].add(1., out_sharding=P(None, 'y')))(a)\n")
program("at_min_named_out_sharding", "jaxpr",
        _AT + "  result = jax.make_jaxpr(lambda x: x.at[i].min(0., out_sharding=NS(mesh, P('x'))))(a)\n")
program("at_eager_out_sharding", "text", _AT + """
  outs = [a.at[i].set(0., out_sharding=P('x')), a.at[i].get(out_sharding=P(None, 'y')),
          a.at[i].divide(2., out_sharding=P(None, 'y')), a.at[0].get(out_sharding=P('x')),
          a.at[i].max(3., out_sharding=P()), a.at[i].power(2., out_sharding=P('x'))]
  result = "\\n".join(f"{r.sharding.spec} {jax.typeof(r)} {np.asarray(r).sum()}" for r in outs)
""")
program("at_get_indivisible_out_sharding", "error", _AT + "  jax.make_jaxpr(lambda x: x.at[i].get(out_sharding=P('x')))(a)\n")
program("at_mul_bad_out_sharding", "error", _AT + "  jax.make_jaxpr(lambda x: x.at[i].mul(2., out_sharding='bad'))(a)\n")
program("at_min_duplicate_out_sharding", "error",
        _AT + "  jax.make_jaxpr(lambda x: x.at[0].min(0., out_sharding=P('x', 'y', 'x')))(a)\n")
program("at_get_out_sharding_no_mesh", "error",
        "jax.make_jaxpr(lambda x: x.at[jnp.array([1])].get(out_sharding=P('x')))(jnp.ones((8, 4)))\n")

# --- select_and_scatter keeps its operand's placement; jnp.pad's gradient on a placed array
_SAS_P = """
mod = 'pyjax._src.lax.select_and_scatter' if jax.__name__ == 'pyjax' else 'jax._src.lax.windowed_reductions'
import importlib
sas = importlib.import_module(mod)._select_and_scatter
f = lambda x, s: sas(x, jax.lax.ge, (2, 1), (2, 1), ((0, 0), (0, 0)), s, jnp.float32(0), jax.lax.add)
"""
program("select_and_scatter_keeps_type", "jaxpr", _SAS_P + """
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(f)(put((8, 4), P('x')), put((4, 4), P('x')))
""")
program("select_and_scatter_eager_placed", "text", _SAS_P + """
with jax.sharding.set_mesh(mesh):
  r = f(put((8, 4), P('x')), put((4, 4), P('x')))
  result = f"{r.sharding} {jax.typeof(r)} {jax.typeof(jax.eval_shape(f, put((8, 4), P(None, 'y')), put((4, 4), P(None, 'y'))))}"
""")
for _spec in ("P('x')", "P(None, 'y')"):
  program(f"pad_grad_placed_{'x' if 'x' in _spec else 'y'}", "jaxpr", f"""
with jax.sharding.set_mesh(mesh):
  result = jax.make_jaxpr(jax.grad(lambda v: jnp.pad(v, ((2, 2), (0, 4))).sum()))(put((8, 4), {_spec}))
""")
program("pad_grad_indivisible", "error", """
with jax.sharding.set_mesh(mesh):
  jax.make_jaxpr(jax.grad(lambda v: jnp.pad(v, ((1, 2), (0, 3))).sum()))(put((8, 4), P('x')))
""")
program("lax_pad_grad_slice_strides", "jaxpr",
        "result = jax.make_jaxpr(jax.grad(lambda v: jax.lax.pad(v, 0., ((2, 2, 1), (0, 4, 0))).sum()))(np.ones((8, 4), np.float32))\n")
program("scan_pad_grad_zero_residual", "jaxpr", """
def body(c, x):
  return c, jax.lax.pad(x, 0., ((1, 1, 0),))
result = jax.make_jaxpr(jax.grad(lambda v: jax.lax.scan(body, 0., v)[1].sum()))(np.ones((3, 4), np.float32))
""")

# --- jit(...).trace / .lower with ShapeDtypeStruct: in_shardings divisibility (JAX's IndivisibleError)
program("jit_trace_in_shardings_indivisible", "error",
        "jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x'))).trace(jax.ShapeDtypeStruct((6, 3), np.float32))\n")
program("jit_lower_in_shardings_indivisible", "error",
        "jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x'))).lower(jax.ShapeDtypeStruct((6, 3), np.float32))\n")
program("jit_trace_in_shardings_indivisible_second", "error", """
jax.jit(lambda a, b: a * b, in_shardings=(NS(mesh, P()), NS(mesh, P(None, 'y')))).trace(
    jax.ShapeDtypeStruct((6, 3), np.float32), jax.ShapeDtypeStruct((6, 3), np.float32))
""")
program("jit_trace_struct_sharding_indivisible", "error", """
jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x'))).trace(
    jax.ShapeDtypeStruct((6, 3), np.float32, sharding=NS(mesh, P('x'))))
""")
program("jit_trace_in_shardings_divisible", "jaxpr",
        "result = jax.jit(lambda a: a * 2, in_shardings=NS(mesh, P('x'))).trace(jax.ShapeDtypeStruct((8, 3), np.float32)).jaxpr\n")
program("jit_eager_auto_placed_layouts", "text", """
lines = []
for spec in (P(), P('x'), P(None, 'y'), P('x', 'y')):
  a = put((8, 4), spec, auto)
  outs = [jax.jit(f)(a) for f in (lambda t: t * 2, lambda t: t.sum(0), lambda t: t.T, lambda t: jnp.sin(t) + 1)]
  lines.append(f"{spec} " + " ".join(str(o.sharding.spec) for o in outs))
with jax.sharding.set_mesh(auto):
  a = put((8, 4), P('x'), auto)
  lines.append(str(jax.jit(lambda t: (t * 2).sum(1))(a).sharding))
result = "\\n".join(lines)
""")


# --- a placed jit under grad: JAX's jit linearize rule keeps the placement
# of the known outputs (residuals unspecified; an output that is an input is
# forwarded only where its placement is free), and the same jit linearized
# twice holds one known body (printed once, with `let`)
program("jit_placed_grad_called_twice", "jaxpr", """
f = jax.jit(lambda v, w: (jnp.sin(v) * w, v), in_shardings=(NS(auto, P('x')), NS(auto, P())),
            out_shardings=(NS(auto, P('x')), None))
result = jax.make_jaxpr(jax.grad(lambda a, b: f(a, b)[0].sum() + f(a, b)[1].sum(), argnums=(0, 1)))(jnp.ones(8), jnp.ones(8))
""")
program("jit_placed_grad_forwarded_output", "jaxpr", """
f = jax.jit(lambda v: (v, jnp.exp(v)), out_shardings=(NS(auto, P('x')), NS(auto, P('x'))))
result = jax.make_jaxpr(jax.grad(lambda a: f(a)[0].sum() + f(a)[1].sum()))(jnp.ones(8))
""")
