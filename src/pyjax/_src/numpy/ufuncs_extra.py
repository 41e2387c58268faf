"""Elementwise jax.numpy functions built from several primitives: remainder,
floor_divide, divmod, power, logaddexp, the floating-point bit functions
(signbit, frexp, ldexp, spacing), hypot, sinc, clip, round, and friends.

Where JAX wraps a function in a `jit` that shows in jaxprs
(`jit[name=remainder]`), so does pyjax, so programs print the same; the
others are written straight into the caller's trace.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import special as lax_special
from pyjax._src import dispatch
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.util import (
    aval_of,
    check_arraylike,
    constant_like,
    ensure_arraylike,
    full_like,
    lax_convert,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    promote_shapes,
)
from pyjax._src.numpy.where import _where, where

_INT_FOR_BITS = {16: np.int16, 32: np.int32, 64: np.int64}


def _dtype(x):
    return aval_of(x).dtype


def _ones(x):
    return full_like(x, 1)


def _zeros(x):
    return full_like(x, 0)


# ---------------------------------------------------------------------------
# Division and remainders


@jit
def remainder(x1, x2, /):
    """Elementwise remainder of x1 / x2 with the sign of the divisor (Python's
    %). Integer division by zero gives x1 % 1 = 0 rather than an error."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    zero = constant_like(x1, 0)
    if dtypes.issubdtype(_dtype(x2), np.integer):
        x2 = _where(x2 == 0, _ones(x2), x2)
    trunc_mod = lax_ew.rem(x1, x2)
    nonzero = lax_ew.ne(trunc_mod, zero)
    wrong_sign = lax_ew.bitwise_and(lax_ew.ne(lax_ew.lt(trunc_mod, zero), lax_ew.lt(x2, zero)), nonzero)
    return lax_ew.select(wrong_sign, lax_ew.add(trunc_mod, x2), trunc_mod)


def mod(x1, x2, /):
    """Elementwise remainder with the sign of the divisor (alias of remainder)."""
    return remainder(x1, x2)


def _float_divmod(x1, x2):
    # CPython's float_divmod: truncated remainder, then fix the signs.
    mod_ = lax_ew.rem(x1, x2)
    corrected = _where(x2 == 0, x1, lax_ew.sub(x1, mod_))
    div = lax_ew.div(corrected, x2)
    fix = lax_ew.bitwise_and(mod_ != 0, lax_ew.sign(x2) != lax_ew.sign(mod_))
    mod_ = lax_ew.select(fix, mod_ + x2, mod_)
    div = lax_ew.select(fix, div - 1.0, div)
    return lax_ew.round(div), mod_


