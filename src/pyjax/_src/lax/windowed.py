"""Windowed reductions and cumulative reductions.

reduce_window_sum, reduce_window_max and reduce_window_min reduce every
window of an operand with a fixed monoid; the general `reduce_window`
carries a traced computation (a jaxpr and its consts) and reduces several
operands at once. All take the same window geometry: window_dimensions,
window_strides, (low, high) padding, base_dilation (holes between operand
elements) and window_dilation (holes between window taps).

cumsum, cumprod, cummax, cummin and cumlogsumexp are scans along one axis
(`reverse` scans from the end); XLA computes them as reduce_windows.

The general reduction `reduce` lives in reduce.py and is exported here too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax.convolution import (
    check_shapelike,
    dilate_shape,
    padtype_to_pads,
    stride_dim,
)
from pyjax._src.lax.reduce import (
    concrete_scalar,
    max_identity,
    min_identity,
    reduce,
    reduce_p,
    reduction_jaxpr,
)
from pyjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = [
    "cumlogsumexp", "cumlogsumexp_p", "cummax", "cummax_p", "cummin", "cummin_p", "cumprod", "cumprod_p",
    "cumsum", "cumsum_p", "reduce", "reduce_p", "reduce_window", "reduce_window_max_p", "reduce_window_min_p",
    "reduce_window_p", "reduce_window_shape_tuple", "reduce_window_sum_p",
]


# ---------------------------------------------------------------------------
# Window shapes


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple:
    """The result shape of a windowed reduction.

    Example:
      >>> reduce_window_shape_tuple((5, 6), (2, 2), (1, 2), ((0, 0), (1, 1)))
      (4, 4)
    """
    if base_dilation is not None:
        operand_shape = dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = dilate_shape(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding, strict=True)]
    return tuple(stride_dim(d, w, s) for d, w, s in zip(padded, window_dimensions, window_strides, strict=True))


def _window_shape(operand: ShapedArray, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation) -> tuple:
    check_shapelike("reduce_window", "window_dimensions", window_dimensions, non_zero_shape=True)
    check_shapelike("reduce_window", "window_strides", window_strides, non_zero_shape=True)
    check_shapelike("reduce_window", "base_dilation", base_dilation)
    check_shapelike("reduce_window", "window_dilation", window_dilation)
    if operand.ndim != len(window_dimensions):
        raise TypeError(
            "reduce_window got the wrong number of window_dimensions for operand: got operand shape "
            f"{operand.shape} with window_dimensions {window_dimensions}."
        )
    for name, value in (("window_strides", window_strides), ("base_dilation", base_dilation),
                        ("window_dilation", window_dilation)):
        if len(value) != len(window_dimensions):
            raise TypeError(
                f"reduce_window got inconsistent {name} and window_dimensions: got {name} {value} and "
                f"window_dimensions {window_dimensions}."
            )
    return reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation)


# ---------------------------------------------------------------------------
# The monoid windowed reductions


def _monoid_window_primitive(name: str, numbers_only: bool) -> Primitive:
    primitive = Primitive(name)

    def abstract_eval(operand: ShapedArray, *, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation) -> ShapedArray:
        if numbers_only and not (dtypes.issubdtype(operand.dtype, np.number)):
            raise TypeError(f"operand to {name} must have a number dtype, got {np.dtype(operand.dtype).name}")
        shape = _window_shape(operand, window_dimensions, window_strides, padding, base_dilation, window_dilation)
        return ShapedArray(shape, operand.dtype, operand.weak_type)

    primitive.def_abstract_eval(abstract_eval)
    return primitive


reduce_window_sum_p = _monoid_window_primitive("reduce_window_sum", numbers_only=True)
reduce_window_max_p = _monoid_window_primitive("reduce_window_max", numbers_only=False)
reduce_window_min_p = _monoid_window_primitive("reduce_window_min", numbers_only=False)


# ---------------------------------------------------------------------------
# The general windowed reduction

reduce_window_p = Primitive("reduce_window", multiple_results=True)


@reduce_window_p.def_abstract_eval
def _reduce_window_abstract_eval(*avals: ShapedArray, jaxpr, consts, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation) -> list[ShapedArray]:
    operands, inits = avals[: len(avals) // 2], avals[len(avals) // 2:]
    if any(op.dtype != init.dtype for op, init in zip(operands, inits, strict=True)):
        raise TypeError(
            "reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
            f"{[op.dtype for op in operands]} and init_value dtypes {[init.dtype for init in inits]}."
        )
    if any(init.shape != () for init in inits):
        raise TypeError(
            "reduce_window expected init_values to be scalars but init_values have shapes "
            f"{[init.shape for init in inits]}."
        )
    shape = _window_shape(operands[0], window_dimensions, window_strides, padding, base_dilation, window_dilation)
    # As in JAX, the results are never weakly typed.
    return [ShapedArray(shape, op.dtype, False) for op in operands]


def _unhashable_consts_error(consts: tuple) -> TypeError:
    return TypeError(
        "As of JAX v0.7, parameters to jaxpr equations must have __hash__ and __eq__ methods. In a call to "
        f"primitive reduce_window, the value of parameter consts was not hashable: {consts}"
    )


# ---------------------------------------------------------------------------
# The wrapper


def _monoid_window_reducer(computation: Callable, inits: Sequence) -> Primitive | None:
    if len(inits) != 1:
        return None
    value = concrete_scalar(inits[0])
    if value is None:
        return None
    dtype = core.get_aval(inits[0]).dtype
    if computation is ew.add:
        return reduce_window_sum_p if value == 0 else None
    if computation is ew.max:
        return reduce_window_max_p if value == max_identity(dtype) else None
    if computation is ew.min:
        return reduce_window_min_p if value == min_identity(dtype) else None
    return None


def reduce_window(operand: Any, init_value: Any, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding="VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """Reduction over padded windows.

    Wraps XLA's ReduceWindowWithGeneralPadding operator. Sums, maxima and
    minima with their identity as initial value become reduce_window_sum,
    reduce_window_max and reduce_window_min; anything else is traced into a
    general reduce_window.

    Args:
      operand: an array or a pytree of arrays.
      init_value: scalars, in a pytree of the same structure as `operand`.
      computation: (xs, ys) -> zs over pytrees of scalars of that structure.
      window_dimensions: the window size along each dimension.
      window_strides: the window strides (default: all 1).
      padding: 'VALID' (default), 'SAME', 'SAME_LOWER', or one (low, high)
        pair per dimension.
      base_dilation: the operand dilation (default: all 1).
      window_dilation: the window dilation (default: all 1).

    Returns:
      The reduced windows, in the structure of `operand`.

    Example:
      >>> x = jnp.arange(10, dtype='float32')
      >>> lax.reduce_window(x, jnp.float32(1), lax.mul, window_dimensions=(2,))
      Array([ 0.,  2.,  6., 12., 20., 30., 42., 56., 72.], dtype=float32)
    """
    flat_operands, operand_tree = tree_flatten(operand)
    flat_inits, init_tree = tree_flatten(init_value)
    if operand_tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {operand_tree} vs. {init_tree}"
        )
    if len(flat_operands) != len(flat_inits):
        raise ValueError(
            "Must have same total number of operands as init_values:  "
            f"{len(flat_operands)} vs. {len(flat_inits)}"
        )
    if not flat_operands:
        raise ValueError("reduce_window must have at least one operand.")
    if isinstance(padding, str):
        dilated = window_dimensions if window_dilation is None else dilate_shape(window_dimensions, window_dilation)
        padding = tuple(padtype_to_pads(core.get_aval(flat_operands[0]).shape, dilated, window_strides or [],
                                        padding))
    else:
        padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    ones = (1,) * len(window_dimensions)
    params = {
        "window_dimensions": tuple(window_dimensions),
        "window_strides": ones if window_strides is None else tuple(window_strides),
        "padding": padding,
        "base_dilation": ones if base_dilation is None else tuple(base_dilation),
        "window_dilation": ones if window_dilation is None else tuple(window_dilation),
    }
    monoid = _monoid_window_reducer(computation, flat_inits)
    if monoid is not None:
        return monoid.bind(flat_operands[0], **params)
    flat_avals = tuple(core.get_aval(x) for x in flat_inits)
    jaxpr, out_tree = reduction_jaxpr(computation, flat_avals, init_tree, "reduce_window comp")
    if operand_tree != out_tree:
        raise ValueError(
            "reduce_window output must have the same tree structure as the operands "
            f"{operand_tree} vs. {out_tree}"
        )
    consts = tuple(jaxpr.consts)
    try:
        hash(consts)
    except TypeError:
        raise _unhashable_consts_error(consts) from None
    out = reduce_window_p.bind(*flat_operands, *flat_inits, jaxpr=jaxpr, consts=consts, **params)
    return tree_unflatten(operand_tree, out)


# ---------------------------------------------------------------------------
# Cumulative reductions


def _cumulative_primitive(name: str) -> Primitive:
    primitive = Primitive(name)

    def abstract_eval(operand: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= operand.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {operand.shape}")
        if not dtypes.issubdtype(operand.dtype, np.number):
            raise TypeError(
                f"{name} does not accept dtype {np.dtype(operand.dtype).name}. Accepted dtypes are subtypes "
                "of number."
            )
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)

    primitive.def_abstract_eval(abstract_eval)
    return primitive


cumsum_p = _cumulative_primitive("cumsum")
cumprod_p = _cumulative_primitive("cumprod")
cummax_p = _cumulative_primitive("cummax")
cummin_p = _cumulative_primitive("cummin")
cumlogsumexp_p = _cumulative_primitive("cumlogsumexp")


def cumsum(operand, axis: int = 0, reverse: bool = False):
    """Computes a cumulative sum along `axis` (from the end with `reverse`).

    Example:
      >>> lax.cumsum(jnp.array([1, 2, 3]), reverse=True)
      Array([6, 5, 3], dtype=int32)
    """
    return cumsum_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumprod(operand, axis: int = 0, reverse: bool = False):
    """Computes a cumulative product along `axis` (from the end with `reverse`)."""
    return cumprod_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummax(operand, axis: int = 0, reverse: bool = False):
    """Computes a cumulative maximum along `axis`; a NaN propagates onwards."""
    return cummax_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummin(operand, axis: int = 0, reverse: bool = False):
    """Computes a cumulative minimum along `axis`; a NaN propagates onwards."""
    return cummin_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """Computes a cumulative logsumexp, log(cumsum(exp(x))), along `axis`,
    without overflow."""
    return cumlogsumexp_p.bind(operand, axis=int(axis), reverse=bool(reverse))
