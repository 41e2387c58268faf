"""Elementwise jax.numpy functions: promotion, then lax primitives.

Each binary function promotes its operands to a common dtype (JAX's
lattice, weak types respected) and a common rank, then binds the primitive;
lax broadcasts size-1 axes. Functions that need floats (exp, sin, divide)
promote integers to the default float type first.

The operator-backed binaries (`+`, `*`, `<`, ...) have eager fast paths:
when promotion would leave the operands as they are (an array and a Python
scalar it already absorbs, or two arrays of one type), they bind at once.
Functions JAX wraps in a visible `jit` (remainder, floor_divide, divmod ...)
live in ufuncs_extra.py.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import config, core, dtypes
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src import dispatch
from pyjax._src.dispatch import active_trace, apply_unary, apply_with_scalar, exact_plan
from pyjax._src.numpy.util import (
    aval_of,
    constant_like,
    ensure_arraylike,
    full_like,
    is_arraylike,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
)

_PY_SCALARS = frozenset({bool, int, float, complex})


def _scalar_fast_plan(aval, scalar_type, inexact: bool, has_bool_primitive: bool):
    """May `op(array, python_scalar)` bind directly? When promotion leaves the
    array's type unchanged, yes: the plan is (scalar aval, cast), where `cast`
    is None if the scalar already is a weak value of the array's dtype (the
    traced path binds it as it is), or the Python type that converts it to
    one (an int next to a float array: eager only, since a trace must record
    JAX's converted literal). Otherwise False."""
    if has_bool_primitive and aval.dtype == np.bool_:
        return False
    if isinstance(aval.dtype, dtypes.ExtendedDType):
        return False  # keys promote with nothing: the slow path raises JAX's error
    if inexact and not dtypes.issubdtype(aval.dtype, np.inexact):
        return False
    scalar_aval = core.python_scalar_aval(scalar_type)
    promoted = dtypes.binary_promote(aval.dtype, aval.weak_type, scalar_aval.dtype, scalar_aval.weak_type)
    if promoted != (aval.dtype, aval.weak_type):
        return False
    if scalar_aval.dtype == aval.dtype:
        return scalar_aval, None
    cast = {"f": float, "c": complex}.get(aval.dtype.kind)
    if cast is None:  # integer arrays: out-of-range scalars must raise JAX's error, on the slow path
        return False
    return ShapedArray((), aval.dtype, weak_type=True), cast


def _remember(plans: dict, key, plan) -> None:
    if len(plans) >= 4096:  # programs with ever-new shapes: start afresh
        plans.clear()
    plans[key] = plan


def _weak_pair_stays(dtype) -> bool:
    # Two weak operands of one dtype promote to themselves, except where the
    # lattice has no weak node for the dtype (bool; narrow ints): then
    # promotion converts them.
    return dtypes.binary_promote(dtype, True, dtype, True) == (dtype, True)


def _binary(primitive, name: str, doc: str, *, inexact: bool = False, bool_primitive=None, slow=None):
    """A promoting binary function with the eager fast paths.

    `slow(x, y)` replaces "promote, then bind `primitive`" when the operands
    need more than promotion (comparisons of complex numbers)."""
    promote = promote_args_inexact if inexact else promote_args
    bind = primitive.bind
    has_bool = bool_primitive is not None
    # Promotion's answer (jax.numpy's own memo): (array aval, scalar type,
    # config id) -> (scalar aval, cast), or False where promotion changes a type.
    _fast_plans: dict = {}
    # Eager calls promotion leaves alone -> the eval trace's exact plan
    # (dispatch.exact_plan) as (call, out aval, scalar cast or None), or False:
    # keyed (aval, aval) for two Arrays, (aval, scalar type, config id) or
    # (scalar type, aval, config id) by the scalar's side. Dropped with the plans.
    plans = dispatch.eager_memo()

    def fn(x, y, /):
        return _call(x, y, False)

    def reflected(self, other):
        return _call(other, self, True)

    def _call(x, y, as_operator=True):
        # Fast paths: operands that promotion would leave as they are. (Also
        # the `__op__` method itself, hence the defaulted flag.)
        tx, ty = type(x), type(y)
        if (tx is Array or ty is Array) and active_trace() is None:
            # Eager operands seen before: their plan, found once below.
            if tx is ty:
                plan = plans.get((x.aval, y.aval))
                if plan:
                    return Array(dispatch.fp_mode.run(plan[0], x._value, y._value), plan[1])
            elif tx is Array:
                plan = plans.get((x.aval, ty, config.trace_context_id()))
                if plan:
                    return Array(dispatch.fp_mode.run(plan[0], x._value, y if plan[2] is None else plan[2](y)), plan[1])
            else:
                plan = plans.get((ty, y.aval, config.trace_context_id()))
                if plan:
                    return Array(dispatch.fp_mode.run(plan[0], x if plan[2] is None else plan[2](x), y._value), plan[1])
        ax = getattr(x, "aval", None)
        if ax is not None:
            if type(y) in _PY_SCALARS:
                key = (ax, type(y), config.trace_context_id())
                plan = _fast_plans.get(key)
                if plan is None:
                    plan = _fast_plans[key] = (slow is None or ax.dtype.kind != "c") and _scalar_fast_plan(ax, type(y), inexact, has_bool)
                if plan:
                    scalar_aval, cast = plan
                    if type(x) is Array and active_trace() is None:
                        if cast is not None:
                            y = cast(y)
                        eager = exact_plan(primitive, (ax, scalar_aval))
                        if eager:
                            _remember(plans, (ax, ty, config.trace_context_id()), (eager[0], eager[1], cast))
                            return Array(dispatch.fp_mode.run(eager[0], x._value, y), eager[1])
                        return apply_with_scalar(primitive, x, y, scalar_aval, False)
                    if cast is None:
                        # Traced: next to a strongly typed array the scalar becomes a
                        # value of its dtype (JAX's literal then prints rounded to it).
                        return bind(x, y if ax.weak_type else np.asarray(y, ax.dtype)[()])
            else:
                ay = getattr(y, "aval", None)
                if (ay is not None
                        and (ax is ay or (ax.dtype is ay.dtype and ax.weak_type is ay.weak_type and ax.ndim == ay.ndim))
                        and not (has_bool and ax.dtype == np.bool_) and not (inexact and ax.dtype.kind not in "fc")
                        and not (slow is not None and ax.dtype.kind == "c")
                        and (not ax.weak_type or _weak_pair_stays(ax.dtype))):
                    out = bind(x, y)
                    if type(x) is Array and type(y) is Array and active_trace() is None:
                        # Promotion leaves this pair as it is: later calls may use the plan
                        # the eval trace just made, if it needs no dtype fix.
                        eager = exact_plan(primitive, (ax, ay))
                        _remember(plans, (ax, ay), (eager[0], eager[1], None) if eager else False)
                    return out
        elif type(x) in _PY_SCALARS and (ay := getattr(y, "aval", None)) is not None:
            key = (ay, type(x), config.trace_context_id())
            plan = _fast_plans.get(key)
            if plan is None:
                plan = _fast_plans[key] = (slow is None or ay.dtype.kind != "c") and _scalar_fast_plan(ay, type(x), inexact, has_bool)
            if plan:
                scalar_aval, cast = plan
                if type(y) is Array and active_trace() is None:
                    if cast is not None:
                        x = cast(x)
                    eager = exact_plan(primitive, (scalar_aval, ay))
                    if eager:
                        _remember(plans, (tx, ay, config.trace_context_id()), (eager[0], eager[1], cast))
                        return Array(dispatch.fp_mode.run(eager[0], x, y._value), eager[1])
                    return apply_with_scalar(primitive, y, x, scalar_aval, True)
                if cast is None:
                    return bind(x if ay.weak_type else np.asarray(x, ay.dtype)[()], y)
        if as_operator and not (is_arraylike(x) and is_arraylike(y)):
            return NotImplemented  # let Python try the other operand
        return _promote_and_bind(x, y, name, promote, primitive, bool_primitive, slow)

    return _named(fn, name, doc, method=_call, reflected=reflected, nin=2, nout=1, nargs=2)


def _promote_and_bind(x, y, name: str, promote, primitive, bool_primitive, slow):
    # The general path of a binary function: promotion, then its primitive.
    # (An operand with `__jax_array__` and no aval, e.g. a symbolic dimension, is that array.)
    if getattr(x, "aval", None) is None and hasattr(x, "__jax_array__"):
        x = x.__jax_array__()
    if getattr(y, "aval", None) is None and hasattr(y, "__jax_array__"):
        y = y.__jax_array__()
    if primitive in _MASKING and active_trace() is None and _masks(x, y, primitive):
        return _compiled(x, y, name, promote, primitive)
    x, y = promote(name, x, y)
    if slow is not None:
        return slow(x, y)
    if bool_primitive is not None and aval_of(x).dtype == np.bool_:
        return bool_primitive.bind(x, y)
    return primitive.bind(x, y)


# A boolean times (or over) a float: jax.numpy's function is one XLA
# computation, whose simplifier makes `convert(mask) * a` a select (a masked
# inf or nan gives 0). Eagerly too, the pair runs as that computation.
_MASKING = (lax_ew.mul_p, lax_ew.div_p)
_masked_calls: dict = {}


def _masks(x, y, primitive) -> bool:
    # (true_divide's result is floating whatever its operands)
    if not any(np.result_type(getattr(getattr(v, "aval", None), "dtype", None) or v) == np.bool_ for v in (x, y)):
        return False
    return primitive is lax_ew.div_p or dtypes.result_type(x, y).kind in "fc"


def _compiled(x, y, name: str, promote, primitive):
    call = _masked_calls.get((name, primitive))
    if call is None:
        from pyjax._src.jit import jit

        def body(x, y):
            x, y = promote(name, x, y)
            return primitive.bind(x, y)

        call = _masked_calls[(name, primitive)] = jit(_named(body, name, ""))
    return call(x, y)


def _named(fn, name: str, doc: str, **attributes):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    for attribute, value in attributes.items():
        setattr(fn, attribute, value)
    return fn


def _complex_comparison(primitive):
    # Complex numbers compare lexicographically: real parts, then imaginary.
    def compare(x, y):
        if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating):
            return lax_ew.select(lax_ew.eq(lax_ew.real(x), lax_ew.real(y)),
                                 primitive.bind(lax_ew.imag(x), lax_ew.imag(y)),
                                 primitive.bind(lax_ew.real(x), lax_ew.real(y)))
        return primitive.bind(x, y)

    return compare


