"""Jacobian programs whose JAX 0.11.0 behaviour is recorded in jacobians.json:
jacfwd/jacrev/hessian jaxprs and values (pytrees, argnums, has_aux,
holomorphic), linear_transpose, closure_convert, grad's options and the
errors of all of them (see programs_core.py for the format; record with
`record_core.py jacobians`)."""

from programs_core import program_set

PROGRAMS, program = program_set()


# --- jaxprs: jacfwd / jacrev / hessian as JAX builds them --------------------

program("jacfwd_elementwise_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(lambda x: jnp.sin(x) * x))(jnp.arange(3.))
""")
program("jacrev_elementwise_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda x: jnp.sin(x) * x))(jnp.arange(3.))
""")
program("jacfwd_scalar_weak_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(lambda x: x * 2.))(1.0)
""")
program("jacrev_scalar_weak_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda x: x * 2.))(1.0)
""")
program("hessian_sum_sin_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.hessian(lambda x: jnp.sum(jnp.sin(x))))(jnp.arange(3.))
""")
program("jacfwd_dict_in_out_jaxpr", "jaxpr", """
f = lambda d: {'a': d['x'] * d['y'], 'b': d['x'].sum()}
result = jax.make_jaxpr(jax.jacfwd(f))({'x': jnp.ones(2), 'y': jnp.ones(2)})
""")
program("jacrev_dict_in_out_jaxpr", "jaxpr", """
f = lambda d: {'a': d['x'] * d['y'], 'b': d['x'].sum()}
result = jax.make_jaxpr(jax.jacrev(f))({'x': jnp.ones(2), 'y': jnp.ones(2)})
""")
program("jacfwd_matmul_jaxpr", "jaxpr", """
W = jnp.arange(6.).reshape(2, 3)
result = jax.make_jaxpr(jax.jacfwd(lambda x: jnp.tanh(x @ W.T)))(jnp.ones(3))
""")
program("jacrev_matmul_jaxpr", "jaxpr", """
W = jnp.arange(6.).reshape(2, 3)
result = jax.make_jaxpr(jax.jacrev(lambda x: jnp.tanh(W @ x)))(jnp.ones(3))
""")
program("jacrev_matrix_input_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda m: m @ m))(jnp.ones((2, 2)))
""")
program("jacfwd_matrix_input_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(lambda m: m.T * 3.))(jnp.ones((2, 2)))
""")
program("jacfwd_argnums_tuple_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(lambda x, y: x * y, argnums=(0, 1)))(jnp.ones(2), jnp.ones(2))
""")
program("jacrev_argnums_tuple_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda x, y: x * jnp.exp(y), argnums=(0, 1)))(jnp.ones(2), jnp.ones(2))
""")
program("jacrev_argnum_1_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda x, y: x * jnp.exp(y), argnums=1))(jnp.ones(2), jnp.ones(2))
""")
program("jacfwd_has_aux_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(lambda x: (jnp.sin(x), jnp.cos(x)), has_aux=True))(jnp.ones(2))
""")
program("jacrev_has_aux_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda x: (jnp.sin(x), jnp.cos(x)), has_aux=True))(jnp.ones(2))
""")
program("jacfwd_constant_output_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(lambda x: jnp.ones(2)))(jnp.ones(3))
""")
program("jacrev_tuple_output_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda x: (x * 2., jnp.sum(x))))(jnp.ones(2))
""")
program("hessian_quadratic_jaxpr", "jaxpr", """
A = jnp.array([[2., 1.], [1., 3.]])
result = jax.make_jaxpr(jax.hessian(lambda x: x @ A @ x))(jnp.ones(2))
""")
program("jacfwd_of_jacrev_scalar_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(jax.jacrev(lambda x: x * x * x)))(2.0)
""")
program("jit_of_jacrev_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jit(jax.jacrev(lambda x: jnp.sin(x) * 2.)))(jnp.ones(2))
""")
program("jacrev_of_jit_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(jax.jit(lambda x: jnp.sin(x) * 2.)))(jnp.ones(2))
""")
program("vmap_of_jacfwd_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(jax.jacfwd(lambda x: jnp.sin(x) * x)))(jnp.ones((4, 2)))
""")
program("jacfwd_mixed_dtypes_jaxpr", "jaxpr", """
f = lambda x, y: x.astype(jnp.float32) * y.astype(jnp.float32)
result = jax.make_jaxpr(jax.jacfwd(f, argnums=(0, 1)))(jnp.ones(2, jnp.float16), jnp.ones(2))
""")
program("jacfwd_holomorphic_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacfwd(lambda z: z * z, holomorphic=True))(jnp.ones(2, jnp.complex64))
""")
program("jacrev_holomorphic_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda z: z * z, holomorphic=True))(jnp.ones(2, jnp.complex64))
""")
program("jacrev_allow_int_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda x, n: x * n, argnums=(0, 1), allow_int=True))(jnp.ones(2), jnp.arange(2))
""")

# --- values ----------------------------------------------------------------

program("jacfwd_docstring_value", "value", """
def f(x):
  return jnp.asarray([x[0], 5*x[2], 4*x[1]**2 - 2*x[2], x[2] * jnp.sin(x[0])])
result = jax.jacfwd(f)(jnp.array([1., 2., 3.]))
""")
program("jacrev_docstring_value", "value", """
def f(x):
  return jnp.asarray([x[0], 5*x[2], 4*x[1]**2 - 2*x[2], x[2] * jnp.sin(x[0])])
result = jax.jacrev(f)(jnp.array([1., 2., 3.]))
""")
program("jacobian_is_jacrev_value", "value", """
result = jax.jacobian(lambda x: jnp.cumsum(x ** 2))(jnp.array([1., 2., 3.]))
""")
program("hessian_docstring_value", "value", """
g = lambda x: x[0]**3 - 2*x[0]*x[1] - x[1]**6
result = jax.hessian(g)(jnp.array([1., 2.]))
""")
program("hessian_pytree_structure", "text", """
f = lambda dct: {"c": jnp.power(dct["a"], dct["b"])}
h = jax.hessian(f)({"a": jnp.arange(2.) + 1., "b": jnp.arange(2.) + 2.})
result = str(jax.tree_util.tree_map(lambda x: (x.shape, str(x.dtype)), h))
""")
program("hessian_pytree_leaf_value", "value", """
f = lambda dct: {"c": jnp.power(dct["a"], dct["b"])}
result = jax.hessian(f)({"a": jnp.arange(2.) + 1., "b": jnp.arange(2.) + 2.})["c"]["a"]["b"]
""")
program("jacrev_pytree_structure", "text", """
f = lambda x, y: {'p': x * y[0], 'q': (x.sum(), y[1] * 2.)}
j = jax.jacrev(f, argnums=(0, 1))(jnp.ones(3), (jnp.ones(3), 2.0))
result = str(jax.tree_util.tree_map(lambda x: (x.shape, str(x.dtype), jax.typeof(x).weak_type), j))
""")
program("jacfwd_pytree_structure", "text", """
f = lambda x, y: {'p': x * y[0], 'q': (x.sum(), y[1] * 2.)}
j = jax.jacfwd(f, argnums=(0, 1))(jnp.ones(3), (jnp.ones(3), 2.0))
result = str(jax.tree_util.tree_map(lambda x: (x.shape, str(x.dtype), jax.typeof(x).weak_type), j))
""")
program("jacfwd_weak_scalar_value", "value", """
result = jax.jacfwd(lambda x: x * 2.)(1.0)
""")
program("jacrev_f16_output_dtype", "value", """
result = jax.jacrev(lambda x: (x * 2.).astype(jnp.float16))(jnp.ones(2))
""")
program("jacfwd_f16_output_dtype", "value", """
result = jax.jacfwd(lambda x: (x * 2.).astype(jnp.float16))(jnp.ones(2))
""")
program("jacfwd_holomorphic_value", "text", """
result = repr(jax.jacfwd(lambda z: z ** 2, holomorphic=True)(jnp.array([1. + 1j, 2.])))
""")
program("jacrev_holomorphic_value", "text", """
result = repr(jax.jacrev(lambda z: z ** 2, holomorphic=True)(jnp.array([1. + 1j, 2.])))
""")
program("jacrev_complex_input_real_output", "text", """
result = repr(jax.jacrev(lambda z: jnp.abs(z) ** 2)(jnp.array([1. + 1j, 2.])))
""")
program("jacrev_has_aux_value", "text", """
j, aux = jax.jacrev(lambda x: (x ** 2, 'aux'), has_aux=True)(jnp.array([1., 2.]))
result = repr(j) + ' ' + repr(aux)
""")
program("jacfwd_has_aux_value", "text", """
j, aux = jax.jacfwd(lambda x: (x ** 2, {'s': x.sum()}), has_aux=True)(jnp.array([1., 2.]))
result = repr(j) + ' ' + repr(aux)
""")
program("jacfwd_kwargs_fixed", "value", """
result = jax.jacfwd(lambda x, *, s: x * s)(jnp.array([1., 2.]), s=3.0)
""")
program("jacrev_negative_argnums", "value", """
result = jax.jacrev(lambda x, y: x * y, argnums=-1)(jnp.array([1., 2.]), jnp.array([3., 4.]))
""")
program("hessian_argnums_tuple_structure", "text", """
h = jax.hessian(lambda x, y: jnp.sum(x) * jnp.sum(y ** 2), argnums=(0, 1))(jnp.ones(2), jnp.ones(3))
result = str(jax.tree_util.tree_map(lambda x: x.shape, h))
""")
program("hessian_has_aux_value", "text", """
h, aux = jax.hessian(lambda x: (jnp.sum(x ** 3), x.sum()), has_aux=True)(jnp.array([1., 2.]))
result = repr(h) + ' ' + repr(aux)
""")

# --- errors ----------------------------------------------------------------

program("jacfwd_int_input_error", "error", """
result = jax.jacfwd(lambda x: x * 2)(jnp.arange(3))
""")
program("jacfwd_complex_input_error", "error", """
result = jax.jacfwd(lambda z: z * 2)(jnp.ones(2, jnp.complex64))
""")
program("jacfwd_holomorphic_real_input_error", "error", """
result = jax.jacfwd(lambda z: z * 2, holomorphic=True)(jnp.ones(2))
""")
program("jacfwd_holomorphic_real_output_error", "error", """
result = jax.jacfwd(lambda z: jnp.real(z), holomorphic=True)(jnp.ones(2, jnp.complex64))
""")
program("jacrev_int_input_error", "error", """
result = jax.jacrev(lambda x: x * 2.)(jnp.arange(3))
""")
program("jacrev_complex_output_error", "error", """
result = jax.jacrev(lambda x: x * 1j)(jnp.ones(2))
""")
program("jacrev_int_output_error", "error", """
result = jax.jacrev(lambda x: x.astype(jnp.int32))(jnp.ones(2))
""")
program("jacrev_holomorphic_real_input_error", "error", """
result = jax.jacrev(lambda z: z, holomorphic=True)(jnp.ones(2))
""")
program("jacrev_argnums_out_of_range_error", "error", """
result = jax.jacrev(lambda x, y: x * y, argnums=2)(jnp.ones(2), jnp.ones(2))
""")
program("jacfwd_argnums_out_of_range_error", "error", """
result = jax.jacfwd(lambda x, y: x * y, argnums=(0, -3))(jnp.ones(2), jnp.ones(2))
""")
program("jacfwd_not_callable_error", "error", """
result = jax.jacfwd(3)
""")
program("jacrev_string_input_error", "error", """
result = jax.jacrev(lambda x: x)('a')
""")
program("hessian_int_input_error", "error", """
result = jax.hessian(lambda x: jnp.sum(x ** 2))(jnp.arange(3))
""")

# --- linear_transpose --------------------------------------------------------

program("linear_transpose_docstring", "text", """
f = lambda x, y: 0.5 * x - 0.5 * y
scalar = jax.ShapeDtypeStruct(shape=(), dtype=np.dtype(np.float32))
result = repr(jax.linear_transpose(f, scalar, scalar)(1.0))
""")
program("linear_transpose_sum_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda c: jax.linear_transpose(lambda x: jnp.sum(x * 3.), jnp.ones(3))(c))(1.0)
""")
program("linear_transpose_matvec_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda c: jax.linear_transpose(lambda x: jnp.dot(jnp.ones((2, 3)), x), jnp.ones(3))(c))(jnp.ones(2))
""")
program("linear_transpose_pytree", "text", """
f = lambda d: {'s': d['a'] + d['b'], 'd': d['a']}
x = jnp.arange(3.)
result = repr(jax.linear_transpose(f, {'a': x, 'b': x})({'s': x, 'd': x}))
""")
program("linear_transpose_unused_input", "text", """
x = jnp.arange(3.)
result = repr(jax.linear_transpose(lambda x, y: 2 * x, x, x)(x))
""")
program("linear_transpose_affine_constant_dropped", "text", """
x = jnp.arange(3.)
result = repr(jax.linear_transpose(lambda x: x + 1., x)(x))
""")
program("linear_transpose_weak", "text", """
result = repr(jax.linear_transpose(lambda x: 2 * x, 1.0)(1.0))
""")
program("linear_transpose_int", "text", """
result = repr(jax.linear_transpose(lambda x: 2 * x, jnp.arange(3))(jnp.arange(3)))
""")
program("linear_transpose_complex_to_real_input", "text", """
x = jnp.arange(3.)
result = repr(jax.linear_transpose(lambda x: x * (1 + 2j), x)(x.astype(jnp.complex64)))
""")
program("linear_transpose_matches_vjp", "value", """
A = jnp.arange(6.).reshape(2, 3)
f = lambda x: jnp.tanh(A) @ x
ct = jnp.array([1., -2.])
result = jax.linear_transpose(f, jnp.ones(3))(ct)[0] - jax.vjp(f, jnp.ones(3))[1](ct)[0]
""")
program("linear_transpose_under_jit", "value", """
t = jax.linear_transpose(lambda x: jnp.cumsum(x) * 2., jnp.ones(3))
result = jax.jit(lambda t, c: t(c)[0])(t, jnp.array([1., 2., 3.]))
""")
program("linear_transpose_dtype_mix_error", "error", """
result = jax.linear_transpose(lambda x: x.astype(jnp.int32), jnp.ones(3))
""")
program("linear_transpose_ct_dtype_error", "error", """
result = jax.linear_transpose(lambda x: 2 * x, jnp.ones(3))(jnp.arange(3))
""")
program("linear_transpose_ct_shape_error", "error", """
result = jax.linear_transpose(lambda x: 2 * x, jnp.ones(3))(jnp.ones(4))
""")
program("linear_transpose_ct_tree_error", "error", """
result = jax.linear_transpose(lambda x: 2 * x, jnp.ones(3))((jnp.ones(3),))
""")
program("linear_transpose_reduce_axes_error", "error", """
result = jax.linear_transpose(lambda x: 2 * x, jnp.ones(3), reduce_axes=('i',))
""")
program("linear_transpose_nonlinear_sin_error", "error", """
result = jax.linear_transpose(jnp.sin, jnp.ones(3))(jnp.ones(3))
""")

# --- closure_convert -----------------------------------------------------------

program("closure_convert_concrete_closure", "text", """
c = jnp.arange(3.)
f, consts = jax.closure_convert(lambda x: x * c, jnp.ones(3))
result = repr((consts, f(jnp.ones(3))))
""")
program("closure_convert_hoists_tracer", "jaxpr", """
def outer(y):
  f, consts = jax.closure_convert(lambda x: jnp.sin(x) * y, 1.0)
  return f(2.0, *consts), len(consts)
def g(y):
  out, n = outer(y)
  return out * n
result = jax.make_jaxpr(jax.grad(g))(3.0)
""")
program("closure_convert_tree_mismatch_error", "error", """
f, consts = jax.closure_convert(lambda x: x * 2., (1.0, 2.0))
result = f(1.0)
""")

# --- grad's options ------------------------------------------------------------

program("grad_argnums_negative_out_of_range_error", "error", """
result = jax.grad(lambda a, b: jnp.sum(a * b), argnums=-3)(jnp.ones(2), jnp.ones(2))
""")
program("grad_argnums_too_large_error", "error", """
result = jax.grad(lambda a, b: jnp.sum(a * b), argnums=(0, 3))(jnp.ones(2), jnp.ones(2))
""")
program("grad_argnums_float_error", "error", """
result = jax.grad(lambda a: a, argnums=1.0)
""")
program("grad_argnums_list", "text", """
result = repr(jax.grad(lambda a, b: jnp.sum(a * b), argnums=[1])(jnp.ones(2), jnp.arange(2.)))
""")
program("grad_reduce_axes_error", "error", """
result = jax.grad(lambda x: x, reduce_axes=('i',))
""")
program("value_and_grad_reduce_axes_error", "error", """
result = jax.value_and_grad(lambda x: x, reduce_axes=('i',))
""")
program("vjp_reduce_axes_error", "error", """
result = jax.vjp(lambda x: x, 1.0, reduce_axes=('i',))
""")
program("grad_holomorphic_value", "text", """
result = repr(jax.grad(lambda z: z * z + 1j * z, holomorphic=True)(1.0 + 2.0j))
""")
program("grad_holomorphic_real_input_error", "error", """
result = jax.grad(lambda z: z ** 2, holomorphic=True)(1.0)
""")
program("grad_holomorphic_real_output_error", "error", """
result = jax.grad(lambda z: jnp.real(z), holomorphic=True)(1.0 + 1j)
""")
program("grad_complex_output_error", "error", """
result = jax.grad(lambda z: z * 1j)(1.0)
""")
program("grad_int_output_error", "error", """
result = jax.grad(lambda z: z.astype(jnp.int32))(1.0)
""")
program("grad_int_input_error", "error", """
result = jax.grad(lambda z: z * 1.)(1)
""")
program("grad_allow_int_float0", "text", """
g = jax.grad(lambda z, y: z * y, argnums=(0, 1), allow_int=True)(1, 2.)
result = str((g[0].dtype, g[0].shape, g[1]))
""")
program("grad_nonscalar_output_error", "error", """
result = jax.grad(lambda z: z)(jnp.ones(3))
""")
program("grad_none_output_error", "error", """
result = jax.grad(lambda z: None)(1.0)
""")
program("grad_not_callable_error", "error", """
result = jax.grad(3)
""")
program("grad_string_input_error", "error", """
result = jax.grad(lambda z: 1.)('a')
""")
program("grad_has_aux_non_jax_aux", "text", """
result = repr(jax.value_and_grad(lambda z: (z * z, 'a'), has_aux=True)(3.))
""")
program("grad_has_aux_tracer_aux", "text", """
result = repr(jax.grad(lambda x: (jnp.sum(x ** 2), x * 2), has_aux=True)(jnp.arange(3.)))
""")
program("grad_docstring", "text", """
def loss(a, b): return jnp.sum(a * b)
result = jax.grad(loss, argnums=(0, 1)).__doc__ + ' | ' + jax.value_and_grad(loss).__doc__
""")
program("jacrev_docstring", "text", """
def loss(a, b): return a * b
result = jax.jacrev(loss, argnums=1).__doc__ + ' | ' + jax.jacfwd(loss).__name__
""")
program("linear_transpose_closed_constant_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.linear_transpose(lambda x: 2 * x, jnp.arange(3.)))(jnp.arange(3.))
""")
program("jit_of_jacfwd_has_aux_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jit(jax.jacfwd(lambda x: (x * x, x.sum()), has_aux=True)))(jnp.ones(2))
""")
program("jacrev_scalar_input_vector_output_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.jacrev(lambda t: jnp.cos(t) * jnp.array([1., 2.])))(0.5)
""")
