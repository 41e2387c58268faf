"""Partial-manual shard_map on an Explicit mesh, and the residual layout of
shard_map's autodiff, recorded from JAX 0.11.0 with 8 CPU devices into
``shard_map_partial.json`` (issue 22).

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_shard_map_partial.py

The first part makes 'x' of an Explicit ('x', 'y') mesh manual: the body's
types keep 'y' (``f32[2,16@y]{V:x}``), results join both. The second part
is the jaxprs of grad/linearize/vjp of shard_maps: the known shard_map
returns its residuals first, each joined on its leading axis over the axes
it varies over, and the transpose takes the cotangents first.
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
A = np.arange(128., dtype=np.float32).reshape(8, 16)
def put(x, *spec):
  return jax.device_put(x, NS(mesh, P(*spec)))
def smap(f, in_specs=P('x'), out_specs=P('x'), axis_names={'x'}, m=None):
  return jax.shard_map(f, mesh=mesh if m is None else m, in_specs=in_specs, out_specs=out_specs,
                       axis_names=axis_names)
def placed(r):
  return f"{jax.typeof(r)} {r.sharding.spec} {[s.data.shape for s in r.addressable_shards]}"
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


# --- partial-manual on an Explicit mesh: 'x' manual, 'y' stays in the types
program("partial_body_types", "jaxpr", """
def body(v):
  print("in body:", jax.typeof(v))
  w = v * 2
  print("w:", jax.typeof(w), "sum:", jax.typeof(w.sum(axis=1)))
  return w
result = jax.make_jaxpr(smap(body))(put(A, 'x', 'y'))
""")
program("partial_value", "value", """
result = smap(lambda v: jnp.sin(v) * 2)(put(A / 100, 'x', 'y'))
""")
program("partial_result_placement", "text", """
result = placed(smap(lambda v: v * 2)(put(A, 'x', 'y')))
""")
program("partial_unsplit_arg_placement", "text", """
result = placed(smap(lambda v: v * 2)(put(A, 'x')))
""")
program("partial_numpy_arg", "text", """
r = smap(lambda v: v * 2)(A)
result = placed(r) + " " + str(np.asarray(r)[7, 15])
""")
program("partial_psum_manual_jaxpr", "jaxpr", """
result = jax.make_jaxpr(smap(lambda v: lax.psum(v, 'x'), out_specs=P()))(put(A, 'x', 'y'))
""")
program("partial_psum_manual_value", "value", """
result = smap(lambda v: lax.psum(v, 'x'), out_specs=P())(put(A, 'x', 'y'))
""")
program("partial_psum_manual_placement", "text", """
result = placed(smap(lambda v: lax.psum(v, 'x'), out_specs=P())(put(A, 'x', 'y')))
""")
program("partial_reduce_over_explicit_jaxpr", "jaxpr", """
result = jax.make_jaxpr(smap(lambda v: v.sum(axis=1, keepdims=True)))(put(A, 'x', 'y'))
""")
program("partial_reduce_over_explicit_value", "value", """
result = smap(lambda v: v.sum(axis=1, keepdims=True) + lax.axis_index('x').astype(np.float32))(put(A, 'x', 'y'))
""")
program("partial_other_dim_jaxpr", "jaxpr", """
result = jax.make_jaxpr(smap(lambda v: v + 1, in_specs=P(None, 'x'), out_specs=P(None, 'x')))(put(A, 'y', 'x'))
""")
program("partial_other_dim_placement", "text", """
r = smap(lambda v: v + 1, in_specs=P(None, 'x'), out_specs=P(None, 'x'))(put(A, 'y', 'x'))
result = placed(r) + " " + str(np.asarray(r)[5, 9])
""")
program("partial_reshards_manual_jaxpr", "jaxpr", """
result = jax.make_jaxpr(smap(lambda v: v + 1, in_specs=P(None, 'x'), out_specs=P(None, 'x')))(put(A, 'x', 'y'))
""")
program("partial_reshards_manual_value", "value", """
result = smap(lambda v: v * lax.axis_index('x').astype(np.float32), in_specs=P(None, 'x'),
              out_specs=P(None, 'x'))(put(A, 'x', 'y'))