add = _binary(lax_ew.add_p, "add", "Elementwise x + y (logical OR for booleans).", bool_primitive=lax_ew.or_p)
subtract = _binary(lax_ew.sub_p, "subtract", "Elementwise x - y.")
multiply = _binary(lax_ew.mul_p, "multiply", "Elementwise x * y (logical AND for booleans).",
                   bool_primitive=lax_ew.and_p)
maximum = _binary(lax_ew.max_p, "maximum", "Elementwise maximum, propagating NaNs.")
minimum = _binary(lax_ew.min_p, "minimum", "Elementwise minimum, propagating NaNs.")
true_divide = _binary(lax_ew.div_p, "true_divide", "Elementwise x / y in floating point.", inexact=True)
arctan2 = _binary(lax_ew.atan2_p, "arctan2", "Elementwise arc tangent of x1/x2, quadrant-aware.", inexact=True)
bitwise_and = _binary(lax_ew.and_p, "bitwise_and", "Elementwise bitwise AND.")
bitwise_or = _binary(lax_ew.or_p, "bitwise_or", "Elementwise bitwise OR.")
bitwise_xor = _binary(lax_ew.xor_p, "bitwise_xor", "Elementwise bitwise XOR.")
equal = _binary(lax_ew.eq_p, "equal", "Elementwise x == y.")
not_equal = _binary(lax_ew.ne_p, "not_equal", "Elementwise x != y.")
less = _binary(lax_ew.lt_p, "less", "Elementwise x < y.", slow=_complex_comparison(lax_ew.lt_p))
less_equal = _binary(lax_ew.le_p, "less_equal", "Elementwise x <= y.", slow=_complex_comparison(lax_ew.le_p))
greater = _binary(lax_ew.gt_p, "greater", "Elementwise x > y.", slow=_complex_comparison(lax_ew.gt_p))
greater_equal = _binary(lax_ew.ge_p, "greater_equal", "Elementwise x >= y.",
                        slow=_complex_comparison(lax_ew.ge_p))


