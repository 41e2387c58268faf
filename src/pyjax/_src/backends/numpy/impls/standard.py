"""The NumPy impls of the standard families: elementwise, reductions, shapes,
dot_general, calls (the merged table is impls/__init__.py's).

Each impl takes NumPy buffers (or Python scalars, which NumPy treats as weak,
exactly like JAX does) plus the primitive's params, and returns a value of
the dtype abstract evaluation promised. Where NumPy's semantics differ from
XLA's (integer division, float->int casts, out-of-range shifts, rounding
half away from zero) the impl says so and does what XLA does.
"""

from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from pyjax._src import ad_checkpoint, custom_batching, custom_derivatives, dtypes
from pyjax._src import jit as jit_lib
from pyjax._src import remat as remat_lib
from pyjax._src.ad_util import add_any_p as _add_any_p
from pyjax._src.backends.numpy.impls.interpreter import run_jaxpr
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.backends.numpy.xla import fma as fma_lib
from pyjax._src.backends.numpy.xla import xla_math
from pyjax._src.lax import dot as dot_lax
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import reductions as red
from pyjax._src.lax import shapes as sh
from pyjax._src.backends.numpy.impls import lazy_scipy
from pyjax._src.backends import NUMPY_IMPLS

IMPLS: dict = NUMPY_IMPLS  # the eval trace's table since `import pyjax`, filled here (pyjax._src.backends)


def _identity(x):
    return x


def _dropping_params(fn):
    # Primitives whose params do not change the NumPy computation (e.g. a
    # transcendental's `accuracy` hint); param-free binary ufuncs are used as they are.
    def impl(*args, **params):
        return fn(*args)

    impl.__name__ = getattr(fn, "__name__", "impl")
    impl.ufunc = fn  # lets the compiler call the ufunc directly
    return impl


_PARAM_FREE = {"add", "sub", "mul", "and", "or", "xor", "eq", "ne", "lt", "le", "gt", "ge",
               "neg", "abs", "floor", "ceil", "is_finite", "square", "not", "real", "imag"}


# --- elementwise: direct NumPy ufuncs (NumPy and XLA agree on these)
for _primitive, _fn in [
    (ew.neg_p, np.negative), (ew.abs_p, np.abs), (ew.floor_p, np.floor),
    (ew.ceil_p, np.ceil), (ew.is_finite_p, np.isfinite), (ew.square_p, np.square),
    (ew.not_p, np.invert), (ew.real_p, np.real), (ew.imag_p, np.imag),
    (ew.exp2_p, np.exp2), (ew.expm1_p, np.expm1), (ew.sqrt_p, np.sqrt), (ew.sin_p, np.sin),
    (ew.cos_p, np.cos), (ew.tan_p, np.tan), (ew.asin_p, np.arcsin), (ew.acos_p, np.arccos),
    (ew.atan_p, np.arctan), (ew.sinh_p, np.sinh), (ew.cosh_p, np.cosh), (ew.tanh_p, np.tanh),
    (ew.asinh_p, np.arcsinh), (ew.acosh_p, np.arccosh), (ew.atanh_p, np.arctanh),
    (ew.add_p, np.add), (ew.sub_p, np.subtract), (ew.mul_p, np.multiply),
    (ew.and_p, np.bitwise_and),
    (ew.or_p, np.bitwise_or), (ew.xor_p, np.bitwise_xor), (ew.eq_p, np.equal),
    (ew.ne_p, np.not_equal), (ew.lt_p, np.less), (ew.le_p, np.less_equal),
    (ew.gt_p, np.greater), (ew.ge_p, np.greater_equal),
]:
    IMPLS[_primitive] = _fn if _primitive.name in _PARAM_FREE else _dropping_params(_fn)


_F16 = np.dtype(np.float16)


def _float16_in_float32(ufunc):
    # XLA computes float16 transcendentals in float32 and rounds once; NumPy
    # before 2.4 has float16 loops of its own (tanh(-6) = -0.9985).
    def impl(x, **params):
        dtype = getattr(x, "dtype", None)
        if dtype == _F16:
            return ufunc(np.asarray(x, np.float32)).astype(_F16)
        return ufunc(x)

    impl.__name__ = ufunc.__name__
    impl.ufunc = ufunc
    impl.exact_dtypes = frozenset({_F16})
    impl.dtype_exact = False  # (a Python scalar's result is NumPy's float64)
    return impl


for _primitive in (ew.exp2_p, ew.expm1_p, ew.sin_p, ew.cos_p, ew.tan_p, ew.asin_p, ew.acos_p, ew.atan_p,
                   ew.sinh_p, ew.cosh_p, ew.tanh_p, ew.asinh_p, ew.acosh_p, ew.atanh_p):
    IMPLS[_primitive] = _float16_in_float32(IMPLS[_primitive].ufunc)


def _ufunc_except_float64(ufunc, xla_f64):
    # NumPy's float64 exp/log/log1p differ from XLA's CPU code in the last
    # bit (XLA: its own Cephes exp, the C library's log, denormals flushed):
    # float64 runs xla_math's emulation, every other dtype the ufunc.
    # `exact_dtypes` tells eager plans and the compiler not to call the bare
    # `ufunc` for those output dtypes.
    def impl(x, **params):
        dtype = getattr(x, "dtype", None)
        if dtype is None:  # a Python scalar
            (x,), dtype = _operands(x)
        if dtype == _F16:  # (computed in float32, as XLA does)
            return ufunc(np.asarray(x, np.float32)).astype(_F16)
        return xla_f64(x) if dtype == _F64 else ufunc(x)

    impl.__name__ = ufunc.__name__
    impl.ufunc = ufunc
    impl.exact_dtypes = frozenset({_F64, _F16})
    impl.dtype_exact = impl.fresh_result = True  # ufunc or emulation: a new buffer of the input's dtype
    return impl