""")
program("partial_reshards_manual_placement", "text", """
result = placed(smap(lambda v: v + 1, in_specs=P(None, 'x'), out_specs=P(None, 'x'))(put(A, 'x', 'y')))
""")
program("partial_nested_jaxpr", "jaxpr", """
def outer(v):
  print("outer:", jax.typeof(v))
  def inner(u):
    print("inner:", jax.typeof(u))
    return lax.psum(u, 'y')
  w = jax.shard_map(inner, in_specs=P(None, 'y'), out_specs=P(), axis_names={'y'})(v)
  print("result:", jax.typeof(w))
  return w
result = jax.make_jaxpr(smap(outer))(put(A, 'x', 'y'))
""")
program("partial_nested_value", "value", """
def outer(v):
  w = jax.shard_map(lambda u: lax.psum(u, 'y') * lax.axis_index('y').astype(np.float32), in_specs=P(None, 'y'),
                    out_specs=P(None, 'y'), axis_names={'y'})(v)
  return w + lax.axis_index('x').astype(np.float32)
result = smap(outer)(put(A, 'x', 'y'))
""")
program("partial_nested_inferred_jaxpr", "jaxpr", """
def outer(v):
  w = jax.shard_map(lambda u: u * 3, out_specs=P(None, 'y'), axis_names={'y'})(v)
  print("result:", jax.typeof(w))
  return w
result = jax.make_jaxpr(smap(outer))(put(A, 'x', 'y'))
""")
program("partial_inferred_in_specs", "jaxpr", """
result = jax.make_jaxpr(jax.shard_map(lambda v: v * 2, mesh=mesh, out_specs=P('x'), axis_names={'x'}))(put(A, 'x', 'y'))
""")
program("partial_reshard_inside_jaxpr", "jaxpr", """
result = jax.make_jaxpr(smap(lambda v: jax.sharding.reshard(v, P())))(put(A, 'x', 'y'))
""")
program("partial_reshard_inside_placement", "text", """
r = smap(lambda v: jax.sharding.reshard(v, P()) * 2)(put(A, 'x', 'y'))
result = placed(r) + " " + str(np.asarray(r)[3, 11])
""")
program("partial_y_manual_jaxpr", "jaxpr", """
result = jax.make_jaxpr(smap(lambda v: lax.psum(v, 'y'), in_specs=P(None, 'y'), out_specs=P(),
                             axis_names={'y'}))(put(A, 'x', 'y'))
""")
program("partial_y_manual_value", "value", """
result = smap(lambda v: lax.psum(v, 'y'), in_specs=P(None, 'y'), out_specs=P(), axis_names={'y'})(put(A, 'x', 'y'))
""")
program("partial_jit_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jit(smap(lambda v: jnp.sin(v) * 2)))(put(A, 'x', 'y'))
""")
program("partial_jit_value", "value", """
result = jax.jit(lambda a: smap(lambda v: jnp.cos(v) + v.sum(axis=1, keepdims=True))(a) * 2)(put(A / 50, 'x', 'y'))
""")
program("partial_jit_grad_value", "value", """
f = smap(lambda v: jnp.sin(v) * lax.psum(v.sum(axis=1, keepdims=True), 'x'))
result = jax.jit(jax.grad(lambda a: f(a).sum()))(put(A / 100, 'x', 'y'))
""")
program("partial_vmap_jaxpr", "jaxpr", """
f = smap(lambda v: jnp.sin(v) * lax.psum(v.sum(axis=1, keepdims=True), 'x'))
b = jax.device_put(np.stack([A, A * 2]), NS(mesh, P(None, 'x', 'y')))
result = jax.make_jaxpr(jax.vmap(f))(b)
""")
program("partial_in_spec_names_explicit_axis", "error", """
smap(lambda v: v * 2, in_specs=P('x', 'y'))(put(A, 'x', 'y'))
""")
program("partial_out_spec_names_explicit_axis", "error", """
smap(lambda v: v * 2, out_specs=(P('x', 'y'),))(put(A, 'x', 'y'))
""")
program("partial_body_sharding_type_error", "error", """
B = put(np.ones((16, 4), np.float32), 'y')
smap(lambda v, w: v @ w, in_specs=(P('x'), P()))(put(A, 'x', 'y'), B)
""")
program("full_manual_explicit_mismatch_still_refused", "error", """
jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(put(A, 'x', 'y'))
""")
program("legacy_shard_map_has_no_auto", "error", """
import warnings
with warnings.catch_warnings():
  warnings.simplefilter("ignore")
  legacy = getattr(__import__(jax.__name__ + ".experimental.shard_map", fromlist=["shard_map"]), "shard_map")
legacy(lambda v: v, mesh=mesh, in_specs=P('x'), out_specs=P('x'), auto=frozenset({'y'}))
""")