def divide(x1, x2, /):
    """Elementwise x1 / x2 in floating point (alias of true_divide)."""
    return true_divide(x1, x2)


divide.method, divide.reflected = true_divide.method, true_divide.reflected
atan2 = arctan2


def _unary(name: str, primitive, doc: str, *, inexact: bool = False, **params):
    """A promoting unary function. An eager Array that promotion would leave
    as it is (any dtype, or an inexact one for `inexact` functions) goes
    straight to the eval trace's plan for `primitive`."""
    promote = promote_args_inexact if inexact else promote_args
    kinds = "fc" if inexact else None
    plan_key_tail = tuple(params.values())

    def fn(x, /):
        if type(x) is Array and active_trace() is None and (kinds is None or x.aval.dtype.kind in kinds):
            plan = exact_plan(primitive, (x.aval, *plan_key_tail))
            if plan:
                return Array(dispatch.fp_mode.run(plan[0], x._value), plan[1])
            return apply_unary(primitive, x, dict(params))
        if isinstance(x, core.Tracer) and (kinds is None or x.aval.dtype.kind in kinds):
            return primitive.bind(x, **params)  # promotion would leave it as it is
        (x,) = promote(name, x)
        return primitive.bind(x, **params)

    return _named(fn, name, doc, nin=1, nout=1, nargs=1)


