"""Order statistics: quantile, percentile, median and their NaN-ignoring
variants.

The reduced axes are sorted, then the two order statistics around the
requested position are gathered and combined as `method` says ('linear',
'lower', 'higher', 'midpoint', 'nearest', or 'inverted_cdf', the only one
that takes `weights`). Without NaN-squashing a NaN anywhere along the axis
makes the result NaN; the nan-variants sort NaNs last and count only the
others.
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src.lax.gather_scatter import GatherDimensionNumbers, gather
from pyjax._src.numpy.reductions import any as any_
from pyjax._src.numpy.reductions import sum as sum_
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    canonicalize_axis_tuple,
    constant_like,
    ensure_arraylike,
    full_like,
    lax_convert,
    promote_dtypes_inexact,
)
from pyjax._src.numpy.where import _where

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _isnan(x):
    return lax_ew.ne(x, x)


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def quantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights=None):
    """The `q`-th quantiles (q in [0, 1], a scalar or a 1-D array) of `a`
    along `axis`.

    Example:
      >>> jnp.quantile(jnp.array([1., 2., 3., 4.]), 0.5)
      Array(2.5, dtype=float32)
    """
    a, q = ensure_arraylike("quantile", a, q)
    if weights is not None:
        weights = ensure_arraylike("quantile", weights)
    if overwrite_input or out is not None:
        raise ValueError("jax.numpy.quantile does not support overwrite_input=True or out != None")
    return _quantile(a, q, axis, method, keepdims, False, weights)


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanquantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False, *, weights=None):
    """Like `quantile`, ignoring NaNs."""
    a, q = ensure_arraylike("nanquantile", a, q)
    if weights is not None:
        weights = ensure_arraylike("nanquantile", weights)
    if overwrite_input or out is not None:
        raise ValueError("jax.numpy.nanquantile does not support overwrite_input=True or out != None")
    return _quantile(a, q, axis, method, keepdims, True, weights)


def _prepare_axis(a, weights, axis, keepdims):
    # Moves the reduced axes to one trailing axis (or flattens for None);
    # `keepdim` remembers the shape keepdims=True must restore.
    keepdim = []
    if axis is None:
        if keepdims:
            keepdim = [1] * aval_of(a).ndim
        a = lax_shapes.reshape(a, (aval_of(a).size,))
        if weights is not None:
            weights = lax_shapes.reshape(weights, (aval_of(weights).size,))
        return a, weights, 0, keepdim
    if isinstance(axis, tuple):
        shape = aval_of(a).shape
        nd = len(shape)
        keepdim = list(shape)
        axis = tuple(canonicalize_axis(ax, nd) for ax in axis)
        if len(set(axis)) != len(axis):
            raise ValueError("repeated axis")
        for ax in axis:
            keepdim[ax] = 1
        keep = set(range(nd)) - set(axis)
        dimensions = list(range(nd))
        for i, s in enumerate(sorted(keep)):
            dimensions[i], dimensions[s] = dimensions[s], dimensions[i]
        kept_shape = tuple(d for i, d in enumerate(shape) if i not in axis)
        reduced = math.prod(d for i, d in enumerate(shape) if i in axis)
        a = lax_shapes.reshape(a, kept_shape + (reduced,), tuple(dimensions))
        if weights is not None:
            weights = lax_shapes.reshape(weights, kept_shape + (reduced,), tuple(dimensions))
        return a, weights, canonicalize_axis(-1, aval_of(a).ndim), keepdim
    return a, weights, canonicalize_axis(axis, aval_of(a).ndim), keepdim


def _promote_with_weights(a, weights, axis, method):
    # `a` (and `weights`, checked against it and broadcast to its shape)
    # promoted to an inexact dtype.
    if weights is None:
        (a,) = promote_dtypes_inexact(a)
        return a, None
    if dtypes.issubdtype(aval_of(weights).dtype, np.complexfloating):
        raise ValueError("Weights cannot be complex types.")
    if method != "inverted_cdf":
        raise NotImplementedError(f"{method} doesn't support weights. Only method 'inverted_cdf' supports weights.")
    a, weights = promote_dtypes_inexact(a, weights)
    if aval_of(weights).shape != aval_of(a).shape:
        if axis is None:
            raise ValueError("Weights shape must match 'a' shape when axis is None.")
        ax_tuple = canonicalize_axis_tuple(axis, aval_of(a).ndim)
        expected = tuple(aval_of(a).shape[ax] for ax in ax_tuple)
        if aval_of(weights).shape != expected:
            raise ValueError(f"Weights shape {aval_of(weights).shape} must match reduction axes {expected}")
        weights = lax_shapes.broadcast_in_dim(weights, aval_of(a).shape, ax_tuple)
    return a, weights


def _quantile(a, q, axis, method, keepdims, squash_nans, weights=None):
    from pyjax._src.numpy.cumulative import cumsum
    from pyjax._src.numpy.take import take_along_axis

    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'")
    a, weights = _promote_with_weights(a, weights, axis, method)
    if dtypes.issubdtype(aval_of(a).dtype, np.complexfloating):
        raise ValueError("quantile does not support complex input, as the operation is poorly defined.")
    a, weights, axis, keepdim = _prepare_axis(a, weights, axis, keepdims)
    q_shape, q_ndim = aval_of(q).shape, aval_of(q).ndim
    if q_ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q_shape}")
    a_shape = aval_of(a).shape
    q_orig = q
    q_dtype = aval_of(q).dtype
    if squash_nans:
        a = _where(_isnan(a), np.nan, a)  # positive NaNs sort last
        if weights is not None:
            a, weights = lax_sorting.sort_key_val(a, weights, dimension=axis)
        else:
            a = lax_sorting.sort(a, dimension=axis)
        counts = sum_(lax_ew.bitwise_not(_isnan(a)), axis=axis, dtype=q_dtype, keepdims=keepdims)
        after = aval_of(counts).shape
        q = lax_shapes.expand_dims(q, tuple(range(q_ndim, len(after) + q_ndim)))
        counts = lax_shapes.expand_dims(counts, tuple(range(q_ndim)))
        q = lax_ew.mul(q, lax_ew.sub(counts, constant_like(q, 1)))
        low, high = lax_ew.floor(q), lax_ew.ceil(q)
        high_weight = lax_ew.sub(q, low)
        low_weight = lax_ew.sub(constant_like(high_weight, 1), high_weight)
        low = lax_ew.max(constant_like(low, 0), lax_ew.min(low, counts - 1))
        high = lax_ew.max(constant_like(high, 0), lax_ew.min(high, counts - 1))
        low = lax_convert(low, dtypes.default_int_dtype())
        high = lax_convert(high, dtypes.default_int_dtype())
        out_shape = q_shape + after
        index = [lax_shapes.broadcasted_iota(dtypes.default_int_dtype(), out_shape, dim + q_ndim)
                 for dim in range(len(after))]
        if keepdims:
            index[axis] = low
        else:
            index.insert(axis, low)
        low_value = a[tuple(index)]
        index[axis] = high
        high_value = a[tuple(index)]
    else:
        a = _where(any_(_isnan(a), axis=axis, keepdims=True), np.nan, a)
        if weights is not None:
            a, weights = lax_sorting.sort_key_val(a, weights, dimension=axis)
        else:
            a = lax_sorting.sort(a, dimension=axis)
        n = lax_convert(a_shape[axis], q_dtype)
        q = lax_ew.mul(q, n - 1)
        low, high = lax_ew.floor(q), lax_ew.ceil(q)
        high_weight = lax_ew.sub(q, low)
        low_weight = lax_ew.sub(constant_like(high_weight, 1), high_weight)
        low = lax_ew.clamp(constant_like(low, 0), low, n - 1)
        high = lax_ew.clamp(constant_like(high, 0), high, n - 1)
        low = lax_convert(low, dtypes.default_int_dtype())
        high = lax_convert(high, dtypes.default_int_dtype())
        slice_sizes = list(a_shape)
        slice_sizes[axis] = 1
        end = len(a_shape) + q_ndim if keepdims else len(a_shape) + q_ndim - 1
        dnums = GatherDimensionNumbers(offset_dims=tuple(range(q_ndim, end)),
                                       collapsed_slice_dims=() if keepdims else (axis,), start_index_map=(axis,))
        low_value = gather(a, lax_shapes.expand_dims(low, (q_ndim,)), dnums, slice_sizes)
        high_value = gather(a, lax_shapes.expand_dims(high, (q_ndim,)), dnums, slice_sizes)
        if q_ndim == 1:
            low_weight = lax_shapes.broadcast_in_dim(low_weight, aval_of(low_value).shape, (0,))
            high_weight = lax_shapes.broadcast_in_dim(high_weight, aval_of(high_value).shape, (0,))

    if method == "linear":
        result = lax_ew.add(lax_ew.mul(low_value.astype(q_dtype), low_weight),
                            lax_ew.mul(high_value.astype(q_dtype), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = lax_ew.select(lax_ew.le(high_weight, constant_like(high_weight, 0.5)), low_value, high_value)
    elif method == "midpoint":
        result = lax_ew.mul(lax_ew.add(low_value, high_value), constant_like(low_value, 0.5))
    else:
        result = _inverted_cdf(a, weights, axis, q_orig, q_ndim, q_dtype, keepdims, squash_nans, a_shape,
                               cumsum, take_along_axis)
    if keepdims and keepdim:
        if q_ndim > 0:
            keepdim = [q_shape[0], *keepdim]
        result = result.reshape(keepdim)
    return lax_convert(result, aval_of(a).dtype)


def _inverted_cdf(a, weights, axis, q, q_ndim, q_dtype, keepdims, squash_nans, a_shape, cumsum, take_along_axis):
    # The first sorted element whose cumulative weight reaches q * total.
    if weights is None:
        weights = full_like(a, 1.0)
    zeros = full_like(weights, 0)
    bad_weights = lax_ew.bitwise_or(lax_ew.lt(weights, zeros), _isnan(weights))
    nan_data = _isnan(a)
    clean = lax_ew.select(lax_ew.bitwise_or(bad_weights, nan_data), zeros, weights)
    cum_weights = cumsum(clean, axis=axis)
    total = lax_slicing.index_in_dim(cum_weights, -1, axis=axis, keepdims=keepdims)
    target = lax_ew.mul(lax_shapes.reshape(q, aval_of(q).shape + (1,) * aval_of(total).ndim),
                        lax_shapes.expand_dims(total, tuple(range(q_ndim))))
    if not keepdims:
        target = lax_shapes.expand_dims(target, (axis + q_ndim,))
    below = lax_ew.lt(lax_shapes.expand_dims(cum_weights, tuple(range(q_ndim))), target)
    idx = sum_(lax_convert(below, dtypes.default_int_dtype()), axis=axis + q_ndim,
               keepdims=keepdims)
    if squash_nans:
        valid = sum_(lax_ew.bitwise_not(nan_data), axis=axis, dtype=q_dtype, keepdims=keepdims)
    else:
        valid = full_like(total, a_shape[axis], dtype=q_dtype)
    max_idx = lax_convert(lax_ew.sub(valid, constant_like(valid, 1)), dtypes.default_int_dtype())
    max_idx = lax_convert(lax_shapes.expand_dims(max_idx, tuple(range(q_ndim))),
                                          aval_of(idx).dtype)
    idx = lax_ew.max(constant_like(idx, 0), lax_ew.min(idx, max_idx))
    idx_take = lax_shapes.squeeze(idx, (q_ndim + axis,)) if keepdims else idx
    if q_ndim == 0:
        result = take_along_axis(a, lax_shapes.expand_dims(idx_take, (axis,)), axis=axis)
        result = lax_shapes.squeeze(result, (axis,))
    else:
        perm = [*range(q_ndim, q_ndim + axis), *range(q_ndim), *range(q_ndim + axis, aval_of(idx_take).ndim)]
        result = take_along_axis(a, lax_shapes.transpose(idx_take, perm), axis=axis)
        result = lax_shapes.transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = lax_shapes.expand_dims(result, (q_ndim + axis,))
    all_nan = lax_ew.eq(valid, full_like(valid, 0))
    any_bad = any_(bad_weights, axis=axis, keepdims=keepdims)
    force_nan = lax_ew.bitwise_or(any_bad, all_nan if squash_nans else any_(nan_data, axis=axis, keepdims=keepdims))
    force_nan = lax_shapes.expand_dims(force_nan, tuple(range(q_ndim)))
    return _where(force_nan, full_like(result, np.nan), result)


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def percentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights=None):
    """The `q`-th percentiles (q in [0, 100]) of `a` along `axis`."""
    a, q = ensure_arraylike("percentile", a, q)
    if weights is not None:
        weights = ensure_arraylike("percentile", weights)
    (q,) = promote_dtypes_inexact(q)
    return quantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                    keepdims=keepdims, weights=weights)


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanpercentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights=None):
    """Like `percentile`, ignoring NaNs."""
    a, q = ensure_arraylike("nanpercentile", a, q)
    if weights is not None:
        weights = ensure_arraylike("nanpercentile", weights)
    (q,) = promote_dtypes_inexact(q)
    return nanquantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                       weights=weights, keepdims=keepdims)


@jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """The median along `axis` (the midpoint of the two middle values for an
    even count)."""
    a = ensure_arraylike("median", a)
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims,
                    method="midpoint")


@jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """The median along `axis`, ignoring NaNs."""
    a = ensure_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims,
                       method="midpoint")
