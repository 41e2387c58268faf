"""Gather and scatter: XLA's general indexed reads and writes.

`gather` reads one window of `slice_sizes` per index vector (the last axis
of `start_indices`); `scatter*` combine windows of `updates` into a copy of
the operand. The dimension-number tuples say which axes are windows, which
are collapsed (size-1 axes dropped from the result) and which are batch axes
shared by operand and indices. The mode says what an out-of-bounds window
does: CLIP moves it back inside, FILL_OR_DROP fills it (gather) or drops it
(scatter), PROMISE_IN_BOUNDS leaves it to XLA (which clamps gathers and
drops scatters).

The scatter primitives carry the combining function as a jaxpr
(`update_jaxpr`, traced once per function and dtype and shared, as in JAX)
plus its constants; plain `scatter` replaces and carries None.
"""

from __future__ import annotations

import contextvars
import enum
import functools
import itertools
import operator
import weakref
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from pyjax._src import core as _core
from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching as _batching
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax import sharding_rules
from pyjax._src.lax import batching_util as _batching_util
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes

__all__ = [
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
    "gather",
    "gather_p",
    "index_take",
    "scatter",
    "scatter_add",
    "scatter_add_p",
    "scatter_apply",
    "scatter_max",
    "scatter_max_p",
    "scatter_min",
    "scatter_min_p",
    "scatter_mul",
    "scatter_mul_p",
    "scatter_p",
    "scatter_sub",
    "scatter_sub_p",
]


# ---------------------------------------------------------------------------
# Small helpers shared with slicing.py


def shape_of(x) -> tuple:
    aval = getattr(x, "aval", None)
    return aval.shape if aval is not None else np.shape(x)


