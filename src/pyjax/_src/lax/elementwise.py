"""Elementwise primitives: arithmetic, transcendental, comparison, bitwise,
complex parts, clamp, select_n, rounding, and the type-changing ones
(convert_element_type, bitcast_convert_type, reduce_precision).

Unary primitives come from `standard_unop` (_standard.py); the n-ary ones from
`_naryop` below, which follows JAX's order of checks: the shape rule first,
then the accepted dtypes per position, then "same dtypes". lax does not
promote: operands of a binary primitive must share a dtype (Python scalars are
weakly typed values of the default dtype of their kind), and shapes broadcast
only through size-1 dimensions of equal rank or rank-0 operands. A result is
weakly typed when every operand is.

JAX builds its accepted-dtype sets as Python sets, so its messages list the
classes in set order ("floating, complexfloating, signedinteger" for abs).
That order depends on the types' addresses, and a few runs in ten print
another one; the tuples below spell out the order JAX 0.11 prints in most.
"""

from __future__ import annotations

import builtins
import enum
import operator
import warnings
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src import dispatch as _dispatch
from pyjax._src.lax import sharding_rules
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive, _default_trace, _trace_ctx
from pyjax._src.shape_poly import DimExpr as _DimExpr
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax._standard import (
    _BOOL,
    _COMPLEX,
    _FLOAT,
    _INT,
    _SIGNED,
    declare_naryop,
    nary_dtype_check,
    standard_unop,
    unary_dtype_check,
)

__all__ = [
    "AccuracyMode", "RoundingMethod", "Tolerance", "abs", "abs_p", "acos", "acos_p", "acosh",
    "acosh_p", "add", "add_p", "and_p", "asin", "asin_p", "asinh", "asinh_p", "atan", "atan2",
    "atan2_p", "atan_p", "atanh", "atanh_p", "bitcast_convert_type", "bitcast_convert_type_p",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "cbrt", "cbrt_p", "ceil", "ceil_p",
    "clamp", "clamp_p", "clz", "clz_p", "complex", "complex_p", "conj", "conj_p",
    "convert_element_type", "convert_element_type_p", "copy_p", "cos", "cos_p", "cosh", "cosh_p",
    "div", "div_p", "eq", "eq_p", "eq_to_p", "exp", "exp2", "exp2_p", "exp_p", "expm1", "expm1_p",
    "floor", "floor_p", "ge", "ge_p", "gt", "gt_p", "imag", "imag_p", "integer_pow",
    "integer_pow_p", "is_finite", "is_finite_p", "le", "le_p", "le_to_p", "log", "log1p", "log1p_p",
    "log_p", "logistic", "logistic_p", "lt", "lt_p", "lt_to_p", "max", "max_p", "min", "min_p",
    "mul", "mul_p", "mulhi", "mulhi_p", "ne", "ne_p", "neg", "neg_p", "nextafter", "nextafter_p",
    "not_p", "or_p", "population_count", "population_count_p", "pow", "pow_p", "real", "real_p",
    "reciprocal", "reduce_precision", "reduce_precision_p", "rem", "rem_p", "round", "round_p",
    "rsqrt", "rsqrt_p", "select", "select_n", "select_n_p", "shift_left", "shift_left_p",
    "shift_right_arithmetic", "shift_right_arithmetic_p", "shift_right_logical",
    "shift_right_logical_p", "sign", "sign_p", "sin", "sin_p", "sinh", "sinh_p", "sqrt", "sqrt_p",
    "square", "square_p", "stop_gradient", "stop_gradient_p", "sub", "sub_p", "tan", "tan_p",
    "tanh", "tanh_p", "xor_p",
]

# ---------------------------------------------------------------------------
# Accepted dtype classes, in JAX 0.11's message order.

_F32 = ("float32", lambda d: d == np.float32)
_F64 = ("float64", lambda d: d == np.float64)

_NUM = (_INT, _COMPLEX, _FLOAT)                 # neg, sign, add, ..., integer_pow, pow's exponent
_ABS = (_FLOAT, _COMPLEX, _SIGNED)
_INEXACT = (_FLOAT, _COMPLEX)                  # transcendental ops
_REM = (_INT, _FLOAT)
_ORDERED = (_INT, _BOOL, _FLOAT)                # lt, le, gt, ge
_BITWISE = (_INT, _BOOL)
_COMPLEX_PARTS = (_F32, _F64)                  # complex(x, y)
_CONJ = (_F32, _COMPLEX, _F64)

