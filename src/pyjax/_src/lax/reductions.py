"""Reduction primitives: reduce_sum, reduce_prod, reduce_max, reduce_min,
reduce_and, reduce_or, reduce_xor, argmax and argmin.

A reduction removes its `axes` (a sorted tuple of static ints); the dtype and
the weak type are kept, except for argmax/argmin which return indices.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.lax._standard import ANY, BOOL_OR_NUMBER, INT_OR_BOOL, NUMBER, unary_dtype_check


def _reduced_shape(operand: ShapedArray, axes) -> tuple:
    if any(not 0 <= a < operand.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for {operand}.")
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    return tuple(d for i, d in enumerate(operand.shape) if i not in axes)


def _reducer(name: str, accepted, with_out_sharding: bool) -> Primitive:
    primitive = Primitive(name)

    def abstract_eval(operand: ShapedArray, *, axes, out_sharding=None) -> ShapedArray:
        unary_dtype_check(name, accepted, operand)
        return ShapedArray(_reduced_shape(operand, axes), operand.dtype, operand.weak_type, out_sharding)

    primitive.def_abstract_eval(abstract_eval)
    primitive.has_out_sharding = with_out_sharding
    return primitive


reduce_sum_p = _reducer("reduce_sum", NUMBER, True)
reduce_prod_p = _reducer("reduce_prod", NUMBER, True)
reduce_max_p = _reducer("reduce_max", ANY, False)
reduce_min_p = _reducer("reduce_min", ANY, False)
reduce_and_p = _reducer("reduce_and", INT_OR_BOOL, False)
reduce_or_p = _reducer("reduce_or", INT_OR_BOOL, False)
reduce_xor_p = _reducer("reduce_xor", INT_OR_BOOL, False)


def _arg_reducer(name: str) -> Primitive:
    primitive = Primitive(name)

    def abstract_eval(operand: ShapedArray, *, axes, index_dtype) -> ShapedArray:
        unary_dtype_check(name, BOOL_OR_NUMBER, operand)
        if not np.issubdtype(index_dtype, np.integer):
            raise TypeError(f"index_dtype must be an integer type, but got {index_dtype}")
        if len(axes) != 1:
            raise ValueError(f"{name} requires exactly one axis, got {axes}")
        if operand.shape[axes[0]] == 0:
            raise ValueError(f"{name} requires a non-empty axis, got axis {axes[0]} of {operand}")
        return ShapedArray(_reduced_shape(operand, axes), index_dtype, False)

    primitive.def_abstract_eval(abstract_eval)
    return primitive


argmax_p = _arg_reducer("argmax")
argmin_p = _arg_reducer("argmin")


def _axes(axes: Sequence[int]) -> tuple:
    return tuple(int(a) for a in axes)


def reduce_sum(operand, axes: Sequence[int], *, out_sharding=None):
    """Sum over `axes`."""
    return reduce_sum_p.bind(operand, axes=_axes(axes), out_sharding=out_sharding)


def reduce_prod(operand, axes: Sequence[int], *, out_sharding=None):
    """Product over `axes`."""
    return reduce_prod_p.bind(operand, axes=_axes(axes), out_sharding=out_sharding)


def reduce_max(operand, axes: Sequence[int], *, out_sharding=None):
    """Maximum over `axes`."""
    return reduce_max_p.bind(operand, axes=_axes(axes))


def reduce_min(operand, axes: Sequence[int], *, out_sharding=None):
    """Minimum over `axes`."""
    return reduce_min_p.bind(operand, axes=_axes(axes))


def reduce_and(operand, axes: Sequence[int]):
    """Logical (bitwise) AND over `axes`."""
    return reduce_and_p.bind(operand, axes=_axes(axes))


def reduce_or(operand, axes: Sequence[int]):
    """Logical (bitwise) OR over `axes`."""
    return reduce_or_p.bind(operand, axes=_axes(axes))


def reduce_xor(operand, axes: Sequence[int]):
    """Logical (bitwise) XOR over `axes`."""
    return reduce_xor_p.bind(operand, axes=_axes(axes))


def argmax(operand, axis: int, index_dtype):
    """Index of the maximum along `axis` (the first one on ties; NaN wins)."""
    index_dtype = dtypes.canonicalize_dtype(index_dtype)
    return argmax_p.bind(operand, axes=(int(axis),), index_dtype=index_dtype)


def argmin(operand, axis: int, index_dtype):
    """Index of the minimum along `axis` (the first one on ties; NaN wins)."""
    index_dtype = dtypes.canonicalize_dtype(index_dtype)
    return argmin_p.bind(operand, axes=(int(axis),), index_dtype=index_dtype)
