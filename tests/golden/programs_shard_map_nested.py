"""Nested shard_map, shard_map in loops, ragged_all_to_all, all_gather(to=)
and pmap's negative out_axes, recorded from JAX 0.11.0 with 8 CPU devices
into ``shard_map_nested.json`` (issue 22).

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_shard_map_nested.py

XLA:CPU cannot run ``ragged_all_to_all`` (``UNIMPLEMENTED: HLO opcode
`ragged-all-to-all` is not supported by XLA:CPU ThunkEmitter``), so its
programs here are jaxprs and error texts; tests/test_shard_map_nested.py
checks its values against the semantics JAX documents.
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
x = np.arange(128., dtype=np.float32).reshape(8, 16)
def nested(inner_out=P(), outer_out=P()):
  def inner(v):
    return lax.psum(v, 'y')
  def outer(v):
    w = jax.shard_map(inner, in_specs=P(None, 'y'), out_specs=inner_out, axis_names={'y'})(v)
    return lax.psum(w, 'x')
  return jax.shard_map(outer, mesh=auto, in_specs=P('x'), out_specs=outer_out, axis_names={'x'})
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


# --- shard_map nested in shard_map, over the axes the outer left
program("nested_jaxpr", "jaxpr", """
result = jax.make_jaxpr(nested())(x)
""")
program("nested_value", "value", """
result = nested()(x)
""")
program("nested_jit_value", "value", """
result = jax.jit(nested())(x)
""")
program("nested_inner_split_out", "jaxpr", """
def outer(v):
  w = jax.shard_map(lambda u: u * lax.axis_index('y').astype(np.float32), in_specs=P(None, 'y'),
                    out_specs=P(None, 'y'), axis_names={'y'})(v)
  return w + lax.axis_index('x').astype(np.float32)
result = jax.make_jaxpr(jax.shard_map(outer, mesh=auto, in_specs=P('x'), out_specs=P('x'), axis_names={'x'}))(x)
""")
program("nested_inner_split_out_value", "value", """
def outer(v):
  w = jax.shard_map(lambda u: u * lax.axis_index('y').astype(np.float32), in_specs=P(None, 'y'),
                    out_specs=P(None, 'y'), axis_names={'y'})(v)
  return w + lax.axis_index('x').astype(np.float32)
result = jax.shard_map(outer, mesh=auto, in_specs=P('x'), out_specs=P('x'), axis_names={'x'})(x)
""")
program("nested_pmax_all_gather_value", "value", """
def outer(v):
  w = jax.shard_map(lambda u: lax.pmax(u, 'y') * 2, in_specs=P(None, 'y'), out_specs=P(), axis_names={'y'})(v)
  return lax.all_gather(w, 'x', tiled=True, to='invarying')
result = jax.shard_map(outer, mesh=auto, in_specs=P('x'), out_specs=P(), axis_names={'x'})(x)
""")
program("nested_partial_value", "value", """
f = jax.shard_map(lambda v: lax.psum(v, 'x'), mesh=auto, in_specs=P('x'), out_specs=P(), axis_names={'x'})
result = f(x)
""")
program("nested_partial_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v: lax.psum(v, 'x') * 2, mesh=auto, in_specs=P('x'), out_specs=P(), axis_names={'x'})
result = jax.make_jaxpr(f)(x)
""")
program("nested_wrong_mesh", "error", """
def outer(v):
  return jax.shard_map(lambda u: u, mesh=auto, in_specs=P(), out_specs=P(), axis_names={'y'})(v)
jax.make_jaxpr(jax.shard_map(outer, mesh=auto, in_specs=P('x'), out_specs=P('x'), axis_names={'x'}))(x)
""")
program("nested_inner_names_outer_axis", "error", """
def outer(v):
  return jax.shard_map(lambda u: u, in_specs=P('x'), out_specs=P('x'), axis_names={'y'})(v)
jax.make_jaxpr(jax.shard_map(outer, mesh=auto, in_specs=P('x'), out_specs=P('x'), axis_names={'x'}))(x)
""")
program("nested_get_abstract_mesh", "text", """
seen = []
def outer(v):
  seen.append(str(jax.sharding.get_abstract_mesh()))
  return v
jax.make_jaxpr(jax.shard_map(outer, mesh=auto, in_specs=P('x'), out_specs=P('x'), axis_names={'x'}))(x)
result = seen[0]
""")