# JAX adds a tip naming the jnp function that promotes, for these names only.
_JNP_EQUIVALENTS = {
    "abs": "fabs", "acos": "arccos", "acosh": "arccosh", "add": "add", "asin": "arcsin",
    "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
    "bitwise_and": "bitwise_and", "bitwise_not": "bitwise_not", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "cbrt": "cbrt", "ceil": "ceil", "concatenate": "concatenate",
    "cos": "cos", "cosh": "cosh", "div": "divide", "eq": "equal", "exp": "exp", "expm1": "expm1",
    "floor": "floor", "greater": "greater", "greater_equal": "greater_equal", "less": "less",
    "less_equal": "less_equal", "log": "log", "logical_and": "logical_and",
    "logical_not": "logical_not", "logical_or": "logical_or", "logical_xor": "logical_xor",
    "log1p": "log1p", "max": "maximum", "min": "minimum", "mul": "multiply", "ne": "not_equal",
    "neg": "negative", "nextafter": "nextafter", "pow": "float_power", "round": "round",
    "select": "where", "shift_left": "left_shift", "shift_right_logical": "right_shift",
    "shift_right_arithmetic": "right_shift", "sign": "sign", "sin": "sin", "sinh": "sinh",
    "sqrt": "sqrt", "sub": "subtract", "tan": "tan", "tanh": "tanh",
}


def check_same_dtypes(name: str, *avals: ShapedArray) -> None:
    """JAX's "lax.{name} requires arguments to have the same dtypes" check."""
    if len(avals) < 2:
        return
    first = avals[0].dtype
    if all(a.dtype == first for a in avals[1:]):
        return
    message = (f"lax.{name} requires arguments to have the same dtypes, got "
               f"{', '.join(str(a.dtype) for a in avals)}.")
    if name in _JNP_EQUIVALENTS:
        message += (f" (Tip: jnp.{_JNP_EQUIVALENTS[name]} is a similar function that does "
                    "automatic type promotion on inputs).")
    raise TypeError(message)


def broadcasting_shape(name: str, avals) -> tuple:
    """The result shape of an elementwise n-ary op: rank-0 operands broadcast
    against anything; the others need equal ranks and equal-or-1 sizes."""
    shapes = [a.shape for a in avals if a.shape]
    if not shapes:
        return ()
    first = shapes[0]
    if all(s == first for s in shapes[1:]):
        return first
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    out = []
    for sizes in zip(*shapes, strict=True):
        not_one = [d for d in sizes if d != 1]
        if not_one and any(d != not_one[0] for d in not_one[1:]):
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(tuple(s)) for s in shapes)}.")
        out.append(not_one[0] if not_one else 1)
    return tuple(out)


def _naryop(name: str, accepted, *, result_dtype=None, require_same: bool = True, cost: str | None = None,
            fusible: bool = True) -> Primitive:
    """An elementwise n-ary primitive (JAX's `naryop`): broadcast shapes, the
    accepted dtype classes per position, operands of one dtype unless
    `require_same` is off; `result_dtype(*avals)` maps the operand dtypes.
    Declared and batched by `declare_naryop` (XLA's cost class `cost`)."""
    primitive = declare_naryop(Primitive(name), cost=cost, fusible=fusible)

    def abstract_eval(*avals: ShapedArray, **params) -> ShapedArray:
        shape = broadcasting_shape(name, avals)
        nary_dtype_check(name, accepted, avals)
        if require_same:
            check_same_dtypes(name, *avals)
        dtype = avals[0].dtype if result_dtype is None else result_dtype(*avals)
        return ShapedArray(shape, dtype, all(a.weak_type for a in avals))

    primitive.def_abstract_eval(abstract_eval)
    return primitive


def _real_dtype(dtype):
    return np.finfo(dtype).dtype if np.issubdtype(dtype, np.complexfloating) else dtype


def _complex_dtype(dtype):
    return np.dtype(np.complex128) if dtype in (np.float64, np.complex128) else np.dtype(np.complex64)


# ---------------------------------------------------------------------------
# Unary arithmetic

neg_p = standard_unop("neg", _NUM, cost="cheap")
sign_p = standard_unop("sign", _NUM, cost="cheap")
abs_p = standard_unop("abs", _ABS, result_dtype=_real_dtype, cost="cheap")
floor_p = standard_unop("floor", (_FLOAT,), cost="cheap")
ceil_p = standard_unop("ceil", (_FLOAT,), cost="cheap")
round_p = standard_unop("round", (_FLOAT,), cost="cheap")
is_finite_p = standard_unop("is_finite", (_FLOAT,), result_dtype=lambda d: np.dtype(bool), cost="cheap")
square_p = standard_unop("square", _NUM, cost="cheap")
not_p = standard_unop("not", _BITWISE, cost="cheap")
population_count_p = standard_unop("population_count", (_INT,), cost="cheap", fusible=False)
clz_p = standard_unop("clz", (_INT,), cost="cheap", fusible=False)
real_p = standard_unop("real", (_COMPLEX,), result_dtype=_real_dtype, cost="cheap")
imag_p = standard_unop("imag", (_COMPLEX,), result_dtype=_real_dtype, cost="cheap")
# conj of a real float32/float64 is complex (JAX's conj is complex-valued).
conj_p = standard_unop("conj", _CONJ, result_dtype=_complex_dtype, cost="cheap")