def dtype_of(x) -> np.dtype:
    """The canonical dtype a value would have as an operand."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype
    if type(x) in dtypes.python_scalar_types_to_dtypes:
        return dtypes.canonicalize_dtype(dtypes.python_scalar_types_to_dtypes[type(x)])
    return dtypes.canonicalize_dtype(np.result_type(x))


def check_same_dtypes_no_tip(name: str, *avals: ShapedArray) -> None:
    # JAX names a promoting jnp function only for elementwise ops; for these
    # structural ops its message stops after the dtypes.
    if any(a.dtype != avals[0].dtype for a in avals[1:]):
        got = ", ".join(str(a.dtype) for a in avals)
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {got}.")


# ---------------------------------------------------------------------------
# Dimension numbers and modes


class GatherDimensionNumbers(NamedTuple):
    """How the axes of `operand`, `start_indices` and the gather output relate.

    offset_dims: output axes that index into a window (sorted).
    collapsed_slice_dims: operand axes of window size 1 dropped from the output.
    start_index_map: for each entry of an index vector, the operand axis it starts.
    operand_batching_dims / start_indices_batching_dims: paired batch axes of
      the operand and of the indices (window size 1 in the operand).

    The index vector is always the last axis of `start_indices`.
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How the axes of `operand`, `scatter_indices` and `updates` relate.

    update_window_dims: axes of `updates` that are window axes (sorted).
    inserted_window_dims: operand axes of window size 1 absent from `updates`.
    scatter_dims_to_operand_dims: for each entry of an index vector, the operand
      axis it starts.
    operand_batching_dims / scatter_indices_batching_dims: paired batch axes.

    The index vector is always the last axis of `scatter_indices`.
    """

    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """What gather/scatter do with windows that fall outside the operand.

    CLIP: starts are clamped so the whole window is in bounds.
    FILL_OR_DROP: gather returns `fill_value` for the whole window; scatter
      drops the whole window.
    PROMISE_IN_BOUNDS: the caller promises in-bounds indices (XLA clamps
      gathers and drops scatters).
    ONE_HOT: accepted for JAX compatibility; not executable on the NumPy backend.
    """

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


# ---------------------------------------------------------------------------
# Dimension-number checks (XLA's shape inference, with JAX's messages)


def _check_sorted(dims, op: str, name: str) -> None:
    if any(b < a for a, b in itertools.pairwise(dims)):
        raise TypeError(f"{name} in {op} op must be sorted; got {dims}")


def _check_in_range(dims, rank: int, op: str, name: str) -> None:
    for d in dims:
        if not 0 <= d < rank:
            raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {d}.")


def _check_sorted_in_range(dims, rank: int, op: str, name: str) -> None:
    # Only the ends of a sorted list can be out of range.
    if dims:
        bad = dims[0] if dims[0] < 0 else (dims[-1] if dims[-1] >= rank else None)
        if bad:
            raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {bad}.")


def _check_batching_dims(op: str, indices_dims_name: str, joiner: str, operand, indices, operand_batching,
                         indices_batching, index_vector_dim) -> tuple:
    # The batching-dimension checks gather and scatter share, in JAX's order
    # and words; returns the operand's batch shape.
    if index_vector_dim in indices_batching:
        raise TypeError(f"{op} op cannot have the index vector dimension as a batching dimension; "
                        f"got {indices_batching}.")
    if len(operand_batching) != len(indices_batching):
        raise TypeError(f"{op} op requires equal numbers of operand_batching_dims and {indices_dims_name}, "
                        f"got {operand_batching} {joiner}{indices_batching}.")
    operand_batch_shape = tuple(operand.shape[i] for i in operand_batching)
    indices_batch_shape = tuple(indices.shape[i] for i in indices_batching)
    if operand_batch_shape != indices_batch_shape:
        raise TypeError(f"{op} op requires operand batching dimensions and indices batching dimensions to "
                        f"have the same shape, got {operand_batch_shape} and {indices_batch_shape}.")
    return operand_batch_shape


def _check_unique(dims, op: str, name: str) -> None:
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _check_disjoint(dims1, dims2, op: str, name1: str, name2: str) -> None:
    if set(dims1) & set(dims2):
        raise TypeError(f"{name1} and {name2} in {op} op must be disjoint; got: {dims1} and {dims2}.")


def _gather_shape(indices: ShapedArray, dnums: GatherDimensionNumbers, slice_sizes) -> tuple:
    batch_shape = iter(indices.shape[:-1])
    window = iter(s for i, s in enumerate(slice_sizes)
                  if i not in dnums.collapsed_slice_dims and i not in dnums.operand_batching_dims)
    rank = len(dnums.offset_dims) + indices.ndim - 1
    return tuple(next(window) if i in dnums.offset_dims else next(batch_shape) for i in range(rank))


def _check_gather(operand: ShapedArray, indices: ShapedArray, dnums: GatherDimensionNumbers, slice_sizes) -> None:
    offset_dims = dnums.offset_dims
    collapsed = dnums.collapsed_slice_dims
    start_index_map = dnums.start_index_map
    operand_batching = dnums.operand_batching_dims
    indices_batching = dnums.start_indices_batching_dims
    index_vector_dim = indices.ndim - 1
    if index_vector_dim < 0:
        raise TypeError(
            "Gather index leaf dimension must be within [0, rank(indices) + 1). rank(indices) is "
            f"{indices.ndim} and gather index leaf dimension is {index_vector_dim}."
        )
    _check_sorted(offset_dims, "gather", "offset_dims")
    _check_unique(offset_dims, "gather", "offset_dims")
    output_rank = len(offset_dims) + indices.ndim - 1
    for i, d in enumerate(offset_dims):
        if not 0 <= d < output_rank:
            raise TypeError(
                f"Offset dimension {i} in gather op is out of bounds; got {d}, but should have been in [0, {output_rank})"
            )
    if len(start_index_map) != indices.shape[index_vector_dim]:
        raise TypeError(
            f"Gather op has {len(start_index_map)} elements in start_index_map and the bound of dimension "
            f"index_vector_dim={index_vector_dim} of indices is {indices.shape[index_vector_dim]}. These two "
            "numbers must be equal."
        )
    for i, d in enumerate(start_index_map):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: {i}->{d}.")
    _check_unique(start_index_map, "gather", "start_index_map")
    _check_sorted(collapsed, "gather", "collapsed_slice_dims")
    _check_sorted_in_range(collapsed, operand.ndim, "gather", "collapsed_slice_dims")
    _check_unique(collapsed, "gather", "collapsed_slice_dims")
    _check_unique(operand_batching, "gather", "operand_batching_dims")
    _check_sorted(operand_batching, "gather", "operand_batching_dims")
    _check_sorted_in_range(operand_batching, operand.ndim, "gather", "operand_batching_dims")
    _check_disjoint(collapsed, operand_batching, "gather", "collapsed_slice_dims", "operand_batching_dims")
    _check_disjoint(start_index_map, operand_batching, "gather", "start_index_map", "operand_batching_dims")
    _check_unique(indices_batching, "gather", "start_indices_batching_dims")
    _check_in_range(indices_batching, indices.ndim, "gather", "start_indices_batching_dims")
    # (JAX's gather message lacks the space before the second tuple.)
    _check_batching_dims("Gather", "start_indices_batching_dims", "and", operand, indices, operand_batching,
                         indices_batching, index_vector_dim)
    if operand.ndim != len(slice_sizes):
        raise TypeError(
            "Gather op must have one slice size for every input dimension; got: "
            f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}"
        )
    if len(slice_sizes) != len(offset_dims) + len(collapsed) + len(operand_batching):
        raise TypeError(
            "All components of the offset index in a gather op must either be a offset dimension or "
            f"explicitly collapsed/batching; got len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
            f"{offset_dims}, collapsed_slice_dims={collapsed}, operand_batching_dims={operand_batching}."
        )
    indices_empty = any(d == 0 for d in indices.shape)
    for i, (size, bound) in enumerate(zip(slice_sizes, operand.shape, strict=True)):
        if not indices_empty and not 0 <= size <= bound:
            raise TypeError(
                f"Slice size at index {i} in gather op is out of range, must be within [0, {bound} + 1), got {size}."
            )
    for i, d in enumerate(collapsed):
        if slice_sizes[d] != 1:
            raise TypeError(
                "Gather op can only collapse slice dims with bound 1, but bound is "
                f"{slice_sizes[d]} for index {d} at position {i}."
            )
    for i, d in enumerate(operand_batching):
        if slice_sizes[d] > 1:
            raise TypeError(
                "Gather op can only have operand batching dims with bound 0/1, but bound is "
                f"{slice_sizes[d]} for index {d} at position {i}."
            )


# ---------------------------------------------------------------------------
# gather

gather_p = Primitive("gather")
gather_p.declare(key_reuse=_key_reuse.FORWARD)


@gather_p.def_abstract_eval
def _gather_abstract_eval(operand: ShapedArray, indices: ShapedArray, *, dimension_numbers, slice_sizes,
                          unique_indices, indices_are_sorted, mode, fill_value) -> ShapedArray:
    _check_gather(operand, indices, dimension_numbers, slice_sizes)
    shape = _gather_shape(indices, dimension_numbers, slice_sizes)
    if not np.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must have an integer type")
    return ShapedArray(shape, operand.dtype, operand.weak_type)


gather_p.def_sharding_rule(sharding_rules.gather_rule)


def default_fill_value(dtype: np.dtype):
    """The value FILL_OR_DROP gathers use when none is given: NaN for inexact
    types, the most negative value for signed integers, the largest for
    unsigned integers, True for booleans."""
    if dtypes.issubdtype(dtype, np.inexact):
        return np.nan
    if np.issubdtype(dtype, np.signedinteger):
        return int(np.iinfo(dtype).min)
    if np.issubdtype(dtype, np.unsignedinteger):
        return int(np.iinfo(dtype).max)
    if dtype == np.bool_:
        return True
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers, slice_sizes: Sequence[int], *,
           unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: str | GatherScatterMode | None = None, fill_value=None):
    """Wraps XLA's Gather: one window of `slice_sizes` per index vector.

    Args:
      operand: the array to read from.
      start_indices: integer array whose last axis holds the index vectors.
      dimension_numbers: a GatherDimensionNumbers.
      slice_sizes: the window size along each operand axis.
      unique_indices, indices_are_sorted: promises that may speed up backends.
      mode: 'clip', 'fill' (or 'drop'), 'promise_in_bounds' (the default) or a
        GatherScatterMode.
      fill_value: what out-of-bounds windows read in 'fill' mode (by default
        NaN, the most negative integer, the largest unsigned integer or True).

    Example: ``x[idx]`` for a vector ``x`` is ``gather(x, idx[:, None],
    GatherDimensionNumbers((), (0,), (0,)), (1,))``.
    """
    parsed = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if parsed == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = default_fill_value(dtype_of(operand))
    else:
        fill_value = None
    return gather_p.bind(
        operand, start_indices, dimension_numbers=dimension_numbers,
        slice_sizes=tuple(s if hasattr(s, "get_vars") else operator.index(s) for s in slice_sizes),
        unique_indices=bool(unique_indices), indices_are_sorted=bool(indices_are_sorted),
        mode=parsed, fill_value=fill_value,
    )


def index_take(src, idxs, axes: Sequence[int]):
    """Takes `src` at the integer arrays `idxs`, one per axis in `axes`;
    indices wrap modulo the axis size."""
    indices = shapes.concatenate([shapes.expand_dims(i, (1,)) for i in idxs], 1)
    src_shape = shape_of(src)
    bounds = shapes.expand_dims(np.array([src_shape[a] for a in axes]), tuple(range(len(shape_of(indices)) - 1)))
    indices = indices % bounds
    slice_sizes = list(src_shape)
    for a in axes:
        slice_sizes[a] = 1
    offset_dims = tuple(range(1, len(src_shape) - shape_of(indices)[1] + 1))
    dnums = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(axes),
                                   start_index_map=tuple(axes))
    return gather(src, indices, dimension_numbers=dnums, slice_sizes=tuple(slice_sizes))


# ---------------------------------------------------------------------------
# scatter and its combining variants


def _check_scatter(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray,
                   dnums: ScatterDimensionNumbers) -> None:
    window_dims = dnums.update_window_dims
    inserted = dnums.inserted_window_dims
    operand_batching = dnums.operand_batching_dims
    indices_batching = dnums.scatter_indices_batching_dims
    to_operand = dnums.scatter_dims_to_operand_dims
    index_vector_dim = indices.ndim - 1
    if index_vector_dim < 0:
        raise TypeError(
            "Scatter index leaf dimension must be within [0, rank(indices) + 1). rank(indices) is "
            f"{indices.ndim} and scatter index leaf dimension is {index_vector_dim}."
        )
    expected_rank = indices.ndim - 1 + len(window_dims)
    if updates.ndim != expected_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_rank}; got {updates.ndim}.")
    _check_sorted(window_dims, "scatter", "update_window_dims")
    _check_unique(window_dims, "scatter", "update_window_dims")
    _check_sorted_in_range(window_dims, updates.ndim, "scatter", "update_window_dims")
    _check_sorted(inserted, "scatter", "inserted_window_dims")
    _check_unique(inserted, "scatter", "inserted_window_dims")
    _check_sorted_in_range(inserted, operand.ndim, "scatter", "inserted_window_dims")
    _check_sorted(operand_batching, "scatter", "operand_batching_dims")
    _check_unique(operand_batching, "scatter", "operand_batching_dims")
    _check_sorted_in_range(operand_batching, operand.ndim, "scatter", "operand_batching_dims")
    _check_disjoint(inserted, operand_batching, "scatter", "inserted_window_dims", "operand_batching_dims")
    _check_disjoint(to_operand, operand_batching, "scatter", "scatter_dims_to_operand_dims", "operand_batching_dims")
    _check_unique(indices_batching, "scatter", "scatter_indices_batching_dims")
    _check_in_range(indices_batching, indices.ndim, "scatter", "scatter_indices_batching_dims")
    operand_batch_shape = _check_batching_dims("Scatter", "scatter_indices_batching_dims", "and ", operand, indices,
                                               operand_batching, indices_batching, index_vector_dim)
    # The scatter (non-window) axes of `updates` are the indices' batch axes, in order.
    scatter_axes_of_updates = [d for d in range(updates.ndim) if d not in window_dims]
    updates_batch_shape = tuple(updates.shape[scatter_axes_of_updates[i]] for i in indices_batching)
    if operand_batch_shape != updates_batch_shape:
        raise TypeError(
            "Scatter op requires operand batching dimensions and updates batching dimensions to have the "
            f"same shape, got {operand_batch_shape} and {updates_batch_shape}."
        )
    window_size = len(window_dims) + len(inserted) + len(operand_batching)
    if operand.ndim != window_size:
        raise TypeError(f"Scatter op has window of size {window_size}; doesn't match operand of rank {operand.ndim}.")
    if len(to_operand) != indices.shape[index_vector_dim]:
        raise TypeError(
            f"Scatter op has {len(to_operand)} elements in scatter_dims_to_operand_dims and the bound of "
            f"dimension index_vector_dim={index_vector_dim} of indices is {indices.shape[index_vector_dim]}. "
            "These two numbers must be equal"
        )
    for i, d in enumerate(to_operand):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid scatter_dims_to_operand_dims mapping; domain is [0, {operand.ndim}), got: {i}->{d}.")
    _check_unique(to_operand, "scatter", "scatter_dims_to_operand_dims")
    window_bounds = [s for i, s in enumerate(operand.shape) if i not in inserted and i not in operand_batching]
    for bound, d in zip(window_bounds, window_dims, strict=True):
        if bound < updates.shape[d]:
            raise TypeError(
                "Bounds of the window dimensions of updates must not exceed the bounds of the corresponding "
                f"dimensions of operand. For dimension {d}, updates bound is {updates.shape[d]}, operand "
                f"bound is {bound}."
            )
    for d, bound in zip(scatter_axes_of_updates, indices.shape[:-1], strict=True):
        if updates.shape[d] != bound:
            raise TypeError(
                "Bounds of the scatter dimensions of updates must be the same as the bounds of the "
                f"corresponding dimensions of scatter indices. For scatter dimension {d}, updates bound is "
                f"{updates.shape[d]}, indices bound is {bound}."
            )


def _scatter_abstract_eval(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray, *, update_jaxpr,
                           update_consts, dimension_numbers, indices_are_sorted, unique_indices,
                           mode) -> ShapedArray:
    _check_scatter(operand, indices, updates, dimension_numbers)
    if not np.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must have an integer type")
    check_same_dtypes_no_tip("scatter", operand, updates)
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _scatter_primitive(name: str) -> Primitive:
    primitive = Primitive(name)
    primitive.def_abstract_eval(_scatter_abstract_eval)
    primitive.def_sharding_rule(sharding_rules.scatter_rule)
    return primitive


scatter_p = _scatter_primitive("scatter")
scatter_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Sink(2), _key_reuse.Forward(0, 0)))
scatter_add_p = _scatter_primitive("scatter-add")
scatter_sub_p = _scatter_primitive("scatter-sub")
scatter_mul_p = _scatter_primitive("scatter-mul")
scatter_min_p = _scatter_primitive("scatter-min")
scatter_max_p = _scatter_primitive("scatter-max")


# JAX keys its cache of combining jaxprs on the trace context, which differs
# while a backward pass replays equations: scatters made by transpose rules
# share one jaxpr among themselves, not with the forward ones. Set by the
# transpose rules at the end of this file.
_transposing: contextvars.ContextVar = contextvars.ContextVar("pyjax_scatter_transposing", default=False)


def _combiner_jaxpr(computation: Callable, aval: ShapedArray):
    """`computation(x, y)` on two scalars of `aval`, traced once and shared:
    every scatter of one kind and dtype holds the same jaxpr object (which
    is why a program with two of them prints it once, as `let jaxpr = ...`)."""
    return _cached_combiner_jaxpr(computation, aval, _transposing.get())


@functools.cache
def _cached_combiner_jaxpr(computation: Callable, aval: ShapedArray, transposing: bool):
    jaxpr, _ = trace_to_jaxpr(lambda x, y: [computation(x, y)], [aval, aval])
    return jaxpr, tuple(jaxpr.consts)


def _combiner_aval(operand) -> ShapedArray:
    return ShapedArray((), dtype_of(operand), type(operand) in dtypes.python_scalar_types_to_dtypes)


def _bind_scatter(primitive: Primitive, computation: Callable | None, operand, scatter_indices, updates,
                  dimension_numbers, indices_are_sorted, unique_indices, mode):
    if computation is None:
        jaxpr, consts = None, ()
    else:
        jaxpr, consts = _combiner_jaxpr(computation, _combiner_aval(operand))
    return primitive.bind(
        operand, scatter_indices, updates, update_jaxpr=jaxpr, update_consts=consts,
        dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, mode=GatherScatterMode.from_any(mode),
    )


_SCATTER_ARGS_DOC = """
    Args:
      operand: the array to scatter into (it is not modified; a new array is returned).
      scatter_indices: integer array whose last axis holds the index vectors.
      updates: the windows to combine into `operand`.
      dimension_numbers: a ScatterDimensionNumbers.
      indices_are_sorted, unique_indices: promises that may speed up backends.
      mode: 'clip', 'fill'/'drop' (the default: out-of-bounds windows are
        dropped), 'promise_in_bounds', or a GatherScatterMode.
