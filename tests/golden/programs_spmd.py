"""Control flow in shard_map bodies, pmap and multihost_utils, recorded from
JAX 0.11.0 with 8 CPU devices into ``spmd.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_spmd.py

The jaxprs of scan/while/cond/fori_loop holding collectives in a body, the
vma type errors of their carries and branches (with JAX's pcast hints),
`lax.pcast`; pmap's jaxpr (a jit named `_fun` around a shard_map with
check_vma=False), values, placement and errors; and multihost_utils on
one process. Each program's source starts with PRELUDE.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

PRELUDE = """
P = jax.sharding.PartitionSpec
AxisType = jax.sharding.AxisType
NS = jax.sharding.NamedSharding
auto = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto, AxisType.Auto))
line = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Auto,))
x = np.arange(16., dtype=np.float32).reshape(8, 2)
def smap(f, specs=P('x'), out=P('x'), mesh=line):
  return jax.shard_map(f, mesh=mesh, in_specs=specs, out_specs=out)
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


# --- control flow holding collectives in a body
_SCAN = """
def body(v):
  def step(c, _):
    c = c + lax.psum(c, 'x') * 0.25
    return c, c.sum()
  return lax.scan(step, v, None, length=3)
f = smap(body, out=(P('x'), P('x')))
"""
program("scan_psum_jaxpr", "jaxpr", _SCAN + "result = jax.make_jaxpr(f)(x)\n")
program("scan_psum_carry", "value", _SCAN + "result = f(x)[0]\n")
program("scan_psum_ys", "value", _SCAN + "result = f(x)[1]\n")
program("scan_psum_jit", "value", _SCAN + "result = jax.jit(f)(x)[0]\n")
_FORI = """
f = smap(lambda v: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, 'x') * 0.5, v))
"""
program("fori_psum_jaxpr", "jaxpr", _FORI + "result = jax.make_jaxpr(f)(x)\n")
program("fori_psum_value", "value", _FORI + "result = f(x)\n")
_WHILE = """
def body(v):
  return lax.while_loop(lambda s: s[0] < 4, lambda s: (s[0] + 1, s[1] + lax.psum(s[1], 'x') * 0.5), (0, v))[1]
f = smap(body)
"""
program("while_psum_jaxpr", "jaxpr", _WHILE + "result = jax.make_jaxpr(f)(x)\n")
program("while_psum_value", "value", _WHILE + "result = f(x)\n")
_WHILE_GLOBAL = """
def body(v):
  return lax.while_loop(lambda c: lax.psum(c.sum(), 'x') < 1000., lambda c: c * 2 + lax.pmax(c, 'x') * 0, v)
f = smap(body)
"""
program("while_global_test_jaxpr", "jaxpr", _WHILE_GLOBAL + "result = jax.make_jaxpr(f)(x)\n")
program("while_global_test_value", "value", _WHILE_GLOBAL + "result = f(x)\n")
_COND = """
def body(v):
  s = lax.psum(v.sum(), 'x')
  return lax.cond(s > 0, lambda y: lax.pcast(lax.psum(y, 'x'), 'x', to='varying'), lambda y: y * 2, v)
f = smap(body)
"""
program("cond_invariant_jaxpr", "jaxpr", _COND + "result = jax.make_jaxpr(f)(x)\n")
program("cond_invariant_value", "value", _COND + "result = f(x)\n")
program("cond_invariant_false", "value", _COND + "result = f(-x - 1)\n")
program("cond_varying_jaxpr", "jaxpr", """
f = smap(lambda v: lax.cond(v.sum() > 3, lambda y: lax.pcast(lax.psum(y, 'x'), 'x', to='varying'), lambda y: y, v))
result = jax.make_jaxpr(f)(x)
""")
program("cond_varying_no_collective", "value", """
f = smap(lambda v: lax.cond(v.sum() > 10, lambda y: y - 1, lambda y: y + 1, v))
result = f(x)
""")