# Transcendental (float or complex; the `accuracy` param is hidden when None).
exp_p = standard_unop("exp", _INEXACT, cost="expensive")
exp2_p = standard_unop("exp2", _INEXACT, cost="expensive")
log_p = standard_unop("log", _INEXACT, cost="expensive")
log1p_p = standard_unop("log1p", _INEXACT, cost="expensive")
expm1_p = standard_unop("expm1", _INEXACT, cost="expensive")
sqrt_p = standard_unop("sqrt", _INEXACT, cost="expensive")
rsqrt_p = standard_unop("rsqrt", _INEXACT, cost="expensive")
cbrt_p = standard_unop("cbrt", (_FLOAT,), cost="expensive")
sin_p = standard_unop("sin", _INEXACT, cost="expensive")
cos_p = standard_unop("cos", _INEXACT, cost="expensive")
tan_p = standard_unop("tan", _INEXACT, cost="expensive")
asin_p = standard_unop("asin", _INEXACT, cost="expensive")
acos_p = standard_unop("acos", _INEXACT, cost="expensive")
atan_p = standard_unop("atan", _INEXACT, cost="expensive")
sinh_p = standard_unop("sinh", _INEXACT, cost="expensive")
cosh_p = standard_unop("cosh", _INEXACT, cost="expensive")
tanh_p = standard_unop("tanh", _INEXACT, cost="expensive")
asinh_p = standard_unop("asinh", _INEXACT, cost="expensive")
acosh_p = standard_unop("acosh", _INEXACT, cost="expensive")
atanh_p = standard_unop("atanh", _INEXACT, cost="expensive")
logistic_p = standard_unop("logistic", _INEXACT, cost="expensive")


# ---------------------------------------------------------------------------
# Binary arithmetic


def _mul_result_dtype(x, y, out_dtype=None):
    return x.dtype if out_dtype is None else dtypes.canonicalize_dtype(out_dtype)


add_p = _naryop("add", (_NUM, _NUM), cost="cheap")
sub_p = _naryop("sub", (_NUM, _NUM), cost="cheap")
mul_p = declare_naryop(Primitive("mul"), cost="cheap")
mul_p.pp_hidden = lambda key, value: key == "out_dtype" and value is None


@mul_p.def_abstract_eval
def _mul_abstract_eval(x: ShapedArray, y: ShapedArray, *, out_dtype=None) -> ShapedArray:
    shape = broadcasting_shape("mul", (x, y))
    nary_dtype_check("mul", (_NUM, _NUM), (x, y))
    if out_dtype is None:
        check_same_dtypes("mul", x, y)
    return ShapedArray(shape, _mul_result_dtype(x, y, out_dtype), x.weak_type and y.weak_type)


div_p = _naryop("div", (_NUM, _NUM), cost="expensive")
rem_p = _naryop("rem", (_REM, _REM), cost="expensive")
max_p = _naryop("max", (None, None), cost="cheap")
min_p = _naryop("min", (None, None), cost="cheap")
atan2_p = _naryop("atan2", (_INEXACT, _INEXACT), cost="expensive")
nextafter_p = _naryop("nextafter", ((_FLOAT,), (_FLOAT,)), cost="cheap")
mulhi_p = _naryop("mulhi", ((_INT,), (_INT,)), cost="cheap", fusible=False)
and_p = _naryop("and", (_BITWISE, _BITWISE), cost="cheap")
or_p = _naryop("or", (_BITWISE, _BITWISE), cost="cheap")
xor_p = _naryop("xor", (_BITWISE, _BITWISE), cost="cheap")
shift_left_p = _naryop("shift_left", ((_INT,), (_INT,)), cost="cheap")
shift_right_arithmetic_p = _naryop("shift_right_arithmetic", ((_INT,), (_INT,)), cost="cheap")
shift_right_logical_p = _naryop("shift_right_logical", ((_INT,), (_INT,)), cost="cheap")


def _pow_result_dtype(x: ShapedArray, y: ShapedArray):
    # An inexact base takes an integer exponent as it is; two inexact
    # operands must agree.
    if dtypes.issubdtype(x.dtype, np.inexact) and dtypes.issubdtype(y.dtype, np.integer):
        return x.dtype
    if x.dtype == y.dtype:
        return x.dtype
    raise TypeError("the first argument to pow must have an inexact dtype (float or complex), and "
                    "the second argument must have an inexact or integer dtype, and two inexact "
                    f"dtypes must match, but got {x.dtype} and {y.dtype} respectively.")


