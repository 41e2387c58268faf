"""Programs for the primitives JAX 0.11 stages that pyjax gained late:
stack / unstack / tile, optimization_barrier, device_put, pure_callback,
jax.debug.print / jax.debug.callback and custom_linear_solve. Recorded in
new_primitives.json (see programs_core.py for the format; record with
`record_core.py new_primitives`)."""

from programs_core import program_set

PROGRAMS, program = program_set()

# --- stack / unstack / tile
program("stack_axis0", "jaxpr", """
result = jax.make_jaxpr(lambda a, b: jnp.stack([a, b]))(jnp.ones((2, 3)), jnp.zeros((2, 3)))
""")
program("stack_negative_axis_promotes", "jaxpr", """
result = jax.make_jaxpr(lambda a, b: jnp.stack([a, b], axis=-1))(jnp.ones(3), jnp.arange(3))
""")
program("stack_of_array_is_reshape", "jaxpr", """
result = jax.make_jaxpr(lambda a: jnp.stack(a, axis=1))(jnp.ones((2, 3)))
""")
program("unstack_axis1", "jaxpr", """
result = jax.make_jaxpr(lambda a: jnp.unstack(a, axis=1))(jnp.ones((2, 3)))
""")
program("tile_reps_longer_than_ndim", "jaxpr", """
result = jax.make_jaxpr(lambda a: jnp.tile(a, (2, 1, 3)))(jnp.ones((2, 3)))
""")
program("tile_int_reps", "jaxpr", """
result = jax.make_jaxpr(lambda a: jnp.tile(a, 3))(jnp.ones((2, 3)))
""")
program("grad_stack_is_unstack", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a: jnp.stack([a, 2.0 * a, jnp.sin(a)]).sum()))(jnp.ones(3))
""")
program("grad_unstack_instantiates_zeros", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a: jnp.unstack(a)[1].sum()))(jnp.ones((3, 2)))
""")
program("grad_tile_reshape_sum", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a: jnp.tile(a, (2, 3)).sum()))(jnp.ones((2, 3)))
""")
program("vmap_stack_batched_axis", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda a, b: jnp.stack([a, b], axis=1), in_axes=(1, 1)))(jnp.ones((2, 4)), jnp.ones((2, 4)))
""")
program("vmap_stack_unbatched_operand", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda a, b: jnp.stack([a, b]), in_axes=(0, None)))(jnp.ones((4, 3)), jnp.ones(3))
""")
program("vmap_unstack_and_tile", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda a: jnp.tile(jnp.unstack(a, axis=1)[0], 2), in_axes=1))(jnp.ones((2, 3, 4)))
""")
program("jvp_stack_constant_operand", "jaxpr", """
result = jax.make_jaxpr(lambda x, t: jax.jvp(lambda a: jnp.stack([a, jnp.ones(3)]), (x,), (t,)))(jnp.ones(3), jnp.ones(3))
""")
program("stack_values", "value", """
result = jnp.stack([jnp.arange(3), jnp.arange(3) * 2], axis=1) + jnp.tile(jnp.array([[1], [2], [3]]), (1, 2))
""")
program("unstack_values_jit", "value", """
result = jnp.stack(jax.jit(lambda a: jnp.unstack(a, axis=1)[::-1])(jnp.arange(6.0).reshape(2, 3)))
""")
program("stack_shape_mismatch_error", "error", """
jnp.stack([jnp.ones(2), jnp.ones(3)])
""")
program("lax_tile_reps_length_error", "error", """
lax.tile(jnp.ones((2, 3)), (2,))
""")
program("unstack_scalar_error", "error", """
jnp.unstack(jnp.float32(1.0))
""")

