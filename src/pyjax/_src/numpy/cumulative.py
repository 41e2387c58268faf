"""Cumulative reductions: cumsum, cumprod, their NaN-ignoring variants and
the array-API cumulative_sum / cumulative_prod.

Each is a jitted function around one cumulative primitive (`cumsum`,
`cumprod`), as in JAX; `axis=None` works on the flattened array; boolean
inputs accumulate in the default integer type.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src import dispatch
from pyjax._src.numpy.reductions import promote_integer_dtype
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    constant_like,
    ensure_arraylike,
    full,
    lax_convert,
)
from pyjax._src.numpy.where import _where


def _lax_windowed():
    # The cumulative primitives' family (with its convolution helpers) loads
    # with the first cumulative reduction traced, not with `import pyjax`.
    from pyjax._src.lax import windowed
    return windowed


def _cumulative_reduction(name, reduction, a, axis, dtype, out=None, fill_nan=False, fill_value=0,
                          promote_integers=False):
    a = ensure_arraylike(name, a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported")
    if axis is None or aval_of(a).ndim == 0:
        a = lax_shapes.reshape(a, (aval_of(a).size,))
    if axis is None:
        axis = 0
    axis = canonicalize_axis(axis, aval_of(a).ndim)
    if fill_nan:
        a = _where(lax_ew.ne(a, a), constant_like(a, fill_value), a)
    if dtype is None:
        if promote_integers or aval_of(a).dtype == np.bool_:
            result_type = promote_integer_dtype(aval_of(a).dtype)
        else:
            result_type = aval_of(a).dtype
        computation_type = result_type
    elif np.dtype(dtype) == np.dtype(bool):
        # A boolean cumulative result: accumulate integers, then cast.
        result_type = np.dtype(dtype)
        if aval_of(a).dtype != result_type:
            a = a != 0
        computation_type = promote_integer_dtype(result_type)
    else:
        result_type = dtypes.check_and_canonicalize_user_dtype(dtype, name)
        computation_type = result_type
    a = lax_convert(a, computation_type)
    return lax_convert(reduction(a, axis), result_type)


@dispatch.fast_path
@jit(static_argnames=("axis", "dtype"))
def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along `axis` (of the flattened array when None).

    Example:
      >>> jnp.cumsum(jnp.array([[1, 2], [3, 4]]), axis=1)
      Array([[1, 3],
             [3, 7]], dtype=int32)
    """
    return _cumulative_reduction("cumsum", _lax_windowed().cumsum, a, axis, dtype, out)


@dispatch.fast_path
@jit(static_argnames=("axis", "dtype"))
def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along `axis` (of the flattened array when None)."""
    return _cumulative_reduction("cumprod", _lax_windowed().cumprod, a, axis, dtype, out)


@jit(static_argnames=("axis", "dtype"))
def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along `axis`, treating NaNs as zero."""
    return _cumulative_reduction("nancumsum", _lax_windowed().cumsum, a, axis, dtype, out, fill_nan=True,
                                 fill_value=0)


@jit(static_argnames=("axis", "dtype"))
def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along `axis`, treating NaNs as one."""
    return _cumulative_reduction("nancumprod", _lax_windowed().cumprod, a, axis, dtype, out, fill_nan=True,
                                 fill_value=1)


@jit(static_argnames=("axis", "dtype"))
def _cumsum_with_promotion(a, axis=None, dtype=None, out=None):
    return _cumulative_reduction("_cumsum_with_promotion", _lax_windowed().cumsum, a, axis, dtype, out,
                                 promote_integers=True)


def _cumulative_axis(x, axis, what: str):
    if aval_of(x).ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, however a scalar value "
                         "or scalar array was given.")
    if axis is None:
        axis = 0
        if aval_of(x).ndim > 1:
            raise ValueError(f"The input array has rank {aval_of(x).ndim}, however axis was not set to an "
                             "explicit value. The axis argument is only optional for one-dimensional arrays.")
    return canonicalize_axis(axis, aval_of(x).ndim)


def _with_initial(out, x, axis, value):
    shape = list(aval_of(x).shape)
    shape[axis] = 1
    return lax_shapes.concatenate([full(shape, value, aval_of(out).dtype), out], axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False):
    """Cumulative sum along `axis` (array API): integers are promoted as
    `sum` promotes them; `include_initial` prepends a zero."""
    x = ensure_arraylike("cumulative_sum", x)
    axis = _cumulative_axis(x, axis, "sum")
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
    out = _cumsum_with_promotion(x, axis=axis, dtype=dtype)
    return _with_initial(out, x, axis, 0) if include_initial else out


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False):
    """Cumulative product along `axis` (array API); `include_initial`
    prepends a one."""
    x = ensure_arraylike("cumulative_prod", x)
    axis = _cumulative_axis(x, axis, "product")
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
    out = _cumulative_reduction("cumulative_prod", _lax_windowed().cumprod, x, axis, dtype)
    return _with_initial(out, x, axis, 1) if include_initial else out