_F64 = np.dtype(np.float64)
IMPLS[ew.exp_p] = _ufunc_except_float64(np.exp, xla_math.exp_f64)
IMPLS[ew.log_p] = _ufunc_except_float64(np.log, xla_math.log_f64)
IMPLS[ew.log1p_p] = _ufunc_except_float64(np.log1p, xla_math.log1p_f64)

IMPLS[ew.stop_gradient_p] = _identity
IMPLS[ew.copy_p] = np.copy


def _rsqrt(x, **params):
    (x,), dtype = _operands(x)
    if dtype in _RSQRT_VIA_FLOAT32:  # XLA's: the CPU's estimate and a Newton step (xla_math)
        return xla_math.rsqrt_f32(x.astype(np.float32)).astype(dtype, copy=False)
    return np.reciprocal(np.sqrt(x))


_RSQRT_VIA_FLOAT32 = frozenset(map(np.dtype, (np.float32, np.float16, dtypes.bfloat16)))
IMPLS[ew.rsqrt_p] = _rsqrt


def _logistic(x, **params):
    (x,), dtype = _operands(x)
    if dtype.kind == "c":  # scipy's expit has no complex loop
        return np.reciprocal(1 + np.exp(-x))
    return lazy_scipy.special.expit(x).astype(dtype, copy=False)  # expit has no float16/bfloat16 loop


def _nextafter(x, y):
    (x, y), dtype = _operands(x, y)
    out = np.nextafter(x, y)
    if dtype == np.float16:  # NumPy's float16 loop returns x, not y, for x == y (signed zeros)
        out = np.where(x == y, y, out)
    return out


IMPLS[ew.logistic_p] = _logistic


def _cbrt(x, **params):
    (x,), dtype = _operands(x)
    # In float64, then rounded: NumPy's float32 cbrt is not correctly rounded (cbrt(27) != 3).
    return np.cbrt(x.astype(np.float64)).astype(dtype)


IMPLS[ew.cbrt_p] = _cbrt
IMPLS[ew.nextafter_p] = _nextafter


def _operands(*args):
    """The operands as NumPy arrays of their common dtype. Python scalars are
    weak (NumPy's NEP 50 rules agree with JAX's here); when every operand is
    a Python scalar the dtype is the canonical default of their kind."""
    dtype = np.result_type(*args)
    if all(type(a) in (bool, int, float, complex) for a in args):
        dtype = dtypes.canonicalize_dtype(dtype)
    return [np.asarray(a, dtype) for a in args], dtype


def _is_float(dtype) -> bool:
    return dtypes.issubdtype(dtype, np.floating)


