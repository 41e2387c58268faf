"""Sharded jit run per device (issue 22 item 3), recorded from JAX 0.11.0
with 8 CPU devices into ``spmd_jit.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_spmd_jit.py

Jitted programs over Explicit-sharded arguments whose types demand
communication: the issue's contraction over a split dimension with
`out_sharding`, a result split over the contracted axis, reductions over
split dimensions, `reshard`, iota, a reshape of blocks, and a gradient;
their values and the results' types. Each program's source starts with PRELUDE.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

PRELUDE = """
P = jax.sharding.PartitionSpec
AxisType = jax.sharding.AxisType
NS = jax.sharding.NamedSharding
mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
A = (np.arange(128., dtype=np.float32).reshape(8, 16) % 7.) - 3.
B = (np.arange(64., dtype=np.float32).reshape(16, 4) % 5.) - 2.
a = jax.device_put(A, NS(mesh, P('x', 'y')))
b = jax.device_put(B, NS(mesh, P('y', None)))
def dot(p, q, out):
  return jax.lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=NS(mesh, out))
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


program("issue_example", "value", "result = jax.jit(lambda p, q: dot(p, q, P('x', None)))(a, b)\n")
program("issue_example_type", "text",
        "r = jax.jit(lambda p, q: dot(p, q, P('x', None)))(a, b)\n"
        "result = f'{jax.typeof(r)} {r.sharding.spec} {[s.data.shape for s in r.addressable_shards]}'\n")
program("out_split_on_contracted_axis", "value",
        "result = jax.jit(lambda p, q: dot(p, q, P('x', 'y')))(a, b)\n")
program("out_split_type", "text",
        "r = jax.jit(lambda p, q: dot(p, q, P(None, 'y')))(a, b)\n"
        "result = f'{jax.typeof(r)} {[s.data.shape for s in r.addressable_shards]}'\n")
program("reduce_sum_split_axes", "value", "result = jax.jit(lambda p: p.sum(axis=1))(a)\n")
program("reduce_max_all", "value", "result = jax.jit(lambda p: jnp.max(jnp.sin(p)))(a)\n")
program("reduce_min_type", "text",
        "r = jax.jit(lambda p: jnp.min(p, axis=0))(a)\nresult = f'{jax.typeof(r)} {r.sharding.spec}'\n")
program("reshard_transpose", "value",
        "result = jax.jit(lambda p: jax.sharding.reshard(p, NS(mesh, P('y', 'x'))) * 2)(a)\n")
program("reshard_type", "text",
        "r = jax.jit(lambda p: jax.sharding.reshard(p, NS(mesh, P(None, ('x', 'y')))))(a)\n"
        "result = f'{jax.typeof(r)} {r.sharding.spec}'\n")
program("iota_plus_split", "value",
        "result = jax.jit(lambda p: p + jnp.arange(16., out_sharding=NS(mesh, P('y'))))(a)\n")
program("reshape_blocks", "value",
        "result = jax.jit(lambda p: jnp.tanh(p).reshape(4, 32, out_sharding=NS(mesh, P('x', None))))(a)\n")
program("mlp_forward", "value", """
def f(p, q):
  h = jnp.maximum(dot(p, q, P('x', None)), 0.)
  return (h * h).mean(axis=0)
result = jax.jit(f)(a, b)
""")
program("grad_sharded_loss_lhs", "value", """
def loss(p, q):
  return jnp.tanh(dot(p, q, P('x', None)) * 0.1).sum()
result = jax.jit(jax.grad(loss))(a, b)
""")
program("grad_sharded_loss_rhs", "value", """
def loss(p, q):
  return jnp.tanh(dot(p, q, P('x', None)) * 0.1).sum()
result = jax.jit(jax.grad(loss, argnums=1))(a, b)
""")
program("grad_sharded_loss_type", "text", """
def loss(p, q):
  return jnp.tanh(dot(p, q, P('x', None)) * 0.1).sum()
g = jax.jit(jax.grad(loss, argnums=(0, 1)))(a, b)
result = f'{jax.typeof(g[0])} {jax.typeof(g[1])}'
""")
