"""Programs for the elementwise primitives, recorded from JAX 0.11.0 into
``elementwise.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py elementwise

The set covers the jaxprs of the primitives with params or unusual types
(clamp, complex, conj's input_dtype, bitcast_convert_type's width changes,
reduce_precision, round's RoundingMethod, convert_element_type's constant
folding, pow's integer exponent, mulhi, the accuracy param), the values
where XLA's semantics differ from NumPy's (integer division and remainder,
NaN and signed-zero max/min, saturating float->int casts, shifts out of
range, reduce_precision's rounding), and the messages of the dtype, shape
and param checks.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- jaxprs ----

program("clamp_scalar_and_array_bounds", "jaxpr", """
def f(x, lo):
  return lax.clamp(0.0, x, 1.0), lax.clamp(lo, x, 1.0), lax.clamp(0, jnp.int32(3), 10)
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.zeros((2, 3)))
""")

program("complex_and_conj_input_dtype", "jaxpr", """
def f(x, c):
  return lax.complex(x, x), lax.complex(x, 1.0), lax.conj(c), lax.conj(x), lax.real(c), lax.imag(c), lax.abs(c)
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((2, 3), jnp.complex64))
""")

program("bitcast_convert_type_widths", "jaxpr", """
def f(x, b):
  return (lax.bitcast_convert_type(x, jnp.int32), lax.bitcast_convert_type(x, jnp.uint8),
          lax.bitcast_convert_type(x, jnp.bfloat16), lax.bitcast_convert_type(b, jnp.float32))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((2, 4), jnp.int8))
""")

program("reduce_precision_params", "jaxpr", """
def f(x):
  return lax.reduce_precision(x, 5, 10), lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7)
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("round_rounding_methods", "jaxpr", """
def f(x):
  return lax.round(x), lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), lax.round(x, 1)
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("convert_element_type_constants_fold", "jaxpr", """
import ml_dtypes
def f(x):
  return (x + lax.convert_element_type(2.0, jnp.float32), lax.convert_element_type(2.7, jnp.int32),
          lax.convert_element_type(np.ones(2), jnp.int32), lax.convert_element_type(True, jnp.float32),
          lax.convert_element_type(x, jnp.float32), lax.convert_element_type(x, jnp.bfloat16),
          lax.convert_element_type(x, ml_dtypes.float8_e4m3fn))
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("convert_element_type_strips_weak_type", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.float32))(1.0)
""")

program("pow_integer_exponent_and_integer_pow", "jaxpr", """
def f(x, n):
  return (lax.pow(x, 2), lax.pow(x, 2.0), lax.pow(x, n), lax.integer_pow(x, 3), lax.integer_pow(x, -2),
          lax.reciprocal(x), lax.square(x), lax.rsqrt(x))
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3, jnp.int32))
""")

program("integer_bit_ops", "jaxpr", """
def f(x):
  return (lax.mulhi(x, x), lax.population_count(x), lax.clz(x), lax.shift_left(x, 2),
          lax.shift_right_logical(x, x), lax.shift_right_arithmetic(x, 1), lax.bitwise_not(x),
          lax.rem(x, 3), lax.div(x, 2), lax.sign(x), lax.abs(x))
