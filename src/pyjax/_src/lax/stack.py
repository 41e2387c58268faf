"""The `stack`, `unstack` and `tile` primitives.

JAX 0.11 stages `jnp.stack`, `jnp.unstack` and `jnp.tile` as primitives of
their own instead of their expansions (broadcast + concatenate, slices,
broadcast + reshape). All three are linear: their JVP applies them to the
tangents, and they transpose into one another (stack <-> unstack) or into a
reshape + reduce_sum (tile).
"""

from __future__ import annotations

import operator
from typing import Sequence

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax import sharding_rules
from pyjax._src.lax import batching_util
from pyjax._src.lax._standard import as_array, check_same_dtypes

__all__ = ["stack", "stack_p", "tile", "tile_p", "unstack", "unstack_p"]


def _canonicalize_axis(axis, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _asarray(x):
    return as_array(x)


# ---------------------------------------------------------------------------
# stack

stack_p = Primitive("stack")


@stack_p.def_abstract_eval
def _stack_abstract_eval(*operands: ShapedArray, axis: int) -> ShapedArray:
    if not operands:
        raise ValueError("stack expects at least one operand, got 0.")
    shapes = ", ".join(str(o.shape) for o in operands)
    first = operands[0]
    if any(o.ndim != first.ndim for o in operands):
        raise ValueError(f"Cannot stack arrays with different numbers of dimensions: got {shapes}.")
    if any(o.shape != first.shape for o in operands):
        raise ValueError(f"All input arrays must have the same shape. Got {shapes}.")
    check_same_dtypes("stack", *operands)
    shape = list(operands[0].shape)
    shape.insert(axis, len(operands))
    return ShapedArray(tuple(shape), operands[0].dtype, all(o.weak_type for o in operands))


stack_p.def_sharding_rule(sharding_rules.stack_rule)


def stack(operands: Sequence, axis: int = 0):
    """Stack same-shaped arrays into one array with an extra axis.

    Args:
      operands: the arrays to combine; they must agree in shape and dtype.
      axis: where the new axis of length ``len(operands)`` goes in the result.

    Returns:
      The combined array, whose slice ``i`` along ``axis`` is ``operands[i]``.

    Examples:
      >>> lax.stack([jnp.array([1, 2]), jnp.array([3, 4])], axis=1)
      Array([[1, 3],
             [2, 4]], dtype=int32)
    """
    arrays = [_asarray(op) for op in operands]
    axis = _canonicalize_axis(axis, core.get_aval(arrays[0]).ndim + 1)
    return stack_p.bind(*arrays, axis=axis)


def _stack_transpose(ct, *operands, axis):
    if type(ct) is Zero:
        return [Zero(o.aval) if is_undefined_primal(o) else None for o in operands]
    pieces = unstack_p.bind(ct, axis=axis)
    return [p if is_undefined_primal(o) else None for p, o in zip(pieces, operands, strict=True)]


def _stack_batch(axis_data, args, dims, *, axis):
    first = dims[0]
    if first is not batching.not_mapped and all(d == first for d in dims):
        # Every operand batched on the same axis: the new axis slots around it.
        if axis <= first:
            return stack_p.bind(*args, axis=axis), first + 1
        return stack_p.bind(*args, axis=axis + 1), first
    operands = [batching_util.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True)]
    out = stack_p.bind(*operands, axis=axis + 1)
    return out, 0


deflinear(stack_p, _stack_transpose)
stack_p.def_batch(_stack_batch)


# ---------------------------------------------------------------------------
# unstack

unstack_p = Primitive("unstack", multiple_results=True)
unstack_p.declare(key_reuse=_key_reuse.consume_all_fresh_outputs)


@unstack_p.def_abstract_eval
def _unstack_abstract_eval(operand: ShapedArray, *, axis: int) -> list[ShapedArray]:
    if operand.ndim == 0:
        raise ValueError(
            "unstack requires arrays with rank > 0, however a scalar array of shape "
            f"{operand.shape} was passed.")
    shape = list(operand.shape)
    count = shape.pop(axis)
    return [ShapedArray(tuple(shape), operand.dtype, operand.weak_type)] * count


