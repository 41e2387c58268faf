"""NumPy-style indexing, `x[idx]`, as jax.numpy does it.

An index is first parsed against the array's shape into one entry per
index element (its kind and the array axes it consumes). Then the cheapest
lowering that can express it is used, in JAX's order:

1. static `slice` (+ `rev`, `squeeze`, `expand_dims`) when every element is a
   static integer, slice, None or Ellipsis and the integers are in bounds;
2. `dynamic_slice` when the only non-static elements are scalar integer
   arrays (traced or not) and slices have unit steps;
3. `gather` otherwise: integer arrays (advanced indexing, broadcast together),
   boolean masks (concrete only: they become integer arrays of their True
   positions), strided slices and scalar booleans.

The same gather description (`GatherIndexer`) drives the scatters of `.at[]`
(see at.py), so reads and writes of one index agree.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from pyjax._src import config, core, dtypes, errors
from pyjax._src import dispatch
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax.gather_scatter import (
    GatherDimensionNumbers,
    GatherScatterMode,
    gather,
)
from pyjax._src.numpy.util import aval_of, convert_element_type

_INT32_MAX = int(np.iinfo(np.int32).max)


class IndexKind(enum.Enum):
    """What one element of an index is."""

    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ARRAY = "array"


class ParsedIndex(NamedTuple):
    """One index element, its kind, and the axes of the indexed array it consumes."""

    index: Any
    kind: IndexKind
    axes: tuple


def _is_array(x) -> bool:
    return type(x) is Array or isinstance(x, (np.ndarray, core.Tracer, Array))


def _is_integer_scalar(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_scalar(x) -> bool:
    return np.isscalar(x) or (_is_array(x) and np.ndim(x) == 0 if not isinstance(x, core.Tracer) else x.aval.ndim == 0)


def _flat_leaves(seq) -> list:
    out = []
    for item in seq:
        if isinstance(item, (list, tuple)):
            out.extend(_flat_leaves(item))
        else:
            out.append(item)
    return out


def _sequence_dtype(seq) -> np.dtype:
    # The dtype jnp.asarray(seq) would have, without building it.
    leaves = _flat_leaves(seq)
    if not leaves:
        return dtypes.default_float_dtype()
    return dtypes.canonicalize_dtype(dtypes.result_type(*leaves))


def _is_boolean_index(idx) -> bool:
    if isinstance(idx, (bool, np.bool_)):
        return True
    if _is_array(idx):
        return aval_of(idx).dtype == np.bool_
    return (isinstance(idx, list) and bool(idx)
            and all(_is_scalar(e) and dtypes.dtype(e) == np.bool_ for e in idx))


def index_kind(idx) -> IndexKind:
    """The kind of one index element (JAX's errors for the unsupported ones)."""
    if idx is None:
        return IndexKind.NONE
    if idx is Ellipsis:
        return IndexKind.ELLIPSIS
    if isinstance(idx, slice):
        return IndexKind.SLICE
    if _is_integer_scalar(idx):
        return IndexKind.INTEGER
    if _is_boolean_index(idx):
        return IndexKind.BOOLEAN
    if _is_array(idx):
        dtype = aval_of(idx).dtype
        if dtypes.issubdtype(dtype, np.integer):
            return IndexKind.ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")
    if isinstance(idx, str):
        raise TypeError(f"JAX does not support string indexing; got idx={idx!r}")
    if isinstance(idx, Sequence):
        if not idx:  # an empty list would otherwise be a float array
            return IndexKind.ARRAY
        dtype = _sequence_dtype(idx)
        if dtype == np.bool_:
            return IndexKind.BOOLEAN
        if dtypes.issubdtype(dtype, np.integer):
            return IndexKind.ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")
    if isinstance(idx, (float, complex, np.generic)):
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {np.dtype(type(idx))}")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) "
                     f"and integer or boolean arrays are valid indices. Got {idx}")


def _unpacks_like_a_tuple(x) -> bool:
    return ((isinstance(x, (np.ndarray, Array, core.Tracer)) and np.ndim(x) != 0 if not isinstance(x, core.Tracer)
             else isinstance(x, core.Tracer) and x.aval.ndim != 0)
            or isinstance(x, (Sequence, slice)) or x is Ellipsis or x is None)