pow_p = _naryop("pow", (_INEXACT, _NUM), result_dtype=_pow_result_dtype, require_same=False, cost="expensive")
complex_p = _naryop("complex", (_COMPLEX_PARTS, _COMPLEX_PARTS),
                    result_dtype=lambda x, y: _complex_dtype(x.dtype), cost="cheap", fusible=False)

# Comparisons: bool results. eq/ne take every dtype, the orderings no complex.
_to_bool = lambda *avals: np.dtype(bool)  # noqa: E731
eq_p = _naryop("eq", (None, None), result_dtype=_to_bool, cost="cheap")
ne_p = _naryop("ne", (None, None), result_dtype=_to_bool, cost="cheap")
eq_p.declare(key_reuse=_key_reuse.NO_KEYS)  # (comparing keys consumes neither)
ne_p.declare(key_reuse=_key_reuse.NO_KEYS)
lt_p = _naryop("lt", (_ORDERED, _ORDERED), result_dtype=_to_bool, cost="cheap")
le_p = _naryop("le", (_ORDERED, _ORDERED), result_dtype=_to_bool, cost="cheap")
gt_p = _naryop("gt", (_ORDERED, _ORDERED), result_dtype=_to_bool, cost="cheap")
ge_p = _naryop("ge", (_ORDERED, _ORDERED), result_dtype=_to_bool, cost="cheap")
# The same under IEEE 754's total order (-NaN < -inf < ... < -0.0 < +0.0 < ... < inf < NaN);
# sort's comparator uses them. No public wrapper, as in JAX.
eq_to_p = _naryop("eq_to", (None, None), result_dtype=_to_bool, cost="cheap", fusible=False)
le_to_p = _naryop("le_to", (_ORDERED, _ORDERED), result_dtype=_to_bool, cost="cheap", fusible=False)
lt_to_p = _naryop("lt_to", (_ORDERED, _ORDERED), result_dtype=_to_bool, cost="cheap", fusible=False)


# ---------------------------------------------------------------------------
# integer_pow: a static integer exponent

integer_pow_p = Primitive("integer_pow").declare(elementwise=True, fusible=True, cost="cheap")


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x: ShapedArray, *, y: int) -> ShapedArray:
    unary_dtype_check("integer_pow", _NUM, x)
    if y < 0 and dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({x}, {y})")
    return x


# ---------------------------------------------------------------------------
# clamp(min, x, max): min and max are scalars or of x's shape

clamp_p = Primitive("clamp").declare(elementwise=True, fusible=True, cost="cheap")


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
    for bound, aval in (("min", lo), ("max", hi)):
        if aval.shape and aval.shape != x.shape:
            raise TypeError(f"clamp requires {bound}.shape == operand.shape or {bound}.shape == (), "
                            f"got {bound}.shape={aval.shape}, operand.shape={x.shape}.")
    check_same_dtypes("clamp", lo, x, hi)
    return ShapedArray(x.shape, x.dtype, lo.weak_type and x.weak_type and hi.weak_type, x.sharding)


# ---------------------------------------------------------------------------
# select_n

select_n_p = Primitive("select_n").declare(elementwise=True, fusible=True, cost="cheap")


@select_n_p.def_abstract_eval
def _select_n_abstract_eval(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
    if not cases:
        raise TypeError("select must have at least one case")
    case = cases[0]
    if any(c.shape != case.shape for c in cases[1:]):
        raise TypeError(f"select cases must have the same shapes, got [{', '.join(str(c.shape) for c in cases)}].")
    if which.shape and which.shape != case.shape:
        raise TypeError(
            "select `which` must be scalar or have the same shape as cases, got `which` "
            f"shape {which.shape} but case shape {case.shape}."
        )
    check_same_dtypes("select", *cases)
    if which.dtype != np.bool_ and not dtypes.issubdtype(which.dtype, np.integer):
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype}.")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    return ShapedArray(case.shape, case.dtype, all(c.weak_type for c in cases))


select_n_p.def_sharding_rule(sharding_rules.select_n_rule)


# ---------------------------------------------------------------------------
# Type changes

convert_element_type_p = Primitive("convert_element_type").declare(elementwise=True, fusible=True, cost="cheap")
convert_element_type_p.declare(key_reuse=_key_reuse.FORWARD)
convert_element_type_p.pp_hidden = lambda key, value: key == "sharding"


