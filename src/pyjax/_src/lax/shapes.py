"""Shape primitives: broadcast_in_dim, reshape, transpose, squeeze,
expand_dims, rev, concatenate and iota.

None of these compute: each rearranges or repeats elements, so each rule is
a statement about shapes. Shapes and dimension lists are static params
(tuples), never traced values.
"""

from __future__ import annotations

import math
import operator
from typing import Sequence

import numpy as np

from pyjax._src import ad_util, core, dtypes
from pyjax._src.avals import ShapedArray, canonicalize_shape
from pyjax._src.core import Primitive
from pyjax._src.lax import sharding_rules
from pyjax._src.interpreters import key_reuse as _key_reuse


def _static_shape(shape, name: str) -> tuple:
    # The one canonicalisation (avals.canonicalize_shape), worded for `name`.
    return canonicalize_shape(shape, f"{name} shape")


# --- broadcast_in_dim
broadcast_in_dim_p = Primitive("broadcast_in_dim").declare(fusible=True, cost="cheap")  # a layout op XLA fuses
broadcast_in_dim_p.declare(key_reuse=_key_reuse.FORWARD)
broadcast_in_dim_p.pp_hidden = lambda k, v: k in ("shape", "sharding") or (k == "broadcast_dimensions" and not v)


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(operand: ShapedArray, *, shape, broadcast_dimensions, sharding) -> ShapedArray:
    if len(broadcast_dimensions) != operand.ndim:
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; "
            f"got broadcast_dimensions {broadcast_dimensions} for operand ndim {operand.ndim}."
        )
    if any(d >= len(shape) or d < 0 for d in broadcast_dimensions) or any(
        operand.shape[i] not in (1, shape[d]) for i, d in enumerate(broadcast_dimensions)
    ):
        raise TypeError(
            "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
            "corresponding dimensions in the target broadcast shape; got operand of shape "
            f"{operand.shape}, target broadcast shape {shape}, broadcast_dimensions "
            f"{broadcast_dimensions} "
        )
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must be strictly increasing; "
            f"got broadcast_dimensions {broadcast_dimensions}"
        )
    return ShapedArray(shape, operand.dtype, operand.weak_type, sharding_rules.in_type(sharding))


broadcast_in_dim_p.def_sharding_rule(sharding_rules.broadcast_in_dim_rule)


def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int], *, out_sharding=None):
    """Broadcasts `operand` to `shape`; operand axis i becomes result axis
    broadcast_dimensions[i]."""
    shape = _static_shape(shape, "broadcast_in_dim")
    broadcast_dimensions = tuple(int(d) for d in broadcast_dimensions)
    aval = getattr(operand, "aval", None)
    if aval is not None and aval.shape == shape and broadcast_dimensions == tuple(range(len(shape))):
        return operand
    if out_sharding is not None:
        out_sharding = sharding_rules.canonicalize_sharding(out_sharding, "broadcast_in_dim", len(shape))
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=broadcast_dimensions,
                                   sharding=out_sharding)


def full(shape: Sequence[int], fill_value, dtype=None, *, sharding=None):
    """An array of `shape` filled with the scalar `fill_value` (of `dtype`, or
    the value's own dtype, weakly typed where the value is)."""
    from pyjax._src.lax.elementwise import _convert_element_type  # (elementwise imports this module)

    shape = _static_shape(shape, "broadcast_in_dim")
    if np.ndim(fill_value) != 0:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape {np.shape(fill_value)}.")
    if dtype is None:
        weak = dtypes.is_weakly_typed(fill_value)
        dtype = dtypes.dtype(fill_value, canonicalize=True)
    else:
        weak = False
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full")
    value = _convert_element_type(fill_value, dtype, weak)
    return broadcast_in_dim(value, shape, (), out_sharding=sharding)


def broadcast(operand, sizes: Sequence[int], *, out_sharding=None):
    """Adds leading dimensions of `sizes` to `operand`."""
    sizes = _static_shape(sizes, "broadcast_in_dim")
    ndim = np.ndim(operand) if getattr(operand, "aval", None) is None else operand.aval.ndim
    shape = sizes + tuple(np.shape(operand) if getattr(operand, "aval", None) is None else operand.aval.shape)
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(sizes) + ndim)), out_sharding=out_sharding)