unstack_p.def_sharding_rule(sharding_rules.unstack_rule)


def unstack(x, axis: int = 0) -> tuple:
    """Split an array into the slices along one of its axes.

    Args:
      x: the array to take apart; it must have at least one dimension.
      axis: the axis that is removed; one result per index along it.

    Returns:
      A tuple of ``x.shape[axis]`` arrays, each of ``x``'s shape without ``axis``.

    Examples:
      >>> lax.unstack(jnp.array([[1, 2], [3, 4]]), axis=1)
      (Array([1, 3], dtype=int32), Array([2, 4], dtype=int32))
    """
    arr = _asarray(x)
    axis = _canonicalize_axis(axis, core.get_aval(arr).ndim)
    pieces = unstack_p.bind(arr, axis=axis)
    return tuple(pieces)


def _unstack_transpose(cts, operand, *, axis):
    if all(type(ct) is Zero for ct in cts):
        return [Zero(operand.aval)]
    return [stack_p.bind(*[instantiate(ct) for ct in cts], axis=axis)]


def _unstack_batch(axis_data, args, dims, *, axis):
    (operand,), (d,) = args, dims
    if axis < d:
        out_axis, out_dim = axis, d - 1
    else:
        out_axis, out_dim = axis + 1, d
    outs = unstack_p.bind(operand, axis=out_axis)
    return outs, [out_dim] * len(outs)


deflinear(unstack_p, _unstack_transpose)
unstack_p.def_batch(_unstack_batch)


# ---------------------------------------------------------------------------
# tile

tile_p = Primitive("tile")


@tile_p.def_abstract_eval
def _tile_abstract_eval(x: ShapedArray, *, reps: tuple) -> ShapedArray:
    if x.ndim != len(reps):
        raise TypeError(
            f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
            f"and x.ndim={x.ndim}.")
    shape = tuple((d if hasattr(d, "get_vars") else int(d)) * int(r) for d, r in zip(x.shape, reps, strict=True))
    return ShapedArray(shape, x.dtype, x.weak_type)


def tile(operand, reps: Sequence[int]):
    """Repeat an array end to end along every one of its axes.

    Args:
      operand: the array to repeat.
      reps: how many copies to lay out along each axis; one entry per
        dimension of ``operand``.

    Returns:
      An array whose axis ``i`` has length ``operand.shape[i] * reps[i]``.

    Examples:
      >>> lax.tile(jnp.array([1, 2, 3]), (2,))
      Array([1, 2, 3, 1, 2, 3], dtype=int32)
    """
    reps = tuple(reps)
    return tile_p.bind(operand, reps=reps)


def _tile_transpose(ct, operand, *, reps):
    # Each output axis of length r*n is (r, n) row-major: sum the r copies.
    from pyjax._src.lax.reductions import reduce_sum
    from pyjax._src.lax.shapes import reshape

    if type(ct) is Zero:
        return [Zero(operand.aval)]
    if not is_undefined_primal(operand):
        return [None]
    split = tuple(k for pair in zip(reps, operand.aval.shape, strict=True) for k in pair)
    copy_axes = tuple(range(0, len(split), 2))
    spec = sharding_rules.spec_of(operand.aval)  # (each pair (copies, n) placed as n was)
    placed = sharding_rules.typed_sharding(operand.aval, [e for s in spec for e in (None, s)])
    return [reduce_sum(reshape(ct, split, out_sharding=placed), copy_axes)]


def _tile_batch(axis_data, args, dims, *, reps):
    (operand,), (d,) = args, dims
    new_reps = list(reps)
    new_reps.insert(d, 1)
    return tile(operand, new_reps), d


deflinear(tile_p, _tile_transpose)
tile_p.def_batch(_tile_batch)
tile_p.def_sharding_rule(sharding_rules.tile_rule)
