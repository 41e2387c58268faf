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
