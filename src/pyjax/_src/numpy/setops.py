"""Set operations: unique (and the array-API unique_*), union1d,
intersect1d, setdiff1d, setxor1d and isin.

Results whose length depends on the data need concrete inputs, or a static
`size=` (padded with `fill_value`, by default the smallest result value) to
work under jit; without either, JAX's ConcretizationTypeError is raised.
Uniqueness is found by a lexicographic sort and a mask of the positions
where a new value starts.
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    constant_like,
    ensure_arraylike,
    full_like,
    promote_dtypes,
)

UNIQUE_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can specify a concrete value "
                    "for the size argument, which will determine the output size.")


def _concrete(x, context: str):
    from pyjax._src.numpy.indexing import concrete_value

    value = concrete_value(x)
    if value is None:
        raise errors.ConcretizationTypeError(x, context)
    return value


@jit(static_argnames=("assume_unique", "invert", "method"))
def _in1d(ar1, ar2, invert: bool, method="auto", assume_unique=False):
    from pyjax._src.numpy.creation import arange, ones, zeros
    from pyjax._src.numpy.joining import concatenate
    from pyjax._src.numpy.sorting import searchsorted

    ar1, ar2 = ensure_arraylike("in1d", ar1, ar2)
    arr1, arr2 = promote_dtypes("in1d", ar1, ar2)
    arr1, arr2 = arr1.ravel(), arr2.ravel()
    if aval_of(arr1).size == 0 or aval_of(arr2).size == 0:
        return (ones if invert else zeros)(aval_of(arr1).shape, dtype=bool)
    if method in ("auto", "compare_all"):
        if invert:
            return (arr1[:, None] != arr2[None, :]).all(-1)
        return (arr1[:, None] == arr2[None, :]).any(-1)
    if method == "binary_search":
        arr2 = lax_sorting.sort(arr2)
        ind = searchsorted(arr2, arr1)
        return arr1 != arr2[ind] if invert else arr1 == arr2[ind]
    if method == "sort":
        if assume_unique:
            ind_out = slice(None)
        else:
            arr1, ind_out = unique(arr1, size=aval_of(arr1).shape[0], return_inverse=True, fill_value=arr2.max())
        n = aval_of(arr1).size + aval_of(arr2).size
        aux, ind = lax_sorting.sort_key_val(concatenate([arr1, arr2]), arange(n))
        if invert:
            return ones(aval_of(arr1).shape, bool).at[ind[:-1]].set(aux[1:] != aux[:-1], mode="drop")[ind_out]
        return zeros(aval_of(arr1).shape, bool).at[ind[:-1]].set(aux[1:] == aux[:-1], mode="drop")[ind_out]
    raise ValueError(f"method={method!r} is not implemented; options are 'compare_all', 'binary_search', 'sort', "
                     "and 'auto'")


def _concat_unique(arr1, arr2):
    # The unique values of each, packed one after the other; the count.
    from pyjax._src.numpy.creation import zeros
    from pyjax._src.numpy.shape_ops import ravel

    arr1, arr2 = ravel(arr1), ravel(arr2)
    arr1, n1 = _unique(arr1, axis=0, size=aval_of(arr1).size, return_true_size=True)
    arr2, n2 = _unique(arr2, axis=0, size=aval_of(arr2).size, return_true_size=True)
    arr = zeros(aval_of(arr1).size + aval_of(arr2).size, dtype=dtypes.result_type(arr1, arr2))
    arr = lax_slicing.dynamic_update_slice(arr, arr1, (0,))
    arr = lax_slicing.dynamic_update_slice(arr, arr2, (n1,))
    return arr, n1 + n2


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None):
    """The sorted unique values of `ar1` that are not in `ar2`."""
    from pyjax._src.numpy.creation import arange
    from pyjax._src.numpy.where import where

    arr1, arr2 = ensure_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = arr1.ravel(), arr2.ravel()
    if size is None:
        _concrete(ar1 if hasattr(ar1, "aval") else arr1, "The error arose in setdiff1d()")
    else:
        size = operator.index(size)
    fill_value = full_like(arr1, 0 if fill_value is None else fill_value, shape=())
    if aval_of(arr1).size == 0:
        return full_like(arr1, fill_value, shape=(size or 0,))
    if not assume_unique:
        arr1 = unique(arr1, size=size and aval_of(arr1).size)
    mask = _in1d(arr1, arr2, invert=True, assume_unique=assume_unique)
    if size is None:
        return arr1[_concrete(mask, "The error arose in setdiff1d()")]
    if not (assume_unique or size is None):
        # unique() filled the tail with copies of the first value: mask them.
        n_unique = aval_of(arr1).size + 1 - (arr1 == arr1[0]).sum()
        mask = where(arange(aval_of(arr1).size) < n_unique, mask, False)
    return where(arange(size) < mask.sum(), arr1[where(mask, size=size)], fill_value)


def union1d(ar1, ar2, *, size: int | None = None, fill_value=None):
    """The sorted unique values in either array."""
    from pyjax._src.numpy.joining import concatenate

    ar1, ar2 = ensure_arraylike("union1d", ar1, ar2)
    if size is None:
        _concrete(ar1, "The error arose in union1d()")
        _concrete(ar2, "The error arose in union1d()")
    else:
        size = operator.index(size)
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


@jit(static_argnames=["assume_unique", "size"])
def _setxor1d_size(arr1, arr2, fill_value, *, assume_unique: bool, size: int):
    from pyjax._src.numpy.creation import arange, zeros
    from pyjax._src.numpy.joining import concatenate
    from pyjax._src.numpy.nonzero import nonzero
    from pyjax._src.numpy.sorting import sort
    from pyjax._src.numpy.where import where

    if assume_unique:
        aux = sort(concatenate([arr1, arr2]))
        flag = concatenate((bool(aval_of(aux).size), aux[1:] != aux[:-1], True), axis=None)
    else:
        arr, num_unique = _concat_unique(arr1, arr2)
        mask = arange(aval_of(arr).size + 1) < num_unique + 1
        _, aux = lax_sorting.sort([~mask[1:], arr], is_stable=True, num_keys=2)
        flag = mask & concatenate((bool(aval_of(aux).size), aux[1:] != aux[:-1], False), axis=None).at[
            num_unique].set(True)
    aux_mask = flag[1:] & flag[:-1]
    num_results = aux_mask.sum()
    if aval_of(aux).size:
        indices = nonzero(aux_mask, size=size, fill_value=aval_of(aux).shape[0])[0]
        vals = aux.at[indices].get(mode="fill", fill_value=0)
    else:
        vals = zeros(size, aval_of(aux).dtype)
    valid = arange(aval_of(vals).shape[0]) < num_results
    if fill_value is None:
        vals = where(valid, vals, vals.max())
        return where(valid, vals, vals.min())
    return where(valid, vals, fill_value)


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None):
    """The sorted unique values in exactly one of the arrays."""
    from pyjax._src.numpy.joining import concatenate
    from pyjax._src.numpy.shape_ops import ravel
    from pyjax._src.numpy.sorting import sort

    ar1, ar2 = ensure_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = promote_dtypes("setxor1d", ravel(ar1), ravel(ar2))
    if size is not None:
        return _setxor1d_size(arr1, arr2, fill_value=fill_value, assume_unique=assume_unique, size=size)
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = concatenate((arr1, arr2))
    if aval_of(aux).size == 0:
        return aux
    aux = sort(aux)
    flag = concatenate((True, aux[1:] != aux[:-1], True), axis=None)
    return aux[_concrete(flag[1:] & flag[:-1], "The error arose in setxor1d()")]


@jit(static_argnames=["return_indices"])
def _intersect1d_sorted_mask(arr1, arr2, return_indices: bool):
    from pyjax._src.numpy.joining import concatenate
    from pyjax._src.numpy.sorting import sort

    arr = concatenate((arr1, arr2))
    if return_indices:
        n = aval_of(arr).shape[0]
        index_dtype = np.dtype(np.int64) if n > np.iinfo(np.int32).max else np.dtype(np.int32)
        aux, indices = lax_sorting.sort_key_val(arr, lax_shapes.broadcasted_iota(index_dtype, aval_of(arr).shape, 0))
    else:
        aux, indices = sort(arr), None
    return aux, aux[1:] == aux[:-1], indices


@jit(static_argnames=["fill_value", "assume_unique", "size", "return_indices"])
def _intersect1d_size(arr1, arr2, fill_value, assume_unique: bool, size: int, return_indices: bool):
    from pyjax._src.numpy.creation import arange, full, ones, zeros
    from pyjax._src.numpy.joining import concatenate
    from pyjax._src.numpy.nonzero import nonzero
    from pyjax._src.numpy.where import where

    if assume_unique:
        ind1, num_unique1 = arange(aval_of(arr1).size), full((), aval_of(arr1).size)
        ind2, num_unique2 = arange(aval_of(arr2).size), full((), aval_of(arr2).size)
        arr = concatenate([arr1, arr2])
        aux, aux_sort_indices = lax_sorting.sort([arr, arange(aval_of(arr).size)], is_stable=True, num_keys=1)
        mask = ones(aval_of(arr).size, dtype=bool)
    else:
        arr1, ind1, num_unique1 = _unique(arr1, 0, size=aval_of(arr1).size, return_index=True,
                                          return_true_size=True, fill_value=0)
        arr2, ind2, num_unique2 = _unique(arr2, 0, size=aval_of(arr2).size, return_index=True,
                                          return_true_size=True, fill_value=0)
        arr = zeros(aval_of(arr1).size + aval_of(arr2).size, dtype=dtypes.result_type(arr1, arr2))
        arr = lax_slicing.dynamic_update_slice(arr, arr1, (0,))
        arr = lax_slicing.dynamic_update_slice(arr, arr2, (num_unique1,))
        mask = arange(aval_of(arr).size) < num_unique1 + num_unique2
        _, aux, aux_sort_indices = lax_sorting.sort([~mask, arr, arange(aval_of(arr).size)], is_stable=True,
                                                    num_keys=2)
    aux_mask = (aux[1:] == aux[:-1]) & mask[1:]
    num_results = aux_mask.sum()
    if aval_of(aux).size:
        val_indices = nonzero(aux_mask, size=size, fill_value=aval_of(aux).size)[0]
        vals = aux.at[val_indices].get(mode="fill", fill_value=0)
    else:
        val_indices = arange(0)
        vals = zeros(size, aval_of(aux).dtype)
    valid = arange(aval_of(vals).shape[0]) < num_results
    if fill_value is None:
        vals = where(valid, vals, vals.max())
        vals = where(valid, vals, vals.min())
    else:
        vals = where(valid, vals, fill_value)
    if not return_indices:
        return vals
    n1, n2 = aval_of(arr1).size, aval_of(arr2).size
    arr1_indices = aux_sort_indices.at[val_indices].get(mode="fill", fill_value=n1)
    arr1_indices = where(arange(aval_of(arr1_indices).shape[0]) < num_results, arr1_indices, n1)
    arr2_indices = aux_sort_indices.at[val_indices + 1].get(mode="fill", fill_value=n2) - num_unique1
    arr2_indices = where(arange(aval_of(arr2_indices).shape[0]) < num_results, arr2_indices, n2)
    if not assume_unique:
        arr1_indices = ind1.at[arr1_indices].get(mode="fill", fill_value=aval_of(ind1).size)
        arr2_indices = ind2.at[arr2_indices].get(mode="fill", fill_value=aval_of(ind2).size)
    return vals, arr1_indices, arr2_indices


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *, size: int | None = None,
                fill_value=None):
    """The sorted unique values in both arrays (with their first indices in
    each if `return_indices`)."""
    from pyjax._src.numpy.creation import arange
    from pyjax._src.numpy.shape_ops import ravel

    ar1, ar2 = ensure_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = promote_dtypes("intersect1d", ar1, ar2)
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if size is not None:
        return _intersect1d_size(arr1, arr2, return_indices=return_indices, size=size, fill_value=fill_value,
                                 assume_unique=assume_unique)
    ind1 = ind2 = arange(0)
    if not assume_unique:
        if return_indices:
            arr1, ind1 = unique(arr1, return_index=True)
            arr2, ind2 = unique(arr2, return_index=True)
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    aux, mask, aux_sort_indices = _intersect1d_sorted_mask(arr1, arr2, return_indices)
    mask = _concrete(mask, "The error arose in intersect1d()")
    result = aux[:-1][mask]
    if not return_indices:
        return result
    arr1_indices = aux_sort_indices[:-1][mask]
    arr2_indices = aux_sort_indices[1:][mask] - aval_of(arr1).size
    if not assume_unique:
        arr1_indices, arr2_indices = ind1[arr1_indices], ind2[arr2_indices]
    return result, arr1_indices, arr2_indices


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *, method="auto"):
    """Elementwise, whether `element` appears in `test_elements` (in the shape
    of `element`)."""
    element, test_elements = ensure_arraylike("isin", element, test_elements)
    result = _in1d(element, test_elements, invert=invert, method=method, assume_unique=assume_unique)
    return result.reshape(aval_of(element).shape)


# ---------------------------------------------------------------------------
# unique


@jit(static_argnames=["axis", "equal_nan"])
def _unique_sorted_mask(ar, axis: int, equal_nan: bool):
    from pyjax._src.numpy.creation import ones, zeros
    from pyjax._src.numpy.reductions import any as any_
    from pyjax._src.numpy.shape_ops import moveaxis
    from pyjax._src.numpy.sorting import lexsort
    from pyjax._src.numpy.ufuncs import isnan
    from pyjax._src.numpy.where import where

    aux = moveaxis(ar, axis, 0)
    if np.issubdtype(aval_of(aux).dtype, np.complexfloating):
        # A NaN only in the imaginary part sorts wrongly: make it a full NaN.
        aux = where(isnan(aux), constant_like(aux, np.nan), aux)
    size, *out_shape = aval_of(aux).shape
    if math.prod(out_shape) == 0:
        size = 1
        perm = zeros(1, dtype=int)
    else:
        perm = lexsort(aux.reshape(size, math.prod(out_shape)).T[::-1])
    aux = aux[perm]
    if aval_of(aux).size:
        if dtypes.issubdtype(aval_of(aux).dtype, np.inexact) and equal_nan:
            def neq(x, y):
                return lax_ew.ne(x, y) & ~(isnan(x) & isnan(y))
        else:
            neq = lax_ew.ne
        mask = ones(size, dtype=bool).at[1:].set(any_(neq(aux[1:], aux[:-1]), tuple(range(1, aval_of(aux).ndim))))
    else:
        mask = zeros(size, dtype=bool)
    return aux, mask, perm


def _unique(ar, axis: int, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
            equal_nan: bool = True, size: int | None = None, fill_value=None, return_true_size: bool = False):
    from pyjax._src.numpy.creation import arange, empty, full, zeros
    from pyjax._src.numpy.cumulative import cumsum
    from pyjax._src.numpy.joining import append
    from pyjax._src.numpy.misc import diff
    from pyjax._src.numpy.nonzero import nonzero
    from pyjax._src.numpy.shape_ops import moveaxis
    from pyjax._src.numpy.where import where

    axis = canonicalize_axis(axis, aval_of(ar).ndim)
    if aval_of(ar).shape[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, fill_value must be specified")
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    if size is None:
        ind = _concrete(mask, "The error arose in jnp.unique(). " + UNIQUE_SIZE_HINT)
    else:
        ind = nonzero(mask, size=size)[0]
    result = aux[ind] if aval_of(aux).size else aux
    if size is not None and fill_value is not None:
        from pyjax._src.numpy.creation import asarray

        fill_value = asarray(fill_value).astype(aval_of(result).dtype)
        if aval_of(result).shape[0]:
            valid = lax_shapes.expand_dims(arange(size) < mask.sum(), tuple(range(1, aval_of(result).ndim)))
            result = where(valid, result, fill_value)
        else:
            result = full_like(result, fill_value, shape=(size, *aval_of(result).shape[1:]))
    result = moveaxis(result, 0, axis)
    ret = (result,)
    if return_index:
        ret += (perm[ind],) if aval_of(aux).size else (perm,)
    if return_inverse:
        if aval_of(aux).size:
            imask = cumsum(mask) - 1
            inv_idx = zeros(aval_of(mask).shape, dtype=int).at[perm].set(imask)
        else:
            inv_idx = zeros(aval_of(ar).shape[axis], dtype=int)
        ret += (inv_idx,)
    if return_counts:
        if aval_of(aux).size:
            if size is None:
                idx = append(nonzero(mask)[0], aval_of(mask).size)
            else:
                idx = nonzero(mask, size=size + 1)[0]
                idx = idx.at[1:].set(where(idx[1:], idx[1:], aval_of(mask).size))
            ret += (diff(idx),)
        elif aval_of(ar).shape[axis]:
            ret += (full((1,), aval_of(ar).shape[axis], dtype=int),)
        else:
            ret += (empty(0, dtype=int),)
    if return_true_size:
        ret += (mask.sum(),)
    return ret[0] if len(ret) == 1 else ret


def unique(ar, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False, axis=None, *,
           equal_nan: bool = True, size: int | None = None, fill_value=None, sorted: bool = True):
    """The sorted unique elements of `ar` (or unique slices along `axis`),
    optionally with first indices, inverse indices and counts.

    Under jit, `size` must be given: the result is padded with `fill_value`
    (by default the smallest unique value).

    Example:
      >>> jnp.unique(jnp.array([3, 1, 3, 2]), size=4, fill_value=0)
      Array([1, 2, 3, 0], dtype=int32)
    """
    arr = ensure_arraylike("unique", ar)
    if size is None:
        _concrete(arr, "The error arose for the first argument of jnp.unique(). " + UNIQUE_SIZE_HINT)
    else:
        if isinstance(size, core.Tracer):
            raise errors.ConcretizationTypeError(
                size, "The error arose for the size argument of jnp.unique(). " + UNIQUE_SIZE_HINT)
        size = operator.index(size)
    shape = aval_of(arr).shape
    if axis is None:
        axis_int = 0
        arr = arr.flatten()
    else:
        axis_int = canonicalize_axis(axis, len(shape))
    result = _unique(arr, axis_int, return_index, return_inverse, return_counts, equal_nan=equal_nan, size=size,
                     fill_value=fill_value)
    if return_inverse and axis is None:
        i = 2 if return_index else 1
        result = (*result[:i], result[i].reshape(shape), *result[i + 1:])
    return result


class UniqueAllResult(NamedTuple):
    """unique_all's result."""

    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    """unique_counts' result."""

    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    """unique_inverse's result."""

    values: object
    inverse_indices: object


def unique_all(x, /, *, size: int | None = None, fill_value=None) -> UniqueAllResult:
    """Unique values with first indices, inverse indices and counts (array API; NaNs are distinct)."""
    x = ensure_arraylike("unique_all", x)
    values, indices, inverse_indices, counts = unique(x, return_index=True, return_inverse=True, return_counts=True,
                                                      equal_nan=False, size=size, fill_value=fill_value)
    return UniqueAllResult(values, indices, inverse_indices, counts)


def unique_counts(x, /, *, size: int | None = None, fill_value=None) -> UniqueCountsResult:
    """Unique values and their counts (array API)."""
    x = ensure_arraylike("unique_counts", x)
    values, counts = unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /, *, size: int | None = None, fill_value=None) -> UniqueInverseResult:
    """Unique values and the inverse indices that rebuild `x` (array API)."""
    x = ensure_arraylike("unique_inverse", x)
    values, inverse_indices = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueInverseResult(values, inverse_indices)


def unique_values(x, /, *, size: int | None = None, fill_value=None):
    """The unique values (array API; NaNs are distinct)."""
    x = ensure_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)
