"""Autodiff and batching of the special functions and of the remaining
elementwise primitives (real, imag, complex, abs of complex values, clamp,
reduce_precision, the zero-derivative bitcast/mulhi/total-order
comparisons), recorded from JAX 0.11.0 into ``special_ad.json``.

Gradient and JVP jaxprs show each rule's equations in JAX's order (known
values first, then the transposed tangent ops); vmap jaxprs show the
vectorized (unary) and broadcasting (n-ary) batching rules; the errors are
JAX's own for the derivatives it does not define (polygamma w.r.t. m,
betainc w.r.t. a and b, zeta, igamma_grad_a) and for clamp's select rule
with scalar bounds. Same format and runner as ``programs_core.py``; record
with

    /tmp/jax-ref/bin/python tests/golden/record_core.py special_ad

Not here: constants that are not exactly representable in float32 and
reach a lax primitive as Python scalars (the JVP of `lax.erf` at a weakly
typed scalar, `clamp(0.1, ...)`): JAX keeps the Python float in the literal
and prints `1.1283791670955126`, pyjax converts it at bind and prints the
float32 value `1.128379225730896` (a staging difference, not a rule's).
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- special functions: gradients ----

program("grad_erf", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.erf(x).sum()))(jnp.linspace(-1.0, 1.0, 3))
""")

program("grad_erfc_scalar", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.erfc))(jnp.float32(0.3))
""")

program("grad_erf_inv", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.erf_inv(x).sum()))(jnp.linspace(-0.5, 0.5, 4))
""")

program("grad_lgamma", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.lgamma))(jnp.float32(2.5))
""")

program("grad_digamma", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.digamma(x).sum()))(jnp.ones((2, 3)))
""")

program("grad_polygamma_x", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.polygamma, 1))(jnp.float32(1.0), jnp.float32(0.3))
""")

program("grad_polygamma_python_m", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.polygamma(2., x).sum()))(jnp.linspace(0.5, 2.0, 3))
""")

program("grad_polygamma_m_error", "error", """
result = jax.grad(lax.polygamma, 0)(jnp.float32(1.0), jnp.float32(0.3))
""")

program("grad_igamma_both", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a, x: lax.igamma(a, x).sum(), (0, 1)))(
    jnp.linspace(1.0, 2.0, 3), jnp.linspace(0.5, 1.5, 3))
""")

program("grad_igamma_python_a", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.igamma(2., x)))(0.5)
""")

program("grad_igammac_both_scalar", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.igammac, (0, 1)))(jnp.float32(2.), jnp.float32(0.3))
""")

program("grad_igammac_a_only", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda a: lax.igammac(a, jnp.ones(3)).sum()))(jnp.ones(3))
""")

program("grad_bessel_i0e", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.bessel_i0e(x).sum()))(jnp.linspace(-2.0, 2.0, 4))
""")

program("grad_bessel_i1e", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.bessel_i1e(x).sum()))(jnp.linspace(-2.0, 2.0, 3))
""")

program("grad_bessel_i1e_weak_scalar", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.bessel_i1e))(0.5)
""")

program("grad_betainc_x", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.betainc, 2))(jnp.float32(2.), jnp.float32(3.), jnp.float32(0.3))
""")

program("grad_betainc_python_ab", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.betainc(2., 3., x).sum()))(jnp.linspace(0.1, 0.9, 3))
""")

program("grad_betainc_python_ab_weak_x", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.betainc(2., 3., x)))(0.25)
""")

program("grad_betainc_a_error", "error", """
result = jax.grad(lax.betainc, 0)(jnp.float32(2.), jnp.float32(3.), jnp.float32(0.3))
""")

program("grad_betainc_b_error", "error", """
result = jax.jvp(lambda b: lax.betainc(2., b, 0.3), (jnp.float32(3.),), (jnp.float32(1.),))
""")

program("grad_zeta_error", "error", """
result = jax.grad(lax.zeta, 0)(jnp.float32(2.), jnp.float32(0.3))
""")

program("grad_zeta_q_error", "error", """
result = jax.grad(lax.zeta, 1)(jnp.float32(2.), jnp.float32(0.3))
""")

program("grad_igamma_grad_a_error", "error", """
result = jax.grad(lax.igamma_grad_a, 0)(jnp.float32(2.), jnp.float32(0.3))
""")

program("second_grad_lgamma", "jaxpr", """
result = jax.make_jaxpr(jax.grad(jax.grad(lax.lgamma)))(jnp.float32(2.5))
""")

