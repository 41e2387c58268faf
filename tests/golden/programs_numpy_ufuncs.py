"""jax.numpy elementwise programs (ufuncs, promotion, logic and the
composite float functions) whose JAX 0.11.0 behaviour is recorded in
numpy_ufuncs.json (see programs_core.py for the format; record with
`record_core.py numpy_ufuncs`)."""

import textwrap

from programs_core import Program

PROGRAMS: list[Program] = []


def program(name: str, expect: str, source: str) -> None:
    if any(p.name == name for p in PROGRAMS):
        raise ValueError(f"duplicate program name {name!r}")
    PROGRAMS.append(Program(name, textwrap.dedent(source).strip("\n") + "\n", expect))


def jaxpr(name: str, body: str, *args: str) -> None:
    program(name, "jaxpr", f"result = jax.make_jaxpr({body})({', '.join(args)})")


def value(name: str, expression: str) -> None:
    program(name, "value", f"result = {expression}")


def error(name: str, source: str) -> None:
    program(name, "error", source)


F = "jnp.ones(3)"
I = "jnp.arange(3)"
U = "jnp.arange(3, dtype=jnp.uint8)"
C = "jnp.ones(3, jnp.complex64)"
B = "jnp.ones(3, bool)"

# ---- arithmetic and promotion
jaxpr("add_int_float", "lambda a, b: jnp.add(a, b)", I, F)
jaxpr("add_bool", "lambda a, b: a + b", B, B)
jaxpr("multiply_bool", "jnp.multiply", B, B)
jaxpr("subtract_weak", "lambda a: jnp.subtract(2, a)", I)
jaxpr("true_divide_ints", "jnp.true_divide", I, I)
jaxpr("divide_scalar", "lambda a: a / 2", I)
jaxpr("floor_divide_int", "jnp.floor_divide", I, I)
jaxpr("floor_divide_uint", "lambda a: a // 2", U)
jaxpr("floor_divide_float", "jnp.floor_divide", F, F)
jaxpr("remainder_int", "jnp.remainder", I, I)
jaxpr("mod_float_operator", "lambda a: a % 1.5", F)
jaxpr("fmod", "jnp.fmod", I, I)
jaxpr("divmod_int", "jnp.divmod", I, I)
jaxpr("divmod_float", "jnp.divmod", F, F)
jaxpr("power_static_int", "lambda a: jnp.power(a, 3)", F)
jaxpr("power_operator_float", "lambda a: a ** 2.5", F)
jaxpr("power_int_int_traced", "jnp.power", I, I)
jaxpr("power_float_int_array", "jnp.power", F, I)
jaxpr("float_power", "jnp.float_power", I, I)
jaxpr("negative_positive", "lambda a: (jnp.negative(a), jnp.positive(a))", I)
jaxpr("abs_uint_bool", "lambda a, b: (jnp.abs(a), jnp.absolute(b))", U, B)
jaxpr("abs_complex", "jnp.abs", C)
jaxpr("fabs_int", "jnp.fabs", I)
jaxpr("sign", "jnp.sign", F)
jaxpr("square_bool", "jnp.square", B)
jaxpr("reciprocal_int", "jnp.reciprocal", I)
jaxpr("maximum_minimum", "lambda a, b: (jnp.maximum(a, b), jnp.minimum(a, 0))", F, F)
jaxpr("fmax_fmin", "lambda a, b: (jnp.fmax(a, b), jnp.fmin(a, b))", F, F)
jaxpr("clip", "lambda a: jnp.clip(a, 0.5, 2)", F)
jaxpr("clip_min_only", "lambda a: jnp.clip(a, min=1)", I)
jaxpr("heaviside", "jnp.heaviside", F, F)
jaxpr("hypot", "jnp.hypot", F, F)
jaxpr("copysign", "jnp.copysign", F, F)
jaxpr("nextafter", "jnp.nextafter", F, F)
jaxpr("gcd", "jnp.gcd", I, I)
jaxpr("lcm", "jnp.lcm", I, I)
value("value_floor_divide_negative", "jnp.floor_divide(jnp.array([-7, 7, -7, 7]), jnp.array([2, -2, -2, 2]))")
value("value_remainder_signs", "jnp.remainder(jnp.array([-7.5, 7.5, -7, 7]), jnp.array([2.0, -2.0, 2.0, -2.0]))")
value("value_remainder_zero_int", "jnp.remainder(jnp.array([5, -5]), jnp.array([0, 0]))")
value("value_divmod_float", "jnp.stack(jnp.divmod(jnp.array([-3.5, 3.5]), 2.0))")
value("value_fmod", "jnp.fmod(jnp.array([-7, 7]), 3)")
value("value_power_int", "jnp.power(jnp.array([2, 3, 0, -2]), jnp.array([10, 0, 0, 3]))")
error("error_power_negative_int", "result = jnp.power(jnp.array([2, 1, -1]), -1)")
value("value_float_power", "jnp.float_power(jnp.array([2, 3]), jnp.array([-1, 2]))")
value("value_hypot_inf", "jnp.hypot(jnp.array([3.0, jnp.inf, 1e30]), jnp.array([4.0, jnp.nan, 1e30]))")
value("value_gcd_lcm", "jnp.stack([jnp.gcd(jnp.array([12, -18, 0]), jnp.array([8, 27, 0])), jnp.lcm(jnp.array([4, -6, 0]), jnp.array([6, 4, 3]))])")
value("value_heaviside", "jnp.heaviside(jnp.array([-1.0, 0.0, 2.0, jnp.nan]), 0.5)")
value("value_copysign", "jnp.copysign(jnp.array([1.0, -2.0, 3.0]), jnp.array([-0.0, 1.0, -1.0]))")
value("value_spacing", "jnp.spacing(jnp.array([1.0, -1.0, 0.0]))")
error("error_floor_divide_complex", "result = jnp.floor_divide(jnp.ones(2, jnp.complex64), 2)")
error("error_clip_complex", "result = jnp.clip(jnp.ones(2, jnp.complex64), 0, 1)")
error("error_clip_none", "result = jnp.clip()")
error("error_hypot_complex", "result = jnp.hypot(jnp.ones(2, jnp.complex64), 1.0)")