# --- reshape
reshape_p = Primitive("reshape").declare(fusible=True, cost="cheap")  # a layout op XLA fuses
reshape_p.declare(key_reuse=_key_reuse.FORWARD)


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(operand: ShapedArray, *, new_sizes, dimensions, sharding) -> ShapedArray:
    if math.prod(new_sizes) != operand.size:
        raise TypeError(
            f"reshape total size must be unchanged, got new_sizes {new_sizes} (of total size "
            f"{math.prod(new_sizes)}) for shape {operand.shape} (of total size {operand.size})."
        )
    if dimensions is not None and sorted(dimensions) != list(range(operand.ndim)):
        raise TypeError(
            f"reshape dimensions must be a permutation of operand dimensions, got dimensions "
            f"{dimensions} for shape {operand.shape}."
        )
    return ShapedArray(new_sizes, operand.dtype, operand.weak_type, sharding_rules.in_type(sharding))


reshape_p.def_sharding_rule(sharding_rules.reshape_rule)


def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None, *, out_sharding=None):
    """Reshapes `operand` to `new_sizes` (after transposing by `dimensions`, if given)."""
    new_sizes = canonicalize_shape(new_sizes, "reshape new_sizes", negative="{name} must all be positive, got {shape}.")
    dims = None if dimensions is None or tuple(dimensions) == tuple(range(len(np.shape(operand) if getattr(operand, "aval", None) is None else operand.aval.shape))) else tuple(dimensions)
    aval = getattr(operand, "aval", None)
    if aval is not None and aval.shape and aval.shape == new_sizes and dims is None:
        return operand  # (not a scalar: JAX binds a reshape of one to () whenever asked)
    if out_sharding is not None:
        out_sharding = sharding_rules.canonicalize_sharding(out_sharding, "reshape", len(new_sizes))
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=out_sharding)


# --- transpose
transpose_p = Primitive("transpose").declare(fusible=True, cost="cheap")  # a layout op XLA fuses


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(operand: ShapedArray, *, permutation) -> ShapedArray:
    if sorted(permutation) != list(range(operand.ndim)):
        raise TypeError(
            "transpose permutation isn't a permutation of operand dimensions, got permutation "
            f"{permutation} for operand shape {operand.shape}."
        )
    return ShapedArray(tuple(operand.shape[p] for p in permutation), operand.dtype, operand.weak_type)


transpose_p.def_sharding_rule(sharding_rules.transpose_rule)


def transpose(operand, permutation: Sequence[int]):
    """Permutes the axes of `operand`: result axis i is operand axis permutation[i]."""
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))) and getattr(operand, "aval", None) is not None:
        return operand
    return transpose_p.bind(operand, permutation=permutation)


# --- squeeze
squeeze_p = Primitive("squeeze").declare(fusible=True, cost="cheap")  # a layout op XLA fuses
squeeze_p.declare(key_reuse=_key_reuse.FORWARD)


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(operand: ShapedArray, *, dimensions) -> ShapedArray:
    for d in dimensions:
        if not 0 <= d < operand.ndim or operand.shape[d] != 1:
            raise ValueError(
                "cannot select an axis to squeeze out which has size not equal to one, got "
                f"shape={operand.shape} and dimensions={dimensions}"
            )
    shape = tuple(s for i, s in enumerate(operand.shape) if i not in dimensions)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


squeeze_p.def_sharding_rule(sharding_rules.squeeze_rule)


def squeeze(array, dimensions: Sequence[int]):
    """Removes the size-1 axes `dimensions`."""
    ndim = array.aval.ndim if getattr(array, "aval", None) is not None else np.ndim(array)
    dims = tuple(sorted(int(d) % ndim if ndim else int(d) for d in dimensions))
    if not dims and getattr(array, "aval", None) is not None:
        return array
    return squeeze_p.bind(array, dimensions=dims)


def expand_dims(array, dimensions: Sequence[int]):
    """Inserts size-1 axes at `dimensions` (a broadcast_in_dim, as in JAX)."""
    shape = list(array.aval.shape if getattr(array, "aval", None) is not None else np.shape(array))
    ndim_out = len(shape) + len(dimensions)
    dims = sorted(int(d) % ndim_out for d in dimensions)
    for d in dims:
        shape.insert(d, 1)
    kept = [i for i in range(ndim_out) if i not in dims]
    return broadcast_in_dim(array, tuple(shape), tuple(kept))


# --- iota
iota_p = Primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype, shape, dimension, sharding) -> ShapedArray:
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got dimension={dimension} for shape {shape}")
    return ShapedArray(shape, dtype, False, sharding_rules.in_type(sharding))


iota_p.def_sharding_rule(sharding_rules.iota_rule)


def iota(dtype, size: int, *, sharding=None):
    """`[0, 1, ..., size - 1]` of `dtype`."""
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "iota")
    return iota_p.bind(dtype=dtype, shape=canonicalize_shape((size,), "iota shape"), dimension=0, sharding=sharding)