exp = _unary("exp", lax_ew.exp_p, "Elementwise exponential e**x.", inexact=True, accuracy=None)
log = _unary("log", lax_ew.log_p, "Elementwise natural logarithm.", inexact=True, accuracy=None)
sin = _unary("sin", lax_ew.sin_p, "Elementwise sine.", inexact=True, accuracy=None)
cos = _unary("cos", lax_ew.cos_p, "Elementwise cosine.", inexact=True, accuracy=None)
tan = _unary("tan", lax_ew.tan_p, "Elementwise tangent.", inexact=True, accuracy=None)
tanh = _unary("tanh", lax_ew.tanh_p, "Elementwise hyperbolic tangent.", inexact=True, accuracy=None)
sqrt = _unary("sqrt", lax_ew.sqrt_p, "Elementwise non-negative square root.", inexact=True, accuracy=None)
cbrt = _unary("cbrt", lax_ew.cbrt_p, "Elementwise cube root.", inexact=True, accuracy=None)
exp2 = _unary("exp2", lax_ew.exp2_p, "Elementwise 2**x.", inexact=True, accuracy=None)
log1p = _unary("log1p", lax_ew.log1p_p, "Elementwise log(1 + x), accurate near 0.", inexact=True, accuracy=None)
expm1 = _unary("expm1", lax_ew.expm1_p, "Elementwise exp(x) - 1, accurate near 0.", inexact=True, accuracy=None)
arcsin = _unary("arcsin", lax_ew.asin_p, "Elementwise arc sine (in [-pi/2, pi/2]).", inexact=True)
arccos = _unary("arccos", lax_ew.acos_p, "Elementwise arc cosine (in [0, pi]).", inexact=True)
arctan = _unary("arctan", lax_ew.atan_p, "Elementwise arc tangent (in [-pi/2, pi/2]).", inexact=True)
sinh = _unary("sinh", lax_ew.sinh_p, "Elementwise hyperbolic sine.", inexact=True)
cosh = _unary("cosh", lax_ew.cosh_p, "Elementwise hyperbolic cosine.", inexact=True)
arcsinh = _unary("arcsinh", lax_ew.asinh_p, "Elementwise inverse hyperbolic sine.", inexact=True)
arctanh = _unary("arctanh", lax_ew.atanh_p, "Elementwise inverse hyperbolic tangent.", inexact=True)
negative = _unary("negative", lax_ew.neg_p, "Elementwise -x.")
sign = _unary("sign", lax_ew.sign_p, "Elementwise sign: -1, 0 or 1 (x/|x| for complex).")
invert = _unary("invert", lax_ew.not_p, "Elementwise bitwise NOT (logical NOT for booleans).")
bitwise_not = _unary("bitwise_not", lax_ew.not_p, "Elementwise bitwise NOT.")
bitwise_invert = _unary("bitwise_invert", lax_ew.not_p, "Elementwise bitwise NOT (array-API name).")
asin, acos, atan, asinh, atanh = arcsin, arccos, arctan, arcsinh, arctanh


