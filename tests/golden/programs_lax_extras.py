"""lax.custom_root and the lax convenience functions, recorded from JAX 0.11.0 in ``lax_extras.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py lax_extras

custom_root: values, implicit derivatives (grad, jvp, jacfwd, vmap of grad,
jit), closed-over arrays, has_aux, pytree guesses, the jaxpr (a custom_jvp
call of `_custom_root`) and the tree-mismatch errors. Then full_like,
broadcast_shapes / broadcast_to_rank / broadcast_like, collapse, empty,
batch_matmul, dtype, shape_as_value, stage, the DotAlgorithmPreset
precisions (and CPU's refusals), ragged_dot / ragged_dot_general in their
three modes.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

NEWTON = """
def newton(f, x0):
  def body(i, x):
    return x - f(x) / jax.grad(f)(x)
  return lax.fori_loop(0, 30, body, x0)
scalar_solve = lambda g, y: y / g(1.0)
def sqrt_cr(a):
  return lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, scalar_solve)
"""

program("custom_root_value", "value", NEWTON + "result = sqrt_cr(2.0)")
program("custom_root_grad", "value", NEWTON + "result = jax.grad(sqrt_cr)(2.0)")
program("custom_root_grad_jit", "value", NEWTON + "result = jax.jit(jax.grad(sqrt_cr))(3.0)")
program("custom_root_vmap_grad", "value", NEWTON + "result = jax.vmap(jax.grad(sqrt_cr))(jnp.array([1.0, 4.0, 9.0]))")
program("custom_root_jvp", "value", NEWTON + "result = jnp.stack(jax.jvp(sqrt_cr, (2.0,), (3.0,)))")
program("custom_root_second_derivative", "value", NEWTON + "result = jax.grad(jax.grad(sqrt_cr))(2.0)")
program("custom_root_vmap_value", "value", NEWTON + "result = jax.vmap(sqrt_cr)(jnp.array([2.0, 5.0]))")
program("custom_root_jaxpr", "jaxpr", NEWTON + "result = jax.make_jaxpr(sqrt_cr)(2.0)")
program("custom_root_grad_jaxpr", "jaxpr", NEWTON + "result = jax.make_jaxpr(jax.grad(sqrt_cr))(2.0)")
program("custom_root_has_aux", "value", NEWTON + """
def solve_aux(f, x0):
  x = newton(f, x0)
  return x, (x * 2.0, jnp.float32(7.0))
def cube_root(a):
  x, (double, seven) = lax.custom_root(lambda x: x ** 3 - a, 1.0, solve_aux, scalar_solve, has_aux=True)
  return jnp.stack([x, double, seven])
result = jnp.concatenate([cube_root(8.0), jax.jacfwd(cube_root)(8.0)])
""")
program("custom_root_vector", "value", """
A = jnp.array([[3.0, 1.0], [1.0, 2.0]])
b = jnp.array([1.0, 2.0])
def root(A, b):
  f = lambda x: A @ x - b
  solve = lambda f, x0: jnp.linalg.solve(A, b)
  tangent_solve = lambda g, y: jnp.linalg.solve(jax.jacobian(g)(y), y)
  return lax.custom_root(f, jnp.zeros(2), solve, tangent_solve)
gA, gb = jax.grad(lambda A, b: jnp.sum(root(A, b) ** 2), argnums=(0, 1))(A, b)
result = jnp.concatenate([root(A, b), gA.ravel(), gb])
""")
program("custom_root_pytree_guess", "value", NEWTON + """
def solve(f, x0):
  a = x0["a"]
  for _ in range(30):
    a = a - f({"a": a})["a"] / (2 * a)
  return {"a": a}
def root(c):
  f = lambda x: {"a": x["a"] ** 2 - c}
  tangent_solve = lambda g, y: {"a": y["a"] / g({"a": 1.0})["a"]}
  return lax.custom_root(f, {"a": 1.0}, solve, tangent_solve)["a"]
result = jnp.stack([root(3.0), jax.grad(root)(3.0)])
""")
program("custom_root_closed_over_array", "value", NEWTON + """
c = jnp.array([2.0, 3.0])
def root(scale):
  f = lambda x: x ** 2 - scale * c
  return lax.custom_root(f, jnp.ones(2), lambda f, x0: jnp.sqrt(scale * c), lambda g, y: y / g(jnp.ones(2)))