# --- vma type errors of control flow (JAX's texts and pcast hints)
program("cond_branches_vma_error", "error", """
f = smap(lambda v: lax.cond(True, lambda y: lax.psum(y, 'x'), lambda y: y * 2, v))
jax.make_jaxpr(f)(x)
""")
program("cond_branches_vma_error_rev", "error", """
f = smap(lambda v: lax.cond(True, lambda y: y * 2, lambda y: lax.psum(y, ('x', 'y')), v), P('x', 'y'), P('x'), auto)
jax.make_jaxpr(f)(x)
""")
program("scan_carry_loses_vma", "error", """
def body(v):
  def step(c, _): return lax.psum(c, 'x'), ()
  return lax.scan(step, v, None, length=2)[0]
jax.make_jaxpr(smap(body))(x)
""")
program("scan_carry_gains_vma", "error", """
def body(v):
  def step(c, r): return c + r.sum(), ()
  return lax.scan(step, np.zeros((), np.float32), v)[0] * jnp.ones((1, 2))
jax.make_jaxpr(smap(body))(x)
""")
program("while_carry_gains_vma", "error", """
def body(v):
  return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + v.sum()), (0, np.float32(0)))[1] * jnp.ones((1, 2))
jax.make_jaxpr(smap(body))(x)
""")
program("fori_carry_gains_vma", "error", """
def body(v):
  return lax.fori_loop(0, 3, lambda i, c: c + v.sum(), np.float32(0)) * jnp.ones((1, 2))
jax.make_jaxpr(smap(body))(x)
""")
program("pcast_already_varying", "error", """
jax.make_jaxpr(smap(lambda v: lax.pcast(v, 'x', to='varying')))(x)
""")
program("pcast_outside_shard_map", "error", """
lax.pcast(np.ones(3, np.float32), 'x', to='varying')
""")

# --- pmap
_PMAP = """
y = np.arange(32., dtype=np.float32).reshape(8, 4)
f = jax.pmap(lambda v: lax.psum(v, 'i') * v, axis_name='i')
"""
program("pmap_psum_jaxpr", "jaxpr", _PMAP + "result = jax.make_jaxpr(f)(y)\n")
program("pmap_psum_value", "value", _PMAP + "result = f(y)\n")
program("pmap_result_placement", "text", _PMAP + """
r = f(y)
result = f"{jax.typeof(r)} {r.sharding} {[s.data.shape for s in r.addressable_shards]} {[s.index for s in r.addressable_shards]}"
""")
program("pmap_in_axes_none_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.pmap(lambda v, w: v + w, in_axes=(0, None)))(x, np.ones(2, np.float32))
""")
program("pmap_fewer_devices", "text", """
r = jax.pmap(lambda v, w: v + w, in_axes=(0, None))(x[:4], np.ones(2, np.float32))
result = f"{np.asarray(r).tolist()} {r.sharding}"
""")
program("pmap_scalar_out_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.pmap(lambda v: v.sum()))(x)
""")
program("pmap_axes_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.pmap(lambda v: (v, v * 2), in_axes=1, out_axes=(1, 0)))(x.T)
""")
program("pmap_axes_value", "value", """
result = jax.pmap(lambda v: (v, v * 2), in_axes=1, out_axes=(1, 0))(x.T)[1]
""")
program("pmap_out_axes_none", "text", """
r = jax.pmap(lambda v: lax.psum(v, 'i'), 'i', out_axes=None)(x[:4])
result = f"{np.asarray(r).tolist()} {r.sharding}"
""")
program("pmap_axis_index_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.pmap(lambda v: lax.axis_index('i'), axis_name='i'))(x)
""")
program("pmap_axis_index_value", "value", """
result = jax.pmap(lambda v: lax.axis_index('i') * 10 + v.sum(), axis_name='i')(x)
""")
program("pmap_all_gather_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.pmap(lambda v: lax.all_gather(v, 'i'), axis_name='i'))(x)
""")
program("pmap_ppermute_value", "value", """
result = jax.pmap(lambda v: lax.ppermute(v, 'i', [(k, (k + 1) % 8) for k in range(8)]), axis_name='i')(x)
""")
program("pmap_pmean_value", "value", """
result = jax.pmap(lambda v: lax.pmean(v, 'i'), 'i')(np.arange(8.))
""")
program("pmap_in_jit_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jit(jax.pmap(lambda v: v * 2)))(x)
""")
program("pmap_static_arg", "value", """
result = jax.pmap(lambda v, k: v * k, static_broadcasted_argnums=1)(x[:4], 3)
""")
program("pmap_pytree", "value", """
result = jax.pmap(lambda d: {'a': d['a'] + d['b']}, in_axes=({'a': 0, 'b': None},))({'a': x[:4], 'b': np.ones(2, np.float32)})['a']
""")
program("pmap_grad_value", "value", """
result = jax.grad(lambda v: jax.pmap(lambda u: lax.psum(u * u, 'i'), axis_name='i')(v).sum())(x)
""")
program("pmap_more_than_devices", "error", """
jax.pmap(lambda v: v)(np.ones((9, 2), np.float32))
""")
program("pmap_mismatched_sizes", "error", """
jax.pmap(lambda v, w: v + w)(np.ones((3, 2), np.float32), np.ones((4, 2), np.float32))
""")
program("pmap_two_per_device", "error", """
jax.pmap(lambda v: v)(np.ones((16, 2), np.float32))
""")
program("pmap_no_mapped_axis", "error", """
jax.pmap(lambda v: v * 2, in_axes=None, axis_size=3)(np.ones(2, np.float32))
""")
program("pmap_axis_size_mismatch", "error", """
jax.pmap(lambda v: v * 2, axis_size=3)(np.ones((4, 2), np.float32))
""")
program("pmap_unbound_axis", "error", """
jax.pmap(lambda v: lax.psum(v, 'j'), axis_name='i')(np.ones((4, 2), np.float32))
""")
program("pmap_devices", "text", """
r = jax.pmap(lambda v: v * 2, devices=jax.devices()[2:6])(x[:3])
result = f"{np.asarray(r).tolist()} {r.sharding}"
""")