# --- optimization_barrier, device_put
program("optimization_barrier_pytree", "jaxpr", """
result = jax.make_jaxpr(lambda a: lax.optimization_barrier((a, {'k': a * 2})))(jnp.ones(3))
""")
program("grad_optimization_barrier", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a: lax.optimization_barrier(a * 2).sum()))(jnp.ones(3))
""")
program("vmap_optimization_barrier_unbatched", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda a: lax.optimization_barrier((a, 2.0))))(jnp.ones(3))
""")
program("device_put_params", "jaxpr", """
result = jax.make_jaxpr(lambda a: jax.device_put((a, a * 2)))(jnp.ones((2, 3)))
""")
program("grad_device_put_copies_back", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a: jax.device_put(a).sum()))(jnp.ones(3))
""")
program("device_put_numpy_constant_folded", "jaxpr", """
result = jax.make_jaxpr(lambda: jax.device_put(np.arange(3)))()
""")
program("device_put_eager_weak_scalar", "value", """
result = jax.device_put(1.0) + lax.optimization_barrier(jnp.arange(3.0))
""")

# --- pure_callback
program("pure_callback_jaxpr", "jaxpr", """
def host_sin(a): return np.sin(a)
result = jax.make_jaxpr(lambda a: jax.pure_callback(host_sin, jax.ShapeDtypeStruct(a.shape, a.dtype), a))(jnp.ones(3))
""")
program("pure_callback_vmap_expand_dims", "jaxpr", """
def host_mul(a, b): return a * b
f = lambda a, b: jax.pure_callback(host_mul, jax.ShapeDtypeStruct((3,), jnp.float32), a, b, vmap_method="expand_dims")
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.ones((2, 3)), jnp.ones(3))
""")
program("pure_callback_vmap_sequential_scan", "jaxpr", """
def host_sin(a): return np.sin(a)
f = lambda a: jax.pure_callback(host_sin, jax.ShapeDtypeStruct(a.shape, a.dtype), a, vmap_method="sequential")
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones((2, 3)))
""")
program("pure_callback_values_under_vmap_methods", "value", """
def host(a, b):
  print("shapes", np.shape(a), np.shape(b))
  return a * b
sds = jax.ShapeDtypeStruct((3,), jnp.float32)
x, y = jnp.arange(6.0).reshape(2, 3), jnp.arange(3.0)
result = jnp.stack([jax.jit(jax.vmap(lambda a, b: jax.pure_callback(host, sds, a, b, vmap_method=m), in_axes=(0, None)))(x, y)
                    for m in ["sequential", "expand_dims", "broadcast_all", "legacy_vectorized"]])
""")
program("pure_callback_vmap_without_method_error", "error", """
jax.vmap(lambda a: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(a.shape, a.dtype), a))(jnp.ones((2, 3)))
""")
program("pure_callback_grad_error", "error", """
jax.grad(lambda a: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(a.shape, a.dtype), a).sum())(jnp.ones(3))
""")
program("pure_callback_bad_vmap_method_error", "error", """
jax.pure_callback(np.sin, jax.ShapeDtypeStruct((3,), jnp.float32), jnp.ones(3), vmap_method="loop")
""")
program("pure_callback_x64_result_error", "error", """
jax.pure_callback(np.sin, jax.ShapeDtypeStruct((3,), np.float64), jnp.ones(3))
""")

# --- jax.debug
program("debug_print_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda a: jax.debug.print("a={a} s={s}", a=a, s="static"))(jnp.ones(3))
""")
program("debug_callback_ordered_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda a: jax.debug.callback(print, a, ordered=True))(jnp.ones(3))
""")
program("debug_print_vmap_unrolled", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda a: jax.debug.print("{}", a)))(jnp.ones((2, 3)))
""")
program("debug_print_survives_linearize", "jaxpr", """
def f(b):
  jax.debug.print("{}", b)
  return jnp.sin(b)
result = jax.make_jaxpr(lambda a: jax.linearize(f, a)[1](a))(jnp.ones(3))
""")
program("debug_print_in_cond_branch", "jaxpr", """
def branch(b):
  jax.debug.print("{}", b)
  return b
result = jax.make_jaxpr(lambda a: lax.cond(a[0] > 0, branch, lambda b: b, a))(jnp.ones(3))
""")
program("debug_print_runs_eager_jit_vmap_grad", "value", """
x = jnp.arange(3.0)
jax.debug.print("eager {x} {y}", x=x, y=2)
jax.debug.print("no placeholders", x, 3, skip_format_check=True)
f = jax.jit(lambda a: (jax.debug.print("jit {}", a), a + 1)[1])
f(x); f(x + 1)
jax.vmap(lambda a, b: jax.debug.print("vm {} {}", a, b), in_axes=(0, None))(jnp.ones((2, 2)), 5.0)
result = jax.grad(lambda a: (jax.debug.print("grad {}", a), (a * a).sum())[1])(x)
""")
program("debug_callback_runs_with_static_args", "value", """
x = jnp.arange(3.0)
jax.debug.callback(lambda a, s, k: print("cb", a, s, k), x, "static", k=np.int32(3))
jax.jit(lambda a: jax.debug.callback(lambda a, s: print("cbjit", a.shape, a, s), a, "st"))(x)
result = x
""")
program("debug_print_unused_kwarg_error", "error", """
jax.debug.print("{}", jnp.ones(2), y=jnp.ones(2))
""")
program("debug_callback_not_callable_error", "error", """
jax.debug.callback(3, jnp.ones(2))
""")