result = jnp.concatenate([root(2.0), jax.jacrev(root)(2.0)])
""")
program("custom_root_error_f_tree", "error", """
result = lax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)
""")
program("custom_root_error_solve_tree", "error", """
result = lax.custom_root(lambda x: x, 1.0, lambda f, x: (x, x), lambda g, y: y)
""")
program("custom_root_error_aux_not_pair", "error", """
result = lax.custom_root(lambda x: x, 1.0, lambda f, x: x, lambda g, y: y, has_aux=True)
""")
program("custom_root_error_tangent_solve_tree", "error", """
result = lax.custom_root(lambda x: x, 1.0, lambda f, x: x, lambda g, y: [y])
""")

# ---- convenience functions
program("full_like_array", "value", "result = lax.full_like(jnp.ones(3), 2)")
program("full_like_weak_scalar", "value", "result = lax.full_like(1.0, 2)")
program("full_like_int_truncates", "value", "result = lax.full_like(jnp.ones(3, jnp.int32), 2.5)")
program("full_like_dtype_shape", "value", "result = lax.full_like(jnp.ones(3), 2, jnp.int8, (2, 2))")
program("full_like_numpy", "value", "result = lax.full_like(np.ones(3), 7)")
program("full_like_bool", "value", "result = lax.full_like(jnp.zeros(2, bool), 1)")
program("full_like_error_nonscalar", "error", "result = lax.full_like(jnp.ones(3), jnp.ones(2))")
program("full_like_jaxpr", "jaxpr", "result = jax.make_jaxpr(lambda x: lax.full_like(x, 3))(jnp.ones(3))")
program("broadcast_shapes", "text", "result = str(lax.broadcast_shapes((2, 1), (3,), [1, 1, 1]))")
program("broadcast_shapes_one", "text", "result = str(lax.broadcast_shapes((1,)))")
program("broadcast_shapes_error", "error", "result = lax.broadcast_shapes((2,), (3,))")
program("broadcast_to_rank", "value", "result = lax.broadcast_to_rank(jnp.arange(3.0), 3)")
program("broadcast_to_rank_weak", "value", "result = lax.broadcast_to_rank(2.0, 2)")
program("broadcast_to_rank_lower", "value", "result = lax.broadcast_to_rank(jnp.ones((2, 3)), 1)")
program("broadcast_like", "value", "result = lax.broadcast_like(jnp.arange(3), jnp.zeros((2, 3)))")
program("broadcast_like_weak", "value", "result = lax.broadcast_like(1.0, jnp.ones((2, 3), jnp.int32))")
program("broadcast_like_jaxpr", "jaxpr",
        "result = jax.make_jaxpr(lambda x, y: lax.broadcast_like(x, y))(jnp.ones(3), jnp.ones((2, 3)))")
program("collapse", "text", "result = str([lax.collapse(jnp.ones((2, 3, 4)), *a).shape for a in [(0, 2), (1,), (-2,), (0, 3)]])")
program("collapse_values", "value", "result = lax.collapse(jnp.arange(24).reshape(2, 3, 4), 1)")
program("collapse_error", "error", "result = lax.collapse(jnp.ones((2, 3, 4)), 2, 1)")
program("empty_shape_dtype", "text", "e = lax.empty((2, 3), jnp.float32)\nresult = str((e.shape, e.dtype))")
program("empty_int_scalar_shape", "text", "e = lax.empty(3, jnp.int32)\nresult = str((e.shape, e.dtype))")
program("batch_matmul", "value",
        "result = lax.batch_matmul(jnp.arange(12.0).reshape(2, 2, 3), jnp.arange(12.0).reshape(2, 3, 2))")
program("batch_matmul_jaxpr", "jaxpr",
        "result = jax.make_jaxpr(lax.batch_matmul)(jnp.ones((2, 2, 3)), jnp.ones((2, 3, 2)))")
program("batch_matmul_error_1d", "error", "result = lax.batch_matmul(jnp.ones((3,)), jnp.ones((3, 4)))")
program("batch_matmul_error_ndim", "error", "result = lax.batch_matmul(jnp.ones((2, 3, 4)), jnp.ones((4, 5)))")
program("dtype", "text",
        "result = str([lax.dtype(v) for v in (1.0, 1, True, np.float64(2), 'float32', jnp.ones(2, jnp.int8), 1j)])")
program("dtype_error_none", "error", "result = lax.dtype(None)")
program("dtype_error_list", "error", "result = lax.dtype([1, 2])")
program("shape_as_value", "text", "result = repr(lax.shape_as_value((2, 3)))")
program("shape_as_value_empty", "value", "result = lax.shape_as_value(())")
program("stage_eager", "value", "result = lax.stage(np.arange(3.0))")
program("stage_jaxpr", "jaxpr", "result = jax.make_jaxpr(lambda x: lax.stage(x) + lax.stage(1.0))(jnp.ones(3))")

# ---- dot algorithms
program("dot_preset", "value",
        "result = lax.dot(jnp.arange(4.0).reshape(2, 2), jnp.ones((2, 2)), precision=lax.DotAlgorithmPreset.F32_F32_F32)")
program("dot_preset_by_name", "value",
        "result = lax.dot(jnp.arange(4.0).reshape(2, 2), jnp.ones((2, 2)), precision='BF16_BF16_F32')")
program("dot_preset_jaxpr", "jaxpr",
        "result = jax.make_jaxpr(lambda x: lax.dot(x, x, precision='F32_F32_F32'))(jnp.ones((2, 2)))")
program("dot_preset_cpu_unsupported", "error",
        "result = lax.dot(jnp.ones((2, 2)), jnp.ones((2, 2)), precision=lax.DotAlgorithmPreset.TF32_TF32_F32)")
program("dot_algorithm_cpu_unsupported", "error", """
result = lax.dot(jnp.ones((2, 2)), jnp.ones((2, 2)),
                 precision=lax.DotAlgorithm(np.float32, np.float32, np.float32))
