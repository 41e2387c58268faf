"""Reductions: sum, prod, max, min, mean, argmax, argmin, all, any.

As in jax.numpy: `axis=None` reduces every axis; sums and products of bool
and narrow integers accumulate in the default integer type; float16 and
bfloat16 are accumulated in float32 and cast back; `keepdims` re-inserts the
reduced axes with broadcast_in_dim; `initial` is combined after the reduce.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import reductions as lax_red
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import aval_of, canonicalize_axis, check_arraylike, ensure_array


def _axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(canonicalize_axis(a, ndim) for a in axis))
    return (canonicalize_axis(axis, ndim),)


def _keepdims(out, in_shape: tuple, axes: tuple):
    shape = tuple(1 if i in axes else d for i, d in enumerate(in_shape))
    kept = tuple(i for i in range(len(in_shape)) if i not in axes)
    return lax_shapes.broadcast_in_dim(out, shape, kept)


def _promoted_integer_dtype(dtype):
    if dtype == np.bool_:
        return dtypes.default_int_dtype()
    if np.issubdtype(dtype, np.signedinteger) and dtype.itemsize < dtypes.default_int_dtype().itemsize:
        return dtypes.default_int_dtype()
    if np.issubdtype(dtype, np.unsignedinteger) and dtype.itemsize < dtypes.default_uint_dtype().itemsize:
        return dtypes.default_uint_dtype()
    return dtype


def _reduction(name: str, a, axis, dtype, keepdims, initial, where, primitive, *, promote_integers=False,
               upcast_f16=False, combine=None):
    check_arraylike(name, a)
    a = ensure_array(a)
    aval = aval_of(a)
    if where is not None:
        raise NotImplementedError(f"jnp.{name}(where=...) is not implemented yet")
    axes = _axes(axis, aval.ndim)
    if dtype is not None:
        result_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, name)
    elif promote_integers:
        result_dtype = _promoted_integer_dtype(aval.dtype)
    else:
        result_dtype = aval.dtype
    compute_dtype = result_dtype
    if upcast_f16 and result_dtype in (np.dtype(np.float16), np.dtype(dtypes.bfloat16)):
        compute_dtype = np.dtype(np.float32)
    operand = lax_ew._convert_element_type(a, compute_dtype, aval.weak_type)
    params = {"axes": axes, "out_sharding": None} if primitive.has_out_sharding else {"axes": axes}
    out = primitive.bind(operand, **params)
    if initial is not None:
        out = combine.bind(np.asarray(initial, compute_dtype)[()], out)
    out = lax_ew._convert_element_type(out, result_dtype, aval.weak_type)
    return _keepdims(out, aval.shape, axes) if keepdims else out


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):  # noqa: A001
    """Sum of array elements over `axis`."""
    return _reduction("sum", a, axis, dtype, keepdims, initial, where, lax_red.reduce_sum_p,
                      promote_integers=promote_integers, upcast_f16=True, combine=lax_ew.add_p)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
    """Product of array elements over `axis`."""
    return _reduction("prod", a, axis, dtype, keepdims, initial, where, lax_red.reduce_prod_p,
                      promote_integers=promote_integers, upcast_f16=True, combine=lax_ew.mul_p)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Maximum of array elements over `axis` (NaN-propagating)."""
    return _reduction("max", a, axis, None, keepdims, initial, where, lax_red.reduce_max_p, combine=lax_ew.max_p)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Minimum of array elements over `axis` (NaN-propagating)."""
    return _reduction("min", a, axis, None, keepdims, initial, where, lax_red.reduce_min_p, combine=lax_ew.min_p)


amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """True where every element along `axis` is truthy."""
    a = _as_bool(a)
    return _reduction("all", a, axis, None, keepdims, None, where, lax_red.reduce_and_p)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """True where some element along `axis` is truthy."""
    a = _as_bool(a)
    return _reduction("any", a, axis, None, keepdims, None, where, lax_red.reduce_or_p)


def _as_bool(a):
    a = ensure_array(a)
    if aval_of(a).dtype != np.bool_:
        return lax_ew.ne_p.bind(a, aval_of(a).dtype.type(0))
    return a


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over `axis` (integers average in floating point)."""
    check_arraylike("mean", a)
    a = ensure_array(a)
    aval = aval_of(a)
    axes = _axes(axis, aval.ndim)
    count = 1
    for ax in axes:
        count *= aval.shape[ax]
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(aval.dtype) if not np.issubdtype(aval.dtype, np.inexact) and not dtypes.issubdtype(aval.dtype, np.inexact) else aval.dtype
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
    total = sum(a, axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax_ew.div_p.bind(total, np.asarray(count, dtype)[()])


def _arg(name: str, primitive, a, axis, keepdims):
    check_arraylike(name, a)
    a = ensure_array(a)
    aval = aval_of(a)
    if axis is None:
        from pyjax._src.numpy.shape_ops import ravel

        a, axis_ = ravel(a), 0
        shape, axes = aval.shape, tuple(range(aval.ndim))
    else:
        axis_ = canonicalize_axis(axis, aval.ndim)
        shape, axes = aval.shape, (axis_,)
    out = primitive.bind(a, axes=(axis_,), index_dtype=dtypes.default_int_dtype())
    return _keepdims(out, shape, axes) if keepdims else out


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum along `axis` (of the flattened array if None)."""
    return _arg("argmax", lax_red.argmax_p, a, axis, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum along `axis` (of the flattened array if None)."""
    return _arg("argmin", lax_red.argmin_p, a, axis, keepdims)