# --- multihost_utils on one process
_MH = """
import importlib
mu = importlib.import_module(jax.__name__ + '.experimental.multihost_utils')
mesh = jax.make_mesh((4, 2), ('x', 'y'))
a = jax.device_put(x, NS(mesh, P('x', 'y')))
"""
program("mh_allgather", "value", _MH + "result = mu.process_allgather(a)\n")
program("mh_allgather_tiled", "value", _MH + "result = mu.process_allgather(a, tiled=True)\n")
program("mh_allgather_tree", "text", _MH + """
r = mu.process_allgather({'a': x, 'b': 3.0})
result = f"{type(r['a']).__name__} {r['a'].shape} {r['b']!r}"
""")
program("mh_broadcast", "text", _MH + """
r = mu.broadcast_one_to_all({'a': a, 'b': 3})
result = f"{type(r['a']).__name__} {r['a'].shape} {r['b']!r}"
""")
program("mh_sync_assert", "text", _MH + """
result = f"{mu.sync_global_devices('step')} {mu.assert_equal(x, 'differs')} {mu.reached_preemption_sync_point(3)}"
""")
program("mh_host_to_global", "text", _MH + """
r = mu.host_local_array_to_global_array(x, mesh, P('x', 'y'))
result = f"{jax.typeof(r)} {r.sharding} {[s.data.shape for s in r.addressable_shards]} {np.asarray(r).sum()}"
""")
program("mh_host_to_global_jaxpr", "jaxpr", _MH + """
result = jax.make_jaxpr(lambda v: mu.host_local_array_to_global_array(v, mesh, P('x')))(x)
""")
program("mh_global_to_host", "text", _MH + """
r = mu.global_array_to_host_local_array(a, mesh, P('x', 'y'))
s = mu.global_array_to_host_local_array(x, mesh, P('x', 'y'))
result = f"{jax.typeof(r)} {r.sharding} {s.sharding} {np.asarray(s).sum()}"
""")
program("mh_global_to_host_jaxpr", "jaxpr", _MH + """
result = jax.make_jaxpr(lambda v: mu.global_array_to_host_local_array(v, mesh, P('x')))(x)
""")