# --- the residual layout of shard_map's autodiff (Auto mesh: no placements in the types)
GRAD = """
x = A / 100
w = np.arange(64., dtype=np.float32).reshape(16, 4) / 100
def sm(f, in_specs, out_specs, **kw):
  return jax.shard_map(f, mesh=auto, in_specs=in_specs, out_specs=out_specs, **kw)
sin_f = sm(jnp.sin, P('x', 'y'), P('x', 'y'))
mm_f = sm(lambda a, b: lax.psum(jnp.sin(a) @ b, 'y'), (P('x', 'y'), P('y')), P('x'))
inv_f = sm(lambda a, b: jnp.sin(a) * jnp.cos(b), (P('x'), P()), P('x'))
"""


def grad_program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + GRAD + source)


grad_program("residuals_grad_sin", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a: sin_f(a).sum()))(x)
""")
grad_program("residuals_linearize_sin", "jaxpr", """
result = jax.make_jaxpr(lambda a: jax.linearize(sin_f, a))(x)
""")
grad_program("residuals_vjp_sin", "jaxpr", """
result = jax.make_jaxpr(lambda a: jax.vjp(sin_f, a))(x)
""")
grad_program("residuals_grad_matmul_psum", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a, b: mm_f(a, b).sum(), argnums=(0, 1)))(x, w)
""")
grad_program("residuals_grad_matmul_psum_value", "value", """
result = np.concatenate([np.asarray(g).ravel() for g in jax.grad(lambda a, b: mm_f(a, b).sum(), argnums=(0, 1))(x, w)])
""")
grad_program("residuals_linearize_matmul_psum", "jaxpr", """
result = jax.make_jaxpr(lambda a, b: jax.linearize(mm_f, a, b))(x, w)
""")
grad_program("residuals_invariant_input", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a, b: inv_f(a, b).sum(), argnums=(0, 1)))(x, x[:2])
""")
grad_program("residuals_invariant_input_value", "value", """
result = np.concatenate([np.asarray(g).ravel() for g in jax.grad(lambda a, b: inv_f(a, b).sum(), argnums=(0, 1))(x, x[:2])])
""")
grad_program("residuals_unchecked", "jaxpr", """
f = sm(jnp.sin, P('x', 'y'), P('x', 'y'), check_vma=False)
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_unchecked_output_forwarded", "jaxpr", """
f = sm(lambda a: (jnp.exp(a), a.sum()), P('x'), (P('x'), P()), check_vma=False)
result = jax.make_jaxpr(jax.grad(lambda a: f(a)[0].sum()))(x)
""")
grad_program("residuals_unchecked_output_forwarded_value", "value", """
f = sm(lambda a: (jnp.exp(a), a.sum()), P('x'), (P('x'), P()), check_vma=False)
result = jax.grad(lambda a: f(a)[0].sum())(x)
""")
grad_program("residuals_known_input_forwarded", "jaxpr", """
f = sm(lambda a, b: jnp.exp(a) * b, (P('x'), P('x')), P('x'))
result = jax.make_jaxpr(jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1)))(x, x)
""")
grad_program("residuals_scalar_promoted", "jaxpr", """
f = sm(lambda a: a * jnp.sin(a.sum()), P('x'), P('x'))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_scalar_promoted_value", "value", """
f = sm(lambda a: a * jnp.sin(a.sum() / 64), P('x'), P('x'))
result = jax.grad(lambda a: f(a).sum())(A / 128)  # (sums exact in float32: any order agrees)
""")
grad_program("residuals_in_jit", "jaxpr", """
f = jax.jit(sin_f)
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_linearize_of_jit", "jaxpr", """
f = sm(lambda a: jnp.sin(a) * 2, P('x'), P('x'))
result = jax.make_jaxpr(lambda a: jax.linearize(jax.jit(f), a)[1](a))(x)
""")
grad_program("residuals_partial_manual", "jaxpr", """
f = sm(jnp.sin, P('x'), P('x'), axis_names={'x'})
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_ppermute", "jaxpr", """
f = sm(lambda a: jnp.sin(lax.ppermute(a, 'x', [(i, (i + 1) % 4) for i in range(4)])) * a, P('x'), P('x'))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_ppermute_value", "value", """
f = sm(lambda a: jnp.sin(lax.ppermute(a, 'x', [(i, (i + 1) % 4) for i in range(4)])) * a, P('x'), P('x'))
result = jax.grad(lambda a: f(a).sum())(x)
""")
grad_program("residuals_all_gather", "jaxpr", """
f = sm(lambda a: jnp.sin(lax.all_gather(a, 'x', tiled=True, axis=1)), P('x', 'y'), P('x', 'y'))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_all_gather_value", "value", """
f = sm(lambda a: jnp.sin(lax.all_gather(a, 'x', tiled=True, axis=1)), P('x', 'y'), P('x', 'y'))
result = jax.grad(lambda a: f(a).sum())(x)
""")
grad_program("residuals_nested", "jaxpr", """
def outer(v):
  return jax.shard_map(jnp.sin, in_specs=P(None, 'y'), out_specs=P(None, 'y'), axis_names={'y'})(v)