# ---- transcendental
jaxpr("exp_int", "jnp.exp", I)
jaxpr("log_family", "lambda a: (jnp.log(a), jnp.log2(a), jnp.log10(a), jnp.log1p(a))", F)
jaxpr("log2_log10_complex", "lambda a: (jnp.log2(a), jnp.log10(a))", C)
jaxpr("trig", "lambda a: (jnp.sin(a), jnp.cos(a), jnp.tan(a), jnp.arcsin(a), jnp.arccos(a), jnp.arctan(a))", F)
jaxpr("hyperbolic", "lambda a: (jnp.sinh(a), jnp.cosh(a), jnp.tanh(a), jnp.arcsinh(a), jnp.arccosh(a), jnp.arctanh(a))", F)
jaxpr("arccosh_complex", "jnp.arccosh", C)
jaxpr("arctan2_int", "jnp.arctan2", I, I)
jaxpr("sqrt_cbrt", "lambda a: (jnp.sqrt(a), jnp.cbrt(a))", F)
jaxpr("exp2_expm1", "lambda a: (jnp.exp2(a), jnp.expm1(a))", I)
jaxpr("logaddexp", "jnp.logaddexp", F, F)
jaxpr("logaddexp2", "jnp.logaddexp2", F, F)
jaxpr("deg_rad", "lambda a: (jnp.deg2rad(a), jnp.rad2deg(a), jnp.degrees(a), jnp.radians(a))", F)
jaxpr("sinc", "jnp.sinc", F)
jaxpr("sinc_weak_scalar", "jnp.sinc", "0.5")
jaxpr("i0", "jnp.i0", F)
jaxpr("grad_logaddexp", "jax.grad(lambda a, b: jnp.logaddexp(a, b))", "1.0", "2.0")
value("value_logaddexp_inf", "jnp.logaddexp(jnp.array([-jnp.inf, jnp.inf, 1.0]), jnp.array([-jnp.inf, jnp.inf, 2.0]))")
value("value_logaddexp2", "jnp.logaddexp2(jnp.array([1.0, 3.0]), jnp.array([1.0, 0.0]))")
value("value_sinc", "jnp.sinc(jnp.array([0.0, 0.5, 1.0, -1.5]))")
value("value_grad_sinc_zero", "jax.grad(jnp.sinc)(0.0)")
value("value_i0", "jnp.i0(jnp.array([0.0, 1.0, -2.5]))")
value("value_arccosh_below_one", "jnp.arccosh(jnp.array([0.5, 1.0, 2.0]))")

