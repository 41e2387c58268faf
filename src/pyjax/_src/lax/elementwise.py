"""Elementwise primitives: arithmetic, transcendental, comparison, bitwise,
select_n, convert_element_type and stop_gradient.

Each primitive is made by a family builder (see _standard.py) and followed
by its public wrapper. lax does not promote: operands of a binary primitive
must share a dtype (Python scalars are weakly typed values of the default
dtype of their kind), and shapes broadcast only through size-1 dimensions
of equal rank or rank-0 operands.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.lax._standard import (
    ANY,
    BOOL_OR_NUMBER,
    FLOAT,
    FLOAT_INT_BOOL,
    FLOAT_OR_COMPLEX,
    FLOAT_OR_INT,
    INT,
    INT_OR_BOOL,
    NUMBER,
    SIGNED_NUMBER,
    check_same_dtypes,
    standard_naryop,
    standard_unop,
    unary_dtype_check,
)



def _real_dtype(dtype):
    return np.finfo(dtype).dtype if np.issubdtype(dtype, np.complexfloating) else dtype


# --- unary arithmetic
neg_p = standard_unop("neg", NUMBER)
sign_p = standard_unop("sign", NUMBER)
abs_p = standard_unop("abs", SIGNED_NUMBER, result_dtype=lambda d: _real_dtype(d))
floor_p = standard_unop("floor", FLOAT)
ceil_p = standard_unop("ceil", FLOAT)
round_p = standard_unop("round", FLOAT)
is_finite_p = standard_unop("is_finite", FLOAT, result_dtype=lambda d: np.dtype(bool))
square_p = standard_unop("square", NUMBER)
not_p = standard_unop("not", INT_OR_BOOL)
population_count_p = standard_unop("population_count", INT)
clz_p = standard_unop("clz", INT)
real_p = standard_unop("real", FLOAT_OR_COMPLEX[1:], result_dtype=lambda d: _real_dtype(d))
imag_p = standard_unop("imag", FLOAT_OR_COMPLEX[1:], result_dtype=lambda d: _real_dtype(d))
conj_p = standard_unop("conj", FLOAT_OR_COMPLEX)

# --- transcendental (float or complex; `accuracy` param hidden when None)
exp_p = standard_unop("exp", FLOAT_OR_COMPLEX)
exp2_p = standard_unop("exp2", FLOAT_OR_COMPLEX)
log_p = standard_unop("log", FLOAT_OR_COMPLEX)
log1p_p = standard_unop("log1p", FLOAT_OR_COMPLEX)
expm1_p = standard_unop("expm1", FLOAT_OR_COMPLEX)
sqrt_p = standard_unop("sqrt", FLOAT_OR_COMPLEX)
rsqrt_p = standard_unop("rsqrt", FLOAT_OR_COMPLEX)
cbrt_p = standard_unop("cbrt", FLOAT)
sin_p = standard_unop("sin", FLOAT_OR_COMPLEX)
cos_p = standard_unop("cos", FLOAT_OR_COMPLEX)
tan_p = standard_unop("tan", FLOAT_OR_COMPLEX)
asin_p = standard_unop("asin", FLOAT_OR_COMPLEX)
acos_p = standard_unop("acos", FLOAT_OR_COMPLEX)
atan_p = standard_unop("atan", FLOAT_OR_COMPLEX)
sinh_p = standard_unop("sinh", FLOAT_OR_COMPLEX)
cosh_p = standard_unop("cosh", FLOAT_OR_COMPLEX)
tanh_p = standard_unop("tanh", FLOAT_OR_COMPLEX)
asinh_p = standard_unop("asinh", FLOAT_OR_COMPLEX)
acosh_p = standard_unop("acosh", FLOAT_OR_COMPLEX)
atanh_p = standard_unop("atanh", FLOAT_OR_COMPLEX)
logistic_p = standard_unop("logistic", FLOAT_OR_COMPLEX)

# --- binary arithmetic
add_p = standard_naryop("add", (NUMBER, NUMBER))
sub_p = standard_naryop("sub", (NUMBER, NUMBER))
mul_p = standard_naryop("mul", (BOOL_OR_NUMBER, BOOL_OR_NUMBER))
div_p = standard_naryop("div", (NUMBER, NUMBER))
rem_p = standard_naryop("rem", (FLOAT_OR_INT, FLOAT_OR_INT))
pow_p = standard_naryop("pow", (FLOAT_OR_COMPLEX, FLOAT_OR_COMPLEX))
max_p = standard_naryop("max", (ANY, ANY))
min_p = standard_naryop("min", (ANY, ANY))
atan2_p = standard_naryop("atan2", (FLOAT, FLOAT))
nextafter_p = standard_naryop("nextafter", (FLOAT, FLOAT))
and_p = standard_naryop("and", (INT_OR_BOOL, INT_OR_BOOL))
or_p = standard_naryop("or", (INT_OR_BOOL, INT_OR_BOOL))
xor_p = standard_naryop("xor", (INT_OR_BOOL, INT_OR_BOOL))
shift_left_p = standard_naryop("shift_left", (INT, INT))
shift_right_arithmetic_p = standard_naryop("shift_right_arithmetic", (INT, INT))
shift_right_logical_p = standard_naryop("shift_right_logical", (INT, INT))
mul_p.pp_hidden = lambda key, value: key == "out_dtype" and value is None

# --- comparisons: bool results, never weak
_to_bool = lambda d: np.dtype(bool)  # noqa: E731


def _comparison(name: str) -> Primitive:
    primitive = standard_naryop(name, (FLOAT_INT_BOOL + NUMBER[1:2], FLOAT_INT_BOOL + NUMBER[1:2]),
                                result_dtype=_to_bool)
    base_rule = primitive.abstract_eval

    def abstract_eval(x, y):
        out = base_rule(x, y)
        return ShapedArray(out.shape, out.dtype, False)

    primitive.def_abstract_eval(abstract_eval)
    return primitive


eq_p = _comparison("eq")
ne_p = _comparison("ne")
lt_p = _comparison("lt")
le_p = _comparison("le")
gt_p = _comparison("gt")
ge_p = _comparison("ge")


# --- integer_pow
integer_pow_p = Primitive("integer_pow")


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x: ShapedArray, *, y: int) -> ShapedArray:
    unary_dtype_check("integer_pow", NUMBER, x)
    if y < 0 and np.issubdtype(x.dtype, np.integer):
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({x.str_short()}, {y})")
    return x


# --- select_n
select_n_p = Primitive("select_n")


@select_n_p.def_abstract_eval
def _select_n_abstract_eval(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
    if not cases:
        raise ValueError("select_n called with no cases")
    if which.dtype != np.bool_ and not np.issubdtype(which.dtype, np.integer):
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype}.")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    case = cases[0]
    if any(c.shape != case.shape for c in cases[1:]):
        raise TypeError(f"select cases must have the same shapes, got [{', '.join(str(c.shape) for c in cases)}].")
    check_same_dtypes("select", *cases)
    if which.shape and which.shape != case.shape:
        raise TypeError(
            "select `which` must be scalar or have the same shape as cases, got `which` "
            f"shape {which.shape} but case shape {case.shape}."
        )
    return ShapedArray(case.shape, case.dtype, all(c.weak_type for c in cases))


# --- convert_element_type
convert_element_type_p = Primitive("convert_element_type")
convert_element_type_p.pp_hidden = lambda key, value: key == "sharding"


@convert_element_type_p.def_abstract_eval
def _convert_element_type_abstract_eval(operand: ShapedArray, *, new_dtype, weak_type, sharding) -> ShapedArray:
    return ShapedArray(operand.shape, new_dtype, weak_type, sharding if sharding is not None else operand.sharding)


# --- stop_gradient: identity whose derivative is zero
stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.def_abstract_eval(lambda x: x)

# --- copy
copy_p = Primitive("copy")
copy_p.def_abstract_eval(lambda x: x)



# ---------------------------------------------------------------------------
# Public wrappers (pyjax.lax)


def _unary(primitive: Primitive, doc: str):
    def wrapper(x, /, **params):
        return primitive.bind(x, **params)

    wrapper.__name__ = wrapper.__qualname__ = primitive.name
    wrapper.__doc__ = doc
    return wrapper


def _binary(primitive: Primitive, name: str, doc: str):
    def wrapper(x, y, /):
        return primitive.bind(x, y)

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = doc
    return wrapper


def _accuracy_unary(primitive: Primitive, doc: str):
    def wrapper(x, /, accuracy=None):
        return primitive.bind(x, accuracy=accuracy)

    wrapper.__name__ = wrapper.__qualname__ = primitive.name
    wrapper.__doc__ = doc
    return wrapper


neg = _unary(neg_p, "Elementwise negation: -x.")
sign = _unary(sign_p, "Elementwise sign: -1, 0 or 1 (NaN for NaN).")
abs = _unary(abs_p, "Elementwise absolute value: |x|.")  # noqa: A001 (lax.abs is JAX's name)
floor = _unary(floor_p, "Elementwise floor.")
ceil = _unary(ceil_p, "Elementwise ceiling.")
is_finite = _unary(is_finite_p, "Elementwise isfinite: True where x is neither infinite nor NaN.")
square = _unary(square_p, "Elementwise square: x * x.")
bitwise_not = _unary(not_p, "Elementwise bitwise NOT (logical NOT for booleans).")
population_count = _unary(population_count_p, "Elementwise popcount: the number of set bits.")
clz = _unary(clz_p, "Elementwise count of leading zero bits.")
real = _unary(real_p, "Elementwise real part of a complex number.")
imag = _unary(imag_p, "Elementwise imaginary part of a complex number.")
conj = _unary(conj_p, "Elementwise complex conjugate.")
exp = _accuracy_unary(exp_p, "Elementwise exponential: e**x.")
exp2 = _accuracy_unary(exp2_p, "Elementwise base-2 exponential: 2**x.")
log = _accuracy_unary(log_p, "Elementwise natural logarithm.")
log1p = _accuracy_unary(log1p_p, "Elementwise log(1 + x), accurate near zero.")
expm1 = _accuracy_unary(expm1_p, "Elementwise e**x - 1, accurate near zero.")
sqrt = _accuracy_unary(sqrt_p, "Elementwise square root.")
rsqrt = _accuracy_unary(rsqrt_p, "Elementwise reciprocal square root: 1 / sqrt(x).")
cbrt = _accuracy_unary(cbrt_p, "Elementwise cube root.")
sin = _accuracy_unary(sin_p, "Elementwise sine.")
cos = _accuracy_unary(cos_p, "Elementwise cosine.")
tan = _accuracy_unary(tan_p, "Elementwise tangent.")
asin = _unary(asin_p, "Elementwise arc sine.")
acos = _unary(acos_p, "Elementwise arc cosine.")
atan = _unary(atan_p, "Elementwise arc tangent.")
sinh = _unary(sinh_p, "Elementwise hyperbolic sine.")
cosh = _unary(cosh_p, "Elementwise hyperbolic cosine.")
tanh = _accuracy_unary(tanh_p, "Elementwise hyperbolic tangent.")
asinh = _unary(asinh_p, "Elementwise inverse hyperbolic sine.")
acosh = _unary(acosh_p, "Elementwise inverse hyperbolic cosine.")
atanh = _unary(atanh_p, "Elementwise inverse hyperbolic tangent.")
logistic = _accuracy_unary(logistic_p, "Elementwise logistic sigmoid: 1 / (1 + exp(-x)).")

add = _binary(add_p, "add", "Elementwise addition: x + y.")
sub = _binary(sub_p, "sub", "Elementwise subtraction: x - y.")
mul = _binary(mul_p, "mul", "Elementwise multiplication: x * y.")
div = _binary(div_p, "div", "Elementwise division: x / y (integers round towards zero).")
rem = _binary(rem_p, "rem", "Elementwise remainder with the sign of the dividend (C fmod).")
pow = _binary(pow_p, "pow", "Elementwise power: x ** y.")  # noqa: A001
max = _binary(max_p, "max", "Elementwise maximum (NaN-propagating).")  # noqa: A001
min = _binary(min_p, "min", "Elementwise minimum (NaN-propagating).")  # noqa: A001
atan2 = _binary(atan2_p, "atan2", "Elementwise arc tangent of x / y, quadrant-aware.")
nextafter = _binary(nextafter_p, "nextafter", "The next representable value after x towards y.")
bitwise_and = _binary(and_p, "bitwise_and", "Elementwise bitwise AND (logical for booleans).")
bitwise_or = _binary(or_p, "bitwise_or", "Elementwise bitwise OR (logical for booleans).")
bitwise_xor = _binary(xor_p, "bitwise_xor", "Elementwise bitwise XOR (logical for booleans).")
shift_left = _binary(shift_left_p, "shift_left", "Elementwise left shift.")
shift_right_arithmetic = _binary(shift_right_arithmetic_p, "shift_right_arithmetic", "Elementwise arithmetic right shift.")
shift_right_logical = _binary(shift_right_logical_p, "shift_right_logical", "Elementwise logical right shift.")
eq = _binary(eq_p, "eq", "Elementwise equality: x == y.")
ne = _binary(ne_p, "ne", "Elementwise inequality: x != y.")
lt = _binary(lt_p, "lt", "Elementwise less-than: x < y.")
le = _binary(le_p, "le", "Elementwise less-or-equal: x <= y.")
gt = _binary(gt_p, "gt", "Elementwise greater-than: x > y.")
ge = _binary(ge_p, "ge", "Elementwise greater-or-equal: x >= y.")


def round(x, /, rounding_method=0):  # noqa: A001
    """Elementwise rounding: 0 rounds half away from zero, 1 half to even."""
    return round_p.bind(x, rounding_method=int(rounding_method))


def integer_pow(x, y: int, /):
    """Elementwise power with a static integer exponent: x ** y."""
    return integer_pow_p.bind(x, y=int(y))


def select_n(which, /, *cases):
    """Selects elementwise among `cases` by `which` (bool: False→cases[0])."""
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """Elementwise `on_true if pred else on_false` (lax.select)."""
    return select_n_p.bind(pred, on_false, on_true)


def convert_element_type(operand, new_dtype):
    """Elementwise cast to `new_dtype` (canonicalized; the result is strongly typed)."""
    new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "convert_element_type")
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _convert_element_type(operand, new_dtype, weak_type: bool = False, sharding=None):
    aval = getattr(operand, "aval", None)
    if aval is not None and aval.dtype == new_dtype and aval.weak_type == weak_type:
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)


def stop_gradient(x):
    """The identity, with a zero derivative: gradients do not flow through it."""
    from pyjax._src.tree_util import tree_map

    return tree_map(stop_gradient_p.bind, x)