result = jax.make_jaxpr(f)(jnp.ones(3, jnp.int32))
""")

program("comparisons_of_python_scalars_are_weak", "jaxpr", """
def f(x):
  return lax.eq(x, 1.0), lax.lt(1.0, 2.0), lax.ne(2, 3), lax.is_finite(1.0), lax.clamp(0.0, 0.5, 1.0)
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("accuracy_param", "jaxpr", """
def f(x):
  return (lax.exp(x), lax.sin(x, accuracy=lax.AccuracyMode.HIGHEST), lax.tanh(x, accuracy=lax.AccuracyMode.DEFAULT),
          lax.exp2(x), lax.cbrt(x), lax.tan(x), lax.logistic(x), lax.nextafter(x, x))
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("select_n_integer_which_and_copy", "jaxpr", """
def f(i, x):
  return lax.select_n(i, x, x + 1.0, x * 2.0), lax.copy_p.bind(x)
result = jax.make_jaxpr(f)(jnp.int32(1), jnp.ones(3))
""")

program("total_order_comparisons", "jaxpr", """
def f(a, b):
  return lax.eq_to_p.bind(a, b), lax.lt_to_p.bind(a, b), lax.le_to_p.bind(1.0, 2.0)
result = jax.make_jaxpr(f)(jnp.ones(2), jnp.ones(2))
""")

# ---- values: where XLA and NumPy disagree ----

program("total_order_values", "value", """
x = jnp.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -np.inf, np.nan, 1.0], jnp.float32)
y = jnp.array([0.0, -0.0, np.nan, np.nan, np.nan, -np.nan, np.inf, 1.0], jnp.float32)
result = jnp.stack([lax.eq_to_p.bind(x, y), lax.le_to_p.bind(x, y), lax.lt_to_p.bind(x, y)])
""")

program("div_integer_rounds_to_zero_and_by_zero", "value", """
x = jnp.array([7, -7, 7, -7, 5, 0, -2**31, -2**31], jnp.int32)
y = jnp.array([2, 2, -2, -2, 0, 0, -1, 0], jnp.int32)
result = lax.div(x, y)
""")

program("rem_integer_by_zero_keeps_dividend", "value", """
x = jnp.array([7, -7, 7, -7, 5, 0, -2**31, -2**31], jnp.int32)
y = jnp.array([2, 2, -2, -2, 0, 0, -1, 0], jnp.int32)
result = lax.rem(x, y)
""")

program("div_unsigned_by_zero_is_all_ones", "value", """
result = lax.div(jnp.array([7, 200, 5, 0], jnp.uint8), jnp.array([2, 3, 0, 0], jnp.uint8))
""")

program("rem_float_fmod", "value", """
x = jnp.array([5.5, -5.5, 5.5, 1.0, np.inf, 1.0, 3.0], jnp.float32)
y = jnp.array([2.0, 2.0, -2.0, 0.0, 2.0, np.inf, np.nan], jnp.float32)
result = lax.rem(x, y)
""")

program("max_min_propagate_nan", "value", """
x = jnp.array([np.nan, 1.0, -1.0, np.nan], jnp.float32)
y = jnp.array([1.0, np.nan, 2.0, np.nan], jnp.float32)
result = jnp.stack([lax.max(x, y), lax.min(x, y)])
""")

program("float_to_int_saturates", "value", """
x = jnp.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 0.5], jnp.float32)
result = jnp.stack([lax.convert_element_type(x, jnp.int32), lax.convert_element_type(x, jnp.int8).astype(jnp.int32),
                    lax.convert_element_type(x, jnp.uint8).astype(jnp.int32)])