# ---- rounding and float structure
jaxpr("round_decimals", "lambda a: jnp.round(a, 2)", F)
jaxpr("round_int_noop", "jnp.round", I)
jaxpr("around_float16", "lambda a: jnp.around(a, 1)", "jnp.ones(3, jnp.float16)")
jaxpr("rint", "jnp.rint", F)
jaxpr("rint_int", "jnp.rint", I)
jaxpr("floor_ceil_trunc", "lambda a: (jnp.floor(a), jnp.ceil(a), jnp.trunc(a))", F)
jaxpr("floor_int_noop", "jnp.floor", I)
jaxpr("signbit", "jnp.signbit", F)
jaxpr("signbit_int", "jnp.signbit", I)
jaxpr("frexp", "jnp.frexp", F)
jaxpr("ldexp", "jnp.ldexp", F, I)
jaxpr("modf", "jnp.modf", F)
jaxpr("nan_to_num", "jnp.nan_to_num", F)
jaxpr("nan_to_num_complex", "lambda a: jnp.nan_to_num(a, nan=1.0)", C)
value("value_round_half_even", "jnp.round(jnp.array([0.5, 1.5, 2.5, -0.5, 1.25]), 1)")
value("value_rint", "jnp.rint(jnp.array([0.5, 1.5, -2.5, 2.7]))")
value("value_trunc", "jnp.trunc(jnp.array([-1.7, 1.7]))")
value("value_frexp", "jnp.stack([v.astype(float) for v in jnp.frexp(jnp.array([8.0, 0.3, -5.0, 0.0]))])")
value("value_ldexp", "jnp.ldexp(jnp.array([1.0, 0.75, 3.0]), jnp.array([3, -1, 0]))")
value("value_modf", "jnp.stack(jnp.modf(jnp.array([2.5, -1.25])))")
value("value_signbit", "jnp.signbit(jnp.array([-0.0, 0.0, -1.0, jnp.inf]))")
value("value_nan_to_num", "jnp.nan_to_num(jnp.array([jnp.nan, jnp.inf, -jnp.inf, 1.0]), posinf=9.0)")
error("error_ldexp_float_exponent", "result = jnp.ldexp(jnp.ones(2), jnp.ones(2))")
error("error_frexp_complex", "result = jnp.frexp(jnp.ones(2, jnp.complex64))")

# ---- comparisons, logic, bits
jaxpr("comparisons_complex", "lambda a, b: (jnp.less(a, b), jnp.greater_equal(a, b))", C, C)
jaxpr("equal_weak", "lambda a: jnp.equal(a, 1)", F)
jaxpr("logical_ops", "lambda a, b: (jnp.logical_and(a, b), jnp.logical_or(a, b), jnp.logical_xor(a, b), jnp.logical_not(a))", I, B)
jaxpr("bitwise", "lambda a, b: (a & b, a | b, a ^ b, ~a)", I, I)
jaxpr("shifts", "lambda a, b: (a << b, a >> b, jnp.right_shift(a, b))", I, U)
jaxpr("shift_uint", "lambda a: jnp.right_shift(a, 1)", U)
jaxpr("bitwise_count", "jnp.bitwise_count", I)
jaxpr("isfinite_isnan_isinf", "lambda a: (jnp.isfinite(a), jnp.isnan(a), jnp.isinf(a), jnp.isposinf(a), jnp.isneginf(a))", F)
jaxpr("isfinite_complex_int", "lambda a, b: (jnp.isfinite(a), jnp.isinf(b))", C, I)
jaxpr("iscomplex_isreal", "lambda a: (jnp.iscomplex(a), jnp.isreal(a))", C)
jaxpr("real_imag_conj_angle", "lambda a: (jnp.real(a), jnp.imag(a), jnp.conj(a), jnp.angle(a, deg=True))", C)
jaxpr("imag_of_real", "jnp.imag", F)
jaxpr("isclose", "jnp.isclose", F, F)
jaxpr("isclose_equal_nan", "lambda a, b: jnp.isclose(a, b, rtol=0.1, equal_nan=True)", I, F)
jaxpr("allclose", "jnp.allclose", F, F)
jaxpr("array_equal", "jnp.array_equal", F, F)
jaxpr("array_equal_nan", "lambda a, b: jnp.array_equal(a, b, equal_nan=True)", F, F)
jaxpr("array_equiv", "jnp.array_equiv", F, "jnp.ones((2, 3))")
jaxpr("where_scalar_cond", "lambda c, x: jnp.where(c, x, 2)", "True", "jnp.ones((2, 3))")
jaxpr("where_int_cond", "lambda c, x: jnp.where(c, x, 2.0)", I, "jnp.ones((2, 3))")
jaxpr("where_rank_broadcast", "lambda c, x: jnp.where(c, x, -1e30)", "jnp.ones((1, 2, 3), bool)", "jnp.ones((4, 1, 2, 3))")
value("value_less_complex", "jnp.less(jnp.array([1 + 2j, 1 + 1j, 0 + 5j]), jnp.array([1 + 3j, 1 + 1j, 1 + 0j]))")
value("value_isclose", "jnp.isclose(jnp.array([1.0, jnp.inf, jnp.nan, 1e-9]), jnp.array([1.0 + 1e-6, jnp.inf, jnp.nan, 0.0]))")
value("value_allclose_atol", "jnp.allclose(jnp.array([1.0, 2.0]), jnp.array([1.1, 2.1]), atol=0.2)")
value("value_array_equal_shapes", "jnp.array_equal(jnp.ones(2), jnp.ones(3))")
value("value_array_equiv_broadcast", "jnp.array_equiv(jnp.array([1, 2]), jnp.array([[1, 2], [1, 2]]))")
value("value_angle_real_scalar", "jnp.angle(-1.0)")
value("value_bitwise_count", "jnp.bitwise_count(jnp.array([0, 7, -1, 255]))")
value("value_shifts_signed", "jnp.right_shift(jnp.array([-8, 8]), 1)")
value("value_logical_not_float", "jnp.logical_not(jnp.array([0.0, 2.0]))")
error("error_where_one_of_two", "result = jnp.where(jnp.ones(2, bool), jnp.ones(2))")
error("error_where_size_three_args", "result = jnp.where(jnp.ones(2, bool), 1.0, 0.0, size=2)")
error("error_signbit_complex", "result = jnp.signbit(jnp.ones(2, jnp.complex64))")
error("error_isposinf_complex", "result = jnp.isposinf(jnp.ones(2, jnp.complex64))")