@convert_element_type_p.def_abstract_eval
def _convert_element_type_abstract_eval(operand: ShapedArray, *, new_dtype, weak_type, sharding) -> ShapedArray:
    old_dtype = operand.dtype
    old_ext, new_ext = (isinstance(d, dtypes.ExtendedDType) for d in (old_dtype, new_dtype))
    if (old_ext or new_ext) and old_dtype != new_dtype:
        # A key's buffer is no number: NumPy would cast its first word.
        if old_ext and new_ext:
            raise ValueError(
                f"cannot directly convert between extended dtypes: from {old_dtype} to {new_dtype}. "
                "Instead, convert to and from their representation dtypes, e.g.:\n"
                f"{old_dtype} -> {_rep_dtype(old_dtype)} -> {_rep_dtype(new_dtype)} -> {new_dtype}")
        raise ValueError(f"Cannot convert_element_type from {old_dtype} to {new_dtype}")
    return ShapedArray(operand.shape, new_dtype, weak_type, sharding if sharding is not None else operand.sharding)


def _rep_dtype(dtype):
    return dtype._rules.physical_element_aval(dtype).dtype


# (elementwise when the widths agree; a width-changing one has another shape)
bitcast_convert_type_p = Primitive("bitcast_convert_type").declare(elementwise=True, fusible=True, cost="cheap")


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_convert_type_abstract_eval(operand: ShapedArray, *, new_dtype) -> ShapedArray:
    old_dtype = operand.dtype
    old_bits, new_bits = dtypes.itemsize_bits(old_dtype), dtypes.itemsize_bits(new_dtype)
    if old_bits == new_bits:
        shape = operand.shape
    elif old_bits > new_bits:  # each element becomes a trailing row of narrower ones
        shape = (*operand.shape, old_bits // new_bits)
    else:  # the trailing dimension is folded into one wider element
        size = operand.shape[-1] if operand.shape else 1
        if size * old_bits != new_bits:
            raise ValueError(
                f"Attempting to convert array of shape {operand.shape} from {old_dtype} of size "
                f"{old_bits} bits to {new_dtype} of size {new_bits}, bits but {size} * {old_bits} "
                f"!= {new_bits}")
        shape = operand.shape[:-1]
    bool_or_complex = lambda d: d == np.bool_ or dtypes.issubdtype(d, np.complexfloating)  # noqa: E731
    if (bool_or_complex(old_dtype) or bool_or_complex(new_dtype)) and old_dtype != new_dtype:
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values unless the "
                        f"operand and destination types match. Got operand dtype={old_dtype}, "
                        f"new_dtype={new_dtype!r}. Consider using the arr.view() method instead.")
    return ShapedArray(shape, new_dtype, False)


reduce_precision_p = Primitive("reduce_precision").declare(elementwise=True, fusible=False, cost="cheap")


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract_eval(operand: ShapedArray, *, exponent_bits: int, mantissa_bits: int) -> ShapedArray:
    if operator.index(exponent_bits) < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if operator.index(mantissa_bits) < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}")
    unary_dtype_check("reduce_precision", (_FLOAT,), operand)
    return operand


# --- identities: stop_gradient (its derivative is zero) and copy
stop_gradient_p = Primitive("stop_gradient").declare(elementwise=True, fusible=True, cost="cheap")
stop_gradient_p.def_abstract_eval(lambda x: x)
copy_p = Primitive("copy").declare(elementwise=True, fusible=True, cost="cheap")
copy_p.declare(key_reuse=_key_reuse.FORWARD)
copy_p.def_abstract_eval(lambda x: x)
for _p in (integer_pow_p, reduce_precision_p, stop_gradient_p, copy_p):
    _p.def_sharding_rule(sharding_rules.keep_operand_rule)


# ---------------------------------------------------------------------------
# Parameter types


class RoundingMethod(enum.IntEnum):
    """How `round` treats halfway values such as 0.5."""

    AWAY_FROM_ZERO = 0  # 0.5 -> 1, -0.5 -> -1
    TO_NEAREST_EVEN = 1  # banker's rounding: 0.5 -> 0, 1.5 -> 2