f = sm(outer, P('x'), P('x'), axis_names={'x'})
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_remat", "jaxpr", """
f = sm(jax.checkpoint(lambda a: jnp.sin(jnp.sin(a))), P('x'), P('x'))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_scan_in_body", "jaxpr", """
def body(a):
  c, _ = lax.scan(lambda c, _: (jnp.sin(c), None), a, None, length=3)
  return c
f = sm(body, P('x'), P('x'))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("residuals_scan_in_body_linearize", "jaxpr", """
def body(a, b):
  c, ys = lax.scan(lambda c, r: (jnp.sin(c) * r, jnp.cos(c)), a, b)
  return c * ys[0]
f = sm(body, (P('x'), P(None, 'x')), P('x'))
result = jax.make_jaxpr(lambda a, b: jax.linearize(f, a, b))(x, np.stack([x] * 3))
""")
grad_program("residuals_scan_in_body_value", "value", """
def body(a, b):
  c, ys = lax.scan(lambda c, r: (jnp.sin(c) * r, jnp.cos(c)), a, b)
  return c * ys[0]
f = sm(body, (P('x'), P(None, 'x')), P('x'))
result = jax.grad(lambda a: f(a, np.stack([x + 1, x * 2, x - 1])).sum())(x * 4)
""")
program("partial_psum_over_unbound_axis", "error", """
smap(lambda v: lax.psum(v, 'y'))(put(A, 'x', 'y'))
""")
grad_program("residuals_remat_outside", "jaxpr", """
f = sm(jnp.sin, P('x'), P('x'))
result = jax.make_jaxpr(jax.grad(lambda a: jax.checkpoint(lambda b: f(f(b)))(a).sum()))(x)
""")
grad_program("residuals_remat_outside_value", "value", """
f = sm(jnp.sin, P('x'), P('x'))
result = jax.grad(lambda a: jax.checkpoint(lambda b: f(f(b)))(a).sum())(x)
""")

