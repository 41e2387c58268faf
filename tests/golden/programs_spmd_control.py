"""Typed control flow in sharded jit (issue 22 item 3), recorded from JAX
0.11.0 with 8 CPU devices into ``spmd_control.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_spmd_control.py

Jitted programs over Explicit-sharded arguments holding `scan`, `while`,
`cond`/`switch`, `fori_loop` (static and traced bounds) and calls (`jit`,
`custom_jvp`, `custom_vjp`) whose bodies read and write sharded values:
carries keeping their placement, predicates reduced from sharded data,
contractions with `out_sharding` inside a loop, gradients through a scan.
Their values, and the results' types and per-device shard shapes. Each
program's source starts with PRELUDE.
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
A = ((np.arange(128., dtype=np.float32).reshape(8, 16) % 7.) - 3.) / 4.
XS = ((np.arange(384., dtype=np.float32).reshape(3, 8, 16) % 5.) - 2.) / 8.
W = ((np.arange(256., dtype=np.float32).reshape(16, 16) % 9.) - 4.) / 16.
a = jax.device_put(A, NS(mesh, P('x', 'y')))
xs = jax.device_put(XS, NS(mesh, P(None, 'x', 'y')))
w = jax.device_put(W, NS(mesh, P('y', None)))
def dot(p, q, out):
  return lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=NS(mesh, out))
def types(rs):
  return ' | '.join(f'{jax.typeof(r)} {sorted(set(s.data.shape for s in r.addressable_shards))}'
                    for r in jax.tree.leaves(rs))
def scan_fn(c0, x):
  def body(c, xi):
    c = c * 0.9 + xi
    return c, c.sum(axis=1)
  return lax.scan(body, c0, x)
def while_fn(x):
  return lax.while_loop(lambda c: c[1].sum() < 400.0, lambda c: (c[0] + 1, c[1] * 1.5 + 0.25), (0, x))
def cond_fn(x):
  return lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: jnp.sin(v) - 1, x)
def rnn(h0, x, wm):
  def body(h, xi):
    h = jnp.tanh(dot(h, wm, P('x', 'y')) + xi)
    return h, jnp.max(h, axis=0)
  return lax.scan(body, h0, x)
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


program("scan_carry", "value", "result = jax.jit(scan_fn)(a, xs)[0]\n")
program("scan_ys_reduced_over_split_dim", "value", "result = jax.jit(scan_fn)(a, xs)[1]\n")
program("scan_types", "text", "result = types(jax.jit(scan_fn)(a, xs))\n")
program("scan_scalar_carry_from_split_sum", "value", """
def f(x):
  return lax.scan(lambda c, xi: (c + xi.sum(), xi * c), jnp.float32(0), x)
result = jax.jit(f)(xs)[0]
""")
program("scan_ys_scaled_by_carry", "value", """
def f(x):
  return lax.scan(lambda c, xi: (c + xi.sum(), xi * c), jnp.float32(0), x)
result = jax.jit(f)(xs)[1]
""")
program("scan_reverse_with_split_const", "value", """
def f(c0, x, k):
  return lax.scan(lambda c, xi: (c * k + xi, (c * xi).sum(axis=0)), c0, x, reverse=True)
result = jax.jit(f)(a, xs, a * 0.5)[1]
""")
program("while_count", "value", "result = jax.jit(while_fn)(a)[0]\n")
program("while_carry", "value", "result = jax.jit(while_fn)(a)[1]\n")
program("while_types", "text", "result = types(jax.jit(while_fn)(a))\n")
program("while_pred_from_max_over_split", "value", """
def f(x):
  return lax.while_loop(lambda v: jnp.max(v) < 10.0, lambda v: v * 1.25 + 0.5, x)
result = jax.jit(f)(a)
""")
program("cond_true", "value", "result = jax.jit(cond_fn)(a)\n")
program("cond_false", "value", "result = jax.jit(cond_fn)(a - 5.)\n")
program("cond_types", "text", "result = types(jax.jit(cond_fn)(a))\n")
program("switch_with_contraction_in_branch", "value", """
def f(x, wm, i):
  return lax.switch(i, [lambda v: v * 3., lambda v: dot(v, wm, P('x', 'y')), lambda v: v.T.T - 1.], x)
result = jax.jit(lambda x, wm: f(x, wm, 0) + 10. * f(x, wm, 1) + 100. * f(x, wm, 2) + f(x, wm, 9))(a, w)
""")
program("fori_static", "value", "result = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, v: jnp.sin(v) + i, x))(a)\n")
program("fori_traced_bounds", "value", """
result = jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 0.5 + v.sum(axis=0), x))(a, jnp.int32(4))
""")
program("fori_traced_types", "text", """
result = types(jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 0.5 + v.sum(axis=0), x))(a, jnp.int32(4)))
""")
program("rnn_scan_contraction_with_out_sharding", "value", "result = jax.jit(rnn)(a, xs, w)[0]\n")
program("rnn_scan_ys", "value", "result = jax.jit(rnn)(a, xs, w)[1]\n")
program("rnn_types", "text", "result = types(jax.jit(rnn)(a, xs, w))\n")
program("grad_through_scan", "value", """
def loss(k):
  h, hs = lax.scan(lambda c, xi: (jnp.tanh(c * k + xi), (c * k).sum(axis=1)), a, xs)
  return (h * h).sum() + hs.sum()
result = jax.jit(jax.grad(loss))(a * 0.5)
""")
program("grad_through_scan_type", "text", """
def loss(k):
  h, hs = lax.scan(lambda c, xi: (jnp.tanh(c * k + xi), (c * k).sum(axis=1)), a, xs)
  return (h * h).sum() + hs.sum()
result = types(jax.jit(jax.grad(loss))(a * 0.5))
""")
program("cond_inside_scan", "value", """
def f(c0, x):
  def body(c, xi):
    c = lax.cond(xi.sum() > 0, lambda u: u + xi, lambda u: u * 0.5, c)
    return c, None
  return lax.scan(body, c0, x)[0]
result = jax.jit(f)(a, xs)
""")
program("nested_jit_in_scan", "value", """
inner = jax.jit(lambda v: jnp.cos(v) * 2.)
result = jax.jit(lambda c0, x: lax.scan(lambda c, xi: (inner(c) + xi, None), c0, x)[0])(a, xs)
""")
program("custom_jvp_in_scan_grad", "value", """
@jax.custom_jvp
def sq(v):
  return v * v
sq.defjvp(lambda p, t: (sq(p[0]), 2. * p[0] * t[0]))
def loss(c0):
  return lax.scan(lambda c, xi: (sq(c) * 0.5 + xi, None), c0, xs)[0].sum()
result = jax.jit(jax.grad(loss))(a)
""")
program("custom_vjp_in_while", "value", """
@jax.custom_vjp
def half(v):
  return v * 0.5
half.defvjp(lambda v: (v * 0.5, None), lambda r, g: (g * 0.5,))
result = jax.jit(lambda x: lax.while_loop(lambda v: jnp.abs(v).sum() > 1.0, half, x))(a)
""")