# --- shard_map in loop bodies, under jit; a body closing over a tracer
program("scan_of_shard_map_jaxpr", "jaxpr", """
g = jax.shard_map(lambda v: lax.psum(v, 'x'), mesh=auto, in_specs=P('x'), out_specs=P())
def step(c, _):
  return c + g(x)[:2] * 0.5, None
result = jax.make_jaxpr(lambda c: lax.scan(step, c, None, length=3)[0])(np.zeros((2, 16), np.float32))
""")
program("scan_of_shard_map_value", "value", """
g = jax.shard_map(lambda v: v - lax.pmean(v, 'x'), mesh=auto, in_specs=P('x'), out_specs=P('x'))
def step(c, _):
  return c * 0.5 + g(c) * 0.25, None
result = jax.jit(lambda c: lax.scan(step, c, None, length=3)[0])(x)
""")
program("fori_of_shard_map_value", "value", """
g = jax.shard_map(lambda v: lax.ppermute(v, 'x', [(i, (i + 1) % 4) for i in range(4)]), mesh=auto,
                  in_specs=P('x'), out_specs=P('x'))
result = jax.jit(lambda c: lax.fori_loop(0, 3, lambda i, c: g(c) + i, c))(x)
""")
program("closure_over_tracer_value", "value", """
def f(a, s):
  return jax.shard_map(lambda v: lax.psum(v * s, 'x'), mesh=auto, in_specs=P('x'), out_specs=P())(a)
result = jax.jit(f)(x, np.float32(3.0))
""")
program("closure_over_tracer_jaxpr", "jaxpr", """
def f(a, s):
  return jax.shard_map(lambda v: lax.psum(v * s, 'x'), mesh=auto, in_specs=P('x'), out_specs=P())(a)
result = jax.make_jaxpr(f)(x, np.float32(3.0))
""")
program("closure_over_grad_tracer", "value", """
def f(s):
  return jax.shard_map(lambda v: lax.psum(v * s, 'x'), mesh=auto, in_specs=P('x'), out_specs=P())(x).sum()
result = jax.grad(f)(np.float32(3.0))
""")

# --- ragged_all_to_all (XLA:CPU cannot run it: jaxprs and errors)
program("ragged_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a, b, c, d, e, g: lax.ragged_all_to_all(a, b, c, d, e, g, axis_name='x'),
                  mesh=auto, in_specs=P('x'), out_specs=P('x'))
i = np.zeros(16, np.int32)
result = jax.make_jaxpr(f)(np.ones(32, np.float32), np.zeros(32, np.float32), i, i, i, i)
""")
program("ragged_replicated_offsets_jaxpr", "jaxpr", """
f = jax.shard_map(lambda a, b, c, d, e, g: lax.ragged_all_to_all(a, b, c, d, e, g, axis_name='x'),
                  mesh=auto, in_specs=(P('x'), P('x'), P(), P(), P(), P()), out_specs=P('x'))
i = np.zeros(4, np.int32)
result = jax.make_jaxpr(f)(np.ones((32, 3), np.float32), np.zeros((24, 3), np.float32), i, i, i, i)
""")
program("ragged_float_offsets", "error", """
f = jax.shard_map(lambda a, b, c, d, e, g: lax.ragged_all_to_all(a, b, c, d, e, g, axis_name='x'),
                  mesh=auto, in_specs=P('x'), out_specs=P('x'))
i = np.zeros(16, np.int32)
jax.make_jaxpr(f)(np.ones(32, np.float32), np.zeros(32, np.float32), i.astype(np.float32), i, i, i)
""")
program("ragged_rank2_sizes", "error", """
f = jax.shard_map(lambda a, b, c, d, e, g: lax.ragged_all_to_all(a, b, c, d, e, g, axis_name='x'),
                  mesh=auto, in_specs=P('x'), out_specs=P('x'))
i = np.zeros(16, np.int32)
jax.make_jaxpr(f)(np.ones(32, np.float32), np.zeros(32, np.float32), i, i.reshape(4, 4), i, i)
""")
program("ragged_unbound_axis", "error", """
i = np.zeros(4, np.int32)
jax.make_jaxpr(lambda a: lax.ragged_all_to_all(a, a, i, i, i, i, axis_name='x'))(np.ones(4, np.float32))
""")

# --- all_gather(..., to=...)
program("all_gather_invarying_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v: lax.all_gather(v, 'x', to='invarying'), mesh=auto, in_specs=P('x'), out_specs=P())
result = jax.make_jaxpr(f)(x)
""")
program("all_gather_invarying_tiled_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v: lax.all_gather(v, 'y', axis=1, tiled=True, to='invarying'), mesh=auto,
                  in_specs=P('x', 'y'), out_specs=P('x'))
result = jax.make_jaxpr(f)(x)
""")
program("all_gather_invarying_value", "value", """
f = jax.shard_map(lambda v: lax.all_gather(v, 'y', axis=1, tiled=True, to='invarying'), mesh=auto,
                  in_specs=P('x', 'y'), out_specs=P('x'))
result = f(x)
""")
# --- pmap: negative out_axes, nested pmap
program("pmap_out_axes_neg1", "value", """
result = jax.pmap(lambda v: v * 2, out_axes=-1)(np.arange(24., dtype=np.float32).reshape(8, 3))
""")
program("pmap_out_axes_neg2", "value", """
result = jax.pmap(lambda v: v + 1, out_axes=-2)(np.arange(48., dtype=np.float32).reshape(8, 3, 2))
""")
program("pmap_out_axes_neg_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.pmap(lambda v: v * 2, out_axes=-1))(np.arange(24., dtype=np.float32).reshape(8, 3))
""")
program("pmap_nested", "error", """
f = jax.pmap(jax.pmap(lambda v: lax.psum(v, 'i') + lax.psum(v, 'j'), axis_name='j'), axis_name='i')
f(np.arange(24., dtype=np.float32).reshape(4, 2, 3))
""")
