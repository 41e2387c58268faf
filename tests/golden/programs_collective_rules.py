"""Autodiff and vmap of ``ragged_all_to_all`` and ``all_gather_invariant``
(``all_gather(..., to='invarying')``), recorded from JAX 0.11.0 with 8 CPU
devices into ``collective_rules.json`` (issue 22).

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_collective_rules.py

XLA:CPU cannot run ``ragged_all_to_all``, so its programs are jaxprs;
tests/test_collective_rules.py checks the values. JAX 0.11's transpose of
the exchange builds the mask of received rows with one scatter that pyjax
makes a scatter-add (JAX's is wrong where an empty slice ends at another
slice's start), so the grad programs print the jaxpr up to that mask and the
outer program.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

PRELUDE = """
P = jax.sharding.PartitionSpec
AxisType = jax.sharding.AxisType
auto = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto, AxisType.Auto))
x = np.arange(128., dtype=np.float32).reshape(8, 16)
def ragged(in_specs=P('x')):
  return jax.shard_map(lambda a, b, c, d, e, g: lax.ragged_all_to_all(a, b, c, d, e, g, axis_name='x'),
                       mesh=auto, in_specs=in_specs, out_specs=P('x'))
def up_to_mask(text, mask_start):
  # the transposed body up to the received-rows mask (its first line holds
  # mask_start), and the outer program
  lines = text.split('\\n')
  first = next(n for n, line in enumerate(lines) if mask_start in line)
  return '\\n'.join(lines[:first]) + '\\n...\\n' + text.rsplit(' } in\\n', 1)[1]
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