@jit
def floor_divide(x1, x2, /):
    """Elementwise floor(x1 / x2)."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    dtype = _dtype(x1)
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return lax_ew.div(x1, x2)
    if dtypes.issubdtype(dtype, np.integer):
        quotient = lax_ew.div(x1, x2)
        round_down = ufuncs.logical_and(lax_ew.sign(x1) != lax_ew.sign(x2), lax_ew.rem(x1, x2) != 0)
        return _where(round_down, quotient - 1, quotient)
    if dtypes.issubdtype(dtype, np.complexfloating):
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


@jit
def divmod(x1, x2, /):
    """(floor_divide(x1, x2), remainder(x1, x2)), elementwise."""
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if dtypes.issubdtype(_dtype(x1), np.integer):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


@jit
def fmod(x1, x2, /):
    """Elementwise remainder with the sign of the dividend (C's fmod)."""
    x1, x2 = ensure_arraylike("fmod", x1, x2)
    if dtypes.issubdtype(dtypes.result_type(x1, x2), np.integer):
        x2 = _where(x2 == 0, _ones(x2), x2)
    return lax_ew.rem(*promote_args_numeric("fmod", x1, x2))


# ---------------------------------------------------------------------------
# Powers


def _concrete_integer(x):
    # A Python/NumPy integer, or a concrete integer Array scalar, as an int.
    if isinstance(x, core.Tracer):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def power(x1, x2, /):
    """Elementwise x1 ** x2.

    A concrete integer exponent is an `integer_pow` (exact repeated
    multiplication); integer bases with integer exponents use binary
    exponentiation; a float base with an integer exponent keeps the
    exponent's dtype (so it stays differentiable at 0).
    """
    check_arraylike("power", x1, x2)
    exponent = _concrete_integer(x2)
    if exponent is not None:
        (x1,) = promote_dtypes_numeric(x1)
        return lax_ew.integer_pow(x1, exponent)
    return _power(x1, x2)


def pow(x1, x2, /):
    """Elementwise x1 ** x2 (alias of power)."""
    return power(x1, x2)


def _power(x1, x2):
    x1, x2 = promote_shapes("power", x1, x2)
    x1_, x2_ = promote_args_numeric("power", x1, x2)
    if dtypes.issubdtype(_dtype(x1_), np.integer) or _dtype(x1_) == np.bool_:
        return _pow_int_int(x1_, x2_)
    d1, d2 = dtypes.dtype(x1), dtypes.dtype(x2)
    if dtypes.issubdtype(d1, np.inexact) and dtypes.issubdtype(d2, np.integer):
        return lax_ew.pow(x1, x2)
    return lax_ew.pow(x1_, x2_)


def _pow_int_int(x1, x2):
    # Binary exponentiation over the 6 low bits of the exponent: anything
    # larger overflows for every base but 0 and +-1.
    zero, one = constant_like(x2, 0), constant_like(x2, 1)
    acc = _where(lax_ew.bitwise_and(lax_ew.eq(x1, zero), lax_ew.ne(x2, zero)), zero, one)
    for _ in range(6):
        acc = _where(lax_ew.bitwise_and(x2, one), lax_ew.mul(acc, x1), acc)
        x1 = lax_ew.mul(x1, x1)
        x2 = lax_ew.shift_right_logical(x2, one)
    return acc


# ---------------------------------------------------------------------------
# logaddexp


def _replace_inf(x):
    re = lax_ew.real(x) if dtypes.issubdtype(_dtype(x), np.complexfloating) else x
    return lax_ew.select(lax_ew.eq(re, constant_like(re, float("inf"))), _zeros(x), x)


def _wrap_between(x, bound):
    a, two_a, zero = constant_like(x, bound), constant_like(x, 2 * bound), constant_like(x, 0)
    rem = lax_ew.rem(lax_ew.add(x, a), two_a)
    rem = lax_ew.select(lax_ew.lt(rem, zero), lax_ew.add(rem, two_a), rem)
    return lax_ew.sub(rem, a)


def _logaddexp_body(exp, log_scale, wrap):
    def body(x1, x2):
        dtype = _dtype(x1)
        amax = lax_ew.max(x1, x2)
        if dtypes.isdtype(dtype, "real floating"):
            delta = lax_ew.sub(x1, x2)
            is_nan = lax_ew.ne(delta, delta)  # NaNs, or infinities of one sign
            both = lax_ew.add(x1, x2)
            tail = lax_ew.log1p(exp(lax_ew.neg(lax_ew.abs(delta))))
            return lax_ew.select(is_nan, both, lax_ew.add(amax, log_scale(amax, tail)))
        if dtypes.isdtype(dtype, "complex floating"):
            delta = lax_ew.sub(lax_ew.add(x1, x2), lax_ew.mul(amax, constant_like(amax, 2)))
            out = lax_ew.add(amax, log_scale(amax, lax_ew.log1p(exp(delta))))
            return lax_ew.complex(lax_ew.real(out), _wrap_between(lax_ew.imag(out), wrap))
        raise ValueError(f"logaddexp requires floating-point or complex inputs; got {dtype}")

    return body


def _logaddexp_rule(primal, name):
    def jvp(primals, tangents):
        x1, x2 = primals
        t1, t2 = tangents
        out = primal(x1, x2)
        tangent = lax_ew.add(
            lax_ew.mul(t1, lax_ew.exp(lax_ew.sub(_replace_inf(x1), _replace_inf(out)))),
            lax_ew.mul(t2, lax_ew.exp(lax_ew.sub(_replace_inf(x2), _replace_inf(out)))))
        return out, tangent

    jvp.__name__ = jvp.__qualname__ = name
    return jvp


_lax_logaddexp = custom_jvp(_logaddexp_body(lax_ew.exp, lambda amax, t: t, np.pi))
_lax_logaddexp.__name__ = "logaddexp"
_lax_logaddexp.defjvp(_logaddexp_rule(_lax_logaddexp, "_logaddexp_jvp"))
_lax_logaddexp2 = custom_jvp(_logaddexp_body(
    lax_ew.exp2, lambda amax, t: lax_ew.mul(constant_like(amax, 1 / np.log(2)), t), np.pi / np.log(2)))
_lax_logaddexp2.__name__ = "logaddexp2"
_lax_logaddexp2.defjvp(_logaddexp_rule(_lax_logaddexp2, "_logaddexp2_jvp"))


def logaddexp(x1, x2, /):
    """Elementwise log(exp(x1) + exp(x2)), without overflow."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return _lax_logaddexp(x1, x2)


def logaddexp2(x1, x2, /):
    """Elementwise log2(2**x1 + 2**x2), without overflow."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return _lax_logaddexp2(x1, x2)


# ---------------------------------------------------------------------------
# Floating-point structure


@jit
def arccosh(x, /):
    """Elementwise inverse hyperbolic cosine (principal branch for complex)."""
    (x,) = promote_args_inexact("arccosh", x)
    result = lax_ew.acosh(x)
    if dtypes.issubdtype(_dtype(result), np.complexfloating):
        result = _where(ufuncs.real(result) < 0, lax_ew.neg(result), result)
    return result


acosh = arccosh


@jit
def rint(x, /):
    """Rounds to the nearest integer, halves to even (integers become floats)."""
    x = ensure_arraylike("rint", x)
    dtype = _dtype(x)
    if dtype == np.bool_ or dtypes.issubdtype(dtype, np.integer):
        return lax_convert(x, dtypes.default_float_dtype())
    if dtypes.issubdtype(dtype, np.complexfloating):
        return lax_ew.complex(rint(lax_ew.real(x)), rint(lax_ew.imag(x)))
    return lax_ew.round(x, lax_ew.RoundingMethod.TO_NEAREST_EVEN)


@jit
def signbit(x, /):
    """True where the sign bit is set (including -0.0 and negative NaNs)."""
    (x,) = promote_args("signbit", x)
    dtype = _dtype(x)
    if dtypes.issubdtype(dtype, np.integer):
        return lax_ew.lt(x, constant_like(x, 0))
    if dtypes.issubdtype(dtype, np.bool_):
        return full_like(x, False, dtype=np.dtype(np.bool_))
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"jax.numpy.signbit is not well defined for {dtype}")
    info = dtypes.finfo(dtype)
    if info.bits not in _INT_FOR_BITS:
        raise NotImplementedError("jax.numpy.signbit only supports 16, 32, and 64-bit types.")
    bits = lax_ew.bitcast_convert_type(x, _INT_FOR_BITS[info.bits])
    return lax_convert(bits >> (info.nexp + info.nmant), np.bool_)


