"""Windowed reductions and cumulative reductions.

reduce_window_sum, reduce_window_max and reduce_window_min reduce every
window of an operand with a fixed monoid; the general `reduce_window`
carries a traced computation (a jaxpr and its consts) and reduces several
operands at once. All take the same window geometry: window_dimensions,
window_strides, (low, high) padding, base_dilation (holes between operand
elements) and window_dilation (holes between window taps).

cumsum, cumprod, cummax, cummin and cumlogsumexp are scans along one axis
(`reverse` scans from the end); XLA computes them as reduce_windows.

select_and_gather_add and select_and_scatter_add are the derivatives of the
windowed max and min (JAX's internal primitives of the same names): the
first picks, in every window, the tangent at the operand's chosen element;
the second, its transpose, adds each window's cotangent at that element.

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
from pyjax._src.lax import sharding_rules
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
    "reduce_window_p", "reduce_window_shape_tuple", "reduce_window_sum_p", "select_and_gather_add_p",
    "select_and_scatter_add_p",
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
    primitive.def_sharding_rule(sharding_rules.cumulative_rule)
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


# ---------------------------------------------------------------------------
# Select-and-gather/scatter: what the windowed max and min differentiate to

select_and_gather_add_p = Primitive("select_and_gather_add")
select_and_scatter_add_p = Primitive("select_and_scatter_add")


@select_and_gather_add_p.def_abstract_eval
def _select_and_gather_add_abstract_eval(tangents: ShapedArray, operand: ShapedArray, *, select_prim,
                                         window_dimensions, window_strides, padding, base_dilation,
                                         window_dilation) -> ShapedArray:
    if tangents.shape != operand.shape:
        raise TypeError(
            "select_and_gather_add tangents and operand shapes must match, "
            f"got {tangents.shape} and {operand.shape}."
        )
    shape = _window_shape(operand, window_dimensions, window_strides, padding, base_dilation, window_dilation)
    return ShapedArray(shape, tangents.dtype, tangents.weak_type and operand.weak_type)


@select_and_scatter_add_p.def_abstract_eval
def _select_and_scatter_add_abstract_eval(source: ShapedArray, operand: ShapedArray, *, select_prim,
                                          window_dimensions, window_strides, padding) -> ShapedArray:
    return ShapedArray(operand.shape, source.dtype, source.weak_type and operand.weak_type)


# ---------------------------------------------------------------------------
# Autodiff rules

from pyjax._src.ad_util import Zero as _Zero
from pyjax._src.ad_util import instantiate as _instantiate
from pyjax._src.custom_derivatives import custom_jvp as _custom_jvp
from pyjax._src.interpreters.jvp import defjvp as _defjvp
from pyjax._src.interpreters.jvp import deflinear as _deflinear
from pyjax._src.interpreters.jvp import jvp_flat as _jvp_flat
from pyjax._src.interpreters.transpose import is_undefined_primal as _undefined
from pyjax._src.jaxpr import eval_jaxpr as _eval_jaxpr
from pyjax._src.lax import shapes as _shapes
from pyjax._src.lax import slicing as _slicing
from pyjax._src.lax.convolution_ad import _conv_vjp_lhs_padding
from pyjax._src.rules import NOT_LINEAR as _NOT_LINEAR


def _zero_scalar(x):
    return np.zeros((), core.get_aval(x).dtype)[()]


# --- reduce_window_sum: linear. Its transpose spreads each window's
# cotangent back over the window: the cotangent, strided apart and padded
# like a convolution's input cotangent, summed over windows again.


def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides, padding, base_dilation,
                                 window_dilation):
    # ct: window counts -> operand shape.
    in_shape = operand.aval.shape
    pads = _conv_vjp_lhs_padding(in_shape, window_dimensions, window_strides, core.get_aval(ct).shape, padding,
                                 base_dilation, window_dilation)
    config = tuple((lo, hi, stride - 1) for (lo, hi), stride in zip(pads, window_strides, strict=True))
    padded = _slicing.pad_p.bind(ct, _zero_scalar(ct), padding_config=config)
    result = reduce_window_sum_p.bind(
        padded, window_dimensions=window_dimensions, window_strides=tuple(base_dilation),
        padding=((0, 0),) * len(in_shape), base_dilation=(1,) * len(in_shape), window_dilation=window_dilation)
    assert core.get_aval(result).shape == in_shape, (core.get_aval(result).shape, in_shape)
    return [result]


_deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


# --- reduce_window_max/min: the tangent at each window's chosen element.


def _chooser_window_jvp(select_prim):
    def tangent(g, operand, **params):
        return select_and_gather_add_p.bind(g, operand, select_prim=select_prim, **params)

    return tangent


_defjvp(reduce_window_max_p, _chooser_window_jvp(ew.ge_p))
_defjvp(reduce_window_min_p, _chooser_window_jvp(ew.le_p))
reduce_window_max_p.def_transpose(_NOT_LINEAR)
reduce_window_min_p.def_transpose(_NOT_LINEAR)


# --- select_and_gather_add: linear in the tangents (the operand only says
# where to look: its own derivative is zero almost everywhere).


def _select_and_gather_add_transpose(ct, tangents, operand, *, select_prim, window_dimensions, window_strides,
                                     padding, base_dilation, window_dilation):
    # ct: window counts -> operand shape, each window's cotangent added at its
    # chosen element. Base dilation: choose in the dilated operand (holes
    # hold the select's identity, never chosen), then keep the real elements.
    assert _undefined(tangents) and not _undefined(operand)
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={window_dilation}."
        )
    dilated = any(d != 1 for d in base_dilation)
    if dilated:
        dtype = core.get_aval(operand).dtype
        identity = max_identity(dtype) if select_prim is ew.ge_p else min_identity(dtype)
        operand = _slicing.pad_p.bind(operand, identity, padding_config=tuple((0, 0, d - 1) for d in base_dilation))
    result = select_and_scatter_add_p.bind(ct, operand, select_prim=select_prim,
                                           window_dimensions=window_dimensions, window_strides=window_strides,
                                           padding=padding)
    if dilated:
        shape = core.get_aval(result).shape
        result = _shapes.slice(result, (0,) * len(shape), shape, base_dilation)
    return [result, None]


_defjvp(select_and_gather_add_p, lambda g, tangents, operand, **params: select_and_gather_add_p.bind(
    g, operand, **params), None)
select_and_gather_add_p.def_transpose(_select_and_gather_add_transpose)


def _select_and_scatter_add_transpose(ct, source, operand, *, select_prim, window_dimensions, window_strides,
                                      padding):
    # ct: operand shape -> window counts: each window reads the cotangent at
    # its chosen element.
    assert _undefined(source) and not _undefined(operand)
    ones = (1,) * len(window_dimensions)
    return [select_and_gather_add_p.bind(ct, operand, select_prim=select_prim,
                                         window_dimensions=window_dimensions, window_strides=window_strides,
                                         padding=padding, base_dilation=ones, window_dilation=ones), None]


_defjvp(select_and_scatter_add_p, lambda g, source, operand, **params: select_and_scatter_add_p.bind(
    g, operand, **params), None)
select_and_scatter_add_p.def_transpose(_select_and_scatter_add_transpose)


# --- the general reduce_window: the JVP reduces (primal, tangent) pairs with
# the JVP of the computation. Not linearizable: primal and tangent share one
# equation, so it has no transpose (as in JAX).


def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, window_dimensions, window_strides, padding,
                       base_dilation, window_dilation):
    n = len(primals) // 2
    operands, inits = primals[:n], primals[n:]
    operand_tangents, init_tangents = tangents[:n], tangents[n:]
    if not all(type(t) is _Zero for t in init_tangents):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    operand_tangents = [_instantiate(t) for t in operand_tangents]
    init_tangents = [_instantiate(t) for t in init_tangents]

    def jvp_computation(left, right):
        # The computation's JVP: (left primals, left tangents) combined with
        # (right primals, right tangents).
        primals_in = [*left[:n], *right[:n]]
        tangents_in = [*left[n:], *right[n:]]
        outs, out_tangents = _jvp_flat(lambda *args: _eval_jaxpr(jaxpr, consts, *args), primals_in, tangents_in)
        return [*outs, *[_instantiate(t) for t in out_tangents]]

    outs = reduce_window([*operands, *operand_tangents], [*inits, *init_tangents], jvp_computation,
                         window_dimensions, window_strides, padding, base_dilation, window_dilation)
    return list(outs[:n]), list(outs[n:])


reduce_window_p.def_jvp(_reduce_window_jvp)
reduce_window_p.def_transpose(_NOT_LINEAR)


# --- cumulative reductions. cumsum is linear: its transpose sums from the
# other end. The others differentiate a parallel prefix scan (as JAX does,
# whatever the backend): reduce_window is not differentiable to every order.


def _cumsum_transpose(ct, operand, *, axis, reverse):
    return [cumsum(ct, axis=axis, reverse=not reverse)]


_deflinear(cumsum_p, _cumsum_transpose)


def _interleave(a, b, axis: int):
    # [a0, b0, a1, b1, ...] along `axis` (a has as many elements as b, or
    # one more): each spread out with holes, then added.
    a_len, b_len = core.get_aval(a).shape[axis], core.get_aval(b).shape[axis]
    a_pad = [(0, 0, 0)] * core.get_aval(a).ndim
    b_pad = [(0, 0, 0)] * core.get_aval(b).ndim
    a_pad[axis] = (0, 1 if a_len == b_len else 0, 1)
    b_pad[axis] = (1, 0 if a_len == b_len else 1, 1)
    combine = ew.bitwise_or if core.get_aval(a).dtype == np.bool_ else ew.add
    return combine(_slicing.pad(a, _zero_scalar(a), a_pad), _slicing.pad(b, _zero_scalar(b), b_pad))


def _associative_scan(combine: Callable, elems, axis: int, reverse: bool):
    """The inclusive scan of `elems` along `axis` with the associative
    `combine`, as a parallel prefix (Blelloch): combine neighbouring pairs,
    scan those recursively, then fill in the remaining elements."""
    if reverse:
        elems = _shapes.rev(elems, (axis,))
    ndim = core.get_aval(elems).ndim
    if ndim:  # (a negative axis counts from the end, as in jax.lax.associative_scan, after its rev)
        axis = axis % ndim

    def scan(x):
        n = core.get_aval(x).shape[axis]
        if n < 2:
            return x
        pairs = combine(_slicing.slice_in_dim(x, 0, -1, stride=2, axis=axis),
                        _slicing.slice_in_dim(x, 1, None, stride=2, axis=axis))
        odd = scan(pairs)
        if n % 2 == 0:
            even = combine(_slicing.slice_in_dim(odd, 0, -1, axis=axis),
                           _slicing.slice_in_dim(x, 2, None, stride=2, axis=axis))
        else:
            even = combine(odd, _slicing.slice_in_dim(x, 2, None, stride=2, axis=axis))
        even = _shapes.concatenate([_slicing.slice_in_dim(x, 0, 1, axis=axis), even], axis)
        return _interleave(even, odd, axis)

    out = scan(elems)
    return _shapes.rev(out, (axis,)) if reverse else out


def _replace_inf(x):
    # +inf -> 0, so that exp(x - out) is 0 or finite even where both are inf.
    real = ew.real(x) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else x
    inf = np.asarray(np.inf, core.get_aval(real).dtype)[()]
    is_inf = ew.eq(real, inf)
    aval = core.get_aval(x)
    return ew.select(is_inf, _shapes.broadcast_in_dim(np.zeros((), aval.dtype)[()], aval.shape, ()), x)


def _wrap_between(x, bound: float):
    # x wrapped into [-bound, bound).
    dtype = core.get_aval(x).dtype
    a, two_a, zero = (np.asarray(v, dtype)[()] for v in (bound, 2 * bound, 0))
    rem = ew.rem(ew.add(x, a), two_a)
    rem = ew.select(ew.lt(rem, zero), ew.add(rem, two_a), rem)
    return ew.sub(rem, a)


def _logaddexp_body(x1, x2):
    # log(exp(x1) + exp(x2)) without overflow.
    dtype = core.get_aval(x1).dtype
    amax = ew.max(x1, x2)
    if dtypes.issubdtype(dtype, np.floating):
        delta = ew.sub(x1, x2)
        return ew.select(ew.ne(delta, delta), ew.add(x1, x2),  # NaNs, or infinities of one sign
                         ew.add(amax, ew.log1p(ew.exp(ew.neg(ew.abs(delta))))))
    if dtypes.issubdtype(dtype, np.complexfloating):
        delta = ew.sub(ew.add(x1, x2), ew.mul(amax, np.asarray(2, dtype)[()]))
        out = ew.add(amax, ew.log1p(ew.exp(delta)))
        return ew.complex(ew.real(out), _wrap_between(ew.imag(out), np.pi))
    raise ValueError(f"logaddexp requires floating-point or complex inputs; got {dtype}")


_logaddexp_body.__name__ = _logaddexp_body.__qualname__ = "logaddexp"
_logaddexp = _custom_jvp(_logaddexp_body)


def _logaddexp_jvp(primals, tangents):
    x1, x2 = primals
    t1, t2 = tangents
    out = _logaddexp(x1, x2)
    tangent = ew.add(ew.mul(t1, ew.exp(ew.sub(_replace_inf(x1), _replace_inf(out)))),
                     ew.mul(t2, ew.exp(ew.sub(_replace_inf(x2), _replace_inf(out)))))
    return out, tangent


_logaddexp.defjvp(_logaddexp_jvp)


def _cumulative_jvp(combine: Callable):
    def rule(primals, tangents, *, axis, reverse):
        outs, out_tangents = _jvp_flat(lambda x: [_associative_scan(combine, x, axis, reverse)], primals, tangents)
        return outs[0], out_tangents[0]

    return rule


cumlogsumexp_p.def_jvp(_cumulative_jvp(_logaddexp))
cumprod_p.def_jvp(_cumulative_jvp(ew.mul))
cummin_p.def_jvp(_cumulative_jvp(ew.min))
cummax_p.def_jvp(_cumulative_jvp(ew.max))
for _primitive in (cumlogsumexp_p, cumprod_p, cummin_p, cummax_p):
    _primitive.def_transpose(_NOT_LINEAR)


# ---------------------------------------------------------------------------
# Batching rules. A windowed reduction batches by giving the batch axis a
# window of its own: size 1, stride 1, no padding, no dilation, so each
# example is reduced separately. The monoid reductions keep the batch axis
# where it is; the general reduce_window and the select-and-gather/scatter
# pair move it to the front first (JAX 0.11's placement, so the staged
# jaxprs match). A cumulative reduction scans the same axis of every example.

from pyjax._src.interpreters import batching as _batching  # noqa: E402
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402


def _batch_at_front(x, d, size: int):
    # JAX's batching.bdim_at_front: an unbatched operand is broadcast, with
    # NumPy dimension numbers (they print as np.int64 in the jaxpr).
    if d is _batching.not_mapped:
        return _batching_util.broadcast_batch(x, size, 0)
    return _batching_util.moveaxis(x, d, 0)


def _insert_unit_window(d: int, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    # The window geometry with a trivial window for a batch axis at `d`.
    def put(seq, item):
        return tuple(seq[:d]) + (item,) + tuple(seq[d:])

    return {"window_dimensions": put(window_dimensions, 1), "window_strides": put(window_strides, 1),
            "padding": put(padding, (0, 0)), "base_dilation": put(base_dilation, 1),
            "window_dilation": put(window_dilation, 1)}


def _monoid_window_batch(primitive):
    def rule(axis_data, args, dims, **geometry):
        (operand,), (d,) = args, dims
        # x: (..., B at d, ...) -> (..., B at d, ...): the batch window is 1 wide.
        return primitive.bind(operand, **_insert_unit_window(d, **geometry)), d

    return rule


for _primitive in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
    _primitive.def_batch(_monoid_window_batch(_primitive))


def _reduce_window_batch(axis_data, args, dims, *, jaxpr, consts, **geometry):
    n = len(args) // 2
    operands, inits = args[:n], args[n:]
    if any(d is not _batching.not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial values")
    # operands: (B, ...) each, the batch window leading.
    operands = [_batch_at_front(x, d, axis_data.size) for x, d in zip(operands, dims[:n], strict=True)]
    outs = reduce_window_p.bind(*operands, *inits, jaxpr=jaxpr, consts=consts, **_insert_unit_window(0, **geometry))
    return outs, [0] * n


reduce_window_p.def_batch(_reduce_window_batch)


def _select_and_gather_add_batch(axis_data, args, dims, *, select_prim, **geometry):
    # tangents, operand: (B, ...) -> (B, windows...)
    tangents, operand = (_batch_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True))
    return select_and_gather_add_p.bind(tangents, operand, select_prim=select_prim,
                                        **_insert_unit_window(0, **geometry)), 0


def _select_and_scatter_add_batch(axis_data, args, dims, *, select_prim, window_dimensions, window_strides,
                                  padding):
    # source: (B, windows...), operand: (B, ...) -> (B, ...)
    source, operand = (_batch_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True))
    return select_and_scatter_add_p.bind(
        source, operand, select_prim=select_prim, window_dimensions=(1,) + tuple(window_dimensions),
        window_strides=(1,) + tuple(window_strides), padding=((0, 0),) + tuple(padding)), 0


select_and_gather_add_p.def_batch(_select_and_gather_add_batch)
select_and_scatter_add_p.def_batch(_select_and_scatter_add_batch)
for _p in (reduce_window_p, reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
    _p.def_sharding_rule(sharding_rules.reduce_window_rule)
select_and_gather_add_p.def_sharding_rule(sharding_rules.select_and_gather_add_rule)
select_and_scatter_add_p.def_sharding_rule(sharding_rules.select_and_scatter_add_rule)


def _cumulative_batch(primitive):
    def rule(axis_data, args, dims, *, axis, reverse):
        (operand,), (d,) = args, dims
        # the example's axis `axis` sits one further right when at or past d
        return primitive.bind(operand, axis=axis + (axis >= d), reverse=reverse), d

    return rule


for _primitive in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    _primitive.def_batch(_cumulative_batch(_primitive))