# --- ragged_all_to_all: transpose
program("ragged_grad_exchange", "text", """
i = np.zeros(16, np.int32)
g = jax.grad(lambda a, b: (ragged()(a, b, i, i, i, i) * 2).sum(), argnums=(0, 1))
text = str(jax.make_jaxpr(g)(np.ones(32, np.float32), np.zeros(32, np.float32)))
result = up_to_mask(text, ':i32[8] = broadcast_in_dim 0:i32[]')
""")
program("ragged_grad_operand_replicated_offsets", "text", """
i = np.zeros(4, np.int32)
f = ragged((P('x'), P('x'), P(), P(), P(), P()))
g = jax.grad(lambda a: f(a, np.zeros((24, 3), np.float32), i, i, i, i).sum())
text = str(jax.make_jaxpr(g)(np.ones((32, 3), np.float32)))
result = up_to_mask(text, ':i32[6] = broadcast_in_dim 0:i32[]')
""")
# --- ragged_all_to_all: vmap
program("ragged_vmap_of_shard_map", "jaxpr", """
i = np.zeros((3, 16), np.int32)
result = jax.make_jaxpr(jax.vmap(ragged()))(np.ones((3, 32), np.float32), np.zeros((3, 32), np.float32), i, i, i, i)
""")
program("ragged_vmap_in_body", "jaxpr", """
i = np.zeros((3, 16), np.int32)
body = jax.vmap(lambda a, b, c, d, e, g: lax.ragged_all_to_all(a, b, c, d, e, g, axis_name='x'),
                in_axes=(1, 0, 0, 1, 0, 0))
f = jax.shard_map(body, mesh=auto, in_specs=(P('x'), P(None, 'x'), P(None, 'x'), P('x'), P(None, 'x'), P(None, 'x')),
                  out_specs=P(None, 'x'))
result = jax.make_jaxpr(f)(np.ones((32, 3), np.float32), np.zeros((3, 32), np.float32), i, i.T, i, i)
""")
program("ragged_vmap_unbatched_output", "jaxpr", """
i = np.zeros((3, 16), np.int32)
f = jax.vmap(ragged(), in_axes=(0, None, 0, 0, 0, 0))
result = jax.make_jaxpr(f)(np.ones((3, 32), np.float32), np.zeros(32, np.float32), i, i, i, i)
""")
# --- all_gather_invariant: transpose
program("gather_invariant_grad_jaxpr", "jaxpr", """
f = jax.shard_map(lambda v: lax.all_gather(v, 'x', to='invarying'), mesh=auto, in_specs=P('x'), out_specs=P())
w = np.arange(128., dtype=np.float32).reshape(4, 2, 16)
result = jax.make_jaxpr(jax.grad(lambda v: (f(v) * w).sum()))(x)
""")
program("gather_invariant_grad_value", "value", """
f = jax.shard_map(lambda v: lax.all_gather(v, 'x', to='invarying'), mesh=auto, in_specs=P('x'), out_specs=P())
w = np.arange(128., dtype=np.float32).reshape(4, 2, 16)
result = jax.grad(lambda v: (jnp.sin(f(v)) * w).sum())(x / 100)
""")
program("gather_invariant_grad_two_axes_tiled", "jaxpr", """
f = jax.shard_map(lambda v: lax.all_gather(v, ('x', 'y'), axis=1, tiled=True, to='invarying'), mesh=auto,
                  in_specs=P(None, ('x', 'y')), out_specs=P())
result = jax.make_jaxpr(jax.grad(lambda v: (f(v) * x).sum()))(x)
""")
program("gather_invariant_grad_two_axes_value", "value", """
f = jax.shard_map(lambda v: lax.all_gather(v, ('x', 'y'), axis=1, tiled=True, to='invarying'), mesh=auto,
                  in_specs=P(None, ('x', 'y')), out_specs=P())
result = jax.grad(lambda v: (f(v) ** 2 * x).sum())(x / 100)
""")
program("gather_invariant_grad_inner_axis", "value", """
f = jax.shard_map(lambda v: lax.all_gather(v, 'y', axis=1, tiled=True, to='invarying'), mesh=auto,
                  in_specs=P('x', 'y'), out_specs=P('x'))
result = jax.grad(lambda v: (jnp.cos(f(v)) * x).sum())(x / 100)
""")
# --- all_gather_invariant: vmap
program("gather_invariant_vmap_of_shard_map", "jaxpr", """
f = jax.shard_map(lambda v: lax.all_gather(v, ('x', 'y'), axis=1, tiled=True, to='invarying'), mesh=auto,
                  in_specs=P(None, ('x', 'y')), out_specs=P())
result = jax.make_jaxpr(jax.vmap(f))(np.ones((3, 8, 16), np.float32))
""")
program("gather_invariant_vmap_of_shard_map_value", "value", """
f = jax.shard_map(lambda v: lax.all_gather(v, 'x', to='invarying') * 2, mesh=auto, in_specs=P('x'), out_specs=P())
result = jax.vmap(f, in_axes=1, out_axes=2)(np.arange(384., dtype=np.float32).reshape(8, 3, 16))
""")
program("gather_invariant_vmap_in_body_tiled", "jaxpr", """
g = jax.shard_map(jax.vmap(lambda v: lax.all_gather(v, 'x', axis=1, tiled=True, to='invarying'), in_axes=1),
                  mesh=auto, in_specs=P(None, 'x'), out_specs=P())
result = jax.make_jaxpr(g)(np.ones((8, 16, 3), np.float32))
""")
program("gather_invariant_vmap_in_body_untiled", "jaxpr", """
g = jax.shard_map(jax.vmap(lambda v: lax.all_gather(v, 'x', axis=0, to='invarying'), in_axes=1),
                  mesh=auto, in_specs=P(None, 'x'), out_specs=P())
result = jax.make_jaxpr(g)(np.ones((8, 16, 3), np.float32))
""")
program("gather_invariant_vmap_in_body_value", "value", """
g = jax.shard_map(jax.vmap(lambda v: lax.all_gather(v, 'x', axis=0, to='invarying'), in_axes=2),
                  mesh=auto, in_specs=P(None, 'x'), out_specs=P())
result = g(np.arange(384., dtype=np.float32).reshape(8, 16, 3))
""")
program("gather_invariant_vmap_grad", "jaxpr", """
g = jax.shard_map(jax.vmap(lambda v: lax.all_gather(v, 'x', axis=1, tiled=True, to='invarying'), in_axes=1),
                  mesh=auto, in_specs=P(None, 'x'), out_specs=P())
result = jax.make_jaxpr(jax.grad(lambda v: (g(v) * 3).sum()))(np.ones((8, 16, 3), np.float32))
""")