def as_index_tuple(idx) -> tuple:
    """`idx` as a tuple; refuses a non-tuple sequence as JAX does (NumPy's
    heuristics for them are ambiguous)."""
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, Sequence) and not isinstance(idx, str):
        hint = "tuple(seq)" if any(_unpacks_like_a_tuple(i) for i in idx) else "array(seq)"
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        f"use `arr[{hint}]` instead of `arr[seq]`. "
                        "See https://github.com/jax-ml/jax/issues/4564 for more information.")
    return (idx,)


def parse_indices(idx, shape: tuple) -> list[ParsedIndex]:
    """Parses a raw index against `shape` (an ellipsis takes what is left)."""
    indices = as_index_tuple(idx)
    kinds = [index_kind(i) for i in indices]
    consumed = []
    ellipses = []
    for position, (i, kind) in enumerate(zip(indices, kinds)):
        if kind in (IndexKind.NONE, IndexKind.ELLIPSIS):
            consumed.append(0)
            if kind is IndexKind.ELLIPSIS:
                ellipses.append(position)
        elif kind is IndexKind.BOOLEAN:
            consumed.append(int(np.ndim(i)) if not isinstance(i, core.Tracer) else i.aval.ndim)
        else:
            consumed.append(1)
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = sum(consumed)
    if total > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {total} were indexed")
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    parsed = []
    axis = 0
    for i, kind, n in zip(indices, kinds, consumed):
        parsed.append(ParsedIndex(i, kind, tuple(range(axis, axis + n))))
        axis += n
    return parsed


def _expand_ellipses(parsed: list[ParsedIndex], ndim: int) -> list[ParsedIndex]:
    # The ellipsis and the implicit trailing axes become explicit full slices.
    out = []
    seen = 0
    for p in parsed:
        seen += len(p.axes)
        if p.kind is IndexKind.ELLIPSIS:
            out.extend(ParsedIndex(slice(None), IndexKind.SLICE, (a,)) for a in p.axes)
        else:
            out.append(p)
    out.extend(ParsedIndex(slice(None), IndexKind.SLICE, (a,)) for a in range(seen, ndim))
    return out


def concrete_value(x):
    """The NumPy value of `x` if it is known now (an Array, a NumPy value, a
    list, a JVP tracer of one), else None."""
    while True:
        if type(x) is Array:
            return np.asarray(x._value)
        if isinstance(x, core.Tracer):
            primal = getattr(x, "primal", None)
            if primal is None:
                return None
            x = primal
            continue
        return np.asarray(x)


def expand_bool_indices(parsed: list[ParsedIndex], shape: tuple) -> list[ParsedIndex]:
    """Replaces each boolean mask by integer arrays of its True positions (one
    per axis it spans); scalar booleans stay. Masks must be concrete."""
    out = []
    for position, p in enumerate(parsed):
        if p.kind is not IndexKind.BOOLEAN:
            out.append(p)
            continue
        value = concrete_value(p.index)
        if value is None:
            raise errors.NonConcreteBooleanIndexError(p.index)
        if value.ndim == 0:
            out.append(ParsedIndex(bool(value), p.kind, ()))
            continue
        expected = [shape[a] for a in p.axes]
        if not all(s in (0, e) for s, e in zip(value.shape, expected)):
            raise IndexError("boolean index did not match shape of indexed array in index "
                             f"{position}: got {value.shape}, expected {expected}")
        positions = np.where(value)
        out.extend(ParsedIndex(i, IndexKind.ARRAY, (a,)) for i, a in zip(positions, p.axes))
    return out


def _validate_static_integers(parsed, shape, normalize: bool) -> None:
    for p in parsed:
        if p.kind is IndexKind.INTEGER:
            i = operator.index(p.index)
            (axis,) = p.axes
            size = shape[axis]
            normed = i + size if normalize and i < 0 else i
            if not 0 <= normed < size:
                raise IndexError(f"index {i} out of bounds for axis {axis} with size {size} "
                                 f"(normalize_indices={normalize})")


def _is_static_slice_element(x) -> bool:
    # (A symbolic dimension is static too: the gather path takes it.)
    if x is None or isinstance(x, (int, np.integer)) or _symbolic(x):
        return True
    return type(x) is Array or isinstance(x, (np.ndarray, np.generic))