""")
program("dot_preset_reprs", "text", """
p = lax.DotAlgorithmPreset.BF16_BF16_F32
result = str([repr(p), str(p), p.accumulation_type, [q.name for q in lax.DotAlgorithmPreset],
              lax.DotAlgorithm._fields, lax.DotAlgorithm(np.float32, np.float32, np.float32)])
""")

# ---- ragged dot
RAGGED = """
lhs = jnp.arange(12.0).reshape(6, 2)
rhs = jnp.arange(12.0).reshape(3, 2, 2)
gs = jnp.array([1, 2, 2])
"""
program("ragged_dot", "value", RAGGED + "result = lax.ragged_dot(lhs, rhs, gs)")
program("ragged_dot_empty_group", "value", RAGGED + "result = jax.jit(lax.ragged_dot)(lhs, rhs, jnp.array([3, 0, 2]))")
program("ragged_dot_int8", "value", RAGGED + "result = lax.ragged_dot(lhs.astype(jnp.int8), rhs.astype(jnp.int8), gs)")
program("ragged_dot_preferred", "value",
        RAGGED + "result = lax.ragged_dot(lhs.astype(jnp.bfloat16), rhs.astype(jnp.bfloat16), gs, "
                 "preferred_element_type=jnp.float32)")
program("ragged_dot_grad_lhs", "value",
        RAGGED + "result = jax.grad(lambda l, r: (lax.ragged_dot(l, r, gs) ** 2).sum())(lhs, rhs)")
program("ragged_dot_grad_rhs", "value",
        RAGGED + "result = jax.grad(lambda l, r: (lax.ragged_dot(l, r, gs) ** 2).sum(), argnums=1)(lhs, rhs)")
program("ragged_dot_general_contracting", "value", """
dn = lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])
result = lax.ragged_dot_general(jnp.arange(10.0).reshape(2, 5), jnp.arange(15.0).reshape(5, 3), jnp.array([2, 3]), dn)
""")
program("ragged_dot_general_batch", "value", """
dn = lax.RaggedDotDimensionNumbers((([2], [1]), ([0], [0])), [0], [])
result = lax.ragged_dot_general(jnp.arange(24.0).reshape(4, 2, 3), jnp.arange(24.0).reshape(4, 3, 2), jnp.array([1, 2]), dn)
""")
program("ragged_dot_general_noncontracting_batched", "value", """
dn = lax.RaggedDotDimensionNumbers((([2], [2]), ([0], [1])), [1], [0])
a = jnp.arange(30.0).reshape(2, 5, 3)
b = jnp.arange(48.0).reshape(2, 2, 3, 4)
result = lax.ragged_dot_general(a, b, jnp.array([2, 2]), dn)
""")
program("ragged_dot_error_groups", "error", RAGGED + "result = lax.ragged_dot(lhs, rhs, jnp.array([1, 2]))")
program("ragged_dot_error_float_sizes", "error", RAGGED + "result = lax.ragged_dot(lhs, rhs, jnp.array([1.0, 2, 2]))")
program("ragged_dot_numbers_repr", "text",
        "result = repr(lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0]))")

# A while_loop solver: reverse mode cannot go through it, so the gradient
# exists only by implicit differentiation.
program("custom_root_while_solver_grad", "value", """
def solve(f, x0):
  def cond(x):
    return jnp.abs(f(x)) > 1e-6
  return lax.while_loop(cond, lambda x: x - f(x) / (2 * x), x0)
root = lambda a: lax.custom_root(lambda x: x ** 2 - a, 1.0, solve, lambda g, y: y / g(1.0))
result = jnp.stack([root(5.0), jax.grad(root)(5.0), jax.jit(jax.grad(root))(7.0)])
""")