# --- custom_linear_solve
program("custom_linear_solve_grad_vmap_values", "value", """
A = jnp.array([[2., 1.], [1., 3.]])
def f(A, b, sym):
  mv = lambda x: A @ x
  sol = lambda m, r: jnp.linalg.solve(A, r)
  if sym:
    return lax.custom_linear_solve(mv, b, sol, symmetric=True)
  return lax.custom_linear_solve(mv, b, sol, lambda vm, r: jnp.linalg.solve(A.T, r))
b = jnp.array([1., 2.])
gA, gb = jax.grad(lambda A, b: f(A, b, False).sum(), argnums=(0, 1))(A, b)
jA, jb = jax.jacfwd(lambda A, b: f(A, b, True), argnums=(0, 1))(A, b)
vm = jax.vmap(f, in_axes=(0, 0, None))(jnp.stack([A, 2 * A]), jnp.stack([b, 2 * b]), True)
result = jnp.concatenate([gA.ravel(), gb, jA.ravel(), jb.ravel(), vm.ravel(), jax.jit(f, static_argnums=2)(A, b, True)])
""")
program("custom_linear_solve_pytree_and_aux", "value", """
b = jnp.array([1., 2.])
r = lax.custom_linear_solve(lambda x: jax.tree.map(lambda v: 2.0 * v, x), {'a': b, 'b': 3.0 * b},
                            lambda m, r: jax.tree.map(lambda v: v / 2.0, r))
x, aux = lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda m, r: (r / 2.0, jnp.sum(r)), symmetric=True, has_aux=True)
result = jnp.concatenate([r['a'], r['b'], x, aux[None]])
""")
program("custom_linear_solve_no_transpose_solve_error", "error", """
jax.grad(lambda b: lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda m, r: r / 2.0).sum())(jnp.ones(2))
""")
program("custom_linear_solve_solve_shape_error", "error", """
lax.custom_linear_solve(lambda x: 2.0 * x, jnp.ones(2), lambda m, r: r[:1])
""")
program("debug_print_kept_under_grad_of_jit_and_scan", "value", """
f = lambda a: (jax.debug.print("in {}", a), jnp.sin(a))[1]
jax.grad(lambda a: jax.jit(f)(a).sum())(jnp.ones(2))
result = jax.jit(jax.grad(lambda a: lax.scan(lambda c, x: (c + f(x).sum(), None), 0.0, a)[0]))(jnp.ones(2))
""")