def positive(x, /):
    """Elementwise +x (the identity, after promotion)."""
    (x,) = promote_args("positive", x)
    return ensure_arraylike("positive", x)


def floor(x, /):
    """Elementwise floor (integers and booleans are returned as they are)."""
    x = ensure_arraylike("floor", x)
    if dtypes.isdtype(aval_of(x).dtype, ("integral", "bool")):
        return x
    (x,) = promote_args_inexact("floor", x)
    return lax_ew.floor_p.bind(x)


def ceil(x, /):
    """Elementwise ceiling (integers and booleans are returned as they are)."""
    x = ensure_arraylike("ceil", x)
    if dtypes.isdtype(aval_of(x).dtype, ("integral", "bool")):
        return x
    (x,) = promote_args_inexact("ceil", x)
    return lax_ew.ceil_p.bind(x)


def fabs(x, /):
    """Elementwise |x| in floating point (complex inputs are refused)."""
    x = ensure_arraylike("fabs", x)
    if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    (x,) = promote_args_inexact("fabs", x)
    return lax_ew.abs_p.bind(x)


@dispatch.fast_path
def absolute(x, /):
    """Elementwise |x| (booleans and unsigned integers are returned as they are;
    complex inputs give their real modulus)."""
    x = ensure_arraylike("absolute", x)
    dtype = aval_of(x).dtype
    if dtype == np.bool_ or dtypes.issubdtype(dtype, np.unsignedinteger):
        return x
    return lax_ew.abs_p.bind(x)


abs = absolute


def square(x, /):
    """Elementwise x * x (booleans as integers)."""
    x = ensure_arraylike("square", x)
    (x,) = promote_dtypes_numeric(x)
    return lax_ew.square_p.bind(x)


def reciprocal(x, /):
    """Elementwise 1 / x in floating point."""
    x = ensure_arraylike("reciprocal", x)
    (x,) = promote_dtypes_inexact(x)
    return lax_ew.integer_pow_p.bind(x, y=-1)


def _to_bool(x):
    return x if aval_of(x).dtype == np.bool_ else lax_ew.ne(x, constant_like(x, 0))


def logical_not(x, /):
    """Elementwise NOT of truth values (nonzero is True)."""
    (x,) = promote_args("logical_not", x)
    return lax_ew.not_p.bind(_to_bool(x))


def _logical(name: str, primitive):
    def fn(x, y, /):
        x, y = promote_args(name, x, y)
        return primitive.bind(_to_bool(x), _to_bool(y))

    return _named(fn, name, f"Elementwise {name.split('_')[1].upper()} of truth values (nonzero is True).",
                  nin=2, nout=1, nargs=2)


logical_and = _logical("logical_and", lax_ew.and_p)
logical_or = _logical("logical_or", lax_ew.or_p)
logical_xor = _logical("logical_xor", lax_ew.xor_p)


def left_shift(x, y, /):
    """Elementwise x << y."""
    return lax_ew.shift_left_p.bind(*promote_args_numeric("left_shift", x, y))


def bitwise_left_shift(x, y, /):
    """Elementwise x << y (array-API name)."""
    return lax_ew.shift_left_p.bind(*promote_args_numeric("bitwise_left_shift", x, y))


def right_shift(x1, x2, /):
    """Elementwise x1 >> x2 (arithmetic for signed, logical for unsigned types)."""
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    if dtypes.issubdtype(aval_of(x1).dtype, np.unsignedinteger):
        return lax_ew.shift_right_logical_p.bind(x1, x2)
    return lax_ew.shift_right_arithmetic_p.bind(x1, x2)


def bitwise_right_shift(x1, x2, /):
    """Elementwise x1 >> x2 (array-API name)."""
    return right_shift(x1, x2)


def float_power(x, y, /):
    """Elementwise x ** y, computed in floating point."""
    return lax_ew.pow_p.bind(*promote_args_inexact("float_power", x, y))


