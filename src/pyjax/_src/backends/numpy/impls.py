"""The NumPy backend's execution table: primitive -> NumPy function.

Each impl takes NumPy buffers (or Python scalars, which NumPy treats as weak,
exactly like JAX does) plus the primitive's params, and returns a value of
the dtype abstract evaluation promised. Where NumPy's semantics differ from
XLA's (integer division, float->int casts, out-of-range shifts, rounding
half away from zero) the impl says so and does what XLA does.
"""

from __future__ import annotations

import numpy as np
import scipy.special

from pyjax._src import custom_derivatives
from pyjax._src import jit as jit_lib
from pyjax._src.backends.numpy.interpreter import run_jaxpr
from pyjax._src.lax import dot as dot_lax
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import reductions as red
from pyjax._src.lax import shapes as sh

IMPLS: dict = {}


def _identity(x):
    return x


def _dropping_params(fn):
    # Primitives whose params do not change the NumPy computation (e.g. a
    # transcendental's `accuracy` hint); param-free binary ufuncs are used as they are.
    def impl(*args, **params):
        return fn(*args)

    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl


_PARAM_FREE = {"add", "sub", "mul", "rem", "pow", "max", "min", "atan2", "nextafter", "and", "or", "xor",
               "eq", "ne", "lt", "le", "gt", "ge", "neg", "sign", "abs", "floor", "ceil", "is_finite",
               "square", "not", "real", "imag", "conj"}


# --- elementwise: direct NumPy ufuncs
for _primitive, _fn in [
    (ew.neg_p, np.negative), (ew.sign_p, np.sign), (ew.abs_p, np.abs), (ew.floor_p, np.floor),
    (ew.ceil_p, np.ceil), (ew.is_finite_p, np.isfinite), (ew.square_p, np.square),
    (ew.not_p, np.invert), (ew.real_p, np.real), (ew.imag_p, np.imag), (ew.conj_p, np.conj),
    (ew.exp_p, np.exp), (ew.exp2_p, np.exp2), (ew.log_p, np.log), (ew.log1p_p, np.log1p),
    (ew.expm1_p, np.expm1), (ew.sqrt_p, np.sqrt), (ew.cbrt_p, np.cbrt), (ew.sin_p, np.sin),
    (ew.cos_p, np.cos), (ew.tan_p, np.tan), (ew.asin_p, np.arcsin), (ew.acos_p, np.arccos),
    (ew.atan_p, np.arctan), (ew.sinh_p, np.sinh), (ew.cosh_p, np.cosh), (ew.tanh_p, np.tanh),
    (ew.asinh_p, np.arcsinh), (ew.acosh_p, np.arccosh), (ew.atanh_p, np.arctanh),
    (ew.logistic_p, scipy.special.expit),
    (ew.add_p, np.add), (ew.sub_p, np.subtract), (ew.mul_p, np.multiply), (ew.rem_p, np.fmod),
    (ew.pow_p, np.power), (ew.max_p, np.maximum), (ew.min_p, np.minimum),
    (ew.atan2_p, np.arctan2), (ew.nextafter_p, np.nextafter), (ew.and_p, np.bitwise_and),
    (ew.or_p, np.bitwise_or), (ew.xor_p, np.bitwise_xor), (ew.eq_p, np.equal),
    (ew.ne_p, np.not_equal), (ew.lt_p, np.less), (ew.le_p, np.less_equal),
    (ew.gt_p, np.greater), (ew.ge_p, np.greater_equal),
]:
    IMPLS[_primitive] = _fn if _primitive.name in _PARAM_FREE else _dropping_params(_fn)

IMPLS[ew.stop_gradient_p] = _identity
IMPLS[ew.copy_p] = np.copy
IMPLS[ew.rsqrt_p] = _dropping_params(lambda x: np.reciprocal(np.sqrt(x)))


def _div(x, y):
    # XLA's integer division rounds towards zero; NumPy's floors.
    if np.issubdtype(np.result_type(x, y), np.integer):
        quotient = np.floor_divide(x, y)
        adjust = (np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0))
        return quotient + adjust.astype(quotient.dtype)
    return np.true_divide(x, y)


IMPLS[ew.div_p] = _div


def _round(x, rounding_method):
    if rounding_method == 1:
        return np.round(x)
    truncated = np.trunc(x)
    half = np.abs(x - truncated) == 0.5
    return np.where(half, truncated + np.sign(x), np.round(x)).astype(np.asarray(x).dtype)


IMPLS[ew.round_p] = _round
IMPLS[ew.integer_pow_p] = lambda x, *, y: _integer_pow(x, y)


def _integer_pow(x, y):
    x = np.asarray(x)
    if y == 0:
        return np.ones_like(x)
    result = np.power(x, abs(y), dtype=x.dtype)
    return np.reciprocal(result) if y < 0 else result


def _population_count(x):
    return np.bitwise_count(x).astype(np.asarray(x).dtype)


def _clz(x):
    x = np.asarray(x)
    bits = x.dtype.itemsize * 8
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    smeared = unsigned.copy()
    shift = 1
    while shift < bits:
        smeared |= smeared >> shift
        shift *= 2
    return (bits - np.bitwise_count(smeared)).astype(x.dtype)


IMPLS[ew.population_count_p] = _population_count
IMPLS[ew.clz_p] = _clz