def broadcasted_iota(dtype, shape: Sequence[int], dimension: int, *, out_sharding=None):
    """An iota along `dimension`, broadcast to `shape`."""
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "broadcasted_iota")
    shape = _static_shape(shape, "iota")
    if out_sharding is not None:
        out_sharding = sharding_rules.canonicalize_sharding(out_sharding, "broadcasted_iota", len(shape))
    return iota_p.bind(dtype=dtype, shape=shape, dimension=int(dimension), sharding=out_sharding)


# --- concatenate
concatenate_p = Primitive("concatenate").declare(fusible=True, cost="cheap")  # a layout op XLA fuses
concatenate_p.declare(key_reuse=_key_reuse.concatenate_signature)


@concatenate_p.def_abstract_eval
def _concatenate_abstract_eval(*operands: ShapedArray, dimension: int) -> ShapedArray:
    if not operands:
        raise TypeError("concatenate requires a non-empty sequence of operands")
    first = operands[0]
    if any(o.dtype != first.dtype for o in operands):
        raise TypeError(f"Cannot concatenate arrays with different dtypes: {', '.join(str(o.dtype) for o in operands)}.")
    if any(o.ndim != first.ndim for o in operands):
        raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: got {', '.join(str(o.shape) for o in operands)}.")
    if not 0 <= dimension < first.ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes {', '.join(str(o.shape) for o in operands)}.")
    for o in operands:
        if any(a != b for i, (a, b) in enumerate(zip(o.shape, first.shape, strict=True)) if i != dimension):
            raise TypeError(
                "Cannot concatenate arrays with shapes that differ in dimensions other than the one "
                f"being concatenated: concatenating along dimension {dimension} for shapes "
                f"{', '.join(str(x.shape) for x in operands)}."
            )
    shape = list(first.shape)
    shape[dimension] = sum(o.shape[dimension] for o in operands)
    return ShapedArray(tuple(shape), first.dtype, all(o.weak_type for o in operands))


concatenate_p.def_sharding_rule(sharding_rules.concatenate_rule)


def concatenate(operands: Sequence, dimension: int):
    """Concatenates `operands` along `dimension`."""
    operands = list(operands)
    if len(operands) == 1 and getattr(operands[0], "aval", None) is not None:
        return operands[0]
    return concatenate_p.bind(*operands, dimension=int(dimension))


# --- rev
rev_p = Primitive("rev").declare(fusible=True, cost="cheap")  # a layout op XLA fuses


@rev_p.def_abstract_eval
def _rev_abstract_eval(operand: ShapedArray, *, dimensions) -> ShapedArray:
    if any(d < 0 for d in dimensions):
        raise TypeError(f"rev dimensions must have every element be nonnegative, got {dimensions}.")
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not max(dimensions) < operand.ndim:
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions {dimensions} for "
                        f"operand ndim {operand.ndim}.")
    return operand


rev_p.def_sharding_rule(sharding_rules.keep_operand_rule)


def rev(operand, dimensions: Sequence[int]):
    """Reverses `operand` along `dimensions`."""
    return rev_p.bind(operand, dimensions=tuple(int(d) for d in dimensions))


# --- slice (static)
slice_p = Primitive("slice").declare(fusible=True, cost="cheap")  # a layout op XLA fuses
slice_p.declare(key_reuse=_key_reuse.slice_signature)