# ---- scalar types and dtype helpers
value("value_float32_call", "jnp.float32(3)")
value("value_int8_call_array", "jnp.int8(jnp.array([1.7, -2.2]))")
value("value_bool_call", "jnp.bool_([0, 2])")
value("value_astype_complex_to_bool", "jnp.astype(jnp.array([0j, 1j]), bool)")
value("value_astype_none", "jnp.astype(jnp.arange(2), None)")
jaxpr("astype_method_copy", "lambda a: jnp.astype(a, jnp.int32, copy=True)", F)
program("text_result_type_weak", "text", "result = str(jnp.result_type(jnp.int8, 2.0))")
program("text_promote_types", "text", "result = str(jnp.promote_types(jnp.int8, jnp.uint8))")
program("text_issubdtype", "text", "result = str((jnp.issubdtype(jnp.bfloat16, jnp.floating), jnp.issubdtype(jnp.int32, jnp.integer)))")
program("text_isdtype", "text", "result = str((jnp.isdtype(jnp.float32, 'real floating'), jnp.isdtype(jnp.int8, ('bool', 'integral'))))")
program("text_finfo_iinfo", "text", "result = str((float(jnp.finfo(jnp.float16).eps), int(jnp.iinfo(jnp.int8).max), jnp.finfo(jnp.bfloat16).bits))")
program("text_scalar_type_eq", "text", "result = str((jnp.float32 == jnp.float32.dtype.type, jnp.dtype(jnp.float32), jnp.int_ == jnp.int64))")
program("text_can_cast", "text", "result = str((jnp.can_cast(jnp.int32, jnp.float32), jnp.can_cast(jnp.int8, jnp.int16)))")

# ---- ufunc methods
value("value_add_reduce", "jnp.add.reduce(jnp.arange(6).reshape(2, 3), axis=1)")
value("value_multiply_accumulate", "jnp.multiply.accumulate(jnp.arange(1, 5))")
value("value_add_outer", "jnp.add.outer(jnp.arange(3), jnp.arange(2))")
value("value_add_at", "jnp.add.at(jnp.zeros(4), jnp.array([0, 0, 3]), 1.0, inplace=False)")
value("value_maximum_reduce", "jnp.maximum.reduce(jnp.array([[1, 5], [7, 2]]), axis=0)")
value("value_frompyfunc_reduce", "jnp.frompyfunc(lambda a, b: a * 10 + b, 2, 1, identity=0).reduce(jnp.array([1, 2, 3]))")
error("error_add_at_inplace", "result = jnp.add.at(jnp.zeros(2), 0, 1.0)")
