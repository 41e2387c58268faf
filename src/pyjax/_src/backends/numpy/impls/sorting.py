"""NumPy impls of the sorting family: sort, top_k, approx_top_k.

XLA orders floats in two ways, and each primitive keeps its own:

* `sort` (JAX's comparator): -0.0 equals 0.0 and every NaN, whatever its
  sign, is equal to the others and after +inf. NumPy's stable sort already
  orders floats this way (its comparison puts NaNs last and treats the two
  zeros as equal), so the keys go to NumPy unchanged.
* `top_k` (XLA's TopK): the IEEE total order, -NaN < -inf < ... < -0.0 < 0.0
  < ... < inf < NaN. The floats are mapped to integers that order the same
  way before they are sorted.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.lax import sorting as sorting_lax

IMPLS: dict = {}


def _sort_keys(operand: np.ndarray) -> list:
    """The keys one operand contributes, most significant first."""
    if np.issubdtype(operand.dtype, np.complexfloating):
        return [operand.real, operand.imag]
    if operand.dtype.kind == "V" or dtypes.issubdtype(operand.dtype, np.floating) and operand.dtype.itemsize < 4:
        # bfloat16 and the other small floats (ml_dtypes): widening is exact and
        # gives NumPy's own NaN-aware comparison.
        return [operand.astype(np.float32)]
    return [operand]


def _sort(*operands, dimension: int, is_stable: bool, num_keys: int) -> list:
    if len(operands) == 1:
        return [_sort_one(operands[0], dimension=dimension, is_stable=is_stable, num_keys=num_keys)]
    return _sort_many(operands, dimension, num_keys)


def _sort_one(operand, *, dimension: int, is_stable: bool, num_keys: int) -> np.ndarray:
    # The one result of a sort of one operand (also called directly: the
    # impl's `single_result`, for jax.numpy's eager plans).
    x = np.asarray(operand)
    if x.dtype.kind in "biuf" and x.dtype.itemsize >= 4:
        # Its own key: NumPy's stable sort moves the values as the stable
        # argsort below would (ties, -0.0 and 0.0 or NaNs, keep their order).
        # (A copy sorted in place: np.sort without its wrapper.)
        out = x.copy()
        out.sort(dimension, "stable")
        return out
    return _sort_many([x], dimension, num_keys)[0]


def _sort_many(operands, dimension: int, num_keys: int) -> list:
    operands = [np.asarray(o) for o in operands]
    keys = [key for o in operands[:num_keys] for key in _sort_keys(o)]
    # An unstable sort may order ties any way it likes; a stable one is a valid answer.
    if len(keys) == 1:
        permutation = np.argsort(keys[0], axis=dimension, kind="stable")
    else:
        permutation = np.lexsort(keys[::-1], axis=dimension)  # lexsort: last key is primary
    return [np.take_along_axis(o, permutation, axis=dimension) for o in operands]


# A multiple-results impl with one result for some calls may say how to
# compute that result alone (codegen/eager.py calls it directly).
_sort.single_result = _sort_one
IMPLS[sorting_lax.sort_p] = _sort


def _descending_key(operand: np.ndarray) -> np.ndarray:
    """An array whose ascending order is `operand`'s descending total order."""
    dtype = operand.dtype
    if dtype == np.bool_:
        return ~operand
    if np.issubdtype(dtype, np.integer):
        return np.invert(operand)  # ~x = -x - 1: order-reversing, never overflows
    # Floats: flip the magnitude bits of negative numbers so that the signed
    # integer with the same bits orders as the IEEE total order; then invert.
    width = dtype.itemsize * 8
    signed = np.dtype(f"int{width}")
    bits = operand.view(signed)
    total = bits ^ ((bits >> (width - 1)) & np.array(np.iinfo(signed).max, signed))
    return np.invert(total)


def _top_k_indices(operand: np.ndarray, axis: int, largest: bool) -> np.ndarray:
    key = _descending_key(operand)
    if not largest:
        key = np.invert(key)
    return np.argsort(key, axis=axis, kind="stable")


def _top_k(operand, *, k: int, axis: int, is_stable: bool) -> list:
    operand = np.asarray(operand)
    indices = np.take(_top_k_indices(operand, axis, True), np.arange(k), axis=axis)
    return [np.take_along_axis(operand, indices, axis=axis), indices.astype(np.int32)]


IMPLS[sorting_lax.top_k_p] = _top_k


def _approx_top_k(operand, *, k: int, reduction_dimension: int, recall_target: float, is_max_k: bool,
                  reduction_input_size_override: int, aggregate_to_topk: bool) -> list:
    # On a CPU, XLA answers ApproxTopK exactly: a stable sort along the
    # dimension (comparing with IEEE > or <, so -0.0 equals 0.0), cut to the
    # output size. When the cut drops entries of a max-k, XLA rewrites
    # sort + slice into its TopK, which orders by the total order instead.
    # A cut to one entry becomes a reduction, which keeps the last of equal
    # extremes. XLA's comparisons leave NaNs unordered, so with NaNs present
    # its order is implementation-defined; NaNs go last here.
    operand = np.asarray(operand)
    axis = reduction_dimension % operand.ndim
    size = sorting_lax.approx_top_k_reduction_output_size(
        operand.shape[axis], operand.ndim, k, recall_target, aggregate_to_topk,
        reduction_input_size_override)[0]
    n = operand.shape[axis]
    if size == 1 and n > 1:
        keys = np.flip(_sort_keys(operand)[0], axis)
        last = n - 1 - (np.argmax(keys, axis) if is_max_k else np.argmin(keys, axis))
        order = np.expand_dims(last, axis)
    elif is_max_k and size < n:
        order = _top_k_indices(operand, axis, True)
    else:
        keys = _sort_keys(operand)[0]
        order = np.argsort(-keys if is_max_k else keys, axis=axis, kind="stable")
    indices = np.take(order, np.arange(size), axis=axis)
    return [np.take_along_axis(operand, indices, axis=axis), indices.astype(np.int32)]


IMPLS[sorting_lax.approx_top_k_p] = _approx_top_k