# --- transposes in a manual body pass on the body's mesh: JAX types every body
# value on it (AbstractMesh with the manual axes Manual), so a rule binding
# `out_sharding=operand.aval.sharding` prints it
grad_program("body_sharding_broadcast_1d", "jaxpr", """
m1 = jax.make_mesh((8,), ('i',), axis_types=(AxisType.Auto,))
f = jax.shard_map(lambda a, b: a * b[None], mesh=m1, in_specs=(P('i'), P()), out_specs=P('i'))
result = jax.make_jaxpr(jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1)))(x, x[0])
""")
grad_program("body_sharding_broadcast_1d_value", "value", """
m1 = jax.make_mesh((8,), ('i',), axis_types=(AxisType.Auto,))
f = jax.shard_map(lambda a, b: a * b[None], mesh=m1, in_specs=(P('i'), P()), out_specs=P('i'))
result = np.concatenate([np.asarray(g).ravel() for g in jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(x, x[0])])
""")
grad_program("body_sharding_add_unbroadcast", "jaxpr", """
f = sm(lambda a, b: a + b, (P('x', 'y'), P('y')), P('x', 'y'))
result = jax.make_jaxpr(jax.grad(lambda a, b: (f(a, b) * a).sum(), argnums=(0, 1)))(x, x[0])
""")
grad_program("body_sharding_mean_keepdims", "jaxpr", """
f = sm(lambda a: jnp.mean(a, axis=1, keepdims=True), P('x', 'y'), P('x', 'y'))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("body_sharding_reshape", "jaxpr", """
f = sm(lambda a: a.reshape(-1) * 2, P('x', 'y'), P(('x', 'y')))
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("body_sharding_tile", "jaxpr", """
f = sm(lambda a: jnp.tile(a, (1, 2)), P('x', 'y'), P('x', 'y'))
result = jax.make_jaxpr(jax.grad(lambda a: (f(a) ** 2).sum()))(x)
""")
grad_program("body_sharding_sort", "jaxpr", """
f = sm(lambda a: jnp.sort(a, axis=1), P('x', 'y'), P('x', 'y'))
result = jax.make_jaxpr(jax.grad(lambda a: (f(a) * a).sum()))(x)
""")
grad_program("body_sharding_sort_value", "value", """
f = sm(lambda a: jnp.sort(a, axis=1), P('x', 'y'), P('x', 'y'))
result = jax.grad(lambda a: (f(a) * np.arange(128., dtype=np.float32).reshape(8, 16)).sum())(np.cos(A))
""")
grad_program("body_sharding_sort_operands_vary_alike", "jaxpr", """
f = sm(lambda a, b: lax.sort((a, b), dimension=1, num_keys=1), (P('x', 'y'), P()), (P('x', 'y'), P('x', 'y')))
result = jax.make_jaxpr(f)(x, x[:2, :8])
""")
grad_program("body_sharding_partial_manual_auto", "jaxpr", """
f = sm(lambda a, b: (a * b).sum(0), (P('x'), P()), P('x'), axis_names={'x'})
result = jax.make_jaxpr(jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1)))(x, x[0])
""")
grad_program("body_sharding_nested", "jaxpr", """
def outer(v):
  w = jax.shard_map(lambda u: u.sum(0), in_specs=P(None, 'y'), out_specs=P('y'), axis_names={'y'})(v)
  return lax.psum(w, 'x')
f = sm(outer, P('x'), P(), axis_names={'x'})
result = jax.make_jaxpr(jax.grad(lambda a: f(a).sum()))(x)
""")
grad_program("body_sharding_pmap", "jaxpr", """
f = jax.pmap(lambda v, b: (v * b).reshape(4, 4) + lax.psum(v, 'i').sum(), axis_name='i', in_axes=(0, None))
result = jax.make_jaxpr(jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1)))(x, x[0])
""")
grad_program("body_sharding_pmap_value", "value", """
f = jax.pmap(lambda v, b: (v * b).reshape(4, 4) + lax.psum(v, 'i').sum(), axis_name='i', in_axes=(0, None))
result = np.concatenate([np.asarray(g).ravel() for g in jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(x, x[0])])
""")
program("explicit_transposes_pass_on_the_sharding", "jaxpr", """
b = put(A[0], 'y')
with jax.set_mesh(mesh):
  result = jax.make_jaxpr(jax.grad(lambda a, b: (a * b[None]).sum(), argnums=1))(put(A, 'x', 'y'), b)
""")

# --- a checkpoint policy saving values inside a body: the backward pass splits
# the recomputed shard_map by tracing its body, residuals in the order JAX's
# topological sort of the tracer graph meets them
REMAT = """
checkpoint_name = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"]).checkpoint_name
def named_body(a):
  b = checkpoint_name(jnp.sin(a), 'b')
  c = checkpoint_name(jnp.cos(a) * 3, 'c')
  d = jnp.sin(c) * jnp.cos(b)
  return d * c * b
named_f = sm(named_body, P('x', 'y'), P('x', 'y'))
"""
grad_program("remat_policy_saves_in_body", "jaxpr", REMAT + """
h = jax.checkpoint(named_f, policy=jax.checkpoint_policies.save_only_these_names('c'))
result = jax.make_jaxpr(jax.grad(lambda a: h(a).sum()))(x)
""")
grad_program("remat_policy_saves_in_body_value", "value", REMAT + """
def poly(a):  # (products only: sin/cos would differ from XLA's in the last bits)
  b = checkpoint_name(a * 3, 'b')
  c = checkpoint_name(a * a + 1, 'c')
  return (c * b) * (c + b)
h = jax.checkpoint(sm(poly, P('x', 'y'), P('x', 'y')), policy=jax.checkpoint_policies.save_only_these_names('c'))
result = jax.grad(lambda a: h(a).sum())(x)
""")
grad_program("remat_policy_saves_all_but_one", "jaxpr", REMAT + """
h = jax.checkpoint(lambda a: named_f(jnp.sin(named_f(a))), policy=jax.checkpoint_policies.save_any_names_but_these('c'))
result = jax.make_jaxpr(jax.grad(lambda a: h(a).sum()))(x)
""")
grad_program("remat_policy_inside_body_under_jit", "jaxpr", REMAT + """
g = sm(jax.checkpoint(named_body, policy=jax.checkpoint_policies.save_only_these_names('b')), P('x', 'y'), P('x', 'y'))
result = jax.make_jaxpr(jax.grad(lambda a: jax.jit(g)(a).sum()))(x)
""")

# --- a scan in a shard_map in a jit under grad/linearize: JAX linearizes the
# jit's body directly (the scan's own linearize rule), then DCEs its primal
# jaxpr, whose rules filter the scan's ft_in/ft_out
grad_program("scan_in_body_in_jit_grad", "jaxpr", """
def body(a):
  c, _ = lax.scan(lambda c, _: (jnp.sin(c), None), a, None, length=3)
  return c
f = sm(body, P('x'), P('x'))
result = jax.make_jaxpr(jax.grad(lambda a: jax.jit(f)(a).sum()))(x)
""")
SCAN_XS = """
def scan_xs(a, b):
  c, ys = lax.scan(lambda c, r: (jnp.sin(c) * r, jnp.cos(c)), a, b)
  return c * ys[0]
f = sm(scan_xs, (P('x'), P(None, 'x')), P('x'))
xs = np.stack([x + 1, x * 2, x - 1])
"""
grad_program("scan_xs_in_body_in_jit_grad", "jaxpr", SCAN_XS + """
result = jax.make_jaxpr(jax.grad(lambda a, b: jax.jit(f)(a, b).sum(), argnums=(0, 1)))(x, xs)
""")
grad_program("scan_xs_in_body_linearize_of_jit", "jaxpr", SCAN_XS + """
result = jax.make_jaxpr(lambda a, b: jax.linearize(jax.jit(f), a, b))(x, xs)
""")
grad_program("scan_xs_in_body_in_jit_grad_value", "value", SCAN_XS + """
result = np.concatenate([np.asarray(g).ravel() for g in jax.grad(lambda a, b: (jax.jit(f)(a, b) * a).sum(), argnums=(0, 1))(x, xs)])
""")
program("body_value_typed_on_the_body_mesh", "text", """
seen = []
def body(v):
  seen.append(str(jax.typeof(v).sharding))
  seen.append(str(jax.typeof(v.sum()).sharding))
  seen.append(str(jax.typeof(v).update(sharding=jax.typeof(v).sharding)))
  return v
jax.shard_map(body, mesh=auto, in_specs=P('x'), out_specs=P('x'))(A)
jax.jit(jax.shard_map(body, mesh=auto, in_specs=P('x'), out_specs=P('x'), axis_names={'x'}))(A)
result = "\\n".join(seen + [str(jax.typeof(A).sharding)])
""")
