"""Autodiff programs whose JAX 0.11.0 behaviour is recorded in autodiff.json:
grad/jvp/vjp/linearize jaxprs, values and errors (see programs_core.py for
the format; record with `record_core.py autodiff`)."""

from programs_core import program_set

PROGRAMS, program = program_set()


program("seed_grad_sin_squared", "jaxpr", """
def g(x): return jnp.sum(jnp.sin(x) ** 2)
result = jax.make_jaxpr(jax.grad(g))(jnp.ones(3))
""")
program("grad_x_times_x", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: x * x))(1.0)
""")
program("grad_tanh_product", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.tanh(x) * x)))(jnp.ones(3))
""")
program("grad_matmul_transpose", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(x @ x.T)))(jnp.ones((2, 3)))
""")
program("grad_max_reduction", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.max(x)))(jnp.ones(3))
""")
program("grad_reshape_transpose_broadcast", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(x.reshape(2, 2).T[None] * 2)))(jnp.ones(4))
""")
program("grad_broadcast_to", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.broadcast_to(x, (2, 3)))))(jnp.ones(3))
""")
program("grad_static_slice_pads", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: x[1:].sum()))(jnp.ones(3))
""")
program("grad_div_sub", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(x / 3.0 - x)))(jnp.ones(3))
""")
program("grad_exp_log_sigmoid", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.exp(x) + jnp.log(x) + jax.nn.sigmoid(x)))(1.0)
""")
program("grad_relu_custom_jvp", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jax.nn.relu(x)))(1.0)
""")
program("grad_int_cast_constant", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: x.astype(jnp.int32).sum() * 1.0 + x))(1.0)
""")
program("jvp_sin", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jvp(jnp.sin, (x,), (x,)))(1.0)
""")
program("jvp_two_args", "jaxpr", """
f = lambda x, y: jnp.sin(x) * y
result = jax.make_jaxpr(lambda x, y: jax.jvp(f, (x, y), (jnp.ones(3), jnp.zeros(3))))(jnp.ones(3), jnp.ones(3))
""")
program("vjp_mul", "jaxpr", """
def f(x, y):
  out, vjp_fun = jax.vjp(lambda a, b: a * b, x, y)
  return vjp_fun(jnp.ones(3))
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
""")
program("linearize_exp", "jaxpr", """
def f(x, t):
  y, f_jvp = jax.linearize(jnp.exp, x)
  return y, f_jvp(t)
result = jax.make_jaxpr(f)(jnp.ones(2), jnp.ones(2))
""")
program("grad_of_grad_sin", "jaxpr", """
result = jax.make_jaxpr(jax.grad(jax.grad(jnp.sin)))(1.0)
""")
program("value_and_grad_dense", "jaxpr", """
def loss(w, x): return jnp.sum(jnp.maximum(x @ w, 0.0) ** 2)
result = jax.make_jaxpr(jax.value_and_grad(loss))(jnp.ones((3, 2)), jnp.ones((4, 3)))
""")
program("grad_dict_params", "jaxpr", """
def loss(p, x): return jnp.sum(x @ p["w"] + p["b"])
result = jax.make_jaxpr(jax.grad(loss))({"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}, jnp.ones((4, 3)))
""")
program("grad_argnums_tuple", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x, y: x * jnp.sin(y), argnums=(0, 1)))(2.0, 3.0)
""")
program("grad_has_aux", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: (x ** 3, x + 1.0), has_aux=True))(2.0)
""")
program("grad_softmax_entry", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jax.nn.softmax(x)[0]))(jnp.arange(3.0))
""")
program("grad_mean_var", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.mean(x ** 2) - jnp.mean(x) ** 2))(jnp.arange(4.0))
""")
program("grad_where_select", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.where(x > 1.0, x * 2.0, x))))(jnp.arange(3.0))
""")
program("grad_maximum_ties", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x, y: jnp.maximum(x, y)))(1.0, 1.0)
""")
program("grad_concatenate", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.concatenate([x, x * 2.0]))))(jnp.ones(2))
""")
program("grad_stop_gradient", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: x * jax.lax.stop_gradient(x)))(3.0)
""")
program("grad_sqrt_rsqrt_pow", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sqrt(x) + jax.lax.rsqrt(x) + x ** 3))(2.0)
""")
program("grad_dot_general_batch", "jaxpr", """
f = lambda x, y: jnp.sum(jax.lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))))
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5)))
""")
program("grad_mlp_loss", "jaxpr", """
def loss(params, x, y):
  h = jnp.tanh(x @ params[0])
  logits = h @ params[1]
  return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))
