"""Reductions: sum, prod, max, min, all, any, mean, average, var, std, ptp,
count_nonzero, argmax/argmin and the NaN-ignoring variants.

As in jax.numpy: `axis=None` reduces every axis; sums and products of bool
and narrow integers accumulate in the default integer type; float16 and
bfloat16 sums are computed in float32 and cast back; `where` replaces the
masked-out elements by the reduction's identity (through the jitted
`_where`); `initial` is combined with the result after the reduce;
`keepdims` re-inserts the reduced axes with `expand_dims`. Reductions
without an identity (max, min) refuse empty axes unless `initial` is given.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from pyjax._src import config, core, dtypes, errors
from pyjax._src.array import Array
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import reduce as lax_reduce
from pyjax._src.lax import reductions as lax_red
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src import dispatch
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    canonicalize_axis_tuple,
    constant_like,
    ensure_arraylike,
    full,
    lax_convert,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
)
from pyjax._src.numpy.where import _where

_all = builtins.all


def _upcast_f16(dtype):
    if np.dtype(dtype) in (np.dtype(np.float16), np.dtype(dtypes.bfloat16)):
        return np.dtype(np.float32)
    return np.dtype(dtype)


def promote_integer_dtype(dtype):
    """The dtype sums and products of `dtype` accumulate in: booleans and
    integers narrower than the default become the default (signedness kept)."""
    if dtypes.issubdtype(dtype, np.bool_):
        return dtypes.default_int_dtype()
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        narrow = np.iinfo(dtype).bits < np.iinfo(dtypes.default_uint_dtype()).bits
        return dtypes.default_uint_dtype() if narrow else dtype
    if dtypes.issubdtype(dtype, np.integer) and np.iinfo(dtype).bits < np.iinfo(dtypes.default_int_dtype()).bits:
        return dtypes.default_int_dtype()
    return dtype


def check_where(name: str, where):
    if where is None:
        return None
    where = ensure_arraylike(name, where)
    if aval_of(where).dtype != np.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got where.dtype={aval_of(where).dtype!r}.")
    return where


def reduction_dims(a, axis) -> tuple:
    ndim = aval_of(a).ndim
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (np.ndarray, tuple, list)) else (axis,)
    canon = tuple(canonicalize_axis(x, ndim) for x in axes)
    if len(canon) != len(set(canon)):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return canon


def reduction_init_val(a, init_val):
    """`init_val` as a NumPy scalar of a's dtype (infinities become the
    extreme finite values for dtypes without them; integer overflow clips)."""
    dtype = aval_of(a).dtype
    if dtype == np.bool_:
        return np.array(init_val > 0, dtype=dtype)
    if (np.isinf(init_val) and dtypes.issubdtype(dtype, np.floating) and not dtypes.supports_inf(dtype)):
        init_val = dtypes.finfo(dtype).min if np.isneginf(init_val) else dtypes.finfo(dtype).max
    try:
        with np.errstate(over="raise"):
            value = np.array(init_val, dtype=dtype)
        if dtypes.issubdtype(dtype, np.integer) and value != init_val:
            raise OverflowError
        return value
    except (OverflowError, FloatingPointError):
        info = dtypes.iinfo(dtype)
        return np.array(info.min if np.sign(init_val) < 0 else info.max, dtype=dtype)


def _concrete_axis(axis, name: str):
    if isinstance(axis, core.Tracer):
        raise errors.ConcretizationTypeError(axis, f"axis argument to jnp.{name}().")
    return axis


def _reduction(a, name: str, op, init_val, *, has_identity=True, preproc=None, bool_op=None,
               upcast_f16_for_computation=False, axis=None, dtype=None, out=None, keepdims=False, initial=None,
               where_=None, promote_integers=False):
    bool_op = bool_op or op
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    a = ensure_arraylike(name, a)
    where_ = check_where(name, where_)
    axis = _concrete_axis(axis, name)
    if initial is None and not has_identity and where_ is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         f"where mask one has to specify 'initial'")
    a = preproc(a) if preproc else a
    dims = reduction_dims(a, axis)
    if initial is None and not has_identity:
        shape = aval_of(a).shape
        if not _all(shape[d] >= 1 for d in dims):
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if dtype is None:
        result_dtype = aval_of(a).dtype
        if promote_integers:
            result_dtype = promote_integer_dtype(result_dtype)
    else:
        result_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, name)
    if upcast_f16_for_computation and dtypes.issubdtype(result_dtype, np.inexact):
        computation_dtype = _upcast_f16(result_dtype)
    else:
        computation_dtype = result_dtype
    a = lax_convert(a, computation_dtype)
    op = op if computation_dtype != np.bool_ else bool_op
    init = reduction_init_val(a, init_val)
    if where_ is not None:
        a = _where(where_, a, init)
    result = lax_reduce.reduce(a, init, op, dims)
    if initial is not None:
        initial_arr = lax_convert(initial, aval_of(a).dtype)
        if aval_of(initial_arr).shape != ():
            raise ValueError(f"initial value must be a scalar. Got array of shape {aval_of(initial_arr).shape}")
        result = op(initial_arr, result)
    if keepdims:
        result = lax_shapes.expand_dims(result, dims)
    return lax_convert(result, dtype or result_dtype)


def _cast_to_bool(operand):
    if dtypes.issubdtype(aval_of(operand).dtype, np.complexfloating):
        operand = lax_ew.real(operand)
    return lax_convert(operand, np.bool_)


def _cast_to_numeric(operand):
    return promote_dtypes_numeric(operand)[0]


def _require_integer(arr):
    if not dtypes.isdtype(aval_of(arr).dtype, ("bool", "integral")):
        raise ValueError(f"integer argument required; got dtype={aval_of(arr).dtype}")
    return arr


def ensure_optional_axes(axis):
    """A static axis: None, an int or a tuple of ints."""
    if axis is None:
        return None
    if isinstance(axis, core.Tracer):
        raise errors.ConcretizationTypeError(axis, "The axis argument must be known statically.")
    try:
        return operator.index(axis)
    except TypeError:
        return tuple(operator.index(i) for i in axis)


def _plain(a, out, initial=None, where=None) -> bool:
    # The eager fast path covers an Array argument without out/initial/where.
    return (type(a) is Array and out is None and initial is None and where is None
            and dispatch.active_trace() is None)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):
    """Sum of array elements over `axis`.

    Args:
      a: the array.
      axis: an int or a tuple of ints (None: every axis).
      dtype: the accumulation and result dtype.
      keepdims: keep reduced axes with length 1.
      initial: a scalar added to the sum.
      where: a boolean mask of the elements to include.
      promote_integers: accumulate narrow integers and booleans in the default
        integer type (True by default).

    Example:
      >>> jnp.sum(jnp.arange(6).reshape(2, 3), axis=1)
      Array([ 3, 12], dtype=int32)
    """
    if type(a) is Array:
        if (axis is None and dtype is None and out is None and keepdims is False and initial is None
                and where is None and promote_integers is True and dispatch.active_trace() is None):
            # jnp.sum(x), the commonest call: the plan straight from the site's memo.
            plan = _SUM_ALL.plans.get((a.aval, config.trace_context_id()))
            if type(plan) is dispatch.EagerProgram:
                return Array(dispatch.fp_mode.run(plan.run, a._value), plan.out_aval)
            r = _SUM_ALL.one(a)
        elif _plain(a, out, initial, where):
            r = _SITES["sum"].one(a, axis, dtype, keepdims, promote_integers, dispatch.axis_tag(axis))
        else:
            r = None
        if r is not None:
            return r
    return _reduction(a, "sum", lax_ew.add, 0, preproc=_cast_to_numeric, bool_op=lax_ew.bitwise_or,
                      upcast_f16_for_computation=dtype is None, axis=ensure_optional_axes(axis), dtype=dtype,
                      out=out, keepdims=keepdims, initial=initial, where_=where, promote_integers=promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
    """Product of array elements over `axis` (options as for `sum`)."""
    if _plain(a, out, initial, where) and (r := _SITES["prod"].one(
            a, axis, dtype, keepdims, promote_integers, dispatch.axis_tag(axis))) is not None:
        return r
    return _reduction(a, "prod", lax_ew.mul, 1, preproc=_cast_to_numeric, bool_op=lax_ew.bitwise_and,
                      upcast_f16_for_computation=dtype is None, axis=ensure_optional_axes(axis), dtype=dtype,
                      out=out, keepdims=keepdims, initial=initial, where_=where, promote_integers=promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum of array elements over `axis` (NaN-propagating). With `where`,
    `initial` is required (max has no identity)."""
    if _plain(a, out, initial, where) and (r := _SITES["max"].one(
            a, axis, keepdims, dispatch.axis_tag(axis))) is not None:
        return r
    return _reduction(a, "max", lax_ew.max, -np.inf, has_identity=False, axis=ensure_optional_axes(axis),
                      out=out, keepdims=keepdims, initial=initial, where_=where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum of array elements over `axis` (NaN-propagating). With `where`,
    `initial` is required."""
    if _plain(a, out, initial, where) and (r := _SITES["min"].one(
            a, axis, keepdims, dispatch.axis_tag(axis))) is not None:
        return r
    return _reduction(a, "min", lax_ew.min, np.inf, has_identity=False, axis=ensure_optional_axes(axis),
                      out=out, keepdims=keepdims, initial=initial, where_=where)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of `max`."""
    return max(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of `min`."""
    return min(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """True where every element along `axis` is truthy."""
    if _plain(a, out, None, where) and (r := _SITES["all"].one(
            a, axis, keepdims, dispatch.axis_tag(axis))) is not None:
        return r
    return _reduction(a, "all", lax_ew.bitwise_and, True, preproc=_cast_to_bool, axis=ensure_optional_axes(axis),
                      out=out, keepdims=keepdims, where_=where)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """True where some element along `axis` is truthy."""
    if _plain(a, out, None, where) and (r := _SITES["any"].one(
            a, axis, keepdims, dispatch.axis_tag(axis))) is not None:
        return r
    return _reduction(a, "any", lax_ew.bitwise_or, False, preproc=_cast_to_bool, axis=ensure_optional_axes(axis),
                      out=out, keepdims=keepdims, where_=where)


def _bitwise_reduction(name, op, init):
    def reduce_fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        arr = ensure_arraylike(name, a)
        init_val = np.array(init).astype(dtype or aval_of(arr).dtype) if init == -1 else init
        return _reduction(arr, name=name, op=op, init_val=init_val, preproc=_require_integer,
                          axis=ensure_optional_axes(axis), dtype=dtype, out=out, keepdims=keepdims,
                          initial=initial, where_=where)

    return reduce_fn


def _logical_reduction(name, op, init):
    def reduce_fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        return _reduction(a, name=name, op=op, init_val=init, preproc=_cast_to_bool,
                          axis=ensure_optional_axes(axis), dtype=dtype, out=out, keepdims=keepdims,
                          initial=initial, where_=where)

    return reduce_fn


reduce_bitwise_and = _bitwise_reduction("reduce_bitwise_and", lax_ew.bitwise_and, -1)
reduce_bitwise_or = _bitwise_reduction("reduce_bitwise_or", lax_ew.bitwise_or, 0)
reduce_bitwise_xor = _bitwise_reduction("reduce_bitwise_xor", lax_ew.bitwise_xor, 0)
reduce_logical_and = _logical_reduction("reduce_logical_and", lax_ew.bitwise_and, True)
reduce_logical_or = _logical_reduction("reduce_logical_or", lax_ew.bitwise_or, False)
reduce_logical_xor = _logical_reduction("reduce_logical_xor", lax_ew.bitwise_xor, False)


def _axis_size(a, axis) -> int:
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    shape = aval_of(a).shape
    return math.prod(shape[i] for i in axes)


def _count(a, axis, keepdims, where, dtype):
    from pyjax._src.numpy.shape_ops import broadcast_to

    if where is None:
        count = aval_of(a).size if axis is None else _axis_size(a, axis)
        from pyjax._src.dim_as_value import dimension_as_value

        return lax_convert(dimension_as_value(count), dtype)
    return sum(broadcast_to(where, aval_of(a).shape), axis, dtype=dtype, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over `axis` (integers average in floating point;
    float16 accumulates in float32).

    Example:
      >>> jnp.mean(jnp.array([[1., 2.], [3., 5.]]), axis=0)
      Array([2. , 3.5], dtype=float32)
    """
    if _plain(a, out, None, where) and (r := _SITES["mean"].one(
            a, axis, dtype, keepdims, dispatch.axis_tag(axis))) is not None:
        return r
    return _mean(a, ensure_optional_axes(axis), dtype, out, keepdims, where=where,
                 upcast_f16_for_computation=dtype is None)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *, upcast_f16_for_computation=True, where=None):
    a = ensure_arraylike("mean", a)
    where = check_where("mean", where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.mean is not supported.")
    if dtype is None:
        result_dtype = dtypes.to_inexact_dtype(aval_of(a).dtype)
    else:
        result_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
    if upcast_f16_for_computation and dtypes.issubdtype(result_dtype, np.inexact):
        computation_dtype = _upcast_f16(result_dtype)
    else:
        computation_dtype = result_dtype
    normalizer = _count(a, axis=axis, keepdims=keepdims, where=where, dtype=computation_dtype)
    total = sum(a, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    return lax_ew.div(total, normalizer).astype(result_dtype)


def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted average over `axis` (the mean when `weights` is None).

    `weights` has a's shape, or the shape of the reduced axes. With
    `returned`, also returns the sum of the weights.
    """
    return _average(a, ensure_optional_axes(axis), weights, returned, keepdims)


def _average(a, axis=None, weights=None, returned=False, keepdims=False):
    from pyjax._src.numpy.shape_ops import broadcast_to

    axis_tuple = canonicalize_axis_tuple(axis, np.ndim(a) if not hasattr(a, "aval") else a.aval.ndim)
    if weights is None:
        a = ensure_arraylike("average", a)
        (a,) = promote_dtypes_inexact(a)
        avg = mean(a, axis=axis, keepdims=keepdims)
        count = aval_of(a).size if axis is None else math.prod(aval_of(a).shape[d] for d in axis_tuple)
        weights_sum = full((), count, aval_of(avg).dtype)
    else:
        a, weights = ensure_arraylike("average", a, weights)
        a, weights = promote_dtypes_inexact(a, weights)
        a_shape, w_shape = aval_of(a).shape, aval_of(weights).shape
        if a_shape != w_shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if w_shape != tuple(a_shape[ax] for ax in axis_tuple):
                raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
            new_shape = tuple(d if i in axis_tuple else 1 for i, d in enumerate(a_shape))
            weights = lax_shapes.reshape(weights, new_shape, dimensions=tuple(int(i) for i in np.argsort(axis_tuple)))
        weights_sum = sum(weights, axis=axis, keepdims=keepdims)
        avg = sum(a * weights, axis=axis, keepdims=keepdims) / weights_sum
    if returned:
        if aval_of(avg).shape != aval_of(weights_sum).shape:
            weights_sum = broadcast_to(weights_sum, aval_of(avg).shape)
        return avg, weights_sum
    return avg


def _var_promote_types(a_dtype, dtype):
    if dtype:
        if not dtypes.issubdtype(dtype, np.complexfloating) and dtypes.issubdtype(a_dtype, np.complexfloating):
            raise ValueError("jax.numpy.var does not yet support real dtype parameters when computing the "
                             "variance of an array of complex values. The semantics of numpy.var seem unclear "
                             "in this case. Please comment on https://github.com/jax-ml/jax/issues/2283 if this "
                             "behavior is important to you.")
        computation_dtype = dtype
    else:
        if not dtypes.issubdtype(a_dtype, np.inexact):
            dtype = dtypes.to_inexact_dtype(a_dtype)
            computation_dtype = dtype
        else:
            dtype = np.array(0, a_dtype).real.dtype
            computation_dtype = a_dtype
    return _upcast_f16(computation_dtype), np.dtype(dtype)


def _correction(ddof, correction):
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


@dispatch.fast_path
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None, correction=None):
    """Variance over `axis`: mean((a - mean(a))**2) * n / (n - ddof).

    Args:
      ddof / correction: the degrees of freedom subtracted from the count.
      mean: a precomputed mean (with keepdims=True shape).
      dtype, keepdims, where: as for `sum`.
    """
    correction = _correction(ddof, correction)
    a = ensure_arraylike("var", a)
    return _var(a, axis=ensure_optional_axes(axis), dtype=dtype, out=out, correction=correction,
                keepdims=keepdims, where=where, a_mean=mean)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def _var(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None, a_mean=None):
    where = check_where("var", where)
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "var")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.var is not supported.")
    computation_dtype, dtype = _var_promote_types(aval_of(a).dtype, dtype)
    a = a.astype(computation_dtype)
    if a_mean is None:
        a_mean = mean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    else:
        a_mean = ensure_arraylike("var", a_mean).astype(computation_dtype)
    centered = lax_ew.sub(a, a_mean)
    if dtypes.issubdtype(computation_dtype, np.complexfloating):
        centered = lax_ew.real(lax_ew.mul(centered, lax_ew.conj(centered)))
        computation_dtype = aval_of(centered).dtype
    else:
        centered = lax_ew.square(centered)
    normalizer = _count(a, axis=axis, keepdims=keepdims, where=where, dtype=computation_dtype)
    normalizer = lax_ew.sub(normalizer, lax_convert(correction, computation_dtype))
    result = sum(centered, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    result = lax_ew.div(result, normalizer).astype(dtype)
    return _where(normalizer > 0, result, np.nan)


@dispatch.fast_path
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None, correction=None):
    """Standard deviation over `axis`: sqrt(var(...)) (see `var`)."""
    correction = _correction(ddof, correction)
    a = ensure_arraylike("std", a)
    return _std(a, axis=ensure_optional_axes(axis), dtype=dtype, out=out, correction=correction,
                keepdims=keepdims, where=where, mean=mean)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def _std(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None, mean=None):
    where = check_where("std", where)
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "std")
        if not dtypes.issubdtype(dtype, np.inexact):
            raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.std is not supported.")
    return lax_ew.sqrt(var(a, axis=axis, dtype=dtype, correction=correction, keepdims=keepdims, where=where,
                           mean=mean))


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (max - min) over `axis`."""
    a = ensure_arraylike("ptp", a)
    return _ptp(a, ensure_optional_axes(axis), out, keepdims)


@jit(static_argnames=("axis", "keepdims"))
def _ptp(a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.ptp is not supported.")
    return lax_ew.sub(amax(a, axis=axis, keepdims=keepdims), amin(a, axis=axis, keepdims=keepdims))


@jit(static_argnames=("axis", "keepdims"))
def count_nonzero(a, axis=None, keepdims=False):
    """The number of nonzero elements over `axis` (default integer dtype)."""
    a = ensure_arraylike("count_nonzero", a)
    return sum(lax_ew.ne(a, constant_like(a, 0)), axis=axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims)


# ---------------------------------------------------------------------------
# NaN-ignoring reductions


def _isnan(x):
    return lax_ew.ne(x, x)


def _nan_reduction(a, name, jnp_reduction, init_val, nan_if_all_nan, axis=None, keepdims=False, where=None,
                   **kwargs):
    a = ensure_arraylike(name, a)
    where = check_where(name, where)
    if not dtypes.issubdtype(aval_of(a).dtype, np.inexact):
        return jnp_reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
    out = jnp_reduction(_where(_isnan(a), reduction_init_val(a, init_val), a), axis=axis, keepdims=keepdims,
                        where=where, **kwargs)
    if nan_if_all_nan:
        return _where(all(_isnan(a), axis=axis, keepdims=keepdims), constant_like(a, np.nan), out)
    return out


@jit(static_argnames=("axis", "keepdims"))
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum over `axis`, ignoring NaNs (NaN where every element is NaN)."""
    return _nan_reduction(a, "nanmin", min, np.inf, nan_if_all_nan=initial is None, axis=axis, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jit(static_argnames=("axis", "keepdims"))
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum over `axis`, ignoring NaNs (NaN where every element is NaN)."""
    return _nan_reduction(a, "nanmax", max, -np.inf, nan_if_all_nan=initial is None, axis=axis, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum over `axis`, treating NaNs as zero."""
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "nanprod")
    return _nan_reduction(a, "nansum", sum, 0, nan_if_all_nan=False, axis=axis, dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product over `axis`, treating NaNs as one."""
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "nanprod")
    return _nan_reduction(a, "nanprod", prod, 1, nan_if_all_nan=False, axis=axis, dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """Mean over `axis` of the non-NaN elements."""
    a = ensure_arraylike("nanmean", a)
    where = check_where("nanmean", where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanmean is not supported.")
    if dtypes.issubdtype(aval_of(a).dtype, np.bool_) or dtypes.issubdtype(aval_of(a).dtype, np.integer):
        return mean(a, axis, dtype, out, keepdims, where=where)
    dtype = dtypes.to_inexact_dtype(aval_of(a).dtype) if dtype is None else \
        dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
    not_nan = lax_ew.bitwise_not(_isnan(a))
    normalizer = sum(not_nan, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax_ew.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), normalizer)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """Variance over `axis` of the non-NaN elements (see `var`)."""
    a = ensure_arraylike("nanvar", a)
    where = check_where("nanvar", where)
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "nanvar")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    computation_dtype, dtype = _var_promote_types(aval_of(a).dtype, dtype)
    a = a.astype(computation_dtype)
    if mean is None:
        a_mean = nanmean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    else:
        a_mean = ensure_arraylike("nanvar", mean).astype(computation_dtype)
    # The inner where keeps NaN out of the gradient of the masked elements.
    centered = _where(_isnan(a), 0, lax_ew.sub(a, a_mean))
    if dtypes.issubdtype(aval_of(centered).dtype, np.complexfloating):
        centered = lax_ew.real(lax_ew.mul(centered, lax_ew.conj(centered)))
    else:
        centered = lax_ew.square(centered)
    normalizer = sum(lax_ew.bitwise_not(_isnan(a)), axis=axis, keepdims=keepdims, where=where)
    normalizer = normalizer - ddof
    empty = lax_ew.le(normalizer, constant_like(normalizer, 0))
    result = sum(centered, axis, keepdims=keepdims, where=where)
    result = _where(empty, np.nan, result)
    divisor = _where(empty, 1, normalizer)
    result = lax_ew.div(result, lax_convert(divisor, aval_of(result).dtype))
    return lax_convert(result, dtype)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """Standard deviation over `axis` of the non-NaN elements."""
    a = ensure_arraylike("nanstd", a)
    where = check_where("nanstd", where)
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "nanstd")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanstd is not supported.")
    return lax_ew.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where, mean=mean))


# ---------------------------------------------------------------------------
# argmax / argmin


def _arg_reduce(name, primitive, a, axis, keepdims):
    if axis is None:
        dims = list(range(aval_of(a).ndim))
        a = lax_shapes.reshape(a, (aval_of(a).size,))
        axis = 0
    else:
        dims = [axis]
    if aval_of(a).shape[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    result = primitive.bind(a, axes=(canonicalize_axis(axis, aval_of(a).ndim),),
                            index_dtype=dtypes.default_int_dtype())
    if keepdims:
        from pyjax._src.numpy.shape_ops import expand_dims

        return expand_dims(result, tuple(dims))
    return result


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum along `axis` (of the flattened array if None);
    the first one on ties, NaN counting as the maximum."""
    if _plain(a, out) and (r := _SITES["argmax"].one(
            a, axis, keepdims, dispatch.axis_tag(axis))) is not None:
        return r
    arr = ensure_arraylike("argmax", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.argmax is not supported.")
    return _arg_reduce("argmax", lax_red.argmax_p, arr, None if axis is None else operator.index(axis),
                       bool(keepdims))


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum along `axis` (of the flattened array if None)."""
    if _plain(a, out) and (r := _SITES["argmin"].one(
            a, axis, keepdims, dispatch.axis_tag(axis))) is not None:
        return r
    arr = ensure_arraylike("argmin", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.argmin is not supported.")
    return _arg_reduce("argmin", lax_red.argmin_p, arr, None if axis is None else operator.index(axis),
                       bool(keepdims))


@jit(static_argnames=("axis", "keepdims"))
def _nanargmax(a, axis=None, keepdims=False):
    from pyjax._src.numpy.where import where

    if not dtypes.issubdtype(aval_of(a).dtype, np.inexact):
        return argmax(a, axis=axis, keepdims=keepdims)
    nan_mask = _isnan(a)
    res = argmax(where(nan_mask, -np.inf, a), axis=axis, keepdims=keepdims)
    return where(all(nan_mask, axis=axis, keepdims=keepdims), -1, res)


@jit(static_argnames=("axis", "keepdims"))
def _nanargmin(a, axis=None, keepdims=False):
    from pyjax._src.numpy.where import where

    if not dtypes.issubdtype(aval_of(a).dtype, np.inexact):
        return argmin(a, axis=axis, keepdims=keepdims)
    nan_mask = _isnan(a)
    res = argmin(where(nan_mask, np.inf, a), axis=axis, keepdims=keepdims)
    return where(all(nan_mask, axis=axis, keepdims=keepdims), -1, res)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum along `axis` ignoring NaNs (-1 where all are NaN)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanargmax is not supported.")
    a = ensure_arraylike("nanargmax", a)
    return _nanargmax(a, None if axis is None else operator.index(axis), keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum along `axis` ignoring NaNs (-1 where all are NaN)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanargmin is not supported.")
    a = ensure_arraylike("nanargmin", a)
    return _nanargmin(a, None if axis is None else operator.index(axis), keepdims=bool(keepdims))


# The eager fast paths (dispatch.py Sites) of the reductions above: option names in call order.
_SITES = {name: dispatch.Site(name, globals()[name], *options) for name, options in [
    ("sum", ("axis", "dtype", "keepdims", "promote_integers")),
    ("prod", ("axis", "dtype", "keepdims", "promote_integers")),
    ("max", ("axis", "keepdims")),
    ("min", ("axis", "keepdims")),
    ("all", ("axis", "keepdims")),
    ("any", ("axis", "keepdims")),
    ("mean", ("axis", "dtype", "keepdims")),
    ("argmax", ("axis", "keepdims")),
    ("argmin", ("axis", "keepdims")),
]}
_SUM_ALL = dispatch.Site("sum", sum)  # jnp.sum(x) with every default: the shortest key
