"""Functions whose output size depends on the data: nonzero, flatnonzero,
argwhere, extract and compress.

Their result shape is the number of True (or nonzero) elements, so under
`jit` it must be given statically with `size=` (extra positions are filled
with `fill_value`, by default 0); without it, JAX's ConcretizationTypeError
is raised. The positions are found without sorting: a cumulative count of the
mask is binned into `size` slots.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, errors
from pyjax._src.numpy.util import aval_of, ensure_arraylike


def _concrete_size(value, context: str) -> int:
    if isinstance(value, core.Tracer):
        raise errors.ConcretizationTypeError(value, context)
    return int(value)


def nonzero(a, *, size: int | None = None, fill_value=None) -> tuple:
    """The indices of the nonzero elements of `a`, one array per axis.

    Args:
      a: an array of rank >= 1.
      size: the static length of each result (required under jit): extra
        positions are filled, missing ones dropped.
      fill_value: the index used to fill (a scalar or one per axis; 0 by
        default).

    Example:
      >>> jnp.nonzero(jnp.array([0, 3, 0, 5]), size=3, fill_value=-1)
      (Array([ 1,  3, -1], dtype=int32),)
    """
    from pyjax._src.numpy.creation import arange, zeros
    from pyjax._src.numpy.cumulative import cumsum
    from pyjax._src.numpy.histogram import bincount
    from pyjax._src.numpy.ufuncs_extra import floor_divide, remainder
    from pyjax._src.numpy.where import where

    arr = ensure_arraylike("nonzero", a)
    shape = aval_of(arr).shape
    if len(shape) == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead.")
    mask = arr if aval_of(arr).dtype == np.bool_ else (arr != 0)
    count = mask.sum() if size is None else size
    count = _concrete_size(count, "The size argument of jnp.nonzero must be statically specified to use "
                                  "jnp.nonzero within JAX transformations.")
    if aval_of(arr).size == 0 or count == 0:
        return tuple(zeros(count, int) for _ in shape)
    flat_indices = cumsum(bincount(cumsum(mask), length=count))
    strides = (np.cumprod(shape[::-1])[::-1] // shape).astype(aval_of(flat_indices).dtype)
    out = tuple(remainder(floor_divide(flat_indices, stride), n) for stride, n in zip(strides, shape))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else len(shape) * (fill_value,)
        if any(np.shape(v) != () for v in fills):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shape)}; got {fill_value}")
        past_end = arange(count) >= mask.sum()
        out = tuple(where(past_end, v, entry) for v, entry in zip(fills, out))
    return out


def flatnonzero(a, *, size: int | None = None, fill_value=None):
    """The indices of the nonzero elements of the flattened `a` (see nonzero)."""
    from pyjax._src.numpy.shape_ops import ravel

    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size: int | None = None, fill_value=None):
    """The indices of the nonzero elements as rows of an (N, a.ndim) array."""
    from pyjax._src.numpy.joining import vstack
    from pyjax._src.numpy.shape_ops import atleast_1d, transpose

    a = ensure_arraylike("argwhere", a)
    result = transpose(vstack(nonzero(atleast_1d(a), size=size, fill_value=fill_value)))
    ndim = aval_of(a).ndim
    if ndim == 0:
        return result[:0].reshape(aval_of(result).shape[0], 0)
    return result.reshape(aval_of(result).shape[0], ndim)


def compress(condition, a, axis: int | None = None, *, size: int | None = None, fill_value=0, out=None):
    """The slices of `a` along `axis` where `condition` is True (`size` and
    `fill_value` make the length static)."""
    from pyjax._src.numpy.creation import array
    from pyjax._src.numpy.indexing import concrete_value
    from pyjax._src.numpy.shape_ops import expand_dims, moveaxis, ravel
    from pyjax._src.numpy.sorting import argsort
    from pyjax._src.numpy.where import where

    condition_arr, arr, fill_value = ensure_arraylike("compress", condition, a, fill_value)
    condition_arr = condition_arr.astype(bool)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if aval_of(condition_arr).ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis = 0
        arr = ravel(arr)
    else:
        arr = moveaxis(arr, axis, 0)
    n = aval_of(arr).shape[0]
    condition_arr, extra = condition_arr[:n], condition_arr[n:]
    arr = arr[:aval_of(condition_arr).shape[0]]
    if size is None:
        msg = ("The size argument of jnp.compress must be specified in order to use jnp.compress within JAX "
               "transformations like jax.jit, jax.vmap, and jax.grad. For more information, refer to the "
               "jnp.compress documentation.")
        for value in (condition_arr, extra):
            if concrete_value(value) is None:
                raise errors.ConcretizationTypeError(value, msg)
        if concrete_value(extra).any():
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[concrete_value(condition_arr)]
    elif not 0 <= size <= aval_of(arr).shape[0]:
        raise ValueError("size must be positive and not greater than the size of the array axis; "
                         f"got size={size} for a.shape[axis]={aval_of(arr).shape[0]}")
    else:
        mask = expand_dims(condition_arr, tuple(range(1, aval_of(arr).ndim)))
        arr = where(mask, arr, array(fill_value, dtype=aval_of(arr).dtype))
        result = arr[argsort(condition_arr, stable=True, descending=True)][:size]
    return moveaxis(result, 0, axis)


def extract(condition, arr, *, size: int | None = None, fill_value=0):
    """The elements of `arr` where `condition` is True (both flattened)."""
    from pyjax._src.numpy.shape_ops import ravel
    from pyjax._src.numpy.util import check_arraylike

    check_arraylike("extreact", condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)