program("second_grad_erf", "jaxpr", """
result = jax.make_jaxpr(jax.grad(jax.grad(lax.erf)))(jnp.float32(0.5))
""")

program("second_grad_igamma_x", "jaxpr", """
result = jax.make_jaxpr(jax.grad(jax.grad(lax.igamma, 1), 1))(jnp.float32(2.), jnp.float32(0.5))
""")

# ---- special functions: JVPs ----

program("jvp_erf_inv", "jaxpr", """
f = lambda x: jax.jvp(lax.erf_inv, (x,), (x,))
result = jax.make_jaxpr(f)(jnp.linspace(-0.5, 0.5, 3))
""")

program("jvp_bessel_i1e", "jaxpr", """
f = lambda x: jax.jvp(lax.bessel_i1e, (x,), (jnp.ones_like(x),))
result = jax.make_jaxpr(f)(jnp.linspace(-1.0, 1.0, 3))
""")

program("jvp_igamma", "jaxpr", """
f = lambda a, x: jax.jvp(lax.igamma, (a, x), (a, x))
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
""")

program("jvp_betainc_x", "jaxpr", """
f = lambda a, b, x: jax.jvp(lambda x: lax.betainc(a, b, x), (x,), (x,))
result = jax.make_jaxpr(f)(jnp.ones(2), jnp.ones(2), jnp.full(2, 0.5))
""")

program("jit_grad_digamma", "jaxpr", """
result = jax.make_jaxpr(jax.jit(jax.grad(lax.digamma)))(jnp.float32(1.5))
""")

# ---- special functions: values ----

program("grad_values_erf_lgamma_digamma", "value", """
x = jnp.array([0.25, 0.5, 1.5, 3.0])
result = jnp.stack([jax.vmap(jax.grad(lax.erf))(x), jax.vmap(jax.grad(lax.lgamma))(x),
                    jax.vmap(jax.grad(lax.digamma))(x)])
""")

program("grad_values_igamma", "value", """
a = jnp.array([0.5, 1.0, 2.0, 4.0]); x = jnp.array([0.3, 1.0, 2.5, 3.0])
result = jnp.stack(jax.grad(lambda a, x: lax.igammac(a, x).sum(), (0, 1))(a, x))
""")

program("grad_values_bessel_betainc", "value", """
x = jnp.array([-2.0, -0.5, 0.0, 0.5, 3.0])
result = jnp.stack([jax.grad(lambda x: lax.bessel_i0e(x).sum())(x),
                    jax.grad(lambda x: lax.bessel_i1e(x).sum())(x),
                    jax.grad(lambda x: lax.betainc(2., 3., x).sum())(jnp.abs(x) / 4 + 0.1)])
""")

# ---- special functions: vmap ----

program("vmap_unary_specials", "jaxpr", """
def f(x):
  return (lax.erf(x), lax.erfc(x), lax.erf_inv(x), lax.lgamma(x), lax.digamma(x),
          lax.bessel_i0e(x), lax.bessel_i1e(x))
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((2, 3)))
""")

program("vmap_igamma_one_batched", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lax.igamma, in_axes=(0, None)))(jnp.ones((4, 3)), jnp.ones(3))
""")

program("vmap_zeta_axes_differ", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lax.zeta, in_axes=(1, 0)))(jnp.ones((3, 4)), jnp.ones((4, 3)))
""")

program("vmap_polygamma_scalar_m", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.polygamma(1.0, x)))(jnp.ones((4, 3)))
""")

program("vmap_betainc_mixed", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lax.betainc, in_axes=(None, 0, 1)))(
    jnp.ones(3), jnp.ones((5, 3)), jnp.ones((3, 5)))
""")

program("vmap_igammac_igamma_grad_a", "jaxpr", """
f = lambda a, x: (lax.igammac(a, x), lax.igamma_grad_a(a, x))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, 0)))(jnp.ones((4, 3)), jnp.ones((4, 3)))
""")