""")

program("shifts_out_of_range", "value", """
x = jnp.array([1, -8, -8, 8, -8, 8], jnp.int32)
s = jnp.array([31, 1, 31, 32, -1, 40], jnp.int32)
result = jnp.stack([lax.shift_left(x, s), lax.shift_right_arithmetic(x, s), lax.shift_right_logical(x, s)])
""")

program("clz_population_count_negative", "value", """
x = jnp.array([0, 1, -1, 2**30, -128], jnp.int32)
result = jnp.stack([lax.clz(x), lax.population_count(x)])
""")

program("mulhi_values", "value", """
result = lax.mulhi(jnp.array([2**30, -2**30, 7, -5], jnp.int32), jnp.array([8, 8, 3, 3], jnp.int32))
""")

program("pow_integer_exponent_rounds_to_base_dtype", "value", """
x = jnp.array([0.0, -2.0, -2.0, 2.0, 2.0, -1.0], jnp.float32)
n = jnp.array([-1, 3, -3, 31, 0, 2**31 - 1], jnp.int32)
result = lax.pow(x, n)
""")

program("round_both_methods", "value", """
x = jnp.array([0.5, 1.5, 2.5, -0.5, -1.5, -0.2, 2.4999998], jnp.float32)
result = jnp.stack([lax.round(x), lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)])
""")

program("reduce_precision_rounding", "value", """
x = jnp.array([1.00048828125, 1.0014648, 65519.0, 65520.0, 6.1e-5, 3.14159, -1.5e-7, np.nan, np.inf], jnp.float32)
result = jnp.stack([lax.reduce_precision(x, 5, 10), lax.reduce_precision(x, 8, 7), lax.reduce_precision(x, 3, 0)])
""")

program("bitcast_bytes_little_endian", "value", """
result = lax.bitcast_convert_type(jnp.array([1.0, -2.5], jnp.float32), jnp.uint8)
""")

program("nextafter_values", "value", """
result = lax.nextafter(jnp.array([0.0, 1.0, 1.0, 2.0], jnp.float32), jnp.array([1.0, 2.0, 0.0, 2.0], jnp.float32))
""")

program("clamp_values_nan_and_crossed_bounds", "value", """
x = jnp.array([-1.0, 0.5, 2.0, np.nan], jnp.float32)
result = jnp.stack([lax.clamp(jnp.float32(0), x, jnp.float32(1)), lax.clamp(jnp.float32(2), x, jnp.float32(1))])
""")

program("complex_parts_of_conj_of_real", "value", """
c = lax.conj(jnp.array([1.0, -2.0], jnp.float32))
result = jnp.stack([lax.real(c), lax.imag(c)])
""")

program("weak_clamp_of_python_scalars", "value", """
result = lax.clamp(0.0, 5.0, 3.0)
""")

# ---- errors ----

program("error_same_dtypes_with_tip", "error", """
result = lax.max(jnp.ones(3), jnp.ones(3, jnp.int32))
""")

program("error_same_dtypes_without_tip", "error", """
result = lax.lt(jnp.ones(3), jnp.ones(3, jnp.int32))
""")

program("error_rank_mismatch", "error", """
result = lax.add(jnp.ones((3, 2)), jnp.ones(2))
""")

program("error_incompatible_shapes", "error", """
result = lax.mul(jnp.ones((3, 2)), jnp.ones((4, 2)))
""")

program("error_abs_unsigned", "error", """
result = lax.abs(jnp.ones(3, jnp.uint8))
""")

program("error_mul_bool", "error", """
result = lax.mul(True, False)
""")

program("error_lt_complex", "error", """
result = lax.lt(jnp.ones(3, jnp.complex64), jnp.ones(3, jnp.complex64))
""")

program("error_conj_float16", "error", """
result = lax.conj(jnp.ones(3, jnp.float16))
""")

program("error_pow_mixed_inexact", "error", """
result = lax.pow(jnp.ones(3), jnp.ones(3, jnp.float16))
""")

program("error_pow_bool_exponent", "error", """
result = lax.pow(jnp.ones(3), True)
""")

program("error_integer_pow_negative", "error", """
result = lax.integer_pow(jnp.ones((2, 3), jnp.uint8), -2)
""")

program("error_clamp_shape", "error", """
result = lax.clamp(jnp.zeros(3), jnp.ones(2), 1.0)
""")

program("error_clamp_dtypes", "error", """
result = lax.clamp(0, jnp.ones(3), 10)
""")

program("error_complex_float16", "error", """
result = lax.complex(jnp.ones(2), jnp.ones(2, jnp.float16))
""")

program("error_bitcast_width", "error", """
result = lax.bitcast_convert_type(jnp.ones(3, jnp.int8), jnp.int32)
""")

program("error_bitcast_bool", "error", """
result = lax.bitcast_convert_type(jnp.ones(3), jnp.bool_)
""")

program("error_reduce_precision_bits", "error", """
result = lax.reduce_precision(1.0, 0, 2)
""")

program("error_reduce_precision_int", "error", """
result = lax.reduce_precision(jnp.ones(3, jnp.int32), 5, 10)
""")

program("error_round_method", "error", """
result = lax.round(1.0, 2)
""")

program("error_select_which_dtype", "error", """
result = lax.select_n(jnp.float32(1), 1.0, 2.0)
""")

program("error_select_boolean_three_cases", "error", """
result = lax.select_n(True, 1.0, 2.0, 3.0)
""")

program("error_select_no_cases", "error", """
result = lax.select_n(True)
""")

program("error_lt_to_complex", "error", """
result = lax.lt_to_p.bind(jnp.ones(2, jnp.complex64), jnp.ones(2, jnp.complex64))
""")

program("error_mulhi_float", "error", """
result = lax.mulhi(jnp.ones(3), jnp.ones(3))
""")