class AccuracyMode(enum.Enum):
    """A requested accuracy for a transcendental function's implementation."""

    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """Tolerances for computing a unary function: at most two of atol, rtol, ulps."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol = atol
        self.rtol = rtol
        self.ulps = ulps


# ---------------------------------------------------------------------------
# Public wrappers (pyjax.lax)


# The wrappers below call the current trace directly rather than through
# `primitive.bind`: the same dispatch, one Python frame less on the hottest
# eager path there is (an elementwise op on small arrays).


def _unary(primitive: Primitive, doc: str):
    plans = primitive.eager_plans

    def wrapper(x):
        if type(x) is Array and _trace_ctx.get() is None:
            plan = plans.get((x.aval,))
            if plan and plan[2]:
                return Array(_dispatch.fp_mode.run(plan[0], x._value), plan[1])
        return (_trace_ctx.get() or _default_trace[0]).process_primitive(primitive, (x,), {})

    wrapper.__name__ = wrapper.__qualname__ = primitive.name
    wrapper.__doc__ = doc
    return wrapper


def _accuracy_unary(primitive: Primitive, doc: str):
    plans = primitive.eager_plans

    def wrapper(x, *, accuracy=None):
        if type(x) is Array and _trace_ctx.get() is None:
            plan = plans.get((x.aval, accuracy))
            if plan and plan[2]:
                return Array(_dispatch.fp_mode.run(plan[0], x._value), plan[1])
        return (_trace_ctx.get() or _default_trace[0]).process_primitive(primitive, (x,), {"accuracy": accuracy})

    wrapper.__name__ = wrapper.__qualname__ = primitive.name
    wrapper.__doc__ = doc
    return wrapper


def _binary(primitive: Primitive, name: str, doc: str):
    plans = primitive.eager_plans

    def wrapper(x, y):
        if type(x) is Array and type(y) is Array and _trace_ctx.get() is None:
            # The eval trace's memoised plan, when it has one that needs no dtype fix.
            plan = plans.get((x.aval, y.aval))
            if plan and plan[2]:
                return Array(_dispatch.fp_mode.run(plan[0], x._value, y._value), plan[1])
        return (_trace_ctx.get() or _default_trace[0]).process_primitive(primitive, (x, y), {})

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = doc
    return wrapper


neg = _unary(neg_p, "Elementwise negation: -x.")
sign = _unary(sign_p, "Elementwise sign: -1, 0 or 1 (signed zeros and NaN kept; x/|x| for complex).")
abs = _unary(abs_p, "Elementwise absolute value: |x| (a real dtype for complex x).")  # noqa: A001
floor = _unary(floor_p, "Elementwise floor.")
ceil = _unary(ceil_p, "Elementwise ceiling.")
is_finite = _unary(is_finite_p, "Elementwise isfinite: True where x is neither infinite nor NaN.")
square = _unary(square_p, "Elementwise square: x * x.")
bitwise_not = _unary(not_p, "Elementwise bitwise NOT (logical NOT for booleans).")
population_count = _unary(population_count_p, "Elementwise popcount: the number of set bits.")
clz = _unary(clz_p, "Elementwise count of leading zero bits.")
real = _unary(real_p, "Elementwise real part of a complex number.")
imag = _unary(imag_p, "Elementwise imaginary part of a complex number.")
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
max = _binary(max_p, "max", "Elementwise maximum (NaN-propagating; lexicographic for complex).")  # noqa: A001
min = _binary(min_p, "min", "Elementwise minimum (NaN-propagating; lexicographic for complex).")  # noqa: A001
atan2 = _binary(atan2_p, "atan2", "Elementwise arc tangent of x / y, quadrant-aware.")
bitwise_and = _binary(and_p, "bitwise_and", "Elementwise bitwise AND (logical for booleans).")
bitwise_or = _binary(or_p, "bitwise_or", "Elementwise bitwise OR (logical for booleans).")
bitwise_xor = _binary(xor_p, "bitwise_xor", "Elementwise bitwise XOR (logical for booleans).")
shift_left = _binary(shift_left_p, "shift_left", "Elementwise left shift (0 for shifts outside [0, bits)).")
shift_right_arithmetic = _binary(shift_right_arithmetic_p, "shift_right_arithmetic",
                                 "Elementwise arithmetic right shift (sign fill past the width).")
shift_right_logical = _binary(shift_right_logical_p, "shift_right_logical",
                              "Elementwise logical right shift (0 for shifts outside [0, bits)).")
eq = _binary(eq_p, "eq", "Elementwise equality: x == y.")
ne = _binary(ne_p, "ne", "Elementwise inequality: x != y.")
lt = _binary(lt_p, "lt", "Elementwise less-than: x < y.")
le = _binary(le_p, "le", "Elementwise less-or-equal: x <= y.")
gt = _binary(gt_p, "gt", "Elementwise greater-than: x > y.")
ge = _binary(ge_p, "ge", "Elementwise greater-or-equal: x >= y.")


def pow(x, y):  # noqa: A001 (lax.pow is JAX's name)
    """Elementwise power x ** y.

    `x` must be floating or complex; `y` may be an integer array (of any
    integer dtype) or of x's dtype. See `integer_pow` for a static exponent.
    """
    return pow_p.bind(x, y)


def nextafter(x1, x2):
    """The next representable value after `x1` in the direction of `x2`."""
    return nextafter_p.bind(x1, x2)


def mulhi(x, y, /):
    """Elementwise multiply-high: the upper N bits of the 2N-bit product of
    two N-bit integers."""
    return mulhi_p.bind(x, y)


def complex(x, y):  # noqa: A001 (lax.complex is JAX's name)
    """Elementwise complex number x + 1j * y from float32 or float64 parts."""
    return complex_p.bind(x, y)


def conj(x):
    """Elementwise complex conjugate; a real float32/float64 input gives a complex result."""
    return conj_p.bind(x, input_dtype=dtypes.dtype(x, canonicalize=True))


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """Elementwise rounding to the nearest integer.

    Args:
      x: a floating-point array.
      rounding_method: how halfway values round: `RoundingMethod.AWAY_FROM_ZERO`
        (0, the default: 0.5 -> 1) or `RoundingMethod.TO_NEAREST_EVEN` (1: 0.5 -> 0).

    Returns:
      An array of x's shape and dtype.
    """
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def integer_pow(x, y: int):
    """Elementwise power with a static integer exponent: x ** y (negative
    exponents only for inexact x)."""
    return integer_pow_p.bind(x, y=y)


def reciprocal(x):
    """Elementwise reciprocal 1 / x (integer_pow(x, -1))."""
    return integer_pow(x, -1)


def clamp(min, x, max):  # noqa: A002 (JAX's parameter names)
    """Elementwise clamp: `min` where x < min, `max` where x > max, else x.

    `min` and `max` are scalars or arrays of x's shape, of x's dtype; a NaN
    anywhere gives NaN. Equivalent to `lax.min(lax.max(x, min), max)`.
    """
    return clamp_p.bind(min, x, max)


def select_n(which, *cases):
    """Selects elementwise among `cases` by `which`.

    `which` is a bool (False picks cases[0], True cases[1]) or an integer
    array indexing the cases; it is a scalar or has the cases' shape.
    """
    if not cases:
        raise ValueError("select_n() must have at least one case")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """Elementwise `on_true if pred else on_false` (lax.select)."""
    return select_n_p.bind(pred, on_false, on_true)


def bitcast_convert_type(operand, new_dtype):
    """Elementwise bitcast: the same bits read as `new_dtype`.

    Equal widths keep the shape; a narrower `new_dtype` adds a trailing
    dimension of size old_bits // new_bits; a wider one folds a trailing
    dimension of size new_bits // old_bits. bool and complex only bitcast to
    themselves.
    """
    new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "bitcast_convert_type")
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """Rounds floating-point values to a format with the given exponent and
    mantissa widths (round to nearest even; overflow to infinity, underflow
    to zero), keeping the dtype. `reduce_precision(x, 8, 7)` rounds to
    bfloat16 precision, `(5, 10)` to float16."""
    return reduce_precision_p.bind(operand, exponent_bits=operator.index(exponent_bits),
                                   mantissa_bits=operator.index(mantissa_bits))


def convert_element_type(operand, new_dtype):
    """Elementwise cast to `new_dtype` (canonicalized; the result is strongly typed).

    Floats to integers truncate towards zero and saturate (NaN gives 0);
    complex to real keeps the real part (with a ComplexWarning). A Python
    scalar or NumPy operand is converted at once, as a constant.
    """
    new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "convert_element_type")
    return _convert_element_type(operand, new_dtype, weak_type=False)


_PY_SCALARS = (bool, int, float, builtins.complex)


def _convert_element_type(operand, new_dtype=None, weak_type: bool = False, sharding=None,
                          warn_on_complex_to_real_cast: bool = True):
    """convert_element_type without the user-dtype check: also sets the weak type."""
    if type(operand) is _DimExpr:  # a symbolic dimension: its value (JAX's dim_as_value)
        from pyjax._src.dim_as_value import dimension_as_value

        operand = dimension_as_value(operand)
    old_dtype = dtypes.dtype(operand)
    new_dtype = dtypes.canonicalize_dtype(old_dtype) if new_dtype is None else new_dtype
    weak_type = bool(weak_type)
    if (warn_on_complex_to_real_cast and dtypes.issubdtype(old_dtype, np.complexfloating)
            and not dtypes.issubdtype(new_dtype, np.complexfloating)):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=3)
    if sharding is None and (type(operand) in _PY_SCALARS or isinstance(operand, (np.ndarray, np.generic))):
        # Concrete host values are converted now (as NumPy casts them) and enter
        # the trace as constants: a literal for a scalar, no equation.
        with np.errstate(all="ignore"):
            value = np.asarray(np.asarray(operand).astype(new_dtype))
        return _constant(value, weak_type)
    aval = getattr(operand, "aval", None)
    if (sharding is None and aval is not None and aval.dtype == new_dtype
            and aval.weak_type == weak_type and not _is_concrete_tracer(operand)):
        return operand
    if isinstance(new_dtype, dtypes.ExtendedDType) or isinstance(old_dtype, dtypes.ExtendedDType):
        from pyjax._src.lax.edtype import convert_edtype  # (primal_tangent_dtype's conversions)

        converted = convert_edtype(operand, old_dtype, new_dtype)
        if converted is not None:
            return converted
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)


def _is_concrete_tracer(x) -> bool:
    return isinstance(x, core.Tracer) and getattr(x, "_is_concrete", False)


def _constant(value: np.ndarray, weak_type: bool) -> Any:
    aval = ShapedArray(value.shape, value.dtype, weak_type)
    lift = getattr(core.current_trace(), "lift_constant", None)
    return lift(value, aval) if lift is not None else Array(value, aval)


def stop_gradient(x):
    """The identity, with a zero derivative: gradients do not flow through it."""
    from pyjax._src.tree_util import tree_map

    return tree_map(stop_gradient_p.bind, x)


# ---------------------------------------------------------------------------
# Batching rules for the primitives defined here whose rules are neither the
# builders' (standard_unop, _naryop) nor in elementwise_ad.py:
# reduce_precision and bitcast_convert_type act elementwise; clamp, whose
# bounds are scalars or of the operand's shape, aligns its bounds with the
# operand as JAX 0.11 does.

from pyjax._src.interpreters import batching as _batching  # noqa: E402
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402

_batching_util.vectorized(reduce_precision_p)


def _bitcast_convert_type_batch(axis_data, args, dims, *, new_dtype):
    (operand,), (d,) = args, dims
    aval = core.get_aval(operand)
    if dtypes.itemsize_bits(new_dtype) > dtypes.itemsize_bits(aval.dtype) and d == aval.ndim - 1:
        # A widening bitcast folds the example's trailing axis; a batch axis
        # there would be folded instead, so it moves to the front first.
        # (JAX 0.11 leaves it in place, which folds the wrong axis.)
        operand, d = _batching_util.moveaxis(operand, d, 0), 0
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype), d


bitcast_convert_type_p.def_batch(_bitcast_convert_type_batch)


def _clamp_batch(axis_data, args, dims):
    from pyjax._src.lax import shapes

    lo, x, hi = args
    lo_dim, x_dim, hi_dim = dims
    not_mapped = _batching.not_mapped
    ndim = lambda v: core.get_aval(v).ndim  # noqa: E731
    if lo_dim == x_dim == hi_dim and lo_dim is not not_mapped:
        # All batched at one axis: of one shape, or per-example scalar bounds
        # (B,) spread along that axis of x.
        if ndim(lo) == ndim(x) == ndim(hi):
            return clamp_p.bind(lo, x, hi), x_dim
        if ndim(lo) == ndim(hi) == 1:
            shape = core.get_aval(x).shape
            lo = shapes.broadcast_in_dim(lo, shape, [lo_dim])
            hi = shapes.broadcast_in_dim(hi, shape, [hi_dim])
            return clamp_p.bind(lo, x, hi), x_dim
    elif ndim(lo) == 0 and ndim(hi) == 0 and x_dim is not not_mapped:
        # Fixed scalar bounds: x keeps its batch axis.
        return clamp_p.bind(lo, x, hi), x_dim
    # Otherwise everything non-scalar goes batch-first, scalars are broadcast.
    size = axis_data.size

    def front(v, d):
        if not ndim(v):
            return v
        if d is not_mapped:
            return _batching_util.broadcast_batch(v, size, 0)
        return _batching_util.moveaxis(v, d, 0)

    lo, hi, x = front(lo, lo_dim), front(hi, hi_dim), front(x, x_dim)
    x_shape = core.get_aval(x).shape
    if ndim(lo) == 0 and x_shape:
        lo = shapes.broadcast(lo, x_shape)
    if ndim(hi) == 0 and x_shape:
        hi = shapes.broadcast(hi, x_shape)
    if 0 < ndim(lo) < len(x_shape):  # lo: (B,) per-example scalars
        lo = shapes.broadcast_in_dim(lo, x_shape, [0])
    if 0 < ndim(hi) < len(x_shape):
        hi = shapes.broadcast_in_dim(hi, x_shape, [0])
    if ndim(lo) > len(x_shape):  # x an unbatched scalar, the bounds (B, ...)
        x = shapes.broadcast(x, core.get_aval(lo).shape)
    return clamp_p.bind(lo, x, hi), 0


clamp_p.def_batch(_clamp_batch)
clamp_p.def_sharding_rule(sharding_rules.clamp_rule)
convert_element_type_p.def_sharding_rule(sharding_rules.convert_element_type_rule)
bitcast_convert_type_p.def_sharding_rule(sharding_rules.bitcast_convert_type_rule)