program("vmap_grad_lgamma", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(jax.grad(lax.lgamma)))(jnp.ones(4))
""")

program("grad_vmap_igamma_x", "jaxpr", """
f = lambda a, x: jax.vmap(lax.igamma, in_axes=(None, 0))(a, x).sum()
result = jax.make_jaxpr(jax.grad(f, 1))(jnp.ones(3), jnp.ones((2, 3)))
""")

# ---- elementwise: complex parts ----

program("vjp_real", "jaxpr", """
result = jax.make_jaxpr(lambda z: jax.vjp(lax.real, z)[1](jnp.ones(3)))(jnp.ones(3, jnp.complex64))
""")

program("vjp_imag", "jaxpr", """
result = jax.make_jaxpr(lambda z: jax.vjp(lax.imag, z)[1](jnp.ones(3)))(jnp.ones(3, jnp.complex64))
""")

program("jvp_imag", "jaxpr", """
result = jax.make_jaxpr(lambda z: jax.jvp(lax.imag, (z,), (z,)))(jnp.ones(2, jnp.complex64))
""")

program("vjp_complex_both", "jaxpr", """
result = jax.make_jaxpr(lambda a, b: jax.vjp(lax.complex, a, b)[1](jnp.ones(3, jnp.complex64)))(
    jnp.ones(3), jnp.ones(3))
""")

program("vjp_complex_scalar_part_broadcast", "jaxpr", """
f = lambda a, b: jax.vjp(lax.complex, a, b)[1](jnp.ones(3, jnp.complex64))
result = jax.make_jaxpr(f)(jnp.float32(1.), jnp.ones(3))
""")

program("grad_complex_one_part", "jaxpr", """
f = lambda x: lax.real(lax.complex(x, jnp.ones(3)) * lax.complex(jnp.ones(3), x)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones(3))
""")

program("grad_imag_part", "jaxpr", """
f = lambda y: (lax.imag(lax.complex(jnp.ones(2), y)) ** 2).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones(2))
""")

program("grad_complex_values", "value", """
f = lambda x, y: (lax.abs(lax.complex(x, y)) + lax.imag(lax.complex(x, y) ** 2)).sum()
result = jnp.stack(jax.grad(f, (0, 1))(jnp.array([1., -2., 0.5]), jnp.array([0.5, 1., -3.])))
""")

# ---- elementwise: abs ----

program("grad_abs_real", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.abs(x).sum()))(jnp.array([-1.0, 0.0, 2.0]))
""")

program("grad_abs_real_scalar", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.abs))(jnp.float32(0.3))
""")

program("grad_abs_complex", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda z: lax.abs(z).sum()))(jnp.ones(3, jnp.complex64))
""")

program("jvp_abs_complex_scalar", "jaxpr", """
result = jax.make_jaxpr(lambda z: jax.jvp(lax.abs, (z,), (z,)))(jnp.complex64(0.3 + 0.4j))
""")

program("grad_abs_values", "value", """
z = jnp.array([3 + 4j, 0j, -1 - 1j], jnp.complex64)
g = jax.grad(lambda z: lax.abs(z).sum())(z)
result = jnp.stack([lax.real(g), lax.imag(g)])
""")

program("grad_abs_real_values_at_zero", "value", """
result = jax.grad(lambda x: lax.abs(x).sum())(jnp.array([-1.0, 0.0, -0.0, 2.0]))
""")

# ---- elementwise: clamp ----

program("grad_clamp_all_scalar", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.clamp, (0, 1, 2)))(
    jnp.float32(0.25), jnp.float32(0.3), jnp.float32(0.5))
""")

program("grad_clamp_operand", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.clamp(0.25, x, 0.5).sum()))(jnp.arange(3.0))
""")

program("grad_clamp_array_bounds", "jaxpr", """
f = lambda lo, x, hi: lax.clamp(lo, x, hi).sum()
result = jax.make_jaxpr(jax.grad(f, (0, 1, 2)))(jnp.zeros(3), jnp.arange(3.0), jnp.ones(3))
""")

program("grad_clamp_scalar_bounds_error", "error", """
f = lambda lo, x, hi: lax.clamp(lo, x, hi).sum()
result = jax.grad(f, (0, 1, 2))(0.25, jnp.arange(3.0), 0.5)
""")

program("grad_clamp_values", "value", """
f = lambda lo, x, hi: lax.clamp(lo, x, hi).sum()
lo = jnp.array([0., 0., 0., 1.]); x = jnp.array([-1., 0.5, 2., 0.]); hi = jnp.array([1., 1., 1., 0.5])
result = jnp.stack(jax.grad(f, (0, 1, 2))(lo, x, hi))
""")

# ---- elementwise: reduce_precision and the zero derivatives ----