result = jax.make_jaxpr(jax.grad(loss))((jnp.ones((4, 8)), jnp.ones((8, 3))), jnp.ones((5, 4)), jnp.ones((5, 3)))
""")
program("value_grad_of_sum_sin", "value", """
result = jax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2))(jnp.arange(3.0))
""")
program("value_second_derivative", "value", """
result = jax.grad(jax.grad(lambda x: jnp.sin(x) * x))(1.0)
""")
program("value_vjp_weak", "value", """
result = jax.vjp(lambda x: x * 2, 1.0)[1](1.0)[0]
""")
program("value_jit_of_grad", "value", """
result = jax.jit(jax.grad(lambda x: jnp.sum(jnp.tanh(x) ** 2)))(jnp.arange(3.0))
""")
program("value_grad_of_jit", "value", """
result = jax.grad(jax.jit(lambda x: jnp.sum(x * jnp.cos(x))))(jnp.arange(3.0))
""")
program("error_grad_int_input", "error", """
result = jax.grad(lambda x: x)(1)
""")
program("error_grad_nonscalar_output", "error", """
result = jax.grad(lambda x: x)(jnp.ones(3))
""")
program("error_grad_int_output", "error", """
result = jax.grad(lambda x: x.astype(jnp.int32))(1.0)
""")
program("error_jvp_dtype_mismatch", "error", """
result = jax.jvp(jnp.sin, (1.0,), (jnp.int32(1),))
""")
program("error_jvp_tree_mismatch", "error", """
result = jax.jvp(lambda x, y: x + y, (1.0, 2.0), (1.0,))
""")

# --- issue 7: weak scalar constants, closures returned from traces, jvp's outputs

program("value_grad_weak_square", "value", """
result = jax.grad(lambda z: z ** 2)(3.)
""")
program("value_grad_weak_tanh", "value", """
result = jax.grad(lambda z: jnp.tanh(z) + jnp.sqrt(z))(3.)
""")
program("jacfwd_jacrev_cube_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(jax.jacrev(lambda x: x ** 3)))(1.)
""")
program("grad_weak_logistic_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.logistic(x) * lax.rsqrt(x)))(2.)
""")
program("value_jacfwd_bfloat16_convert", "value", """
result = jax.jacfwd(lambda x: x.astype(jnp.float32) * 3.)(jnp.ones(2, jnp.bfloat16))
""")
program("value_grad_bfloat16_convert", "value", """
result = jax.grad(lambda x: jnp.sum(x.astype(jnp.float32) ** 2))(jnp.arange(3, dtype=jnp.bfloat16))
""")
program("make_jaxpr_returns_vjp_fun", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.vjp(jnp.sin, x)[1])(1.)
""")
program("make_jaxpr_returns_primal_and_vjp_fun", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.vjp(jnp.sin, x))(1.)
""")
program("make_jaxpr_calls_vjp_fun", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.vjp(jnp.sin, x)[1](2.))(1.)
""")
program("make_jaxpr_returns_linearized_fun", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.linearize(jnp.sin, x)[1])(1.)
""")
program("make_jaxpr_vjp_fun_two_residuals", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.vjp(lambda a, b: jnp.sin(a) * b, x, 2.)[1])(1.)
""")
program("value_jit_returns_vjp_fun_then_called", "value", """
result = jax.jit(lambda x: jax.vjp(jnp.sin, x)[1])(1.)(2.)[0]
""")
program("text_jvp_identity_passes_python_floats", "text", """
result = repr(jax.jvp(lambda x: x, (1.0,), (1.0,)))
""")
program("text_jvp_constant_output", "text", """
p, t = jax.jvp(lambda x: (2.0, np.float32(3.0), x * 2), (1.0,), (1.0,))
result = repr((p[:2], t[:2], isinstance(p[2], jax.Array)))
""")
program("text_linearize_constant_tangent_weak", "text", """
result = repr(jax.linearize(lambda x: 2.0, 1.0)[1](2.0))
""")
program("text_value_and_grad_constant", "text", """
result = repr(jax.value_and_grad(lambda x: 2.0)(1.0))
""")
program("text_grad_identity_is_array", "text", """
result = repr(jax.grad(lambda x: x)(1.0))
""")