"""


def scatter(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
            indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | GatherScatterMode | None = None):
    """Wraps XLA's Scatter where updates replace the operand's values; when
    several updates hit one element, the last one wins (on this backend).
    """
    return _bind_scatter(scatter_p, None, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_add(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None):
    """Wraps XLA's Scatter, adding updates to the operand; updates that hit
    one element all accumulate.

    Example: ``scatter_add(jnp.zeros(3), jnp.array([[1], [1]]), jnp.ones(2),
    ScatterDimensionNumbers((), (0,), (0,)))`` is ``[0., 2., 0.]``.
    """
    return _bind_scatter(scatter_add_p, ew.add, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None):
    """Wraps XLA's Scatter, subtracting updates from the operand (accumulating)."""
    return _bind_scatter(scatter_sub_p, ew.sub, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_mul(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None):
    """Wraps XLA's Scatter, multiplying the operand by the updates (accumulating)."""
    return _bind_scatter(scatter_mul_p, ew.mul, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_min(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None):
    """Wraps XLA's Scatter, keeping the minimum of the operand and every update."""
    return _bind_scatter(scatter_min_p, ew.min, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_max(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None):
    """Wraps XLA's Scatter, keeping the maximum of the operand and every update."""
    return _bind_scatter(scatter_max_p, ew.max, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


for _wrapper in (scatter, scatter_add, scatter_sub, scatter_mul, scatter_min, scatter_max):
    _wrapper.__doc__ += _SCATTER_ARGS_DOC

# One combining function per user function, so repeated scatter_apply calls
# with one `func` reuse one traced jaxpr.
_apply_combiners: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def scatter_apply(operand, scatter_indices, func: Callable, dimension_numbers: ScatterDimensionNumbers, *,
                  update_shape: Sequence[int] = (), indices_are_sorted: bool = False,
                  unique_indices: bool = False, mode: str | GatherScatterMode | None = None):
    """Replaces the operand's values at the scattered positions with
    ``func(value)``; an element hit k times gets ``func`` applied k times.

    `update_shape` is the shape the (unused) updates would have.
    """
    dtype = dtype_of(operand)
    update_shape = tuple(operator.index(d) for d in update_shape)
    zero = np.zeros((), dtype)[()]
    placeholder = zero if not update_shape else shapes.broadcast_in_dim(zero, update_shape, ())
    combiner = lambda x, _: func(x)
    try:
        combiner = _apply_combiners.setdefault(func, combiner)
    except TypeError:  # not weakly referenceable: trace afresh each time
        pass
    jaxpr, consts = _combiner_jaxpr(combiner, ShapedArray((), dtype))
    return scatter_p.bind(
        operand, scatter_indices, placeholder, update_jaxpr=jaxpr, update_consts=consts,
        dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, mode=GatherScatterMode.from_any(mode),
    )


# ---------------------------------------------------------------------------
# Batching rules. Gather and scatter have batch axes of their own
# (operand_batching_dims paired with start/scatter_indices_batching_dims), so
# vmap needs no loop. With only the operand batched, the batch axis becomes
# a leading window axis (read or written whole); with only the indices
# batched, it becomes a leading index axis; with both, it becomes a leading
# batching-dims pair. Batch axes go to the front and the dimension numbers
# shift by one past them, computed with NumPy where JAX 0.11 does so that
# the staged dimension numbers print the same (np.int64 entries).



def _shift_dims(dims) -> tuple:
    return tuple(np.add(1, dims))


def _batch_at_front(x, d, size: int):
    # JAX's batching.bdim_at_front: an unbatched value is broadcast to `size`
    # (NumPy dimension numbers), a batched one has its axis moved to 0.
    if d is _batching.not_mapped:
        return _batching_util.broadcast_batch(x, size, 0)
    return _batching_util.moveaxis(x, d, 0)


def _gather_batch(axis_data, args, dims, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted,
                  mode, fill_value):
    operand, indices = args
    operand_dim, indices_dim = dims
    dnums = dimension_numbers
    not_mapped = _batching.not_mapped
    if indices_dim is not_mapped:
        # operand: (B, ...) -> every window spans the whole batch axis, which
        # comes out as the first offset axis of the result.
        operand = _batching_util.moveaxis(operand, operand_dim, 0)
        new = GatherDimensionNumbers(
            offset_dims=(0,) + _shift_dims(dnums.offset_dims),
            collapsed_slice_dims=_shift_dims(dnums.collapsed_slice_dims),
            start_index_map=_shift_dims(dnums.start_index_map),
            operand_batching_dims=_shift_dims(dnums.operand_batching_dims),
            start_indices_batching_dims=dnums.start_indices_batching_dims)
        sizes = (_core.get_aval(operand).shape[0],) + tuple(slice_sizes)
        return gather(operand, indices, new, sizes, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted, mode=mode, fill_value=fill_value), 0
    if operand_dim is not_mapped:
        # indices: (B, ..., k) -> one more leading index axis; the examples may
        # now repeat or interleave indices, so no sortedness or uniqueness.
        indices = _batching_util.moveaxis(indices, indices_dim, 0)
        new = GatherDimensionNumbers(
            offset_dims=tuple(d + 1 for d in dnums.offset_dims),
            collapsed_slice_dims=dnums.collapsed_slice_dims,
            start_index_map=dnums.start_index_map,
            operand_batching_dims=dnums.operand_batching_dims,
            start_indices_batching_dims=_shift_dims(dnums.start_indices_batching_dims))
        return gather(operand, indices, new, slice_sizes, unique_indices=False, indices_are_sorted=False,
                      mode=mode, fill_value=fill_value), 0
    # Both batched: operand axis 0 pairs with indices axis 0 (a window of 1,
    # or of 0 for an empty batch).
    operand = _batching_util.moveaxis(operand, operand_dim, 0)
    indices = _batching_util.moveaxis(indices, indices_dim, 0)
    batch = _core.get_aval(operand).shape[0]
    new = GatherDimensionNumbers(
        offset_dims=_shift_dims(dnums.offset_dims),
        collapsed_slice_dims=_shift_dims(dnums.collapsed_slice_dims),
        start_index_map=_shift_dims(dnums.start_index_map),
        operand_batching_dims=(0,) + _shift_dims(dnums.operand_batching_dims),
        start_indices_batching_dims=(0,) + _shift_dims(dnums.start_indices_batching_dims))
    sizes = (0 if batch == 0 else 1,) + tuple(slice_sizes)
    return gather(operand, indices, new, sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=fill_value), 0


gather_p.def_batch(_gather_batch)


def _scatter_batch(primitive):
    def rule(axis_data, args, dims, *, update_jaxpr, update_consts, dimension_numbers, indices_are_sorted,
             unique_indices, mode):
        operand, indices, updates = args
        operand_dim, indices_dim, updates_dim = dims
        dnums = dimension_numbers
        size = axis_data.size
        # operand: (B, ...) always (each example writes its own copy);
        # updates: (B, ...) with the batch axis as a window or batch axis.
        operand = _batch_at_front(operand, operand_dim, size)
        updates = _batch_at_front(updates, updates_dim, size)
        if indices_dim is _batching.not_mapped:
            # The same windows in every example: the batch axis is one more
            # window axis, written whole.
            new = ScatterDimensionNumbers(
                update_window_dims=(0,) + _shift_dims(dnums.update_window_dims),
                inserted_window_dims=_shift_dims(dnums.inserted_window_dims),
                scatter_dims_to_operand_dims=_shift_dims(dnums.scatter_dims_to_operand_dims),
                operand_batching_dims=_shift_dims(dnums.operand_batching_dims),
                scatter_indices_batching_dims=dnums.scatter_indices_batching_dims)
        else:
            # indices: (B, ..., k), paired with operand axis 0 as batching dims.
            indices = _batch_at_front(indices, indices_dim, size)
            new = ScatterDimensionNumbers(
                update_window_dims=_shift_dims(dnums.update_window_dims),
                inserted_window_dims=_shift_dims(dnums.inserted_window_dims),
                scatter_dims_to_operand_dims=_shift_dims(dnums.scatter_dims_to_operand_dims),
                operand_batching_dims=(0,) + _shift_dims(dnums.operand_batching_dims),
                scatter_indices_batching_dims=(0,) + _shift_dims(dnums.scatter_indices_batching_dims))
        return primitive.bind(operand, indices, updates, update_jaxpr=update_jaxpr, update_consts=update_consts,
                              dimension_numbers=new, indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode), 0

    return rule


for _primitive in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p):
    _primitive.def_batch(_scatter_batch(_primitive))
