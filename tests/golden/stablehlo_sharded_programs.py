"""StableHLO text of sharded jitted programs, as JAX 0.11.0 prints it on 8
CPU devices, recorded in ``stablehlo_sharded.json`` with

    /tmp/jax-ref/bin/python tests/golden/record_stablehlo_sharded.py

Each program defines `f` and its arguments `args` (Explicit-sharded arrays on
a 4x2 mesh unless it says otherwise; `jit_kwargs`, and `ctx` a context to
lower under, when given) and keeps
``jax.jit(f, **jit_kwargs).lower(*args).as_text(debug_info=False)``: the
module's `sdy.mesh`, the `sdy.sharding` of @main's arguments and results and
the `sdy.sharding_constraint`s JAX's lowering rules put after their results;
for shard_map (`sm`), `sdy.manual_computation` and the collectives inside.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

PRELUDE = """
import contextlib
P = jax.sharding.PartitionSpec
AxisType = jax.sharding.AxisType
NS = jax.sharding.NamedSharding
mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
def put(v, *spec): return jax.device_put(v, NS(mesh, P(*spec)))
A = put(np.ones((8, 4), np.float32), 'x', 'y')
B = put(np.ones((4, 6), np.float32), 'y', None)
R = put(np.ones((8, 4), np.float32))
def sm(body, i, o, **kw): return jax.shard_map(body, mesh=mesh, in_specs=i, out_specs=o, **kw)
jit_kwargs, ctx = {}, None
"""

LOWER = """
with ctx or contextlib.nullcontext():
  result = jax.jit(f, **jit_kwargs).lower(*args).as_text(debug_info=False)