program("grad_reduce_precision", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.reduce_precision(x, 5, 10).sum()))(jnp.ones(3))
""")

program("jvp_reduce_precision", "jaxpr", """
f = lambda x: jax.jvp(lambda x: lax.reduce_precision(x, 8, 7), (x,), (x,))
result = jax.make_jaxpr(f)(jnp.ones(2))
""")

program("grad_bitcast_round_trip", "jaxpr", """
f = lambda x: lax.bitcast_convert_type(lax.bitcast_convert_type(x, jnp.int32), jnp.float32)
result = jax.make_jaxpr(jax.grad(f))(jnp.float32(1.5))
""")

program("jvp_bitcast_float_to_float", "jaxpr", """
f = lambda x: jax.jvp(lambda x: lax.bitcast_convert_type(x, jnp.float32) * x, (x,), (x,))
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("grad_through_lt_to", "jaxpr", """
f = lambda x: lax.select(lax.lt_to_p.bind(x, 0.5), x, 2 * x).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.arange(3.0))
""")

# ---- elementwise: the nonlinear rules in JAX's form ----

program("grad_exp2", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.exp2(x).sum()))(jnp.arange(3.0))
""")

program("grad_tan_asin_acos_atan", "jaxpr", """
f = lambda x: (lax.tan(x) + lax.asin(x) + lax.acos(x) + lax.atan(x)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.linspace(-0.5, 0.5, 3))
""")

program("grad_asinh_acosh_atanh", "jaxpr", """
f = lambda x: (lax.asinh(x) + lax.acosh(x + 2.0) + lax.atanh(x)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.linspace(-0.5, 0.5, 3))
""")

program("jvp_tan_complex", "jaxpr", """
result = jax.make_jaxpr(lambda z: jax.jvp(lax.tan, (z,), (z,)))(jnp.ones(2, jnp.complex64))
""")

program("grad_atan2_scalar", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.atan2, (0, 1)))(jnp.float32(0.5), jnp.float32(2.0))
""")

program("grad_rem", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x, y: lax.rem(x, y).sum(), (0, 1)))(jnp.arange(1.0, 4.0), jnp.full(3, 0.7))
""")

program("jvp_rem_broadcast_size_one", "jaxpr", """
f = lambda x, y: jax.jvp(lambda x: lax.rem(x, y), (x,), (x,))
result = jax.make_jaxpr(f)(jnp.ones((3, 1)), jnp.ones((3, 4)))
""")

program("jvp_rem_broadcast_scalar", "jaxpr", """
f = lambda x, y: jax.jvp(lambda x: lax.rem(x, y), (x,), (x,))
result = jax.make_jaxpr(f)(jnp.float32(2.5), jnp.ones(4))
""")

program("grad_pow_both", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x, y: lax.pow(x, y).sum(), (0, 1)))(jnp.arange(1.0, 4.0), jnp.full(3, 1.5))
""")

program("grad_pow_scalar", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lax.pow, (0, 1)))(jnp.float32(2.0), jnp.float32(0.5))
""")

program("grad_pow_int_exponent_array", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x, n: lax.pow(x, n).sum()))(jnp.arange(3.0), jnp.arange(3))
""")

program("grad_pow_values", "value", """
x = jnp.array([0.0, 1.0, 2.0]); n = jnp.array([0, 1, 3])
result = jnp.stack([jax.grad(lambda x: lax.pow(x, n).sum())(x),
                    jax.grad(lambda y: lax.pow(x, y).sum())(jnp.array([2.0, 0.5, 1.5]))])
""")

program("grad_integer_pow_orders", "jaxpr", """
f = lambda x: (lax.integer_pow(x, 1) + lax.integer_pow(x, 2) + lax.integer_pow(x, 3)
               + lax.integer_pow(x, -2)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.arange(1.0, 4.0))
""")

program("grad_copy", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.copy_p.bind(x).sum()))(jnp.arange(3.0))
""")

program("grad_nextafter_error", "error", """
result = jax.grad(lax.nextafter)(jnp.float32(1.0), jnp.float32(2.0))
""")

program("grad_select_n_three_cases", "jaxpr", """
f = lambda x: lax.select_n(jnp.array([0, 1, 2]), x, 2 * x, 3 * x).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.arange(3.0))
""")

program("grad_select_n_one_linear_case", "jaxpr", """
f = lambda x: lax.select_n(x > 1.0, x, jnp.ones(3)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.arange(3.0))
""")

program("grad_select_scalar_predicate", "jaxpr", """
f = lambda x: lax.select_n(True, x, 2 * x).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.arange(3.0))
""")

program("grad_select_n_values", "value", """
f = lambda x: lax.select_n(jnp.array([0, 1, 2, 1]), x, 2 * x, 3 * x).sum()
result = jax.grad(f)(jnp.arange(4.0))
""")