def nextafter(x, y, /):
    """The next floating-point value after x in the direction of y."""
    return lax_ew.nextafter_p.bind(*promote_args_inexact("nextafter", x, y))


def isfinite(x, /):
    """Elementwise test for finiteness (True for integers and booleans)."""
    x = ensure_arraylike("isfinite", x)
    dtype = aval_of(x).dtype
    if dtypes.issubdtype(dtype, np.floating):
        return lax_ew.is_finite_p.bind(x)
    if dtypes.issubdtype(dtype, np.complexfloating):
        return lax_ew.and_p.bind(lax_ew.is_finite_p.bind(real(x)), lax_ew.is_finite_p.bind(imag(x)))
    return full_like(x, True, dtype=np.dtype(np.bool_))


def isnan(x, /):
    """Elementwise test for NaN (x != x)."""
    x = ensure_arraylike("isnan", x)
    return lax_ew.ne_p.bind(x, x)


def log2(x, /):
    """Elementwise base-2 logarithm."""
    (x,) = promote_args_inexact("log2", x)
    if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating):
        r = lax_ew.log(x)
        re, im = lax_ew.real(r), lax_ew.imag(r)
        ln2 = lax_ew.log(constant_like(re, 2))
        return lax_ew.complex(lax_ew.div(re, ln2), lax_ew.div(im, ln2))
    return lax_ew.div(lax_ew.log(x), lax_ew.log(constant_like(x, 2)))


def log10(x, /):
    """Elementwise base-10 logarithm."""
    (x,) = promote_args_inexact("log10", x)
    inv_ln10 = np.array(0.4342944819032518, dtype=dtypes.finfo(aval_of(x).dtype).dtype)
    if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating):
        r = lax_ew.log(x)
        re, im = lax_ew.real(r), lax_ew.imag(r)
        return lax_ew.complex(lax_ew.mul(re, inv_ln10), lax_ew.mul(im, inv_ln10))
    return lax_ew.mul(lax_ew.log(x), inv_ln10)


def deg2rad(x, /):
    """Converts angles from degrees to radians."""
    (x,) = promote_args_inexact("deg2rad", x)
    return lax_ew.mul(x, constant_like(x, np.pi / 180))


def rad2deg(x, /):
    """Converts angles from radians to degrees."""
    (x,) = promote_args_inexact("rad2deg", x)
    return lax_ew.mul(x, constant_like(x, 180 / np.pi))


def degrees(x, /):
    """Converts angles from radians to degrees."""
    return rad2deg(x)


def radians(x, /):
    """Converts angles from degrees to radians."""
    return deg2rad(x)


def conjugate(x, /):
    """Elementwise complex conjugate (real inputs are returned as they are)."""
    x = ensure_arraylike("conjugate", x)
    return lax_ew.conj(x) if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating) else x


def conj(x, /):
    """Elementwise complex conjugate."""
    return conjugate(x)


def real(val, /):
    """Elementwise real part (real inputs are returned as they are)."""
    val = ensure_arraylike("real", val)
    return lax_ew.real(val) if dtypes.issubdtype(aval_of(val).dtype, np.complexfloating) else val


def imag(val, /):
    """Elementwise imaginary part (zeros for real inputs)."""
    val = ensure_arraylike("imag", val)
    return lax_ew.imag(val) if dtypes.issubdtype(aval_of(val).dtype, np.complexfloating) else full_like(val, 0)


_IN_UFUNCS_EXTRA = frozenset({
    "power", "pow", "floor_divide", "remainder", "mod", "divmod", "fmod", "logaddexp", "logaddexp2", "isinf",
    "isposinf", "isneginf", "signbit", "copysign", "rint", "hypot", "sinc", "heaviside", "arccosh", "acosh",
    "frexp", "ldexp", "modf", "spacing", "bitwise_count", "clip", "round", "trunc",
})


def __getattr__(name: str):
    # The composite elementwise functions live in ufuncs_extra (which imports
    # this module); they are found here too, where jax.numpy keeps them.
    if name in _IN_UFUNCS_EXTRA:
        from pyjax._src.numpy import ufuncs_extra

        return getattr(ufuncs_extra, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