@jit
def copysign(x1, x2, /):
    """|x1| with the sign of x2."""
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if dtypes.issubdtype(_dtype(x1), np.complexfloating):
        raise TypeError("copysign does not support complex-valued inputs")
    return _where(signbit(x2).astype(bool), -lax_ew.abs(x1), lax_ew.abs(x1))


def _normalize_float(x):
    # Subnormals are scaled into the normal range; the exponent shift is
    # returned beside the integer view of the bits.
    info = dtypes.finfo(_dtype(x))
    int_type = _INT_FOR_BITS[info.bits]
    tiny = lax_ew.abs(x) < info.tiny
    scaled = _where(tiny, x * np.asarray(1 << info.nmant, _dtype(x))[()], x)
    shift = _where(tiny, int_type(-info.nmant), int_type(0))
    return lax_ew.bitcast_convert_type(scaled, int_type), shift


def _frexp_body(x):
    dtype = _dtype(x)
    info = dtypes.finfo(dtype)
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    bits, exponent = _normalize_float(x)
    exponent += ((bits >> info.nmant) & mask) - bias + 1
    bits &= ~(mask << info.nmant)
    bits |= (bias - 1) << info.nmant
    mantissa = lax_ew.bitcast_convert_type(bits, dtype)
    special = isinf(x) | ufuncs.isnan(x) | (x == 0)
    exponent = _where(special, _zeros(exponent), exponent)
    return _where(special, x, mantissa), lax_convert(exponent, np.int32)