@slice_p.def_abstract_eval
def _slice_abstract_eval(operand: ShapedArray, *, start_indices, limit_indices, strides) -> ShapedArray:
    if len(start_indices) != operand.ndim or len(limit_indices) != operand.ndim:
        raise TypeError(
            "slice start_indices must have length equal to the number of dimensions of the operand, "
            f"got indices {start_indices} for operand shape {operand.shape}."
        )
    for start, limit, size in zip(start_indices, limit_indices, operand.shape, strict=True):
        if not 0 <= start <= limit <= size:
            raise TypeError(
                f"slice start_indices {start_indices} and limit_indices {limit_indices} must satisfy "
                f"0 <= start <= limit <= shape for operand shape {operand.shape}."
            )
    steps = strides or (1,) * operand.ndim
    shape = tuple(max(0, -(-(limit - start) // step)) for start, limit, step in zip(start_indices, limit_indices, steps, strict=True))
    return ShapedArray(shape, operand.dtype, operand.weak_type)


slice_p.def_sharding_rule(sharding_rules.varying_shape_rule("slicing"))


def slice(operand, start_indices: Sequence[int], limit_indices: Sequence[int], strides: Sequence[int] | None = None):  # noqa: A001
    """The static slice operand[start:limit:stride] along every axis."""
    return slice_p.bind(
        operand,
        start_indices=tuple(map(operator.index, start_indices)),  # (int() would floor 1.5 silently)
        limit_indices=tuple(map(operator.index, limit_indices)),
        strides=None if strides is None else _slice_strides(strides),
    )


def _slice_strides(strides) -> tuple:
    try:
        out = tuple(map(operator.index, strides))
    except TypeError:
        raise TypeError("slice strides must have every element be an integer type, got "
                        f"{tuple(map(type, strides))}.") from None
    if out and min(out) < 0:
        raise TypeError(f"slice strides must have every element be nonnegative, got {out}.")
    return out


# ---------------------------------------------------------------------------
# Autodiff rules: every shape primitive is linear; its transpose puts the
# cotangent back into the operand's shape.

from pyjax._src.interpreters.jvp import deflinear, defjvp_zero  # noqa: E402
from pyjax._src.interpreters.transpose import is_undefined_primal  # noqa: E402


def _zeros_like_shaped_array(aval: ShapedArray):
    # The zeros autodiff instantiates (ad_util.zeros_like_aval): a float0
    # zero is a NumPy array (no primitive takes float0), any other a scalar
    # literal, broadcast when the aval has a shape.
    if aval.dtype == dtypes.float0:
        return np.zeros(aval.shape, dtypes.float0)
    scalar = np.zeros((), aval.dtype)[()]
    if not aval.shape:
        from pyjax._src.interpreters.staging import DynamicJaxprTrace, DynamicJaxprTracer
        from pyjax._src.jaxpr import Literal

        trace = core.current_trace()
        if type(trace) is DynamicJaxprTrace:  # (staged: a literal partial evaluation knows to be a zero)
            return DynamicJaxprTracer(trace, aval, Literal(scalar, aval, zero=True))
        from pyjax._src.interpreters.partial_eval import PartialEvalTrace

        if isinstance(trace, PartialEvalTrace) and type(trace.parent) is DynamicJaxprTrace:
            # Linearizing a staged computation: a JVP rule's zero is known, so a
            # tangent equation reads it as a residual (JAX's fallback linearize).
            return DynamicJaxprTracer(trace.parent, aval, Literal(scalar, aval, zero=True))
        return scalar
    return broadcast_in_dim(scalar, aval.shape, ())


ad_util.aval_zeros_likers[ShapedArray] = _zeros_like_shaped_array


def _broadcast_in_dim_transpose(ct, operand, *, shape, broadcast_dimensions, sharding):
    # ct: shape -> operand.shape: sum over the new axes and over every
    # unsplit size-1 axis of the operand (as JAX does, broadcast or not), then
    # put those size-1 axes back. The sum is placed as the operand was.
    in_shape = operand.aval.shape
    spec = sharding_rules.spec_of(operand.aval)
    unit_dims = [i for i, d in enumerate(in_shape) if d == 1 and spec[i] is None]
    kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit_dims]
    summed = tuple(a for a in range(len(shape)) if a not in kept)
    from pyjax._src.lax.reductions import reduce_sum

    out_sharding = sharding_rules.typed_sharding(operand.aval, [e for i, e in enumerate(spec) if i not in unit_dims])
    out = reduce_sum(ct, summed, out_sharding=out_sharding) if summed else ct
    if unit_dims:
        out = expand_dims(out, unit_dims)
    return [out]


deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _reshape_transpose(ct, operand, *, new_sizes, dimensions, sharding):
    # (The cotangent is placed as the operand was: JAX's out_sharding.)
    aval = operand.aval
    if dimensions is None:
        return [reshape(ct, aval.shape, out_sharding=sharding_rules.typed_sharding(aval))]
    spec = sharding_rules.spec_of(aval)
    out = reshape(ct, tuple(aval.shape[d] for d in dimensions),
                  out_sharding=sharding_rules.typed_sharding(aval, [spec[d] for d in dimensions]))
    return [transpose(out, tuple(int(i) for i in np.argsort(dimensions)))]


deflinear(reshape_p, _reshape_transpose)
deflinear(transpose_p, lambda ct, operand, *, permutation: [transpose(ct, tuple(int(i) for i in np.argsort(permutation)))])
deflinear(squeeze_p, lambda ct, operand, *, dimensions: [expand_dims(ct, dimensions)])
deflinear(rev_p, lambda ct, operand, *, dimensions: [rev(ct, dimensions)])


def _concatenate_transpose(ct, *operands, dimension):
    # One split of the cotangent back into the operands' pieces.
    from pyjax._src.lax.slicing import split_p

    sizes = tuple(o.aval.shape[dimension] if is_undefined_primal(o) else np.shape(o)[dimension] if getattr(o, "aval", None) is None else o.aval.shape[dimension] for o in operands)
    pieces = split_p.bind(ct, sizes=sizes, axis=dimension)
    return [piece if is_undefined_primal(o) else None for piece, o in zip(pieces, operands, strict=True)]


deflinear(concatenate_p, _concatenate_transpose)
defjvp_zero(iota_p)


def _slice_transpose(ct, operand, *, start_indices, limit_indices, strides):
    # ct goes back in place, zeros around it (and between strided elements).
    # The high padding is computed with NumPy, so it is an np.int64 — as in
    # JAX, whose jaxpr text shows it that way.
    from pyjax._src.lax.slicing import pad_p

    shape = operand.aval.shape
    if strides is None or all(s == 1 for s in strides):
        config = tuple(zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape)))
    else:
        out_shape = np.array(ct.aval.shape if hasattr(ct, "aval") else np.shape(ct))
        real_limits = np.add(start_indices, np.where(out_shape == 0, 0, np.add(1, np.multiply(np.subtract(out_shape, 1), strides))))
        config = tuple(zip(start_indices, np.subtract(shape, real_limits), np.subtract(strides, 1)))
    zero = np.zeros((), operand.aval.dtype)[()]
    return [pad_p.bind(ct, zero, padding_config=config)]


