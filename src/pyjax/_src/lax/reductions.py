"""Reduction primitives: reduce_sum, reduce_prod, reduce_max, reduce_min,
reduce_and, reduce_or, reduce_xor, argmax and argmin.

A reduction removes its `axes` (a sorted tuple of static ints); the dtype and
the weak type are kept, except for argmax/argmin which return indices.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pyjax._src import config, dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive, get_aval
from pyjax._src.lax._standard import ANY, BOOL_OR_NUMBER, INT_OR_BOOL, NUMBER, unary_dtype_check
from pyjax._src.lax import sharding_rules


def _reduced_shape(operand: ShapedArray, axes) -> tuple:
    if any(not 0 <= a < operand.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for {operand}.")
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    return tuple(d for i, d in enumerate(operand.shape) if i not in axes)


def _reducer(name: str, accepted, with_out_sharding: bool) -> Primitive:
    primitive = Primitive(name).declare(reduction=True)

    def abstract_eval(operand: ShapedArray, *, axes, out_sharding=None) -> ShapedArray:
        unary_dtype_check(name, accepted, operand)
        return ShapedArray(_reduced_shape(operand, axes), operand.dtype, operand.weak_type,
                           sharding_rules.in_type(out_sharding))

    primitive.def_abstract_eval(abstract_eval)
    primitive.def_sharding_rule(_reduction_sharding)
    primitive.has_out_sharding = with_out_sharding
    return primitive


def _reduction_sharding(out, operand, *, axes, out_sharding=None):
    return out if out_sharding is not None else sharding_rules.reduction_rule(out, operand, axes=axes)


reduce_sum_p = _reducer("reduce_sum", NUMBER, True)
reduce_prod_p = _reducer("reduce_prod", NUMBER, False)
reduce_max_p = _reducer("reduce_max", ANY, False)
reduce_min_p = _reducer("reduce_min", ANY, False)
reduce_and_p = _reducer("reduce_and", INT_OR_BOOL, False)
reduce_or_p = _reducer("reduce_or", INT_OR_BOOL, False)
reduce_xor_p = _reducer("reduce_xor", INT_OR_BOOL, False)


def _arg_reducer(name: str) -> Primitive:
    primitive = Primitive(name).declare(reduction=True)

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
    primitive.def_sharding_rule(sharding_rules.reduction_rule)
    return primitive


argmax_p = _arg_reducer("argmax")
argmin_p = _arg_reducer("argmin")


def _axes(axes: Sequence[int]) -> tuple:
    return tuple(int(a) for a in axes)


def reduce_sum(operand, axes: Sequence[int], *, out_sharding=None):
    """Sum over `axes`."""
    if not config.allow_f16_reductions.value:
        _refuse_f16_sum(operand, axes)
    axes = _axes(axes)
    if out_sharding is not None:
        out_sharding = sharding_rules.canonicalize_sharding(out_sharding, "reduce_sum",
                                                            len(get_aval(operand).shape) - len(axes))
    return reduce_sum_p.bind(operand, axes=axes, out_sharding=out_sharding)


def _refuse_f16_sum(operand, axes) -> None:
    # jax_allow_f16_reductions=False: a half-precision sum over more than one
    # element is refused (a config choice, so not in the memoised abstract eval).
    aval = get_aval(operand)
    if aval.dtype in (np.float16, dtypes.bfloat16) and not all(aval.shape[int(d)] == 1 for d in axes):
        raise ValueError(f"reduce_sum on operand {aval.str_short(True)} is not allowed when "
                         "jax_allow_f16_reductions=False.")


def reduce_prod(operand, axes: Sequence[int]):
    """Product over `axes`."""
    return reduce_prod_p.bind(operand, axes=_axes(axes))


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


# ---------------------------------------------------------------------------
# Autodiff rules

from pyjax._src.interpreters.jvp import deflinear, defjvp_zero  # noqa: E402
from pyjax._src.lax import elementwise as _ew  # noqa: E402
from pyjax._src.lax import shapes as _shapes  # noqa: E402


def _reduce_sum_transpose(ct, operand, *, axes, out_sharding=None):
    # ct: reduced shape -> operand shape, broadcast along the summed axes.
    # The kept axes are computed with NumPy (np.int64 entries), as in JAX,
    # whose jaxpr text shows them that way.
    shape = operand.aval.shape
    kept = tuple(np.delete(np.arange(len(shape)), axes))
    # (The cotangent is placed as the operand was.)
    return [_shapes.broadcast_in_dim_p.bind(ct, shape=shape, broadcast_dimensions=kept, sharding=operand.aval.sharding)]


deflinear(reduce_sum_p, _reduce_sum_transpose)


def _chooser_jvp(primitive):
    # The tangent of max/min is the tangent at the chosen locations, averaged
    # over ties: sum(g * [x == ans]) / count([x == ans]).
    def rule(primals, tangents, *, axes, **params):
        (operand,), (g,) = primals, tangents
        ans = primitive.bind(operand, axes=axes, **params)
        shape = get_aval(operand).shape
        keep_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
        location = _ew._convert_element_type(_ew.eq_p.bind(operand, _shapes.reshape(ans, keep_shape)), get_aval(g).dtype, False)
        counts = reduce_sum(location, axes)
        return ans, _ew.div_p.bind(reduce_sum(_ew.mul_p.bind(g, location), axes), counts)

    primitive.def_jvp(rule)


_chooser_jvp(reduce_max_p)
_chooser_jvp(reduce_min_p)
for _p in (argmax_p, argmin_p, reduce_and_p, reduce_or_p, reduce_xor_p):
    defjvp_zero(_p)


def _reduce_prod_jvp(primals, tangents, *, axes):
    # d(prod x) = sum(g * prod(x) / x), computed without dividing by zero:
    # the product of every other element along the reduced axes.
    (operand,), (g,) = primals, tangents
    ans = reduce_prod_p.bind(operand, axes=axes)

    shape = get_aval(operand).shape
    keep_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    safe = _ew.select_n_p.bind(_ew.eq_p.bind(operand, get_aval(operand).dtype.type(0)), operand, _shapes.broadcast_in_dim(get_aval(operand).dtype.type(1), shape, ()))
    zeros = _ew._convert_element_type(_ew.eq_p.bind(operand, get_aval(operand).dtype.type(0)), get_aval(operand).dtype, False)
    num_zeros = reduce_sum(zeros, axes)
    prod_safe = reduce_prod_p.bind(safe, axes=axes)
    others = _ew.div_p.bind(_shapes.reshape(prod_safe, keep_shape), safe)
    # where exactly one zero: the product of the others at that zero, 0 elsewhere
    one_zero = _shapes.reshape(_ew.eq_p.bind(num_zeros, get_aval(operand).dtype.type(1)), keep_shape)
    no_zero = _shapes.reshape(_ew.eq_p.bind(num_zeros, get_aval(operand).dtype.type(0)), keep_shape)
    is_zero = _ew.eq_p.bind(operand, get_aval(operand).dtype.type(0))
    zero = get_aval(operand).dtype.type(0)
    factor = _ew.select_n_p.bind(
        _shapes.broadcast_in_dim(no_zero, shape, tuple(range(len(shape)))),
        _ew.select_n_p.bind(_ew.and_p.bind(_shapes.broadcast_in_dim(one_zero, shape, tuple(range(len(shape)))), is_zero),
                            _shapes.broadcast_in_dim(zero, shape, ()), _shapes.broadcast_in_dim(_shapes.reshape(prod_safe, keep_shape), shape, tuple(range(len(shape))))),
        others,
    )
    return ans, reduce_sum(_ew.mul_p.bind(g, factor), axes)


reduce_prod_p.def_jvp(_reduce_prod_jvp)


# ---------------------------------------------------------------------------
# Batching rules

from pyjax._src.lax import batching_util as _batching_util  # noqa: E402

for _p in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p, reduce_xor_p,
           argmax_p, argmin_p):
    _batching_util.defreducer(_p)