def _validate_slices(parsed) -> None:
    for position, p in enumerate(parsed):
        if p.kind is IndexKind.SLICE:
            s = p.index
            if not all(_is_static_slice_element(v) for v in (s.start, s.stop, s.step)):
                raise IndexError(f"Slice entries must be static integers. Got {s} at position {position}")


def _parse_mode(mode) -> GatherScatterMode:
    return GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)


def int_dtype_for_shape(shape) -> np.dtype:
    """int32 unless some axis is too long for it (a symbolic axis: the default int dtype, as JAX)."""
    for d in shape:
        if type(d) is not int and hasattr(d, "get_vars"):
            return np.dtype(dtypes.default_int_dtype())
        if d > _INT32_MAX:
            return np.dtype(np.int64)
    return np.dtype(np.int32)


# ---------------------------------------------------------------------------
# 1. static slices


class StaticSlice(NamedTuple):
    start_indices: list
    limit_indices: list
    strides: list | None
    rev_axes: list
    squeeze_axes: list
    newaxis_dims: list


def to_static_slice(parsed, shape, *, normalize: bool, mode) -> StaticSlice:
    """The static-slice form of `parsed`, or TypeError/ValueError/IndexError."""
    if any(_symbolic(d) for d in shape):
        raise ValueError("mode='slice' is not valid for polymorphic shapes.")
    if _parse_mode(mode) not in (GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        raise ValueError("static_slice requires mode='promise_in_bounds' or mode='clip'")
    if _parse_mode(mode) is GatherScatterMode.PROMISE_IN_BOUNDS:
        _validate_static_integers(parsed, shape, normalize)
    _validate_slices(parsed)
    for position, p in enumerate(parsed):
        if p.kind in (IndexKind.ARRAY, IndexKind.BOOLEAN):
            raise TypeError("static_slice: indices must be static scalars or slices. "
                            f"Got index of type {type(p.index)} at position {position}")
    starts, limits, strides, rev_axes, squeeze_axes, newaxis_dims = [], [], [], [], [], []
    for p in _expand_ellipses(parsed, len(shape)):
        if p.kind is IndexKind.NONE:
            # expand_dims numbers axes of the sliced-and-squeezed result, in order.
            newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
        elif p.kind is IndexKind.INTEGER:
            (axis,) = p.axes
            size = shape[axis]
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            start = int(p.index)
            if normalize and start < 0:
                start += size
            start = min(max(start, 0), size - 1)  # 'clip' mode lands here out of bounds
            starts.append(start)
            limits.append(start + 1)
            strides.append(1)
            squeeze_axes.append(axis)
        else:
            (axis,) = p.axes
            size = shape[axis]
            start, stop, step = p.index.indices(size)
            if step < 0:
                # Slice forwards over the same elements, then reverse.
                first = min(size, stop + 1 + abs(start - stop - 1) % abs(step))
                starts.append(first)
                limits.append(max(first, start + 1))
                strides.append(-step)
                rev_axes.append(axis)
            else:
                starts.append(start)
                limits.append(max(start, stop))
                strides.append(step)
    return StaticSlice(starts, limits, None if all(s == 1 for s in strides) else strides,
                       rev_axes, squeeze_axes, newaxis_dims)


def apply_static_slice(x, s: StaticSlice, shape):
    trivial = s.strides is None and all(
        (a, b) == (0, d) for a, b, d in zip(s.start_indices, s.limit_indices, shape))
    out = x if trivial else lax_shapes.slice(x, s.start_indices, s.limit_indices, s.strides)
    if s.rev_axes:
        out = lax_shapes.rev(out, s.rev_axes)
    if s.squeeze_axes:
        out = lax_shapes.squeeze(out, s.squeeze_axes)
    if s.newaxis_dims:
        out = lax_shapes.expand_dims(out, s.newaxis_dims)
    return out


# ---------------------------------------------------------------------------
# 2. dynamic slices


class DynamicSlice(NamedTuple):
    start_indices: list
    slice_sizes: list
    rev_axes: list
    squeeze_axes: list
    newaxis_dims: list
    trivial: bool


def to_dynamic_slice(parsed, shape, *, mode) -> DynamicSlice:
    """The dynamic-slice form of `parsed`, or TypeError/ValueError/IndexError."""
    from pyjax._src.numpy.creation import asarray

    if mode is not None and GatherScatterMode.from_any(mode) not in (
            GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        raise ValueError("dynamic_slice requires mode='promise_in_bounds' or mode='clip'")
    for position, p in enumerate(parsed):
        if p.kind is IndexKind.SLICE and p.index.step is not None and p.index.step not in (-1, 1):
            raise TypeError(f"dynamic_slice: only unit steps supported in slice. Got {p.index} at position {position}")
        if p.kind is IndexKind.ARRAY and (isinstance(p.index, Sequence) or np.shape(p.index) != ()):
            raise TypeError("dynamic_slice: only scalar indices allowed. "
                            f"Got index of type {type(p.index)} at position {position}")
        if p.kind is IndexKind.BOOLEAN:
            raise TypeError("dynamic_slice: indices must be scalars or slices. "
                            f"Got index of type {type(p.index)} at position {position}")
    starts, sizes, rev_axes, squeeze_axes, newaxis_dims = [], [], [], [], []
    trivial = True
    for p in _expand_ellipses(parsed, len(shape)):
        if p.kind is IndexKind.NONE:
            newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
        elif p.kind in (IndexKind.INTEGER, IndexKind.ARRAY):
            trivial = False
            (axis,) = p.axes
            if shape[axis] == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            starts.append(asarray(p.index))
            sizes.append(1)
            squeeze_axes.append(axis)
        else:
            if p.index != slice(None):
                trivial = False
            (axis,) = p.axes
            start, stop, step = p.index.indices(shape[axis])
            if step < 0:
                first = stop + 1 + abs(start - stop - 1) % abs(step)
                starts.append(first)
                sizes.append(max(0, start + 1 - first))
                rev_axes.append(axis)
            else:
                starts.append(start)
                sizes.append(max(0, stop - start))
    if len(starts) > 1:
        # dynamic_slice wants one index dtype for every start.
        dtype = int_dtype_for_shape(shape)
        starts = [convert_element_type(i, dtype, False) for i in starts]
    return DynamicSlice(starts, sizes, rev_axes, squeeze_axes, newaxis_dims, trivial)


def _symbolic(d) -> bool:
    return type(d) is not int and hasattr(d, "get_vars")


def _normalize_starts(starts, shape) -> list:
    # A symbolic axis: `select(i < 0, i + size, i)` with the size computed
    # first (dim_as_value), as JAX's dynamic_slice orders it.
    from pyjax._src.dim_as_value import dimension_as_value

    out = []
    for i, size in zip(starts, shape, strict=True):
        dtype = aval_of(i).dtype
        if np.issubdtype(dtype, np.unsignedinteger):
            out.append(i)
            continue
        d = (convert_element_type(dimension_as_value(size), dtype, False) if _symbolic(size)
             else np.asarray(size, dtype)[()])
        out.append(lax_ew.select(i < 0, i + d, i))
    return out


def _symbolic_slice(slc: slice, size):
    """(start, step, length) of `x[slc]` on an axis of `size`, either of
    which may be symbolic (the step's sign must be decidable)."""
    from pyjax._src import shape_poly

    def index(v):
        return v if _symbolic(v) else operator.index(v)

    step = index(slc.step) if slc.step is not None else 1
    if step == 0:
        raise ValueError("slice step cannot be zero")
    up = shape_poly.step_is_positive(step, "slice with non-constant elements")

    def clamp(i, which):
        try:
            nonneg = i >= 0
        except shape_poly.InconclusiveDimensionOperation as e:
            raise shape_poly.InconclusiveDimensionOperation(
                f"In slice with non-constant elements the {which} ({i}) must be resolved statically if it is "
                f">= 0.\nDetails: {e}") from None
        if nonneg:
            return shape_poly.dim_min(size if up else size - 1, i)
        return shape_poly.dim_max(0 if up else -1, size + i)

    start = (0 if up else size - 1) if slc.start is None else clamp(index(slc.start), "start")
    stop = (size if up else -1) if slc.stop is None else clamp(index(slc.stop), "stop")
    gap = step if up else -step
    length = shape_poly.dim_max(0, ((stop - start) if up else (start - stop)) + gap - 1) // gap
    return start, step, length


def apply_dynamic_slice(x, s: DynamicSlice, normalize: bool):
    shape = aval_of(x).shape
    if not s.trivial and normalize and any(_symbolic(d) for d in shape):
        out = lax_slicing.dynamic_slice(x, _normalize_starts(s.start_indices, shape), s.slice_sizes,
                                        allow_negative_indices=False)
    else:
        out = x if s.trivial else lax_slicing.dynamic_slice(x, s.start_indices, s.slice_sizes,
                                                            allow_negative_indices=normalize)
    if s.rev_axes:
        out = lax_shapes.rev(out, s.rev_axes)
    if s.squeeze_axes:
        out = lax_shapes.squeeze(out, s.squeeze_axes)
    if s.newaxis_dims:
        out = lax_shapes.expand_dims(out, s.newaxis_dims)
    return out


# ---------------------------------------------------------------------------
# 3. gather


class GatherIndexer(NamedTuple):
    """How `x[idx]` reads as one gather (and `x.at[idx]` writes as one scatter).

    slice_shape: the shape of `x[idx]`.
    gather_slice_shape: the gather's slice_sizes.
    gather_indices: the gather's index array (index vector last).
    dnums: the GatherDimensionNumbers.
    unique_indices / indices_are_sorted: known when no advanced index is used.
    reversed_y_dims: result axes to reverse (negative-step slices).
    newaxis_dims: result axes added by None.
    scalar_bool_dims: axes inserted for scalar boolean indices.
    """

    slice_shape: list
    gather_slice_shape: list
    gather_indices: Any
    dnums: GatherDimensionNumbers
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: list
    newaxis_dims: tuple
    scalar_bool_dims: list


def _normalize_index_array(index, size: int):
    # Negative entries count from the end; unsigned ones cannot be negative.
    dtype = aval_of(index).dtype
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return index
    if _symbolic(size):  # the axis size as a value first (dim_as_value), as JAX orders it
        from pyjax._src.dim_as_value import dimension_as_value

        d = convert_element_type(dimension_as_value(size), dtype, False)
        return lax_ew.select(lax_ew.lt(index, np.asarray(0, dtype)[()]), lax_ew.add(index, d), index)
    if isinstance(index, (np.ndarray, np.generic)):
        below = index < 0  # computed now, as NumPy: it enters the trace as a constant
    else:
        below = lax_ew.lt(index, np.asarray(0, dtype)[()])
    return lax_ew.select(below, lax_ew.add(index, np.asarray(size, dtype)[()]), index)


def _normalize_integer(index, size: int):
    if isinstance(index, np.unsignedinteger):
        return index
    return index + size if index < 0 else index


def _expand_scalar_bools(parsed, shape):
    # A scalar boolean adds an axis of length 1 (True) or 0 (False) that an
    # index array of arange(int(b)) then selects.
    new_shape = list(shape)
    out = []
    axis = 0
    for position, p in enumerate(parsed):
        if p.kind is IndexKind.BOOLEAN:
            new_shape.insert(position, 1)
            out.append(ParsedIndex(np.arange(int(p.index)), IndexKind.ARRAY, (axis,)))
            axis += 1
        else:
            out.append(ParsedIndex(p.index, p.kind, tuple(range(axis, axis + len(p.axes)))))
            axis += len(p.axes)
    return out, tuple(new_shape)


def _prepare_for_gather(parsed, shape, normalize: bool):
    # Sequences become arrays; ellipses and scalar booleans expand; integer
    # and array indices wrap (when `normalize`). Whether the advanced indices
    # stand together is read before the expansions, as NumPy reads it.
    from pyjax._src.numpy.creation import asarray

    _validate_slices(parsed)
    parsed = [ParsedIndex(asarray(p.index), p.kind, p.axes) if isinstance(p.index, Sequence) else p
              for p in parsed]
    advanced_positions = [k for k, p in enumerate(parsed) if p.kind in (IndexKind.ARRAY, IndexKind.INTEGER)]
    advanced_contiguous = bool(np.all(np.diff(advanced_positions) == 1))
    parsed = _expand_ellipses(parsed, len(shape))
    scalar_bool_dims = [k for k, p in enumerate(parsed) if p.kind is IndexKind.BOOLEAN]
    parsed, shape = _expand_scalar_bools(parsed, shape)
    if normalize:
        parsed = [
            ParsedIndex(_normalize_integer(p.index, shape[p.axes[0]]), p.kind, p.axes) if p.kind is IndexKind.INTEGER
            else ParsedIndex(_normalize_index_array(p.index, shape[p.axes[0]]), p.kind, p.axes)
            if p.kind is IndexKind.ARRAY else p
            for p in parsed
        ]
    return parsed, shape, advanced_contiguous, scalar_bool_dims


def _stack_gather_indices(gather_indices, gather_indices_shape, index_dtype):
    # The index arrays side by side along a new last axis, each broadcast
    # from the gather-indices axes it spans.
    if not gather_indices:
        return np.zeros((0,), dtype=index_dtype)
    if len(gather_indices) == 1:
        g, _ = gather_indices[0]
        return lax_shapes.expand_dims(g, (np.ndim(g) if not hasattr(g, "aval") else g.aval.ndim,))
    full_shape = tuple(gather_indices_shape) + (1,)
    return lax_shapes.concatenate(
        [lax_shapes.broadcast_in_dim(g, full_shape, tuple(range(i, i + aval_of(g).ndim)))
         for g, i in gather_indices], len(gather_indices_shape))


def to_gather(parsed, shape, *, normalize: bool = True) -> GatherIndexer:
    """The gather form of `parsed` (boolean masks already expanded)."""
    from pyjax._src.numpy.creation import array, asarray
    from pyjax._src.numpy.shape_ops import broadcast_arrays

    parsed, shape, advanced_contiguous, scalar_bool_dims = _prepare_for_gather(parsed, shape, normalize)

    # Advanced indexing happens when some integer/boolean index is an array.
    advanced = []  # (index, position in parsed, axis of x)
    if any(p.kind in (IndexKind.ARRAY, IndexKind.BOOLEAN) and np.ndim(p.index) > 0
           if not isinstance(p.index, core.Tracer) else p.index.aval.ndim > 0 for p in parsed):
        non_none = [(k, p) for k, p in enumerate(parsed) if p.kind is not IndexKind.NONE]
        advanced = [(asarray(p.index), k, j) for j, (k, p) in enumerate(non_none)
                    if p.kind in (IndexKind.ARRAY, IndexKind.INTEGER)]
    advanced_at = [k for _, k, _ in advanced]

    index_dtype = int_dtype_for_shape(shape)
    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims, collapsed_slice_dims, start_index_map = [], [], []
    gather_indices = []  # (array, first axis of gather_indices_shape it spans)
    gather_indices_shape = []
    slice_shape, newaxis_dims, reversed_y_dims, gather_slice_shape = [], [], [], []

    for position, p in enumerate(parsed):
        # The advanced indices enter together: where the first one stands if
        # they are contiguous, else in front (NumPy's rule).
        if advanced and position == (advanced_at[0] if advanced_contiguous else 0):
            arrays = broadcast_arrays(*[a for a, _, _ in advanced])
            adv_shape = list(aval_of(arrays[0]).shape)
            first = len(gather_indices_shape)
            gather_indices.extend((convert_element_type(a, index_dtype, False), first) for a in arrays)
            gather_indices_shape += adv_shape
            start_index_map.extend(j for _, _, j in advanced)
            collapsed_slice_dims.extend(j for _, _, j in advanced)
            slice_shape.extend(adv_shape)
            y_axis += len(adv_shape)
            collapsed_y_axis += len(adv_shape)
        if position in advanced_at:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if p.kind in (IndexKind.INTEGER, IndexKind.ARRAY) and np.ndim(p.index) == 0:
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            gather_indices.append((convert_element_type(p.index, index_dtype, False),
                                   len(gather_indices_shape)))
            collapsed_slice_dims.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif p.kind is IndexKind.NONE:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif p.kind is IndexKind.SLICE:
            size = shape[x_axis]
            if _symbolic(size) or any(_symbolic(v) for v in (p.index.start, p.index.stop, p.index.step)):
                start, step, length = _symbolic_slice(p.index, size)
            else:
                start, stop, step = p.index.indices(size)
                length = len(range(start, stop, step))
            slice_shape.append(length)
            if step == 1:
                # A unit-step slice is a window of the gather; a start index is
                # needed only when the window is not the whole axis.
                if length != size:
                    gather_indices.append((convert_element_type(start, index_dtype, False),
                                           len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(length)
                offset_dims.append(collapsed_y_axis)
            else:
                positions = lax_ew.add(array(start, dtype=index_dtype),
                                       lax_ew.mul(array(step, dtype=index_dtype),
                                                  lax_shapes.iota(index_dtype, length)))
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    positions = lax_shapes.rev(positions, (0,))
                gather_slice_shape.append(1)
                gather_indices.append((positions, len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(length)
                collapsed_slice_dims.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1
        else:
            raise IndexError(f"Got unsupported indexer at position {position}: {p!r}")

    indices = _stack_gather_indices(gather_indices, gather_indices_shape, index_dtype)
    dnums = GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                   collapsed_slice_dims=tuple(sorted(collapsed_slice_dims)),
                                   start_index_map=tuple(start_index_map))
    return GatherIndexer(slice_shape, gather_slice_shape, indices, dnums, not advanced, not advanced,
                         reversed_y_dims, tuple(newaxis_dims), scalar_bool_dims)


def _full(shape, value, dtype, weak_type=False):
    scalar = convert_element_type(value, dtype, weak_type)
    return lax_shapes.broadcast_in_dim(scalar, tuple(shape), ())


def _gather(x, parsed, *, indices_are_sorted, unique_indices, mode, fill_value, normalize):
    shape = aval_of(x).shape
    indexer = to_gather(parsed, shape, normalize=normalize)
    if fill_value is not None:
        if isinstance(fill_value, core.Tracer):
            raise errors.ConcretizationTypeError(
                fill_value, "fill_value argument to indexed get()")
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
    y = x
    if indexer.scalar_bool_dims:
        y = lax_shapes.expand_dims(y, indexer.scalar_bool_dims)
    if 0 in indexer.slice_shape:
        # Nothing to read (and XLA would refuse some empty gathers).
        aval = aval_of(y)
        return _full(indexer.slice_shape, 0, aval.dtype, aval.weak_type)
    if 0 not in np.shape(indexer.gather_indices) if not hasattr(indexer.gather_indices, "aval") \
            else 0 not in indexer.gather_indices.aval.shape:
        y = gather(y, indexer.gather_indices, indexer.dnums, indexer.gather_slice_shape,
                   unique_indices=unique_indices or indexer.unique_indices,
                   indices_are_sorted=indices_are_sorted or indexer.indices_are_sorted,
                   mode=mode, fill_value=fill_value)
    if indexer.reversed_y_dims:
        y = lax_shapes.rev(y, indexer.reversed_y_dims)
    return lax_shapes.expand_dims(y, indexer.newaxis_dims)


def rewriting_take(x, idx, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
                   normalize_indices=True, out_sharding=None):
    """`x[idx]` (and `x.at[idx].get(...)`): static slice, dynamic slice or gather."""
    shape = aval_of(x).shape
    parsed = parse_indices(idx, shape)
    # (JAX: an Array placed over several devices is indexed by a gather where
    # the index is partial, its slices would misplace the result)
    slices = not (_is_sharded(x) and _has_partial_slices(parsed, shape))
    try:
        static = to_static_slice(parsed, shape, normalize=normalize_indices, mode=mode) if slices else None
    except (TypeError, ValueError, IndexError):
        static = None
    if static is not None:
        return apply_static_slice(x, static, shape)
    try:
        dynamic = to_dynamic_slice(parsed, shape, mode=mode) if slices else None
    except (TypeError, ValueError, IndexError):
        dynamic = None
    if dynamic is not None:
        return apply_dynamic_slice(x, dynamic, normalize_indices)
    if out_sharding is not None:  # (JAX: only a gather runs under auto_axes, then resharded)
        from pyjax._src.numpy.at import under_auto_axes

        def take(x, idx):
            return rewriting_take(x, idx, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                                  mode=mode, fill_value=fill_value, normalize_indices=normalize_indices)

        return under_auto_axes(take, out_sharding, (x,), idx)
    parsed = expand_bool_indices(parsed, shape)
    return _gather(x, parsed, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                   mode=mode, fill_value=fill_value, normalize=normalize_indices)


def _is_sharded(x) -> bool:
    # (JAX asks whether x is its ArrayImpl: a key array, a PRNGKeyArray there, never is, so it takes slices)
    sharding = getattr(x, "sharding", None) if type(x) is not Array and isinstance(x, Array) else None
    return sharding is not None and len(sharding.device_set) > 1 and not isinstance(x.dtype, dtypes.ExtendedDType)


def _has_partial_slices(parsed, shape) -> bool:
    # An integer, or a slice not covering its whole axis with step +-1.
    for p in parsed:
        if p.kind is IndexKind.INTEGER:
            return True
        if p.kind is IndexKind.SLICE:
            start, stop, step = p.index.indices(shape[p.axes[0]])
            if abs(step) != 1 or abs(stop - start) != shape[p.axes[0]]:
                return True
    return False


_INDEX_PLANS: dict = {}  # (aval, index key) -> (NumPy index, result aval) or False


def _entry_key(e):
    # Types are part of the key (True == 1 == 1.0 as dict keys); slices are
    # unhashable before Python 3.12, so they become tuples.
    if type(e) is slice:
        return (slice, type(e.start), e.start, type(e.stop), e.stop, type(e.step), e.step)
    return (type(e), e)


def _index_key(index):
    if type(index) is tuple:
        return tuple(_entry_key(e) for e in index)
    return _entry_key(index)


def getitem(x, index, check_keys: bool = True):
    """x[index] with NumPy's basic and advanced indexing (see the module docstring).
    `check_keys=False`: a key array's rows are read without key-reuse checks
    (eager iteration, which in JAX consumes nothing)."""
    if type(x) is Array and dispatch.active_trace() is None:
        # Eager fast path for static basic indices (ints, slices, None, ...):
        # the elements the static slice would select, read with NumPy, under
        # a cached plan (JAX's clamping of out-of-range integers included).
        aval = x.aval
        try:
            key = (aval, _index_key(index))
            plan = _INDEX_PLANS.get(key)
        except TypeError:  # an unhashable index: arrays, lists
            plan = False
        else:
            if plan is None:
                plan = _static_plan(aval, index)
                if len(_INDEX_PLANS) >= 4096:
                    _INDEX_PLANS.clear()
                _INDEX_PLANS[key] = plan
        if plan:
            np_index, out_aval, keys = plan
            if not (keys and check_keys and config.debug_key_reuse.value):  # (key reuse checked: through slice, as JAX)
                value = x._value[np_index]
                return Array(value if type(value) is np.ndarray else np.asarray(value), out_aval)
    return rewriting_take(x, index)


def _static_plan(aval, index):
    plan = static_index_plan(aval.shape, index)
    if plan is None:
        return False
    np_index, shape = plan
    return np_index, ShapedArray(shape, aval.dtype, aval.weak_type), dtypes.issubdtype(aval.dtype, dtypes.prng_key)


def static_index_plan(shape, index):
    """For `x[index]` with `index` made of Python ints, slices of ints, None
    and Ellipsis only: the NumPy index that selects the same elements as
    jax.numpy's static slicing (integers normalised and clamped into
    range, as JAX does, instead of raising) and the result's shape; None
    for any other index."""
    entries = index if type(index) is tuple else (index,)
    n_axes = 0
    for e in entries:
        t = type(e)
        if t is int:
            n_axes += 1
        elif t is slice:
            if not all(v is None or type(v) is int for v in (e.start, e.stop, e.step)) or e.step == 0:
                return None
            n_axes += 1
        elif e is not None and e is not Ellipsis:
            return None
    if n_axes > len(shape) or sum(e is Ellipsis for e in entries) > 1:
        return None
    out, axis = [], 0
    for e in entries:
        if type(e) is int:
            size = shape[axis]
            if size == 0:
                return None
            i = e + size if e < 0 else e
            out.append(min(max(i, 0), size - 1))
            axis += 1
        elif type(e) is slice:
            out.append(e)
            axis += 1
        elif e is Ellipsis:
            out.append(e)
            axis = len(shape) - (n_axes - axis)
        else:
            out.append(None)
    np_index = tuple(out)
    return np_index, np.broadcast_to(np.empty((), np.bool_), shape)[np_index].shape