deflinear(slice_p, _slice_transpose)


# ---------------------------------------------------------------------------
# Batching rules: the batch axis moves to the front, the params shift by one.

from pyjax._src.interpreters import batching as _batching
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402


def _broadcast_in_dim_batch(axis_data, args, dims, *, shape, broadcast_dimensions, sharding):
    (operand,), (d,) = args, dims
    operand = _batching_util.moveaxis(operand, d, 0)
    new_dims = (0,) + tuple(np.add(1, broadcast_dimensions))
    return broadcast_in_dim_p.bind(operand, shape=(axis_data.size,) + tuple(shape),
                                   broadcast_dimensions=new_dims, sharding=sharding), 0


def _reshape_batch(axis_data, args, dims, *, new_sizes, dimensions, sharding):
    (operand,), (d,) = args, dims
    operand = _batching_util.moveaxis(operand, d, 0)
    if dimensions is not None:
        operand = transpose(operand, (0,) + tuple(np.add(1, dimensions)))
    new = (axis_data.size,) + tuple(new_sizes)
    if sharding is None and core.get_aval(operand).shape == new:
        return operand, 0  # (JAX's batched reshape goes through lax.reshape, which drops it)
    return reshape_p.bind(operand, new_sizes=new, dimensions=None, sharding=sharding), 0


def _transpose_batch(axis_data, args, dims, *, permutation):
    (operand,), (d,) = args, dims
    # example axis p is operand axis p (+1 past the batch axis)
    perm = (d,) + tuple(p if p < d else p + 1 for p in permutation)
    return transpose_p.bind(operand, permutation=perm), 0


def _squeeze_batch(axis_data, args, dims, *, dimensions):
    (operand,), (d,) = args, dims
    operand = _batching_util.moveaxis(operand, d, 0)
    return squeeze_p.bind(operand, dimensions=tuple(int(d) + 1 for d in dimensions)), 0


def _rev_batch(axis_data, args, dims, *, dimensions):
    (operand,), (d,) = args, dims
    return rev_p.bind(operand, dimensions=tuple(a if a < d else a + 1 for a in dimensions)), d


def _concatenate_batch(axis_data, args, dims, *, dimension):
    operands = [_batching_util.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True)]
    return concatenate_p.bind(*operands, dimension=dimension + 1), 0


def _slice_batch(axis_data, args, dims, *, start_indices, limit_indices, strides):
    (operand,), (d,) = args, dims
    starts = list(start_indices)
    limits = list(limit_indices)
    starts.insert(d, 0)
    limits.insert(d, core.get_aval(operand).shape[d])
    new_strides = None if strides is None else tuple(strides[:d]) + (1,) + tuple(strides[d:])
    return slice_p.bind(operand, start_indices=tuple(starts), limit_indices=tuple(limits), strides=new_strides), d


broadcast_in_dim_p.def_batch(_broadcast_in_dim_batch)
reshape_p.def_batch(_reshape_batch)
transpose_p.def_batch(_transpose_batch)
squeeze_p.def_batch(_squeeze_batch)
rev_p.def_batch(_rev_batch)
concatenate_p.def_batch(_concatenate_batch)
slice_p.def_batch(_slice_batch)
iota_p.def_batch(lambda axis_data, args, dims, **params: (iota_p.bind(**params), _batching.not_mapped))

