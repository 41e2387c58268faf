"""Programs for the special functions, recorded from JAX 0.11.0 into
``special.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py special

The set covers the jaxprs of the special-function primitives (betainc binds
regularized_incomplete_beta; Python scalars enter as weak literals; float16
stays float16), values inside the domains (where XLA's float32 algorithms
agree with the float64 truth to the comparison's tolerance) and at their
edges (poles, NaN and infinity conventions), and the dtype and shape
messages. lax.random_gamma_grad has values only: in JAX it is a traced
function (while loops), in pyjax a primitive.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- jaxprs ----

program("special_unary_jaxpr", "jaxpr", """
def f(x):
  return (lax.erf(x), lax.erfc(x), lax.erf_inv(x), lax.lgamma(x), lax.digamma(x),
          lax.bessel_i0e(x), lax.bessel_i1e(x))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("special_binary_jaxpr", "jaxpr", """
def f(a, x):
  return (lax.polygamma(a, x), lax.igamma(a, x), lax.igammac(a, x), lax.igamma_grad_a(a, x),
          lax.zeta(a, x))
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
""")

program("betainc_is_regularized_incomplete_beta", "jaxpr", """
result = jax.make_jaxpr(lax.betainc)(jnp.ones(3), jnp.ones(3), jnp.ones(3))
""")

