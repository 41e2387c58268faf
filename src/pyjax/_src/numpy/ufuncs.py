"""Elementwise jax.numpy functions: promotion, then one lax primitive.

Each binary function promotes its operands to a common dtype (JAX's
lattice, weak types respected) and a common rank, then binds the primitive;
lax broadcasts size-1 axes. Functions that need floats (exp, sin, divide)
promote integers to the default float type first.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import config, core, dtypes
from pyjax._src.array import Array

from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.numpy.util import aval_of, is_arraylike, promote_args, promote_args_inexact

_add_bind = lax_ew.add_p.bind


_PY_SCALARS = frozenset({bool, int, float, complex})


def _scalar_fast_plan(aval, scalar_type, inexact: bool, has_bool_primitive: bool):
    """May `op(array, python_scalar)` bind directly? Yes (the scalar's aval is
    returned) when promotion leaves the array's type unchanged and the scalar
    already is a weak value of it; otherwise False."""
    if has_bool_primitive and aval.dtype == np.bool_:
        return False
    if inexact and not np.issubdtype(aval.dtype, np.inexact):
        return False
    scalar_aval = core.python_scalar_aval(scalar_type)
    promoted = dtypes.binary_promote(aval.dtype, aval.weak_type, scalar_aval.dtype, scalar_aval.weak_type)
    return scalar_aval if promoted == (aval.dtype, aval.weak_type) and scalar_aval.dtype == aval.dtype else False


def _binary(primitive, name: str, doc: str, *, inexact: bool = False, bool_primitive=None):
    promote = promote_args_inexact if inexact else promote_args
    bind = primitive.bind
    has_bool = bool_primitive is not None
    _fast_plans: dict = {}  # per function: (array aval, scalar type, config id) -> plan

    def fn(x, y, /):
        return _call(x, y, False)

    def reflected(self, other):
        return _call(other, self, True)

    def _call(x, y, as_operator=True):
        # Fast paths: operands that promotion would leave as they are. (Also
        # the `__op__` method itself, hence the defaulted flag.)
        ax = getattr(x, "aval", None)
        if ax is not None:
            if type(y) in _PY_SCALARS:
                key = (ax, type(y), config.trace_context_id())
                plan = _fast_plans.get(key)
                if plan is None:
                    plan = _fast_plans[key] = _scalar_fast_plan(ax, type(y), inexact, has_bool)
                if plan:
                    if type(x) is Array and core._trace_ctx.get() is None:
                        return core._default_trace[0].apply_with_scalar(primitive, x, y, plan, False)
                    return bind(x, y)
            else:
                ay = getattr(y, "aval", None)
                if ay is not None and (ax is ay or (ax.dtype is ay.dtype and ax.weak_type is ay.weak_type and ax.ndim == ay.ndim)):
                    if not (has_bool and ax.dtype == np.bool_) and not (inexact and ax.dtype.kind not in "fc"):
                        return bind(x, y)
        elif type(x) in _PY_SCALARS and (ay := getattr(y, "aval", None)) is not None:
            key = (ay, type(x), config.trace_context_id())
            plan = _fast_plans.get(key)
            if plan is None:
                plan = _fast_plans[key] = _scalar_fast_plan(ay, type(x), inexact, has_bool)
            if plan:
                if type(y) is Array and core._trace_ctx.get() is None:
                    return core._default_trace[0].apply_with_scalar(primitive, y, x, plan, True)
                return bind(x, y)
        if as_operator and not (is_arraylike(x) and is_arraylike(y)):
            return NotImplemented  # let Python try the other operand
        x, y = promote(name, x, y)
        if bool_primitive is not None and aval_of(x).dtype == np.bool_:
            return bool_primitive.bind(x, y)
        return primitive.bind(x, y)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.method, fn.reflected = _call, reflected
    return fn


def _unary(primitive, name: str, doc: str, *, inexact: bool = False, **params):
    promote = promote_args_inexact if inexact else promote_args

    def fn(x, /):
        (x,) = promote(name, x)
        return primitive.bind(x, **params)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


add = _binary(lax_ew.add_p, "add", "Elementwise x + y (logical OR for booleans).", bool_primitive=lax_ew.or_p)
subtract = _binary(lax_ew.sub_p, "subtract", "Elementwise x - y.")
multiply = _binary(lax_ew.mul_p, "multiply", "Elementwise x * y (logical AND for booleans).", bool_primitive=lax_ew.and_p)
maximum = _binary(lax_ew.max_p, "maximum", "Elementwise maximum, propagating NaNs.")
minimum = _binary(lax_ew.min_p, "minimum", "Elementwise minimum, propagating NaNs.")
true_divide = _binary(lax_ew.div_p, "true_divide", "Elementwise x / y in floating point.", inexact=True)
divide = true_divide
arctan2 = _binary(lax_ew.atan2_p, "arctan2", "Elementwise arc tangent of x1/x2, quadrant-aware.", inexact=True)
bitwise_and = _binary(lax_ew.and_p, "bitwise_and", "Elementwise bitwise AND.")
bitwise_or = _binary(lax_ew.or_p, "bitwise_or", "Elementwise bitwise OR.")
bitwise_xor = _binary(lax_ew.xor_p, "bitwise_xor", "Elementwise bitwise XOR.")
equal = _binary(lax_ew.eq_p, "equal", "Elementwise x == y.")
not_equal = _binary(lax_ew.ne_p, "not_equal", "Elementwise x != y.")
less = _binary(lax_ew.lt_p, "less", "Elementwise x < y.")
less_equal = _binary(lax_ew.le_p, "less_equal", "Elementwise x <= y.")
greater = _binary(lax_ew.gt_p, "greater", "Elementwise x > y.")
greater_equal = _binary(lax_ew.ge_p, "greater_equal", "Elementwise x >= y.")

exp = _unary(lax_ew.exp_p, "exp", "Elementwise exponential.", inexact=True, accuracy=None)
log = _unary(lax_ew.log_p, "log", "Elementwise natural logarithm.", inexact=True, accuracy=None)
sin = _unary(lax_ew.sin_p, "sin", "Elementwise sine.", inexact=True, accuracy=None)
cos = _unary(lax_ew.cos_p, "cos", "Elementwise cosine.", inexact=True, accuracy=None)
tan = _unary(lax_ew.tan_p, "tan", "Elementwise tangent.", inexact=True, accuracy=None)
tanh = _unary(lax_ew.tanh_p, "tanh", "Elementwise hyperbolic tangent.", inexact=True, accuracy=None)
sqrt = _unary(lax_ew.sqrt_p, "sqrt", "Elementwise square root.", inexact=True, accuracy=None)
exp2 = _unary(lax_ew.exp2_p, "exp2", "Elementwise 2**x.", inexact=True, accuracy=None)
log1p = _unary(lax_ew.log1p_p, "log1p", "Elementwise log(1 + x).", inexact=True, accuracy=None)
expm1 = _unary(lax_ew.expm1_p, "expm1", "Elementwise exp(x) - 1.", inexact=True, accuracy=None)
arcsin = _unary(lax_ew.asin_p, "arcsin", "Elementwise arc sine.", inexact=True)
arccos = _unary(lax_ew.acos_p, "arccos", "Elementwise arc cosine.", inexact=True)
arctan = _unary(lax_ew.atan_p, "arctan", "Elementwise arc tangent.", inexact=True)
sinh = _unary(lax_ew.sinh_p, "sinh", "Elementwise hyperbolic sine.", inexact=True)
cosh = _unary(lax_ew.cosh_p, "cosh", "Elementwise hyperbolic cosine.", inexact=True)
arcsinh = _unary(lax_ew.asinh_p, "arcsinh", "Elementwise inverse hyperbolic sine.", inexact=True)
arccosh = _unary(lax_ew.acosh_p, "arccosh", "Elementwise inverse hyperbolic cosine.", inexact=True)
arctanh = _unary(lax_ew.atanh_p, "arctanh", "Elementwise inverse hyperbolic tangent.", inexact=True)
floor = _unary(lax_ew.floor_p, "floor", "Elementwise floor.", inexact=True)
ceil = _unary(lax_ew.ceil_p, "ceil", "Elementwise ceiling.", inexact=True)
isfinite = _unary(lax_ew.is_finite_p, "isfinite", "Elementwise test for finiteness.", inexact=True)


def negative(x, /):
    """Elementwise -x."""
    (x,) = promote_args("negative", x)
    return lax_ew.neg_p.bind(x)


def positive(x, /):
    """Elementwise +x (the identity, after promotion)."""
    (x,) = promote_args("positive", x)
    return x


def absolute(x, /):
    """Elementwise |x| (unsigned and bool are returned as they are)."""
    (x,) = promote_args("absolute", x)
    dtype = aval_of(x).dtype
    if dtype == np.bool_ or np.issubdtype(dtype, np.unsignedinteger):
        return x
    return lax_ew.abs_p.bind(x)


abs = absolute  # noqa: A001


def sign(x, /):
    """Elementwise sign."""
    (x,) = promote_args("sign", x)
    return lax_ew.sign_p.bind(x)


def square(x, /):
    """Elementwise x * x."""
    (x,) = promote_args("square", x)
    return lax_ew.integer_pow_p.bind(x, y=2)


def logical_not(x, /):
    """Elementwise NOT of truth values."""
    (x,) = promote_args("logical_not", x)
    if aval_of(x).dtype != np.bool_:
        x = lax_ew.ne_p.bind(x, _zero_like(x))
    return lax_ew.not_p.bind(x)


def _zero_like(x):
    return aval_of(x).dtype.type(0)


def invert(x, /):
    """Elementwise bitwise NOT."""
    (x,) = promote_args("invert", x)
    return lax_ew.not_p.bind(x)


bitwise_not = invert


def power(x1, x2, /):
    """Elementwise x1 ** x2; a static integer exponent becomes integer_pow."""
    if type(x2) is int or (isinstance(x2, np.integer) and not isinstance(x2, np.ndarray)):
        (x1,) = promote_args("power", x1)
        return lax_ew.integer_pow_p.bind(x1, y=int(x2))
    x1, x2 = promote_args("power", x1, x2)
    dtype = aval_of(x1).dtype
    if np.issubdtype(dtype, np.integer):
        raise NotImplementedError("pyjax.numpy.power with a traced integer exponent is not implemented yet")
    return lax_ew.pow_p.bind(x1, x2)


def floor_divide(x1, x2, /):
    """Elementwise floor(x1 / x2)."""
    x1, x2 = promote_args("floor_divide", x1, x2)
    dtype = aval_of(x1).dtype
    if np.issubdtype(dtype, np.integer):
        quotient = lax_ew.div_p.bind(x1, x2)
        rem = lax_ew.rem_p.bind(x1, x2)
        zero = dtype.type(0)
        adjust = lax_ew.and_p.bind(
            lax_ew.ne_p.bind(rem, zero), lax_ew.ne_p.bind(lax_ew.lt_p.bind(rem, zero), lax_ew.lt_p.bind(x2, zero))
        )
        return lax_ew.select_n_p.bind(adjust, quotient, lax_ew.sub_p.bind(quotient, dtype.type(1)))
    return lax_ew.floor_p.bind(lax_ew.div_p.bind(x1, x2))


def remainder(x1, x2, /):
    """Elementwise remainder with the sign of the divisor (Python's %)."""
    x1, x2 = promote_args("remainder", x1, x2)
    rem = lax_ew.rem_p.bind(x1, x2)
    dtype = aval_of(rem).dtype
    zero = dtype.type(0)
    wrong_sign = lax_ew.and_p.bind(
        lax_ew.ne_p.bind(rem, zero), lax_ew.ne_p.bind(lax_ew.lt_p.bind(rem, zero), lax_ew.lt_p.bind(x2, zero))
    )
    return lax_ew.select_n_p.bind(wrong_sign, rem, lax_ew.add_p.bind(rem, x2))


mod = remainder


def logaddexp(x1, x2, /):
    """Elementwise log(exp(x1) + exp(x2)), computed stably."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    amax = lax_ew.max_p.bind(x1, x2)
    delta = lax_ew.sub_p.bind(x1, x2)
    return lax_ew.add_p.bind(amax, lax_ew.log1p_p.bind(lax_ew.exp_p.bind(lax_ew.neg_p.bind(lax_ew.abs_p.bind(delta), ), accuracy=None), accuracy=None))


def isnan(x, /):
    """Elementwise test for NaN."""
    (x,) = promote_args("isnan", x)
    return lax_ew.ne_p.bind(x, x)