_frexp = custom_jvp(_frexp_body)
_frexp.__name__ = "_frexp"


def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    return (m, e), (t * ufuncs.exp2(-e.astype(_dtype(t))), full_like(e, 0, dtype=dtypes.float0))


_frexp.defjvp(_frexp_jvp)


@jit
def frexp(x, /):
    """Splits x into mantissa in [0.5, 1) and integer exponent: x = m * 2**e."""
    x = ensure_arraylike("frexp", x)
    (x,) = promote_dtypes_inexact(x)
    if dtypes.issubdtype(_dtype(x), np.complexfloating):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@jit
def ldexp(x1, x2, /):
    """x1 * 2**x2, computed through the bit representation (no overflow in
    the intermediate power)."""
    x1, x2 = ensure_arraylike("ldexp", x1, x2)
    d1, d2 = _dtype(x1), _dtype(x2)
    if dtypes.issubdtype(d1, np.complexfloating) or dtypes.issubdtype(d2, np.inexact):
        raise ValueError(f"ldexp not supported for input types {(d1, d2)}")
    (x1,) = promote_args_inexact("ldexp", x1)
    x2 = lax_convert(x2, _dtype(x1))
    m, e = frexp(x1)
    e = (e.astype(_dtype(x2)) + x2).astype(_dtype(x1))
    m = _where(e > 0, m * 2, m)
    e = _where(e > 0, e - 1, e)
    x = m * (2 ** e.astype(_dtype(m)))
    return _where(isinf(x1) | (x1 == 0), x1, x)


@jit
def modf(x, /, out=None):
    """(fractional part, integral part), both with the sign of x."""
    x = ensure_arraylike("modf", x)
    (x,) = promote_dtypes_inexact(x)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    whole = _where(lax_ew.ge(x, constant_like(x, 0)), ufuncs.floor(x), ufuncs.ceil(x))
    return x - whole, whole


def spacing(x, /):
    """The distance from x to the next float of larger magnitude."""
    (arr,) = promote_args_inexact("spacing", x)
    if dtypes.isdtype(_dtype(arr), "complex floating"):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = constant_like(arr, np.inf)
    smallest_subnormal = dtypes.finfo(_dtype(arr)).smallest_subnormal
    if _dtype(arr) == np.float16:
        return lax_ew.nextafter(arr, inf) - arr
    result = lax_ew.nextafter(arr, copysign(inf, arr)) - arr
    return _where(result == 0, copysign(smallest_subnormal, arr), result)


@jit
def isinf(x, /):
    """Elementwise test for positive or negative infinity."""
    x = ensure_arraylike("isinf", x)
    dtype = _dtype(x)
    if dtypes.issubdtype(dtype, np.floating):
        return lax_ew.eq(lax_ew.abs(x), constant_like(x, np.inf))
    if dtypes.issubdtype(dtype, np.complexfloating):
        re, im = lax_ew.real(x), lax_ew.imag(x)
        return lax_ew.bitwise_or(lax_ew.eq(lax_ew.abs(re), constant_like(re, np.inf)),
                                 lax_ew.eq(lax_ew.abs(im), constant_like(im, np.inf)))
    return full_like(x, False, dtype=np.dtype(np.bool_))


def _isposneginf(infinity, x, out):
    if out is not None:
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")
    dtype = _dtype(x)
    if dtypes.issubdtype(dtype, np.floating):
        return lax_ew.eq(x, constant_like(x, infinity))
    if dtypes.issubdtype(dtype, np.complexfloating):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    return full_like(x, False, dtype=np.dtype(np.bool_))