program("special_python_scalar_operands", "jaxpr", """
def f(x):
  return lax.polygamma(1.0, x), lax.igamma(x, 2.0), lax.zeta(2.0, x), lax.betainc(1.0, 2.0, x), lax.erf(0.5)
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("special_float16_and_bfloat16", "jaxpr", """
def f(h, b):
  return lax.erf(h), lax.lgamma(h), lax.igamma(h, h), lax.digamma(b), lax.zeta(b, b)
result = jax.make_jaxpr(f)(jnp.ones(3, jnp.float16), jnp.ones(3, jnp.bfloat16))
""")

program("special_under_jit", "jaxpr", """
@jax.jit
def g(x):
  return lax.lgamma(x) + lax.digamma(x)
result = jax.make_jaxpr(g)(jnp.ones(4))
""")

# ---- values inside the domains ----

program("erf_erfc_values", "value", """
x = jnp.array([-2.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0], jnp.float32)
result = jnp.stack([lax.erf(x), lax.erfc(x)])
""")

program("erf_inv_values", "value", """
result = lax.erf_inv(jnp.array([-0.9, -0.5, 0.0, 0.1, 0.5, 0.9], jnp.float32))
""")

program("lgamma_digamma_values", "value", """
x = jnp.array([0.5, 5.0, 2.0, 3.0, 4.5, 10.0, -0.5, -2.5], jnp.float32)
result = jnp.stack([lax.lgamma(x), lax.digamma(x)])
""")

program("bessel_values", "value", """
x = jnp.array([-10.0, -1.0, 0.5, 1.0, 2.0, 10.0, 100.0], jnp.float32)
result = jnp.stack([lax.bessel_i0e(x), lax.bessel_i1e(x)])
""")

program("polygamma_values", "value", """
result = lax.polygamma(jnp.array([0.0, 1.0, 2.0, 3.0], jnp.float32), jnp.array([2.0, 2.0, 0.5, 1.5], jnp.float32))
""")

program("igamma_igammac_values", "value", """
a = jnp.array([0.5, 1.0, 2.0, 5.0, 3.0], jnp.float32)
x = jnp.array([0.3, 1.0, 1.0, 7.0, 0.5], jnp.float32)
result = jnp.stack([lax.igamma(a, x), lax.igammac(a, x)])
""")

program("igamma_grad_a_values", "value", """
result = lax.igamma_grad_a(jnp.array([0.5, 1.0, 2.0, 5.0, 10.0], jnp.float32),
                           jnp.array([0.3, 1.0, 1.0, 7.0, 3.0], jnp.float32))
""")

program("random_gamma_grad_values", "value", """
result = lax.random_gamma_grad(jnp.array([0.5, 1.0, 2.0, 5.0, 10.0, 3.0], jnp.float32),
                               jnp.array([0.3, 1.0, 1.0, 7.0, 3.0, 0.0], jnp.float32))
""")

program("zeta_values", "value", """
result = lax.zeta(jnp.array([2.0, 3.0, 4.0, 2.0, 1.5], jnp.float32), jnp.array([1.0, 1.0, 2.0, 0.5, 1.0], jnp.float32))
""")

program("betainc_values", "value", """
a = jnp.array([1.0, 2.0, 0.5, 5.0, 1.0], jnp.float32)
b = jnp.array([1.0, 3.0, 0.5, 0.5, 1.0], jnp.float32)
x = jnp.array([0.5, 0.2, 0.9, 0.7, 0.0], jnp.float32)
result = lax.betainc(a, b, x)
""")

program("special_weak_scalar_value", "value", """
result = lax.erf(0.5)
""")

program("special_float16_value", "value", """
result = lax.lgamma(jnp.array([0.5, 3.0, 10.0], jnp.float16))
""")

# ---- values at the domains' edges ----

program("lgamma_digamma_poles", "value", """
x = jnp.array([0.0, -1.0, -3.0, -np.inf, np.inf, np.nan], jnp.float32)
result = jnp.stack([lax.lgamma(x), lax.digamma(x)])
""")

program("erf_inv_endpoints", "value", """
result = lax.erf_inv(jnp.array([1.0, -1.0, 1.5, -2.0, np.nan], jnp.float32))
""")

program("polygamma_needs_integer_order", "value", """
result = lax.polygamma(jnp.array([1.5, -1.0, np.inf, 2.0, 1.0], jnp.float32),
                       jnp.array([2.0, 2.0, 1.0, -3.0, -np.inf], jnp.float32))
""")

program("igamma_domain", "value", """
a = jnp.array([0.0, 1.0, 1.0, -1.0, 2.0, 0.0, np.inf, 0.0, 0.0], jnp.float32)
x = jnp.array([1.0, 0.0, -1.0, 1.0, np.inf, 0.0, 1.0, 0.5, 2.0], jnp.float32)
result = jnp.stack([lax.igamma(a, x), lax.igammac(a, x)])
""")

program("igamma_grad_a_domain", "value", """
result = lax.igamma_grad_a(jnp.array([1.0, 0.0, -1.0, 1.0, 1.0], jnp.float32),
                           jnp.array([0.0, 1.0, 1.0, -1.0, np.inf], jnp.float32))
""")

program("zeta_poles_and_domain", "value", """
x = jnp.array([1.0, 0.5, 0.0, -2.0, 0.0, 2.0, 3.0, 1.5, np.inf, 2.0], jnp.float32)
q = jnp.array([0.5, 1.0, -3.0, -1.0, 0.5, -np.inf, -np.inf, -3.0, 2.0, np.inf], jnp.float32)
result = lax.zeta(x, q)
""")

program("betainc_domain", "value", """
a = jnp.array([0.0, -1.0, 1.0, 2.0, 1.0], jnp.float32)
b = jnp.array([1.0, 1.0, 0.0, 2.0, 1.0], jnp.float32)
x = jnp.array([0.5, 0.5, 0.5, 1.5, 1.0], jnp.float32)
result = lax.betainc(a, b, x)
""")

# ---- errors ----

program("error_erf_integer", "error", """
result = lax.erf(jnp.ones(3, jnp.int32))
""")

program("error_lgamma_complex", "error", """
result = lax.lgamma(jnp.ones(3, jnp.complex64))
""")

program("error_polygamma_python_int_order", "error", """
result = lax.polygamma(1, jnp.ones(3))
""")

program("error_igamma_mixed_dtypes", "error", """
result = lax.igamma(jnp.ones(3), jnp.ones(3, jnp.float16))
""")

program("error_betainc_mixed_dtypes", "error", """
result = lax.betainc(jnp.ones(3), jnp.ones(3), jnp.ones(3, jnp.bfloat16))
""")

program("error_zeta_integer_q", "error", """
result = lax.zeta(jnp.ones(3), jnp.ones(3, jnp.int32))
""")

program("error_betainc_rank", "error", """
result = lax.betainc(jnp.ones((3, 2)), jnp.ones(2), jnp.ones((1, 1, 2)))
""")

program("error_igammac_shapes", "error", """
result = lax.igammac(jnp.ones((3, 2)), jnp.ones((4, 2)))
""")