"""


def lowered(name: str, source: str) -> None:
  program(name, "text", PRELUDE + source + LOWER)


lowered('sin_sum', 'f = lambda x: jnp.sin(x).sum(1)\nargs = (A,)')
lowered('binary', 'f = lambda x, y: x * y + 1.0\nargs = (A, A)')
lowered('replicated', 'f = lambda x: jnp.cos(x)\nargs = (R,)')
lowered('partial_spec', "f = lambda x: jnp.exp(x)\nargs = (put(np.ones((8,4),np.float32), 'x'),)")
lowered('multi_axis', "f = lambda x: jnp.tanh(x) * 3\nargs = (put(np.ones((8,4),np.float32), ('x', 'y'), None),)")
lowered('sum_all', 'f = lambda x: x.sum()\nargs = (A,)')
lowered('max_axis0', 'f = lambda x: x.max(0)\nargs = (A,)')
lowered('broadcast', 'f = lambda x: jnp.broadcast_to(x.sum(1)[:, None], (8, 4))\nargs = (A,)')
lowered('broadcast_literal', 'f = lambda x: x + jnp.float32(2)\nargs = (A,)')
lowered('iota', 'f = lambda x: x + jnp.arange(4.0, dtype=jnp.float32)\nargs = (A,)')
lowered('transpose', 'f = lambda x: x.T\nargs = (A,)')
lowered('reshape', "f = lambda x: x.reshape(8, 2, 2, out_sharding=NS(mesh, P('x', 'y', None)))\nargs = (A,)")
lowered('squeeze_expand', 'f = lambda x: jnp.squeeze(x[:, None, :], 1)\nargs = (A,)')
lowered('convert', 'f = lambda x: x.astype(jnp.int32)\nargs = (A,)')
lowered('int_ops', "f = lambda x: (x + 1) * 2 // 3\nargs = (put(np.arange(32, dtype=np.int32).reshape(8, 4), 'x', 'y'),)")
lowered('compare_select', 'f = lambda x: jnp.where(x > 0, x, 0.0)\nargs = (A,)')
lowered('integer_pow_clamp', 'f = lambda x: (x ** 3, jnp.clip(x, 0.0, 1.0))\nargs = (A,)')
lowered('logistic_erf', 'f = lambda x: (jax.nn.sigmoid(x), jax.lax.erf(x))\nargs = (A,)')
lowered('multi_out', 'f = lambda x, y: (x + 1, y * 2)\nargs = (A, B)')
lowered('dot_out', "f = lambda x, y: jax.lax.dot_general(x, y, (((1,), (0,)), ((), ())), out_sharding=NS(mesh, P('x', None)))\nargs = (A, B)")
lowered('matmul', "f = lambda x, y: jnp.dot(x, y, out_sharding=NS(mesh, P('x', None)))\nargs = (A, B)")
lowered('mlp', "W = put(np.ones((4, 6), np.float32), None, 'y')\nf = lambda x, w: jax.nn.relu(jnp.dot(x, w, out_sharding=NS(mesh, P('x', 'y'))))\nargs = (put(np.ones((8,4),np.float32), 'x', None), W)")
lowered('set_mesh_matmul', "f = lambda x, y: jnp.matmul(x, y, out_sharding=P('x', None))\nargs = (A, B)\nctx = jax.set_mesh(mesh)")
lowered('reshard', "f = lambda x: jax.sharding.reshard(x, NS(mesh, P(None, 'x')))\nargs = (A,)")
lowered('reshard_rep', 'f = lambda x: jax.sharding.reshard(x * 2, NS(mesh, P()))\nargs = (A,)')
lowered('concat_slice', 'f = lambda x: jnp.concatenate([x, x], axis=0)[2:6]\nargs = (R,)')
lowered('pad', "f = lambda x: jax.lax.pad(x, 0.0, ((0, 0, 0), (1, 1, 0)))\nargs = (put(np.ones((8,4),np.float32), 'x'),)")
lowered('scatter_set', 'f = lambda x: x.at[0].set(1.0)\nargs = (R,)')
lowered('argmax', 'f = lambda x: jnp.argmax(x, axis=1)\nargs = (A,)')
lowered('cond', 'f = lambda x: jax.lax.cond(x.sum() > 0, lambda: jnp.sin(x), lambda: x)\nargs = (A,)')
lowered('fori', 'f = lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * 2, x)\nargs = (A,)')
lowered('scan_xs', "f = lambda c, xs: jax.lax.scan(lambda c, x: (c + x, c * x), c, xs)\nargs = (put(np.ones((4,), np.float32), 'y'), put(np.ones((3, 4), np.float32), None, 'y'))")
lowered('scan_reverse_consts', "W = put(np.ones((4,), np.float32), 'y')\nf = lambda c, xs: jax.lax.scan(lambda c, x: (c * W + x, jnp.sin(c)), c, xs, reverse=True)\nargs = (put(np.ones((4,), np.float32), 'y'), put(np.ones((3, 4), np.float32), None, 'y'))")
lowered('scan_2d_ys', "f = lambda c, xs: jax.lax.scan(lambda c, x: (c + x.sum(), x * 2), c, xs)\nargs = (put(np.float32(0)), put(np.ones((3, 8, 4), np.float32), None, 'x', 'y'))")
lowered('scan_unroll', "f = lambda c, xs: jax.lax.scan(lambda c, x: (c + x, c * x), c, xs, unroll=2)\nargs = (put(np.ones((4,), np.float32), 'y'), put(np.ones((4, 4), np.float32), None, 'y'))")
lowered('scan_unroll_rem', "f = lambda c, xs: jax.lax.scan(lambda c, x: (c + x, c * x), c, xs, unroll=2, reverse=True)\nargs = (put(np.ones((4,), np.float32), 'y'), put(np.ones((5, 4), np.float32), None, 'y'))")
lowered('scan_unroll_full', "f = lambda c, xs: jax.lax.scan(lambda c, x: (c + x, c * x), c, xs, unroll=True)\nargs = (put(np.ones((4,), np.float32), 'y'), put(np.ones((3, 4), np.float32), None, 'y'))")
lowered('while_loop', 'f = lambda x: jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x))[1]\nargs = (A,)')
lowered('nested_jit', 'g = jax.jit(lambda x: jnp.sin(x))\nf = lambda x: g(x) * 2\nargs = (A,)')
lowered('grad', 'f = jax.grad(lambda x: jnp.sin(x).sum())\nargs = (A,)')
lowered('value_and_grad', 'f = jax.value_and_grad(lambda x: (x * x).sum())\nargs = (A,)')
lowered('vmap', 'f = jax.vmap(lambda r: jnp.sin(r).sum())\nargs = (A,)')
lowered('wsc', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = lambda x: jax.lax.with_sharding_constraint(x * 2, NS(am, P('y', 'x')))\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(am, P('x','y'))),)")
lowered('wsc_unconstrained', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = lambda x: jax.lax.with_sharding_constraint(x * 2, NS(am, P('y', P.UNCONSTRAINED)))\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(am, P('x','y'))),)")
lowered('auto_mesh', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = lambda x: jnp.sin(x).sum(1)\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(am, P('x','y'))),)")
lowered('mixed_mesh', "mm = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Auto))\nf = lambda x: jnp.sin(x).sum(0)\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(mm, P('x', 'y'))),)")
lowered('mixed_mesh_dot', "mm = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Auto))\nf = lambda x, w: jnp.dot(x, w) + 1.0\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(mm, P('x'))), jax.device_put(np.ones((4,6),np.float32), NS(mm, P(None, 'y'))))")
lowered('mixed_mesh_wsc', "mm = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Auto))\nf = lambda x: jax.lax.with_sharding_constraint(jnp.cos(x), NS(mm, P(None, 'y')))\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(mm, P('x'))),)")
lowered('in_shardings', "f = lambda x: jnp.sin(x)\njit_kwargs = dict(in_shardings=NS(mesh, P('x', None)), out_shardings=NS(mesh, P(None, 'y')))\nargs = (np.ones((8,4),np.float32),)")
lowered('mixed_plain_arg', 'f = lambda x, y: x * y.sum()\nargs = (A, np.ones((3,), np.float32))')
lowered('uncommitted_explicit', 'f = lambda x: jnp.sin(x) * 2\nargs = (R, jnp.ones(3))[:1]')
lowered('auto_two_args', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = lambda x, y: (x + 1, y)\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(am, P('x'))), jax.device_put(np.ones((4,),np.float32), NS(am, P())))")
lowered('auto_out_shardings', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = lambda x: x.sum(0)\njit_kwargs = dict(out_shardings=NS(am, P('y')))\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(am, P('x', 'y'))),)")
lowered('in_shardings_none', "f = lambda x, y: x @ y\njit_kwargs = dict(in_shardings=(NS(mesh, P('x', None)), None))\nargs = (np.ones((8,4),np.float32), np.ones((4,2),np.float32))")
lowered('in_shardings_auto', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = lambda x: jnp.sin(x)\njit_kwargs = dict(in_shardings=NS(am, P(('x', 'y'))), out_shardings=NS(am, P()))\nargs = (np.ones((8,4),np.float32),)")
lowered('out_shardings_only', "f = lambda x: jnp.sin(x)\njit_kwargs = dict(out_shardings=NS(mesh, P('x')))\nargs = (np.ones((8,4),np.float32),)")
lowered('wsc_auto_inside_explicit_arg', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = lambda x: jax.lax.with_sharding_constraint(x, NS(am, P('x')))\nargs = (np.ones((8,4),np.float32),)")
# shard_map: sdy.manual_computation and the collectives in its body
lowered('sm_psum', "f = sm(lambda x: jax.lax.psum(x, 'x'), P('x','y'), P(None,'y'))\nargs = (A,)")
lowered('sm_all_gather', "f = sm(lambda x: jax.lax.all_gather(x, 'x', tiled=True), P('x','y'), P(None,'y'), check_vma=False)\nargs = (A,)")
lowered('sm_all_gather_untiled', "f = sm(lambda x: jax.lax.all_gather(x, 'y', axis=1), P('x','y'), P('x'), check_vma=False)\nargs = (A,)")
lowered('sm_all_to_all', "f = sm(lambda x: jax.lax.all_to_all(x, 'x', 1, 0, tiled=True), P('x', None), P(None, 'x'))\nargs = (put(np.ones((8, 8), np.float32), 'x', None),)")
lowered('sm_auto_mesh', "am = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)\nf = jax.shard_map(lambda x: jax.lax.psum(x, 'x'), mesh=am, in_specs=P('x'), out_specs=P())\nargs = (jax.device_put(np.ones((8,4),np.float32), NS(am, P('x'))),)")
lowered('sm_all_to_all_untiled', "f = sm(lambda x: jax.lax.all_to_all(x, 'x', 0, 0), P(None, 'y'), P('x', 'y'))\nargs = (put(np.ones((4, 4), np.float32), None, 'y'),)")
lowered('sm_axis_index', "f = sm(lambda x: x + jax.lax.axis_index('x').astype(jnp.float32), P('x','y'), P('x','y'))\nargs = (A,)")
lowered('sm_axis_index_y', "f = sm(lambda x: x * jax.lax.axis_index('y'), P('x','y'), P('x','y'))\nargs = (put(np.ones((8,4),np.int32), 'x', 'y'),)")
lowered('sm_cond_inside', "f = sm(lambda x: jax.lax.cond(jax.lax.axis_index('x') == 0, lambda v: v + 1, lambda v: v * 2, x), P('x','y'), P('x','y'))\nargs = (A,)")
lowered('sm_elementwise', "f = sm(lambda x: jnp.sin(x) * 2, P('x','y'), P('x','y'))\nargs = (A,)")
lowered('sm_grad', "f = jax.grad(lambda x: sm(lambda v: jax.lax.psum(jnp.sin(v).sum(), ('x', 'y')), P('x','y'), P())(x))\nargs = (A,)")
lowered('sm_in_jit_ops', "g = sm(lambda x: jax.lax.psum(x, 'y'), P('x','y'), P('x'))\nf = lambda x: g(jnp.cos(x)) + 1\nargs = (A,)")
lowered('sm_multi_out', "f = sm(lambda x: (jnp.cos(x), jax.lax.psum(x, ('x', 'y'))), P('x','y'), (P('x','y'), P()))\nargs = (A,)")
lowered('sm_nested_jit', "g = jax.jit(lambda v: jax.lax.psum(v * 2, 'x'))\nf = sm(lambda x: g(x), P('x','y'), P(None,'y'))\nargs = (A,)")
lowered('sm_no_vma', "f = sm(lambda x: jax.lax.psum(x, 'x'), P('x','y'), P(None,'y'), check_vma=False)\nargs = (A,)")
lowered('sm_partial', "f = sm(lambda x: jax.lax.psum(x, 'x'), P('x'), P(), axis_names={'x'})\nargs = (put(np.ones((8,4),np.float32), 'x'),)")
lowered('sm_pmax', "f = sm(lambda x: jax.lax.pmax(x, 'y'), P('x','y'), P('x', None))\nargs = (A,)")
lowered('sm_pmean', "f = sm(lambda x: jax.lax.pmean(x, 'x'), P('x','y'), P(None,'y'))\nargs = (A,)")
lowered('sm_ppermute', "f = sm(lambda x: jax.lax.ppermute(x, 'x', [(i, (i + 1) % 4) for i in range(4)]), P('x','y'), P('x','y'))\nargs = (A,)")
lowered('sm_ppermute_both', "f = sm(lambda x: jax.lax.ppermute(x, ('x', 'y'), [(i, (i + 3) % 8) for i in range(8)]), P('x','y'), P('x','y'))\nargs = (A,)")
lowered('sm_ppermute_y', "f = sm(lambda x: jax.lax.ppermute(x, 'y', [(0, 1), (1, 0)]), P('x','y'), P('x','y'))\nargs = (A,)")
lowered('sm_psum_both', "f = sm(lambda x: jax.lax.psum(x, ('x', 'y')), P('x','y'), P())\nargs = (A,)")
lowered('sm_psum_int', "f = sm(lambda x: jax.lax.psum(x, 'x'), P('x'), P())\nargs = (put(np.ones((8,), np.int32), 'x'),)")
lowered('sm_psum_scatter', "f = sm(lambda x: jax.lax.psum_scatter(x, 'x', tiled=True), P(None,'y'), P('x','y'))\nargs = (put(np.ones((8, 4), np.float32), None, 'y'),)")
lowered('sm_pvary', "f = sm(lambda x, r: x + jax.lax.pcast(r, ('x', 'y'), to='varying'), (P('x','y'), P()), P('x','y'))\nargs = (A, put(np.ones((2, 2), np.float32)))")
lowered('sm_replicated_in', "f = sm(lambda x, w: x @ w, (P('x', None), P()), P('x', None))\nargs = (put(np.ones((8, 4), np.float32), 'x', None), put(np.ones((4, 3), np.float32)))")
lowered('sm_two_collectives', "f = sm(lambda x: jax.lax.pmax(jax.lax.psum(x, 'x'), 'y'), P('x','y'), P())\nargs = (A,)")
lowered('sm_two_outputs', "f = sm(lambda x: (x, jax.lax.psum(x.sum(), ('x', 'y'))), P('x','y'), (P('x','y'), P()))\nargs = (A,)")