def _shift(kind):
    def impl(x, y):
        x, y = np.asarray(x), np.asarray(y)
        bits = x.dtype.itemsize * 8
        out_of_range = (y < 0) | (y >= bits)
        safe_y = np.where(out_of_range, 0, y).astype(x.dtype)
        if kind == "left":
            shifted, fill = np.left_shift(x, safe_y), 0
        elif kind == "arithmetic":
            shifted, fill = np.right_shift(x, safe_y), np.where(x < 0, -1, 0).astype(x.dtype)
        else:
            unsigned = np.dtype(f"u{x.dtype.itemsize}")
            shifted, fill = np.right_shift(x.view(unsigned), safe_y.view(unsigned)).view(x.dtype), 0
        return np.where(out_of_range, fill, shifted).astype(x.dtype)

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


def _convert_element_type(operand, *, new_dtype, weak_type, sharding):
    x = np.asarray(operand)
    if x.dtype == new_dtype:
        return x
    if new_dtype == np.bool_:
        return x != 0
    if np.issubdtype(new_dtype, np.integer) and np.issubdtype(x.dtype, np.inexact):
        # XLA: NaN -> 0, out-of-range values saturate, truncation towards zero.
        if np.issubdtype(x.dtype, np.complexfloating):
            x = x.real
        info = np.iinfo(new_dtype)
        x = np.where(np.isnan(x), 0, np.clip(np.trunc(x), info.min, info.max))
        return x.astype(new_dtype)
    if np.issubdtype(x.dtype, np.complexfloating) and not np.issubdtype(new_dtype, np.complexfloating):
        x = x.real
    return x.astype(new_dtype)


IMPLS[ew.convert_element_type_p] = _convert_element_type


# --- shapes
def _broadcast_in_dim(operand, *, shape, broadcast_dimensions, sharding):
    x = np.asarray(operand)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


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


# --- reductions
def _reduction(fn, identity):
    def impl(operand, *, axes, out_sharding=None):
        x = np.asarray(operand)
        if x.size == 0 or any(x.shape[a] == 0 for a in axes):
            out_shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
            return np.full(out_shape, identity(x.dtype), x.dtype)
        return fn(x, axis=axes, dtype=x.dtype) if fn in (np.sum, np.prod) else fn(x, axis=axes)

    return impl


def _lowest(dtype):
    return -np.inf if np.issubdtype(dtype, np.inexact) else (False if dtype == np.bool_ else np.iinfo(dtype).min)


def _highest(dtype):
    return np.inf if np.issubdtype(dtype, np.inexact) else (True if dtype == np.bool_ else np.iinfo(dtype).max)


IMPLS[red.reduce_sum_p] = _reduction(np.sum, lambda d: 0)
IMPLS[red.reduce_prod_p] = _reduction(np.prod, lambda d: 1)
IMPLS[red.reduce_max_p] = _reduction(np.max, _lowest)
IMPLS[red.reduce_min_p] = _reduction(np.min, _highest)
IMPLS[red.reduce_and_p] = _reduction(np.bitwise_and.reduce, lambda d: True if d == np.bool_ else -1)
IMPLS[red.reduce_or_p] = _reduction(np.bitwise_or.reduce, lambda d: 0)
IMPLS[red.reduce_xor_p] = _reduction(np.bitwise_xor.reduce, lambda d: 0)
IMPLS[red.argmax_p] = lambda x, *, axes, index_dtype: np.argmax(x, axis=axes[0]).astype(index_dtype)
IMPLS[red.argmin_p] = lambda x, *, axes, index_dtype: np.argmin(x, axis=axes[0]).astype(index_dtype)


# --- dot_general
def _dot_general(lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = preferred_element_type or lhs.dtype
    if preferred_element_type is not None:
        lhs, rhs = lhs.astype(out_dtype, copy=False), rhs.astype(out_dtype, copy=False)
    if not lb and lhs.ndim <= 2 and rhs.ndim <= 2 and lc == (lhs.ndim - 1,) and rc == (0,):
        return np.matmul(lhs, rhs) if lhs.ndim and rhs.ndim else lhs * rhs
    lhs_free = [i for i in range(lhs.ndim) if i not in lc and i not in lb]
    rhs_free = [i for i in range(rhs.ndim) if i not in rc and i not in rb]
    batch_shape = [lhs.shape[d] for d in lb]
    lhs_free_shape = [lhs.shape[d] for d in lhs_free]
    rhs_free_shape = [rhs.shape[d] for d in rhs_free]
    contract = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    batch = int(np.prod(batch_shape, dtype=np.int64))
    a = np.transpose(lhs, [*lb, *lhs_free, *lc]).reshape(batch, -1 if lhs_free_shape else 1, contract) if lhs.size else np.zeros((batch, int(np.prod(lhs_free_shape, dtype=np.int64)), contract), lhs.dtype)
    b = np.transpose(rhs, [*rb, *rc, *rhs_free]).reshape(batch, contract, -1 if rhs_free_shape else 1) if rhs.size else np.zeros((batch, contract, int(np.prod(rhs_free_shape, dtype=np.int64))), rhs.dtype)
    out = np.matmul(a, b)
    return out.reshape(batch_shape + lhs_free_shape + rhs_free_shape).astype(out_dtype, copy=False)


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


# --- primitive families kept in their own modules: one table each, merged here
from pyjax._src.backends.numpy import convolution as _convolution  # noqa: E402
from pyjax._src.backends.numpy import fft as _fft  # noqa: E402
from pyjax._src.backends.numpy import linalg as _linalg  # noqa: E402
from pyjax._src.backends.numpy import slicing as _slicing  # noqa: E402
from pyjax._src.backends.numpy import sorting as _sorting  # noqa: E402
from pyjax._src.backends.numpy import special as _special  # noqa: E402
from pyjax._src.backends.numpy import windowed as _windowed  # noqa: E402

for _family in (_convolution, _fft, _linalg, _slicing, _sorting, _special, _windowed):
    IMPLS.update(_family.IMPLS)