# --- a jit under grad/linearize/vjp: JAX's jit linearize rule linearizes the
# body directly (a scan/cond inside splits by its own linearize rule; the
# known jit returns the primal outputs then the residuals), and a NumPy
# constant the body closes over is a residual passed in from outside
JIT_SCAN = """
def f(x):
  def body(c, a):
    return c * jnp.sin(a) + 1.0, c * a
  c, ys = lax.scan(body, 1.0, x)
  return c + ys.sum()
"""
program("grad_jit_scan", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(jax.grad(jax.jit(f)))(jnp.arange(3.0))
""")
program("grad_jit_scan_value", "value", JIT_SCAN + """
result = jax.grad(jax.jit(f))(jnp.arange(3.0))
""")
program("value_and_grad_jit_scan", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(jax.value_and_grad(jax.jit(f)))(jnp.arange(3.0))
""")
program("linearize_jit_scan", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(lambda x: jax.linearize(jax.jit(f), x))(jnp.arange(3.0))
""")
program("linearize_jit_scan_applied", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(lambda x, t: jax.linearize(jax.jit(f), x)[1](t))(jnp.arange(3.0), jnp.ones(3))
""")
program("linearize_scan_applied", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(lambda x, t: jax.linearize(f, x)[1](t))(jnp.arange(3.0), jnp.ones(3))
""")
program("vjp_jit_scan", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(lambda x: jax.vjp(jax.jit(f), x)[1](1.0))(jnp.arange(3.0))
""")
program("jvp_jit_scan", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(lambda x, t: jax.jvp(jax.jit(f), (x,), (t,)))(jnp.arange(3.0), jnp.ones(3))
""")
program("grad_nested_jit_scan", "jaxpr", JIT_SCAN + """
h = jax.jit(lambda x: jax.jit(f)(x) * 2.0)
result = jax.make_jaxpr(jax.grad(h))(jnp.arange(3.0))
""")
program("hessian_jit_scan", "jaxpr", JIT_SCAN + """
result = jax.make_jaxpr(jax.hessian(jax.jit(f)))(jnp.arange(3.0))
""")
JIT_SCAN_CONSTS = """
def f(x, w):
  c, ys = lax.scan(lambda c, a: (c * w + a, c * c), 0.0, x)
  return c + ys.sum()
"""
program("grad_jit_scan_consts", "jaxpr", JIT_SCAN_CONSTS + """
result = jax.make_jaxpr(jax.grad(jax.jit(f), argnums=(0, 1)))(jnp.arange(3.0), 2.0)
""")
program("grad_jit_scan_consts_value", "value", JIT_SCAN_CONSTS + """
result = jnp.concatenate([g.reshape(-1) for g in jax.grad(jax.jit(f), argnums=(0, 1))(jnp.arange(3.0), 2.0)])
""")
JIT_CONST = """
xs = jnp.arange(3.0)
g = jax.jit(lambda u: jnp.sin(u * xs) * 2)
"""
program("grad_jit_closes_over_constant", "jaxpr", JIT_CONST + """
result = jax.make_jaxpr(jax.grad(lambda a: g(a).sum()))(jnp.ones(3))
""")
program("grad_jit_closes_over_constant_value", "value", JIT_CONST + """
result = jax.grad(lambda a: (g(a) * a).sum())(jnp.ones(3))
""")
program("linearize_jit_closes_over_constant", "jaxpr", JIT_CONST + """
result = jax.make_jaxpr(lambda a: jax.linearize(g, a))(jnp.ones(3))
""")
program("vjp_jit_closes_over_constant", "jaxpr", JIT_CONST + """
result = jax.make_jaxpr(lambda a: jax.vjp(g, a)[1](jnp.ones(3)))(jnp.ones(3))
""")
program("jvp_jit_closes_over_constant", "jaxpr", JIT_CONST + """
result = jax.make_jaxpr(lambda a: jax.jvp(g, (a,), (a,)))(jnp.ones(3))
""")
program("grad_jit_closes_over_numpy_array", "jaxpr", """
w = np.array([1., 2., 3.], np.float32)
result = jax.make_jaxpr(jax.grad(lambda a: jax.jit(lambda u: (jnp.cos(u) * w).sum())(a)))(jnp.ones(3))
""")
JIT_COND = """
def f(x):
  return lax.cond(x.sum() > 0, lambda v: jnp.sin(v) * v, lambda v: jnp.cos(v), x).sum()
"""
program("grad_jit_cond", "jaxpr", JIT_COND + """
result = jax.make_jaxpr(jax.grad(jax.jit(f)))(jnp.ones(3))
""")
program("grad_jit_cond_value", "value", JIT_COND + """
result = jax.grad(jax.jit(f))(jnp.ones(3))
""")
program("linearize_jit_cond_applied", "jaxpr", JIT_COND + """
result = jax.make_jaxpr(lambda x, t: jax.linearize(jax.jit(f), x)[1](t))(jnp.ones(3), jnp.ones(3))
""")
JIT_FORI = """
def f(x):
  return lax.fori_loop(0, 3, lambda i, c: c * c * x, x).sum()
"""
program("grad_jit_fori_loop", "jaxpr", JIT_FORI + """
result = jax.make_jaxpr(jax.grad(jax.jit(f)))(jnp.ones(2))
""")
program("grad_jit_fori_loop_value", "value", JIT_FORI + """
result = jax.grad(jax.jit(f))(jnp.array([0.5, 0.75]))
""")
JIT_WHILE = """
def f(x):
  return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * c[1] * 0.5), (0, x))[1]