def _sign(x):
    (x,), dtype = _operands(x)
    if _is_float(dtype):
        return np.copysign(np.sign(x), x)  # XLA keeps -0.0 (np.sign gives +0.0)
    if dtype.kind == "c":
        # x / |x|, 0 at 0: NaN where |x| is infinite, as XLA (np.sign gives 1+0j).
        magnitude = np.abs(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(magnitude == 0, np.zeros((), dtype), x / magnitude).astype(dtype)
    return np.sign(x)


IMPLS[ew.sign_p] = _sign


def _minmax(x, y, take_x_if, ufunc):
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "biuf" or getattr(y, "dtype", dtype) != dtype:
        (x, y), dtype = _operands(x, y)  # Python scalars only, mixed operands, complex, ml_dtypes
    if dtype.kind == "c":
        # XLA orders complex numbers lexicographically (real part, then
        # imaginary part); a NaN part never wins, so the other operand does.
        pick_x = take_x_if(x.real, y.real) | ((x.real == y.real) & take_x_if(x.imag, y.imag))
        return np.where(pick_x, x, y)
    out = ufunc(x, y)
    # (NumPy's half-float loops may return either zero: they are always checked.)
    if (dtype.kind == "f" or (dtype.kind == "V" and _is_float(dtype))) and (dtype.itemsize < 4 or _may_return_wrong_zero(
            x, y, ufunc is np.maximum)):
        # For two zeros -0.0 + +0.0 is the max, -(+0.0 + -0.0) of the negations the min.
        both_zero = (x == 0) & (y == 0)
        if both_zero.any():
            zero = x + y if ufunc is np.maximum else -((-x) + (-y))
            out = np.where(both_zero, zero, out)
    return out


def _may_return_wrong_zero(x, y, is_max: bool) -> bool:
    # NumPy returns `y` when x == y, XLA orders -0.0 below +0.0: max is wrong
    # only for x = +0.0, y = -0.0 and min for x = -0.0, y = +0.0. A scalar
    # operand (relu's 0.0) settles it without looking at the array.
    def may_be_zero(v, negative: bool) -> bool:
        if type(v) is float:  # a weak Python scalar next to an array of x's dtype
            return v == 0 and (math.copysign(1.0, v) < 0) == negative
        return v.ndim > 0 or bool(v == 0 and np.signbit(v) == negative)

    return may_be_zero(x, not is_max) and may_be_zero(y, is_max)


def _max(x, y):
    # relu's max(x, 0.0): next to a float scalar, only a zero of the losing
    # sign (-0.0 for max) can make NumPy's choice between zeros differ from XLA's.
    if (type(y) is float and type(x) is np.ndarray and x.dtype.kind == "f" and x.dtype.itemsize >= 4
            and (y or math.copysign(1.0, y) > 0)):
        return np.maximum(x, y)
    return _minmax(x, y, np.greater, np.maximum)


def _min(x, y):
    if (type(y) is float and type(x) is np.ndarray and x.dtype.kind == "f" and x.dtype.itemsize >= 4
            and (y or math.copysign(1.0, y) < 0)):
        return np.minimum(x, y)  # (+0.0 loses for min)
    return _minmax(x, y, np.less, np.minimum)


# Their result always has the operands' (common) dtype, which is what
# abstract evaluation promises: the eager plans may skip the dtype check.
_max.dtype_exact = _min.dtype_exact = True
IMPLS[ew.max_p] = _max
IMPLS[ew.min_p] = _min


def _all_ones(dtype):
    return np.invert(np.zeros((), dtype))  # -1 for signed, the maximum for unsigned


def _div(x, y):
    (x, y), dtype = _operands(x, y)
    if not dtypes.issubdtype(dtype, np.integer):
        if dtype.kind == "f" and y.shape != x.shape and (
                x.shape if not y.ndim else np.broadcast_shapes(x.shape, y.shape)) != y.shape:
            # XLA divides by a broadcast divisor (a scalar, size-1 axes) as a
            # product with its reciprocal, rounded in the dtype first
            # (measured: float16/32/64; bfloat16 and complex divide).
            # (A 0-d divisor takes NumPy's scalar division, the same rounding.)
            return np.multiply(x, dtype.type(1) / y[()] if not y.ndim else np.true_divide(dtype.type(1), y))
        return np.true_divide(x, y)
    # XLA rounds integer quotients towards zero (NumPy floors), x / 0 is all
    # ones (-1 signed), and INT_MIN / -1 wraps to INT_MIN.
    by_zero = y == 0
    safe_y = np.where(by_zero, np.ones((), dtype), y)
    with np.errstate(over="ignore"):
        quotient = np.floor_divide(x, safe_y)
        remainder = np.remainder(x, safe_y)
    if dtype.kind == "i":
        quotient = quotient + ((remainder != 0) & ((x < 0) != (safe_y < 0))).astype(dtype)
    return np.where(by_zero, _all_ones(dtype), quotient).astype(dtype, copy=False)


def _rem(x, y):
    (x, y), dtype = _operands(x, y)
    if not dtypes.issubdtype(dtype, np.integer):
        return np.fmod(x, y)
    # C's fmod (the sign of the dividend); XLA gives x for x % 0 and 0 for INT_MIN % -1.
    by_zero = y == 0
    safe_y = np.where(by_zero, np.ones((), dtype), y)
    with np.errstate(over="ignore"):
        out = np.fmod(x, safe_y)
    return np.where(by_zero, x, out).astype(dtype, copy=False)


IMPLS[ew.div_p] = _div
IMPLS[ew.rem_p] = _rem


def _pow(x, y):
    x_dtype = np.result_type(x) if type(x) not in (int, float, complex) else None
    y_integer = dtypes.issubdtype(np.result_type(y), np.integer)
    if y_integer:
        # XLA converts an integer exponent to the base's dtype first (so
        # (-1) ** (2**31 - 1) in float32 is 1: the exponent rounds to 2**31).
        (x,), x_dtype = _operands(x) if x_dtype is None else ((np.asarray(x),), x_dtype)
        if x_dtype == _F16:  # (in float32, as XLA computes float16)
            return np.power(x.astype(np.float32), np.asarray(y).astype(_F16).astype(np.float32)).astype(_F16)
        return np.power(x, np.asarray(y).astype(x_dtype))
    (x, y), dtype = _operands(x, y)
    if dtype == _F16:
        return np.power(x.astype(np.float32), y.astype(np.float32)).astype(_F16)
    return np.power(x, y)


IMPLS[ew.pow_p] = _pow


def _atan2(x, y):
    (x, y), dtype = _operands(x, y)
    if dtype == _F16:  # (in float32, as XLA computes float16)
        return np.arctan2(x.astype(np.float32), y.astype(np.float32)).astype(_F16)
    if dtype.kind != "c":
        return np.arctan2(x, y)
    # Complex atan2 (StableHLO): -i * log((y + i x) / sqrt(y**2 + x**2)).
    with np.errstate(all="ignore"):
        return (-1j * np.log((y + 1j * x) / np.sqrt(y * y + x * x))).astype(dtype)


IMPLS[ew.atan2_p] = _atan2


def _conj(x, **params):
    (x,), dtype = _operands(x)
    if dtype.kind == "c":
        return np.conj(x)
    return x.astype(np.complex128 if dtype == np.float64 else np.complex64)  # real input: complex out


IMPLS[ew.conj_p] = _conj


def _round(x, rounding_method):
    (x,), dtype = _operands(x)
    if rounding_method == 1:
        return np.round(x)
    truncated = np.trunc(x)
    half = np.abs(x - truncated) == 0.5
    return np.where(half, truncated + np.sign(x), np.round(x)).astype(dtype)


IMPLS[ew.round_p] = _round
IMPLS[ew.integer_pow_p] = lambda x, *, y: _integer_pow(x, y)


def _integer_pow(x, y):
    (x,), dtype = _operands(x)
    if y == 0:
        return np.ones_like(x)
    with np.errstate(over="ignore", divide="ignore"):
        if _is_float(dtype) or dtype.kind == "c":
            result = power_by_squaring(x, builtins.abs(y))
        else:  # (integer products wrap: any order gives the same)
            result = np.power(x, builtins.abs(y), dtype=dtype)
        return np.reciprocal(result) if y < 0 else result


def power_by_squaring(x, n: int):
    """x ** n (n >= 1) as XLA computes integer_pow (fma_lib.by_squaring), a
    new array. NumPy's power of floats is the libm/SVML pow, which differs
    in the last bit (x ** 3: 30% of float32 values) and takes a slow path
    for negative bases."""
    result = fma_lib.by_squaring(x, n, np.multiply)
    return result.copy() if result is x else result  # (a square computed here is ours: no copy)


def _population_count(x):
    (x,), dtype = _operands(x)
    # On the unsigned image: NumPy counts the bits of |x| for signed integers.
    return np.bitwise_count(x.view(np.dtype(f"u{dtype.itemsize}"))).astype(dtype)


def _clz(x):
    (x,), dtype = _operands(x)
    bits = dtype.itemsize * 8
    smeared = x.view(np.dtype(f"u{dtype.itemsize}")).copy()
    shift = 1
    while shift < bits:
        smeared |= smeared >> shift
        shift *= 2
    return (bits - np.bitwise_count(smeared)).astype(dtype)


IMPLS[ew.population_count_p] = _population_count
IMPLS[ew.clz_p] = _clz


def _shift(kind):
    # XLA: shifts by a negative amount or by the bit width or more give 0
    # (the sign fill for an arithmetic right shift); NumPy leaves them undefined.
    def impl(x, y):
        (x, y), dtype = _operands(x, y)
        bits = dtype.itemsize * 8
        if y.ndim == 0 and 0 <= y < bits and kind != "arithmetic":
            # A shift by one amount in range (random bits' `>> 9`): NumPy's
            # own shift is XLA's, with no masks (10M words: 21 -> 6 ms).
            if kind == "left":
                return np.left_shift(x, y)
            unsigned = np.dtype(f"u{dtype.itemsize}")
            return np.right_shift(x.view(unsigned), y.view(unsigned)).view(dtype)
        out_of_range = (y < 0) | (y >= bits)
        safe_y = np.where(out_of_range, 0, y).astype(dtype)
        if kind == "left":
            shifted, fill = np.left_shift(x, safe_y), 0
        elif kind == "arithmetic":  # on the signed image, for unsigned dtypes too
            signed = x.view(np.dtype(f"i{dtype.itemsize}"))
            shifted = np.right_shift(signed, safe_y.view(signed.dtype)).view(dtype)
            fill = np.where(signed < 0, _all_ones(dtype), np.zeros((), dtype))
        else:
            unsigned = np.dtype(f"u{dtype.itemsize}")
            shifted, fill = np.right_shift(x.view(unsigned), safe_y.view(unsigned)).view(dtype), 0
        return np.where(out_of_range, fill, shifted).astype(dtype)

    return impl


IMPLS[ew.shift_left_p] = _shift("left")
IMPLS[ew.shift_right_arithmetic_p] = _shift("arithmetic")
IMPLS[ew.shift_right_logical_p] = _shift("logical")


def _select_n(which, *cases):
    if len(cases) == 1:
        return np.asarray(cases[0])
    if len(cases) == 2:
        return np.where(which, cases[1], cases[0])
    return np.choose(which, np.broadcast_arrays(*cases))


IMPLS[ew.select_n_p] = _select_n


def _float_to_int(x, new_dtype):
    # XLA truncates towards zero, saturates out-of-range values and maps NaN
    # to 0. Where every value is in range (the common case), that is NumPy's
    # own cast, which truncates; a bound rounded in x's dtype only widens
    # what counts as out of range (NaN compares false: out of range too).
    x = np.asarray(x)
    low, high = _int_range(np.dtype(new_dtype))
    if ((x > low) & (x < high)).all():  # (comparisons never warn, NaN included)
        return x.astype(new_dtype)
    # The bounds are compared in float64, where 2**(bits-1) is exact.
    x = np.asarray(x, np.float64)
    info = np.iinfo(new_dtype)
    too_big = x >= 2.0 ** (info.bits - (1 if info.min < 0 else 0))
    too_small = x <= float(info.min) - 1.0
    in_range = np.where(too_big | too_small | np.isnan(x), 0.0, np.trunc(x))
    out = in_range.astype(new_dtype)
    out = np.where(too_big, info.max, out)
    return np.where(too_small, info.min, out).astype(new_dtype)


@functools.lru_cache(maxsize=None)
def _int_range(dtype: np.dtype) -> tuple[float, float]:
    # Floats strictly between these truncate to an integer of `dtype`.
    info = np.iinfo(dtype)
    return float(info.min) - 1.0, 2.0 ** (info.bits - (1 if info.min < 0 else 0))


def _convert_element_type(operand, *, new_dtype, weak_type, sharding):
    x = np.asarray(operand)
    if x.dtype == new_dtype:
        return x
    if x.dtype == dtypes.float0:
        # a float0 tangent (of an integer input) holds no data: it converts to zeros
        return np.zeros(x.shape, new_dtype)
    if new_dtype == np.bool_:
        return x != 0
    if x.dtype.kind == "c" and not dtypes.issubdtype(new_dtype, np.complexfloating):
        x = x.real  # complex to real keeps the real part
    if dtypes.issubdtype(new_dtype, np.integer) and dtypes.issubdtype(x.dtype, np.floating):
        return _float_to_int(x, new_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(new_dtype)


IMPLS[ew.convert_element_type_p] = _convert_element_type


# --- shapes
def _broadcast_in_dim(operand, *, shape, broadcast_dimensions, sharding):
    x = np.asarray(operand)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    if math.prod(shape) <= _SMALL_BROADCAST:
        # A small result is cheaper to fill than np.broadcast_to's view is to
        # build (~0.5 us against ~3 us); large ones stay views (no copy).
        out = np.empty(shape, x.dtype)
        out[...] = x.reshape(expanded)
        return out
    return np.broadcast_to(x.reshape(expanded), shape)


_SMALL_BROADCAST = 256


def _reshape(operand, *, new_sizes, dimensions, sharding):
    x = np.asarray(operand)
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return np.reshape(x, new_sizes)


def _iota(*, dtype, shape, dimension, sharding):
    line = np.arange(shape[dimension], dtype=dtype)
    expanded = [1] * len(shape)
    expanded[dimension] = shape[dimension]
    return np.broadcast_to(line.reshape(expanded), shape)


IMPLS[sh.broadcast_in_dim_p] = _broadcast_in_dim
IMPLS[sh.reshape_p] = _reshape
IMPLS[sh.transpose_p] = lambda x, *, permutation: np.transpose(x, permutation)
IMPLS[sh.squeeze_p] = lambda x, *, dimensions: np.squeeze(x, dimensions)
IMPLS[sh.iota_p] = _iota
# Layout changes keep their operand's dtype, which abstract evaluation
# promises: eager plans (and jax.numpy's direct calls) skip the dtype check.
for _p in (sh.broadcast_in_dim_p, sh.reshape_p, sh.transpose_p, sh.squeeze_p):
    IMPLS[_p].dtype_exact = True


# --- reductions
def _reduction(ufunc, identity, *, accumulate_in_own_dtype: bool = False):
    # `ufunc.reduce` directly: np.sum / np.max are Python wrappers around it.
    def impl(operand, *, axes, out_sharding=None):
        x = np.asarray(operand)
        if x.size == 0:  # no identity for max/min in NumPy: XLA's init value
            out_shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
            return np.full(out_shape, identity(x.dtype), x.dtype)
        if ufunc is np.add and x.dtype in _EINSUM_SUMS and _leading_rows(x, axes):
            return _sum_leading_rows(x, len(axes))
        if ufunc is np.add and _short_last_axis(x, axes):
            return _sum_short_rows(x)
        # (dtype: NumPy would sum small ints in the default int.)
        return split_lib.reduce(ufunc, x, axes, x.dtype if accumulate_in_own_dtype else None)

    # For code that makes the same call itself (eager plans, native code):
    # the ufunc, and whether it reduces in the operand's dtype.
    impl.reduce_ufunc, impl.reduce_in_own_dtype = ufunc, accumulate_in_own_dtype
    return impl


# A sum over the leading axes of a C-contiguous array (batch norm's statistics
# over N, H, W of NHWC) is, in `np.add.reduce`, one add of each row into the
# accumulator after the other, an inner loop per row: over 8 or 32 features
# the per-row overhead dominates. `np.einsum("ij->j")` adds the rows in the
# same order (the same bits: each feature's running sum rounded after every
# row) with far less overhead per row. With one feature left einsum sums the
# column its own way, in another order: not taken there.
_EINSUM_SUMS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def _leading_rows(x: np.ndarray, axes) -> bool:
    k = len(axes)
    return (0 < k < x.ndim and tuple(sorted(axes)) == tuple(range(k)) and x.flags.c_contiguous
            and math.prod(x.shape[k:]) >= 2 and x.size > 0)


def _sum_leading_rows(x: np.ndarray, k: int) -> np.ndarray:
    rest = x.shape[k:]
    rows = x.reshape(-1, math.prod(rest))
    kernel = _column_sums[0]
    if kernel is not None and x.size >= _NATIVE_SUM_MIN:
        out = kernel.sums(rows)  # (the same adds in the same order: native/colsums.py)
        if out is not None:
            return out.reshape(rest)
    return np.einsum("ij->j", rows).reshape(rest)


# native/colsums.py's kernel, once install() sets it (einsum until it is built),
# and the size from which it takes a sum (below, its call costs what it saves).
_column_sums: list = [None]
_NATIVE_SUM_MIN = 1 << 14


def set_column_sums(kernel) -> None:
    _column_sums[0] = kernel


# A sum over a last axis of 2 to 7 elements (squared distances over 3
# coordinates): `np.add.reduce` calls its inner loop once per short row.
# Below 8 elements it adds a row's elements in order onto +0; the same adds
# a lane at a time over whole planes give the same bits. Starting from the
# first element instead differs only while the sum is a zero, in its sign,
# which a final + 0 settles as the +0 start does (a sum from +0 is never
# -0). Integer sums wrap the same way in any order.
_SHORT_SUM_KINDS = frozenset("fiu")
_MIN_SHORT_SUM_ROWS = 4096


def _short_last_axis(x: np.ndarray, axes) -> bool:
    return (x.ndim >= 2 and tuple(axes) == (x.ndim - 1,) and 2 <= x.shape[-1] <= 7
            and x.dtype.kind in _SHORT_SUM_KINDS and x.dtype.itemsize >= 4
            and x.size >= _MIN_SHORT_SUM_ROWS * x.shape[-1])


def _sum_short_rows(x: np.ndarray) -> np.ndarray:
    out = np.add(x[..., 0], x[..., 1])
    for k in range(2, x.shape[-1]):
        np.add(out, x[..., k], out=out)
    if out.dtype.kind == "f":
        np.add(out, out.dtype.type(0), out=out)
    return out


def _lowest(dtype):
    return -np.inf if dtypes.issubdtype(dtype, np.inexact) else (False if dtype == np.bool_ else np.iinfo(dtype).min)


def _highest(dtype):
    return np.inf if dtypes.issubdtype(dtype, np.inexact) else (True if dtype == np.bool_ else np.iinfo(dtype).max)


IMPLS[red.reduce_sum_p] = _reduction(np.add, lambda d: 0, accumulate_in_own_dtype=True)
IMPLS[red.reduce_prod_p] = _reduction(np.multiply, lambda d: 1, accumulate_in_own_dtype=True)
def _zero_extremum(is_max: bool):
    """XLA's order of zeros for a float max/min reduction: -0.0 below +0.0.

    NumPy's maximum/minimum keep whichever zero they met first, so a
    reduction whose result is a zero may carry the wrong sign. Only then
    (rarely) is the operand read again; other results are returned as they
    are. Where the max is a zero no element is positive (nor NaN), so a +0.0
    is there exactly when some element's sign bit is clear; the min's case
    mirrors it."""

    def fix(out, x, axes):
        if out.dtype.kind not in "fV" or not _is_float(out.dtype):
            return out
        if out.ndim == 0:  # (`ufunc.reduce` over every axis returns a NumPy scalar)
            if out != 0:
                return out
            signs = np.signbit(x)
            negative = bool(signs.all()) if is_max else bool(signs.any())
            return out.dtype.type(-0.0 if negative else 0.0)
        zero = out == 0
        if not zero.any():
            return out
        signs = np.signbit(x)
        negative = np.logical_and.reduce(signs, axis=axes) if is_max else np.logical_or.reduce(signs, axis=axes)
        return np.where(zero, np.where(negative, out.dtype.type(-0.0), out.dtype.type(0.0)), out)

    return fix


def zero_winners(x, is_max: bool):
    """Where `x` holds a zero that XLA's max (min) would prefer to the other
    zero: +0.0 (-0.0). Read only where the max (min) came out a zero, so
    every other element there is below (above) zero: the sign bit decides."""
    return ~np.signbit(x) if is_max else np.signbit(x)


def ordered_zeros(out, won, is_max: bool):
    """`out` with its zeros replaced by XLA's where `won` (some zero of the
    winning sign was among the values combined) says so."""
    return np.where((out == 0) & won, out.dtype.type(0.0 if is_max else -0.0), out)


def float_zeros(out) -> bool:
    """Whether `out` is a float result holding a zero (one pass over it)."""
    return out.dtype.kind in "fV" and _is_float(out.dtype) and bool((out == 0).any())


def _extremum_reduction(ufunc, identity, is_max: bool):
    base = _reduction(ufunc, identity)
    fix = _zero_extremum(is_max)

    def impl(operand, *, axes, out_sharding=None):
        x = np.asarray(operand)
        return fix(base(x, axes=axes), x, tuple(axes)) if x.size else base(x, axes=axes)

    def reduce_call(x, axis=0, dtype=None):
        # `ufunc.reduce`'s signature, for code calling it directly (eager
        # plans): a float result that is a zero gets XLA's sign.
        out = ufunc.reduce(x, axis, dtype)
        if out.ndim == 0 and out != 0:
            return out
        return fix(out, x, axis if type(axis) is tuple else (axis,))

    # Code that calls `reduce_ufunc.reduce` itself must order the zeros of a
    # float result: `reduce_call` does both, `reduce_fixup(result, operand, axes)` the second.
    impl.reduce_ufunc, impl.reduce_in_own_dtype, impl.reduce_fixup = ufunc, False, fix
    impl.reduce_call = reduce_call
    return impl


IMPLS[red.reduce_max_p] = _extremum_reduction(np.maximum, _lowest, True)
IMPLS[red.reduce_min_p] = _extremum_reduction(np.minimum, _highest, False)
IMPLS[red.reduce_and_p] = _reduction(np.bitwise_and, lambda d: True if d == np.bool_ else -1)
IMPLS[red.reduce_or_p] = _reduction(np.bitwise_or, lambda d: 0)
IMPLS[red.reduce_xor_p] = _reduction(np.bitwise_xor, lambda d: 0)
IMPLS[red.argmax_p] = lambda x, *, axes, index_dtype: np.argmax(x, axis=axes[0]).astype(index_dtype)
IMPLS[red.argmin_p] = lambda x, *, axes, index_dtype: np.argmin(x, axis=axes[0]).astype(index_dtype)


# --- dot_general
def _dot_general(lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = preferred_element_type or lhs.dtype
    if preferred_element_type is not None:
        lhs, rhs = lhs.astype(out_dtype, copy=False), rhs.astype(out_dtype, copy=False)
    if not lb and lhs.ndim <= 2 and rhs.ndim <= 2 and len(lc) == 1 and lhs.ndim and rhs.ndim:
        # Matrix/vector products with any contracting axes: transposed views
        # let BLAS read the operands in place (no copies).
        a = lhs if lc[0] == lhs.ndim - 1 else lhs.T
        b = rhs if rc[0] == 0 else rhs.T
        out = split_lib.matmul(a, b)
        # ml_dtypes' matmul of bfloat16/float8 accumulates and returns float32.
        return out if out.dtype == out_dtype else out.astype(out_dtype)
    if not lc and not lb and lhs.ndim <= 2 and rhs.ndim <= 2:
        return np.multiply.outer(lhs, rhs) if lhs.ndim or rhs.ndim else lhs * rhs
    lhs_free = [i for i in range(lhs.ndim) if i not in lc and i not in lb]
    rhs_free = [i for i in range(rhs.ndim) if i not in rc and i not in rb]
    batch_shape = [lhs.shape[d] for d in lb]
    lhs_free_shape = [lhs.shape[d] for d in lhs_free]
    rhs_free_shape = [rhs.shape[d] for d in rhs_free]
    contract = math.prod(lhs.shape[d] for d in lc)  # (math.prod: np.prod costs ~4 us a call here)
    batch = math.prod(batch_shape)
    views = _matrix_views(lhs, rhs, lhs_free, rhs_free, lc, rc, lb, rb, batch_shape, contract) if contract > 1 else None
    if views is not None:
        a, b = views
    else:
        a = np.transpose(lhs, [*lb, *lhs_free, *lc]).reshape(batch, -1 if lhs_free_shape else 1, contract) if lhs.size else np.zeros((batch, int(np.prod(lhs_free_shape, dtype=np.int64)), contract), lhs.dtype)
        b = np.transpose(rhs, [*rb, *rc, *rhs_free]).reshape(batch, contract, -1 if rhs_free_shape else 1) if rhs.size else np.zeros((batch, contract, int(np.prod(rhs_free_shape, dtype=np.int64))), rhs.dtype)
    # Nothing to sum (e.g. vmap's per-example outer products): a broadcast
    # multiply is exact and several times faster than a K=1 batched matmul.
    out = split_lib.fresh_product(a, b) if contract == 1 else split_lib.matmul(a, b)
    return out.reshape(batch_shape + lhs_free_shape + rhs_free_shape).astype(out_dtype, copy=False)


def _matrix_views(lhs, rhs, lhs_free, rhs_free, lc, rc, lb, rb, batch_shape, contract):
    """The operands of a batched product as (batch, M, K) and (batch, K, N)
    arrays for np.matmul: as the general path makes them (a view where the
    batch axes merge, else a contiguous copy), except that an operand whose
    batch axes do not merge (attention's heads: strided slices of one
    projection) stays a view with its batch axes apart, (*batch, M, K),
    where BLAS can read its matrices in place and the product's bits stay
    those of the copy: the copy's orientation with a longer leading
    dimension (OpenBLAS packs its panels from either), or the other one
    when the product is past the small-matrix kernels (`split.SMALL_MNK`),
    which sum in another order for transposed operands. None where no
    operand is such a view (the general path)."""
    if not lhs.size or not rhs.size or len(batch_shape) < 2:
        return None
    rows = math.prod(lhs.shape[d] for d in lhs_free)
    cols = math.prod(rhs.shape[d] for d in rhs_free)
    lhs_t, rhs_t = np.transpose(lhs, [*lb, *lhs_free, *lc]), np.transpose(rhs, [*rb, *rc, *rhs_free])
    return transposed_views(lhs_t, rhs_t, batch_shape, math.prod(batch_shape), rows, contract, cols)


def transposed_views(lhs_t, rhs_t, batch_shape, batch, rows, contract, cols):
    # `_matrix_views` of operands transposed to (*batch, M, K) and (*batch,
    # K, N) (codegen/dots.py calls it with its static sizes: the same views).
    large = rows * cols * contract > split_lib.SMALL_MNK
    a, a_apart = _matrix_view(lhs_t, batch, batch_shape, rows, contract, large)
    b, b_apart = _matrix_view(rhs_t, batch, batch_shape, contract, cols, large)
    if not (a_apart or b_apart) or (a_apart and b_apart and _address(a) == _address(b)):
        return None  # (one address: NumPy would multiply a matrix by its own transpose with syrk)
    a = a if a is not None else lhs_t.reshape(batch, rows, contract)
    b = b if b is not None else rhs_t.reshape(batch, contract, cols)
    return a.reshape(*batch_shape, rows, contract), b.reshape(*batch_shape, contract, cols)


def _address(x) -> int:
    return x.__array_interface__["data"][0]


def _matrix_view(t, batch, batch_shape, rows, cols, large):
    # (view, apart): `t` as (batch, rows, cols) where that is a view (as the
    # general path reshapes it), else as (*batch_shape, rows, cols) where that
    # is one BLAS reads in place (apart), else (None, False): a copy.
    try:
        return t.reshape((batch, rows, cols), copy=False), False
    except ValueError:
        pass
    try:
        view = t.reshape((*batch_shape, rows, cols), copy=False)
    except ValueError:
        return None, False
    size = view.itemsize
    row_stride, col_stride = view.strides[-2:]
    if rows > 1 and cols > 1 and (
            (col_stride == size and row_stride % size == 0 and row_stride >= cols * size)
            or (large and row_stride == size and col_stride % size == 0 and col_stride >= rows * size)):
        return view, True
    return None, False


# Every branch returns a new array (a matmul's or a product's result, maybe
# reshaped): the compiler may reuse it in place once it is dead.
_dot_general.fresh_result = True
IMPLS[dot_lax.dot_general_p] = _dot_general

IMPLS[sh.concatenate_p] = lambda *xs, dimension: np.concatenate(xs, axis=dimension)
IMPLS[sh.rev_p] = lambda x, *, dimensions: np.flip(x, dimensions) if dimensions else np.asarray(x)


def _slice(x, *, start_indices, limit_indices, strides):
    steps = strides or (1,) * len(start_indices)
    return np.asarray(x)[tuple(slice(s, e, k) for s, e, k in zip(start_indices, limit_indices, steps, strict=True))]


IMPLS[sh.slice_p] = _slice


# --- calls
def _jit_impl(*args, jaxpr, **params):
    return run_jaxpr(jaxpr, IMPLS, args)


IMPLS[jit_lib.jit_p] = _jit_impl
IMPLS[custom_derivatives.custom_jvp_call_p] = lambda *args, call_jaxpr, **params: _jit_impl(*args, jaxpr=call_jaxpr)
IMPLS[custom_derivatives.custom_vjp_call_p] = IMPLS[custom_derivatives.custom_jvp_call_p]
IMPLS[custom_derivatives.custom_lin_p] = custom_derivatives.custom_lin_impl  # raises JAX's forward-mode error
IMPLS[remat_lib.remat_p] = _jit_impl  # a checkpoint runs its body
IMPLS[custom_batching.custom_vmap_p] = lambda *args, call, **params: _jit_impl(*args, jaxpr=call)
IMPLS[ad_checkpoint.name_p] = lambda x, *, name: x


# --- autodiff's accumulation primitive

IMPLS[_add_any_p] = np.add


# --- select_n without np.where's branches: for large arrays, a bitwise blend
# of the two cases' bit patterns (exact for every value, NaN and -0.0
# included) is several times faster than np.where on unpredictable masks.
def _select_n_fast(which, *cases):
    if len(cases) == 2 and np.ndim(which) and np.size(which) >= 4096 and np.asarray(which).dtype == np.bool_:
        a, b = np.asarray(cases[1]), np.asarray(cases[0])
        if a.dtype == b.dtype and a.dtype.itemsize in (1, 2, 4, 8):
            bits = np.dtype(f"u{a.dtype.itemsize}")
            which = np.asarray(which)
            if (not any(a.strides) and not any(b.strides)
                    and np.broadcast_shapes(which.shape, a.shape, b.shape) == which.shape):
                # Two single values (a mask's 1.0 and 0.0): b ^ which * (a ^ b),
                # three passes where the blend takes six.
                a_bits, b_bits = a.reshape(-1)[:1].view(bits)[0], b.reshape(-1)[:1].view(bits)[0]
                out = which.astype(bits)
                out *= a_bits ^ b_bits
                out ^= b_bits
                return out.view(a.dtype)
            if a.shape == b.shape == which.shape:
                if not any(b.strides) or not any(a.strides):
                    return _blend_value(which, a, b, bits)
                return _blend(which, a, b, bits)
    return _select_n(which, *cases)


def _compact(x: np.ndarray) -> np.ndarray:
    # A broadcast view's one row along each axis it repeats (stride 0).
    return x[tuple(slice(0, 1) if stride == 0 and n > 1 else slice(None) for stride, n in zip(x.strides, x.shape))]


def _blend(which, a, b, bits):
    """b ^ ((a ^ b) & -which) on the bit patterns: three passes over the
    output, the mask made on the operands' own rows where they are
    broadcast views (a causal mask repeated over batch and heads)."""
    mask = np.negative(_compact(which).astype(bits))
    a_bits, b_bits = _compact(a).view(bits), _compact(b).view(bits)
    out = np.bitwise_xor(a_bits, b_bits)
    out = np.bitwise_and(out, mask, out=out if out.shape == which.shape else None)
    return np.bitwise_xor(out, b_bits, out=out).view(a.dtype)


def _blend_value(which, a, b, bits):
    """The blend where one case is a single value broadcast (a triangle of
    a matrix and zeros elsewhere): v ^ ((x ^ v) & m), with m all ones where
    the other case x is taken; a zero v leaves x & m, two passes."""
    keep_a = not any(b.strides)
    x, v = (a, b) if keep_a else (b, a)
    mask = _compact(which).astype(bits)
    if keep_a:
        np.negative(mask, out=mask)  # 1 -> all ones
    else:
        np.subtract(mask, bits.type(1), out=mask)  # 0 -> all ones
    value = v.reshape(-1)[:1].view(bits)[0]
    out = mask if mask.shape == which.shape else None
    if value == 0:
        return np.bitwise_and(x.view(bits), mask, out=out).view(a.dtype)
    out = np.bitwise_and(np.bitwise_xor(x.view(bits), value), mask, out=out)
    return np.bitwise_xor(out, value, out=out).view(a.dtype)


IMPLS[ew.select_n_p] = _select_n_fast
