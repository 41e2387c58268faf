"""Vmapped control flow over Explicit-sharded batches in jit (issue 22),
recorded from JAX 0.11.0 with 8 CPU devices into ``spmd_batched.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_spmd_batched.py

A vmapped `while_loop` whose predicate is batched (one bool per lane, the
lanes split over the mesh: each device's lanes run until every lane of
every device is done) and a vmapped `cond` (JAX turns it into a select of
both branches): their values, and the results' types and per-device shard
shapes. Each program's source starts with PRELUDE.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

PRELUDE = """
P = jax.sharding.PartitionSpec
AxisType = jax.sharding.AxisType
NS = jax.sharding.NamedSharding
lax = jax.lax
mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
A = (np.arange(128., dtype=np.float32).reshape(8, 16) % 7.) / 4.
B = (np.arange(32., dtype=np.float32).reshape(8, 4) % 5.) / 4.
W = ((np.arange(256., dtype=np.float32).reshape(16, 16) % 9.) - 4.) / 16.
put = lambda v, *spec: jax.device_put(v, NS(mesh, P(*spec)))
def types(rs):
  return ' | '.join(f'{jax.typeof(r)} {sorted(set(s.data.shape for s in r.addressable_shards))}'
                    for r in jax.tree.leaves(rs))
def grow(v):
  return lax.while_loop(lambda c: c.sum() < 30.0, lambda c: c * 1.5 + 0.25, v)
def grow_each(v):
  return lax.while_loop(lambda c: c < 30.0, lambda c: c * 1.5 + 0.25, v)
def two(u, v):
  return lax.while_loop(lambda c: c[0].sum() < 30.0, lambda c: (c[0] * 1.5 + 0.25, c[1] + 1.), (u, v))
def pick(v):
  return lax.cond(v.sum() > 6, lambda u: u * 2, lambda u: jnp.sin(u) - 1, v)
def pick_each(v):
  return lax.cond(v > 0.7, lambda u: u * 2, lambda u: jnp.sin(u) - 1, v)
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


program("while_vmap_rows_xy", "value", "result = jax.jit(jax.vmap(grow))(put(A, 'x', 'y'))\n")
program("while_vmap_rows_xy_types", "text", "result = types(jax.jit(jax.vmap(grow))(put(A, 'x', 'y')))\n")
program("while_vmap_rows_x", "value", "result = jax.jit(jax.vmap(grow))(put(A, 'x', None))\n")
program("while_vmap_rows_yx_types", "text", "result = types(jax.jit(jax.vmap(grow))(put(A, 'y', 'x')))\n")
program("while_vmap_lanes_over_both_axes", "value",
        "result = jax.jit(jax.vmap(grow_each))(put(A[:, 0] * 2. + 0.5, ('x', 'y')))\n")
program("while_vmap_lanes_over_both_axes_types", "text",
        "result = types(jax.jit(jax.vmap(grow_each))(put(A[:, 0] * 2. + 0.5, ('x', 'y'))))\n")
program("while_vmap_two_carries", "value", "result = jax.jit(jax.vmap(two))(put(A, 'x', 'y'), put(B, 'x', 'y'))[1]\n")
program("while_vmap_two_carries_types", "text",
        "result = types(jax.jit(jax.vmap(two))(put(A, 'x', 'y'), put(B, 'x', 'y')))\n")
program("while_vmap_contraction_in_body", "value", """
def f(v, w):
  return lax.while_loop(lambda c: jnp.abs(c).sum() < 40.0,
                        lambda c: c * 1.25 + jnp.dot(c, w, out_sharding=NS(mesh, P('y'))) * 0.1 + 0.5, v)
result = jax.jit(jax.vmap(f, in_axes=(0, None)))(put(A, 'x', 'y'), put(W, 'y', None))
""")
program("while_vmap_batched_const", "value", """
def f(v, k):
  return lax.while_loop(lambda c: c.sum() < k.sum() * 20, lambda c: c * 1.5 + k.sum(), v)
result = jax.jit(jax.vmap(f))(put(A, 'x', 'y'), put(B, 'x', 'y'))
""")
program("while_vmap_nested", "value",
        "result = jax.jit(jax.vmap(jax.vmap(grow)))(put(A.reshape(2, 4, 16), 'y', 'x', None))\n")
program("while_vmap_nested_types", "text",
        "result = types(jax.jit(jax.vmap(jax.vmap(grow)))(put(A.reshape(2, 4, 16), 'y', 'x', None)))\n")
program("while_vmap_lane_counter", "value", """
def f(v):
  return lax.while_loop(lambda c: c[1].sum() < 30.0, lambda c: (c[0] + 1., c[1] * 1.5 + 0.25), (v.sum() * 0., v))
result = jax.jit(jax.vmap(f))(put(A * (np.arange(8., dtype=np.float32)[:, None] + 1.) / 4., 'x', 'y'))[0]
""")
program("while_vmap_lane_counter_types", "text", """
def f(v):
  return lax.while_loop(lambda c: c[1].sum() < 30.0, lambda c: (c[0] + 1., c[1] * 1.5 + 0.25), (v.sum() * 0., v))
result = types(jax.jit(jax.vmap(f))(put(A, 'x', 'y')))
""")
program("cond_vmap_rows", "value", "result = jax.jit(jax.vmap(pick))(put(A, 'x', None))\n")
program("cond_vmap_rows_types", "text", "result = types(jax.jit(jax.vmap(pick))(put(A, 'x', None)))\n")
program("cond_vmap_lanes_over_both_axes", "value",
        "result = jax.jit(jax.vmap(pick_each))(put(A[:, 0], ('x', 'y')))\n")
program("cond_vmap_lanes_types", "text", "result = types(jax.jit(jax.vmap(pick_each))(put(A[:, 0], 'x')))\n")
program("error_cond_vmap_rows_split_inside", "error", "result = jax.jit(jax.vmap(pick))(put(A, 'x', 'y'))\n")
# A constant carry forced batched over the mesh axes: JAX 0.11 refuses it
# (the constant's type names no mesh).
program("error_while_vmap_constant_counter", "error", """
def f(v):
  return lax.while_loop(lambda c: c[1].sum() < 30.0, lambda c: (c[0] + 1, c[1] * 1.5 + 0.25), (0, v))
result = jax.jit(jax.vmap(f))(put(A, 'x', 'y'))
""")
program("error_scan_vmap_constant_carry", "error",
        "result = jax.vmap(lambda v: lax.scan(lambda c, x: (c + x, None), 0., v))(put(B, ('x', 'y'), None))\n")
program("error_fori_vmap_batched_bound", "error", """
result = jax.vmap(lambda v, n: lax.fori_loop(0, n, lambda i, c: c * 1.1, v))(put(A, 'x', 'y'), put(np.arange(8, dtype=np.int32), 'x'))
""")
# An unbatched carry of an eager loop comes out on the mesh, so vmap's
# broadcast places it over the batch's axes.
program("while_vmap_unbatched_counter_eager_types", "text", """
def f(v):
  return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 1.5), (0, v))
result = types(jax.vmap(f)(put(A, 'x', 'y')))
""")
program("while_vmap_unbatched_counter_jit_types", "text", """
def f(v):
  return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 1.5), (0, v))
result = types(jax.jit(jax.vmap(f))(put(A, 'x', 'y')))
""")