"""
program("jvp_jit_while_loop", "jaxpr", JIT_WHILE + """
result = jax.make_jaxpr(lambda x: jax.jvp(jax.jit(f), (x,), (x,)))(1.0)
""")
program("linearize_jit_while_loop_applied", "jaxpr", JIT_WHILE + """
result = jax.make_jaxpr(lambda x, t: jax.linearize(jax.jit(f), x)[1](t))(1.0, 2.0)
""")
program("linearize_jit_while_loop_value", "value", JIT_WHILE + """
result = jax.linearize(jax.jit(f), 1.5)[1](2.0)
""")
program("grad_jit_while_loop_error", "error", JIT_WHILE + """
result = jax.grad(jax.jit(f))(1.0)
""")
program("grad_jit_while_loop_constant_carry", "jaxpr", """
def f(x):
  n = lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0)
  return jnp.sin(x) * n
result = jax.make_jaxpr(jax.grad(jax.jit(f)))(1.0)
""")
program("grad_jit_forwards_an_input", "jaxpr", """
f = jax.jit(lambda x, y: (x, jnp.sin(x) * y, y))
result = jax.make_jaxpr(jax.grad(lambda x, y: sum(o.sum() for o in f(x, y)), argnums=(0, 1)))(jnp.ones(2), jnp.ones(2))
""")
program("grad_jit_residual_is_an_output", "jaxpr", """
f = jax.jit(lambda x: jnp.exp(x))
result = jax.make_jaxpr(jax.grad(lambda x: f(x).sum()))(jnp.ones(2))
""")
program("grad_jit_one_argnum", "jaxpr", """
f = jax.jit(lambda x, y: jnp.sin(x) * jnp.cos(y))
result = jax.make_jaxpr(jax.grad(lambda x, y: f(x, y).sum(), argnums=1))(jnp.ones(2), jnp.ones(2))
""")
program("grad_jit_int_argument", "jaxpr", """
f = jax.jit(lambda x, n: jnp.sin(x) * n)
result = jax.make_jaxpr(jax.grad(f))(1.0, 3)
""")
program("grad_jit_pad_zero_residual", "jaxpr", """
result = jax.make_jaxpr(jax.grad(jax.jit(lambda v: jnp.pad(v, (1, 2)).sum())))(jnp.ones(3))
""")
program("grad_jit_donated", "jaxpr", """
f = jax.jit(lambda x: jnp.sin(x) * x, donate_argnums=0)
result = jax.make_jaxpr(jax.grad(lambda x: f(x).sum()))(jnp.ones(2))
""")
program("grad_jit_custom_jvp_inside", "jaxpr", """
f = jax.jit(lambda x: jax.nn.relu(x) * jnp.sin(x))
result = jax.make_jaxpr(jax.grad(lambda x: f(x).sum()))(jnp.ones(2))
""")
program("grad_jit_stop_gradient_inside", "jaxpr", """
f = jax.jit(lambda x: jnp.sin(x) * lax.stop_gradient(jnp.cos(x)))
result = jax.make_jaxpr(jax.grad(lambda x: f(x).sum()))(jnp.ones(2))
""")
NESTED_SCAN = """
def f(x):
  def outer(c, a):
    d, _ = lax.scan(lambda d, b: (d * b, None), c, a)
    return d, d
  c, ys = lax.scan(outer, 1.0, x)
  return c + ys.sum()
"""
program("grad_nested_scan", "jaxpr", NESTED_SCAN + """
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 3)))
""")
program("grad_jit_nested_scan", "jaxpr", NESTED_SCAN + """
result = jax.make_jaxpr(jax.grad(jax.jit(f)))(jnp.ones((2, 3)))
""")
program("grad_nested_scan_value", "value", NESTED_SCAN + """
result = jax.grad(f)(jnp.array([[1.0, 0.5, 2.0], [0.25, 3.0, 1.5]]))
""")
SCAN_IN_COND = """
def f(x):
  def br(v):
    c, _ = lax.scan(lambda c, a: (c * a, None), 1.0, v)
    return c
  return lax.cond(x.sum() > 0, br, lambda v: v.sum(), x)
"""
program("grad_scan_in_cond", "jaxpr", SCAN_IN_COND + """
result = jax.make_jaxpr(jax.grad(f))(jnp.ones(3))
""")
program("grad_jit_scan_in_cond", "jaxpr", SCAN_IN_COND + """
result = jax.make_jaxpr(jax.grad(jax.jit(f)))(jnp.ones(3))
""")
program("grad_scan_in_cond_value", "value", SCAN_IN_COND + """
result = jax.grad(f)(jnp.array([0.5, 2.0, 3.0]))
""")
program("grad_jit_in_cond", "jaxpr", """
g = jax.jit(lambda u: jnp.sin(u) * u)
result = jax.make_jaxpr(jax.grad(lambda x: lax.cond(x > 0, g, jnp.cos, x)))(1.0)
""")