def isposinf(x, /, out=None):
    """Elementwise test for +inf."""
    return _isposneginf(np.inf, ensure_arraylike("isposinf", x), out)


def isneginf(x, /, out=None):
    """Elementwise test for -inf."""
    return _isposneginf(-np.inf, ensure_arraylike("isneginf", x), out)


@jit
def heaviside(x1, x2, /):
    """Heaviside step: 0 for x1 < 0, x2 at 0, 1 for x1 > 0 (NaN stays NaN)."""
    x1, x2 = ensure_arraylike("heaviside", x1, x2)
    x1, x2 = promote_dtypes_inexact(x1, x2)
    zero = constant_like(x1, 0)
    return _where(lax_ew.lt(x1, zero), zero,
                  _where(lax_ew.gt(x1, zero), constant_like(x1, 1), _where(lax_ew.ne(x1, x1), x1, x2)))


@jit
def hypot(x1, x2, /):
    """sqrt(x1**2 + x2**2), without intermediate overflow."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if dtypes.issubdtype(_dtype(x1), np.complexfloating):
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. "
                         "Please convert to real values first, such as by using abs(x)")
    x1, x2 = lax_ew.abs(x1), lax_ew.abs(x2)
    has_inf = lax_ew.bitwise_or(isposinf(x1), isposinf(x2))
    x1, x2 = ufuncs.maximum(x1, x2), ufuncs.minimum(x1, x2)
    x = _where(x1 == 0, x1, x1 * lax_ew.sqrt(1 + lax_ew.square(lax_ew.div(x2, _where(x1 == 0, _ones(x1), x1)))))
    return _where(has_inf, constant_like(x, np.inf), x)


def _sinc_taylor(k: int):
    # The k-th derivative of sinc at 0 as a function of pi*x (its Maclaurin
    # coefficient), with a JVP that moves to the next coefficient.
    def coefficient(x):
        if k % 2:
            return x * 0
        return x * 0 + constant_like(x, (-1) ** (k // 2) / (k + 1))

    rule = custom_jvp(coefficient)
    rule.__name__ = "_sinc_maclaurin"

    def _sinc_maclaurin_jvp(primals, tangents):
        return rule(*primals), _sinc_taylor(k + 1)(*primals) * tangents[0]

    rule.defjvp(_sinc_maclaurin_jvp)
    return rule


@jit
def sinc(x, /):
    """The normalized sinc function sin(pi x) / (pi x), 1 at 0 (with the
    right derivatives there)."""
    x = ensure_arraylike("sinc", x)
    (x,) = promote_dtypes_inexact(x)
    at_zero = lax_ew.eq(x, constant_like(x, 0))
    pi_x = lax_ew.mul(constant_like(x, np.pi), x)
    safe = _where(at_zero, constant_like(x, 1), pi_x)
    return _where(at_zero, _sinc_taylor(0)(pi_x), lax_ew.div(lax_ew.sin(safe), safe))


@jit
def bitwise_count(x, /):
    """The number of 1 bits in |x| (as uint8)."""
    (x,) = promote_args_numeric("bitwise_count", x)
    return lax_ew.population_count(ufuncs.abs(x)).astype("uint8")


# ---------------------------------------------------------------------------
# Functions of jax.numpy's main module that behave elementwise


def iscomplexobj(x) -> bool:
    """Whether `x` has a complex dtype (a static, Python answer)."""
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        from pyjax._src.numpy.creation import asarray

        dtype = aval_of(asarray(x)).dtype
    return dtypes.issubdtype(dtype, np.complexfloating)


def isrealobj(x) -> bool:
    """Whether `x` does not have a complex dtype."""
    return not iscomplexobj(x)


@dispatch.fast_path
@jit
def clip(arr=None, /, min=None, max=None):
    """Clips values to the interval [min, max] (either bound may be None).

    Example:
      >>> jnp.clip(jnp.arange(5), 1, 3)
      Array([1, 1, 2, 3, 3], dtype=int32)
    """
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if builtins.any(iscomplexobj(t) for t in (arr, min, max)):
        raise ValueError("Clip received a complex value either through the input or the min/max keywords. "
                         "Complex values have no ordering and cannot be clipped. Please convert to a real value "
                         "or array by taking the real or imaginary components via jax.numpy.real/imag "
                         "respectively.")
    if min is not None:
        arr = ufuncs.maximum(min, arr)
    if max is not None:
        arr = ufuncs.minimum(max, arr)
    return ensure_arraylike("clip", arr)


@jit
def fmin(x1, x2):
    """Elementwise minimum, ignoring NaNs (NaN only where both are NaN)."""
    return where(ufuncs.less(x1, x2) | ufuncs.isnan(x2), x1, x2)


@jit
def fmax(x1, x2):
    """Elementwise maximum, ignoring NaNs (NaN only where both are NaN)."""
    return where(ufuncs.greater(x1, x2) | ufuncs.isnan(x2), x1, x2)


@jit
def trunc(x):
    """Rounds towards zero (integers and booleans are returned as they are)."""
    x = ensure_arraylike("trunc", x)
    if dtypes.isdtype(_dtype(x), ("integral", "bool")):
        return x
    return where(lax_ew.lt(x, constant_like(x, 0)), ufuncs.ceil(x), ufuncs.floor(x))


@jit
def iscomplex(x):
    """True where the imaginary part is nonzero."""
    i = ufuncs.imag(x)
    return lax_ew.ne(i, constant_like(i, 0))


@jit
def isreal(x):
    """True where the imaginary part is zero."""
    i = ufuncs.imag(x)
    return lax_ew.eq(i, constant_like(i, 0))


@jit(static_argnames=["deg"])
def angle(z, deg: bool = False):
    """The argument of complex numbers (in radians, or degrees if `deg`)."""
    z = ensure_arraylike("angle", z)
    re, im = ufuncs.real(z), ufuncs.imag(z)
    dtype = _dtype(re)
    if not dtypes.issubdtype(dtype, np.inexact) or (
            dtypes.issubdtype(_dtype(z), np.floating) and aval_of(z).ndim == 0):
        dtype = dtypes.default_float_dtype()
        re = lax_convert(re, dtype)
        im = lax_convert(im, dtype)
    result = lax_ew.atan2(im, re)
    return ufuncs.degrees(result) if deg else result


@jit(static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """Elementwise |a - b| <= atol + rtol * |b| (infinities must be equal)."""
    a, b = promote_args("isclose", a, b)
    a, b = promote_args_inexact("isclose", a, b)
    dtype = _dtype(a)
    if dtypes.issubdtype(dtype, np.complexfloating):
        dtype = np.array(0, dtype).real.dtype
    rtol = lax_convert(rtol, dtype)
    atol = lax_convert(atol, dtype)
    both_nan = ufuncs.logical_and(ufuncs.isnan(a), ufuncs.isnan(b))
    finite = ufuncs.isfinite(b)
    in_range = lax_ew.le(lax_ew.abs(lax_ew.sub(a, b)), lax_ew.add(atol, lax_ew.mul(rtol, lax_ew.abs(b))))
    out = ufuncs.logical_or(lax_ew.eq(a, b), ufuncs.logical_and(finite, in_range))
    return ufuncs.logical_or(out, both_nan) if equal_nan else out


@jit(static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """Whether every element of a and b is close (see isclose)."""
    from pyjax._src.numpy.reductions import all as all_

    check_arraylike("allclose", a, b)
    return all_(isclose(a, b, rtol, atol, equal_nan))


def _round_float(x, decimals: int, dtype):
    if decimals == 0:
        return lax_ew.round(x, lax_ew.RoundingMethod.TO_NEAREST_EVEN)
    # Rescaling loses float16 precision: work in float32 there.
    x = lax_convert(x, np.float32) if dtype == np.float16 else x
    factor = constant_like(x, 10 ** decimals)
    out = lax_ew.div(lax_ew.round(lax_ew.mul(x, factor), lax_ew.RoundingMethod.TO_NEAREST_EVEN), factor)
    return lax_convert(out, dtype) if dtype == np.float16 else out


@jit(static_argnames=("decimals",))
def round(a, decimals: int = 0, out=None):
    """Rounds to `decimals` decimal places, halves to even."""
    a = ensure_arraylike("round", a)
    decimals = operator.index(decimals)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    dtype = _dtype(a)
    if dtypes.issubdtype(dtype, np.integer):
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    if decimals > np.log10(dtypes.finfo(dtype).max):
        return a
    if dtypes.issubdtype(dtype, np.complexfloating):
        return lax_ew.complex(_round_float(lax_ew.real(a), decimals, dtype),
                              _round_float(lax_ew.imag(a), decimals, dtype))
    return _round_float(a, decimals, dtype)


@jit(static_argnames=("decimals",))
def around(a, decimals: int = 0, out=None):
    """Rounds to `decimals` decimal places (alias of round)."""
    return round(a, decimals, out)


@jit
def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN by `nan` and infinities by `posinf`/`neginf` (by default the
    largest finite values)."""
    from pyjax._src.numpy.creation import asarray

    x = ensure_arraylike("nan_to_num", x)
    dtype = _dtype(x)
    if not dtypes.issubdtype(dtype, np.inexact):
        return x
    if dtypes.issubdtype(dtype, np.complexfloating):
        return lax_ew.complex(nan_to_num(lax_ew.real(x), nan=nan, posinf=posinf, neginf=neginf),
                              nan_to_num(lax_ew.imag(x), nan=nan, posinf=posinf, neginf=neginf))
    info = dtypes.finfo(dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = where(ufuncs.isnan(x), asarray(nan, dtype=dtype), x)
    out = where(isposinf(out), asarray(posinf, dtype=dtype), out)
    return where(isneginf(out), asarray(neginf, dtype=dtype), out)


def _i0_body(x):
    abs_x = lax_ew.abs(x)
    return lax_ew.mul(lax_ew.exp(abs_x), lax_special.bessel_i0e(abs_x))


_i0 = custom_jvp(_i0_body)
_i0.__name__ = "_i0"


def _i0_jvp(primals, tangents):
    from pyjax._src.api import jvp

    primal_out, tangent_out = jvp(_i0_body, primals, tangents)
    return primal_out, where(primals[0] == 0, 0.0, tangent_out)


_i0.defjvp(_i0_jvp)


@jit
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    (x,) = promote_args_inexact("i0", x)
    if not dtypes.issubdtype(_dtype(x), np.floating):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {_dtype(x)}")
    return _i0(x)


def _gcd_cond(xs):
    from pyjax._src.numpy.reductions import any as any_

    _, b = xs
    return any_(b != 0)


def _gcd_body(xs):
    # One Euclid step where b != 0, keeping a >= b.
    a, b = xs
    a, b = where(b != 0, b, a), where(b != 0, lax_ew.rem(a, b), constant_like(b, 0))
    return where(a < b, b, a), where(a < b, a, b)


@jit
def gcd(x1, x2):
    """Elementwise greatest common divisor of integers (gcd(0, 0) = 0)."""
    from pyjax._src.lax.control_flow import while_loop
    from pyjax._src.numpy.shape_ops import broadcast_arrays

    x1, x2 = ensure_arraylike("gcd", x1, x2)
    x1, x2 = promote_dtypes("gcd", x1, x2)
    if not dtypes.issubdtype(_dtype(x1), np.integer):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = broadcast_arrays(x1, x2)
    result, _ = while_loop(_gcd_cond, _gcd_body, (ufuncs.abs(x1), ufuncs.abs(x2)))
    return result


@jit
def lcm(x1, x2):
    """Elementwise least common multiple of integers."""
    x1, x2 = ensure_arraylike("lcm", x1, x2)
    x1, x2 = promote_dtypes("lcm", x1, x2)
    x1, x2 = ufuncs.abs(x1), ufuncs.abs(x2)
    if not dtypes.issubdtype(_dtype(x1), np.integer):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return where(d == 0, constant_like(d, 0), ufuncs.multiply(x1, floor_divide(x2, d)))
