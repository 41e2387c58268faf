"""Slicing primitives: dynamic_slice, dynamic_update_slice, pad and split,
with their one-axis convenience wrappers; gather and scatter live in
gather_scatter.py and are re-exported here.

The static `slice` primitive belongs to shapes.py; `slice_in_dim` and
`index_in_dim` below are sugar over it. Dynamic starts are traced scalars:
XLA clamps them so that the whole window fits in the operand, and the
wrappers first turn negative starts into offsets from the end (as Python
indexing does), which costs a `lt`/`add`/`select_n` triple per traced start.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from pyjax._src.avals import ShapedArray, canonicalize_shape
from pyjax._src.core import Primitive
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.gather_scatter import *
from pyjax._src.lax.gather_scatter import check_same_dtypes_no_tip, dtype_of, shape_of
from pyjax._src.interpreters import key_reuse as _key_reuse

__all__ = [  # noqa: RUF022  (this module's names, then gather_scatter's, re-exported)
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_slice_p",
    "dynamic_update_index_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim",
    "dynamic_update_slice_p", "index_in_dim", "pad", "pad_p", "slice_in_dim", "split", "split_p",
    "GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers", "gather", "gather_p",
    "index_take", "scatter", "scatter_add", "scatter_add_p", "scatter_apply", "scatter_max",
    "scatter_max_p", "scatter_min", "scatter_min_p", "scatter_mul", "scatter_mul_p", "scatter_p",
    "scatter_sub", "scatter_sub_p",
]


def _canonicalize_shape(shape) -> tuple:
    return canonicalize_shape(shape, "slice_sizes", negative=(
        "slice slice_sizes must be greater than or equal to zero, got slice_sizes of {shape}."))


def _pairwise_ge(name_a: Sequence, name_b: Sequence) -> list[bool]:
    # JAX compares shapes with its length-checked map; mismatched lengths
    # raise its message rather than silently truncating.
    a, b = list(name_a), list(name_b)
    if len(b) != len(a):
        raise ValueError(f"safe_map() argument 2 is {'longer' if len(b) > len(a) else 'shorter'} than argument 1")
    return [x >= y for x, y in zip(a, b, strict=True)]


def _check_index_dtypes(name: str, separator: str, start_indices: Sequence[ShapedArray]) -> None:
    if any(i.dtype != start_indices[0].dtype or not np.issubdtype(i.dtype, np.integer) for i in start_indices):
        got = ", ".join(i.dtype.name for i in start_indices)
        raise TypeError(f"index arguments to {name} must be integers of the same type, got{separator} {got}")


# ---------------------------------------------------------------------------
# dynamic_slice

dynamic_slice_p = Primitive("dynamic_slice")
dynamic_slice_p.declare(key_reuse=_key_reuse.FORWARD)


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(operand: ShapedArray, *start_indices: ShapedArray, slice_sizes) -> ShapedArray:
    if not all(_pairwise_ge(operand.shape, slice_sizes)):
        raise TypeError(
            "slice slice_sizes must be less than or equal to operand shape, "
            f"got slice_sizes {slice_sizes} for operand shape {operand.shape}."
        )
    if not all(size >= 0 for size in slice_sizes):
        raise TypeError(f"slice slice_sizes must be greater than or equal to zero, got slice_sizes of {slice_sizes}.")
    if any(i.ndim != 0 for i in start_indices):
        raise TypeError(f"start_indices arguments to dynamic_slice must be scalars,  got indices {start_indices}")
    _check_index_dtypes("dynamic_slice", ":", start_indices)
    return ShapedArray(tuple(slice_sizes), operand.dtype, operand.weak_type)


dynamic_slice_p.def_sharding_rule(sharding_rules.varying_shape_rule("dynamic_slice"))


def _normalize_symbolic(index, size, dtype, allow_negative: bool):
    # A start on a symbolic axis: the axis size is a value (dim_as_value, bound
    # first as JAX does, even where a static start leaves it unused).
    from pyjax._src.dim_as_value import dimension_as_value

    d = dimension_as_value(size)
    if isinstance(index, (int, np.integer)):
        if index < 0 and not allow_negative:
            raise ValueError(f"Index {index} is out of bounds for dimension {size} if allow_negative_indices=False")
        return index + ew.convert_element_type(d, dtype) if index < 0 else index
    if not allow_negative:
        return index
    d = ew.convert_element_type(d, dtype)
    return ew.select(index < 0, index + d, index)


def _normalize_start_indices(operand, start_indices, allow_negative_indices) -> list:
    """One start per axis; negative starts (where allowed) count from the end.

    Static Python/NumPy integers are normalised here, in Python, and passed on
    as NumPy scalars of their canonical dtype (printed as literals); traced
    starts get `select(i < 0, i + size, i)`. Unsigned starts cannot be negative.
    """
    shape = shape_of(operand)
    if len(start_indices) != len(shape):
        raise ValueError(
            f"Length of slice indices must match number of operand dimensions ({len(start_indices)} vs {shape})"
        )
    if not isinstance(start_indices, (list, tuple)):
        if np.ndim(start_indices) != 1:
            raise ValueError(f"Slice indices must be a 1D sequence, got {np.shape(start_indices)}")
        start_indices = list(start_indices)
    if isinstance(allow_negative_indices, bool):
        allow_negative_indices = [allow_negative_indices] * len(start_indices)
    result = []
    for index, size, allow_negative in zip(start_indices, shape, allow_negative_indices, strict=True):
        dtype = dtype_of(index)
        if np.issubdtype(dtype, np.unsignedinteger):
            result.append(index)
        elif hasattr(size, "get_vars"):
            result.append(_normalize_symbolic(index, size, dtype, allow_negative))
        elif isinstance(index, (int, np.integer)):
            if index < 0 and not allow_negative:
                raise ValueError(f"Index {index} is out of bounds for dimension {size} if allow_negative_indices=False")
            value = index + size if index < 0 else index
            result.append(np.asarray(value, dtype)[()])
        elif allow_negative:
            result.append(ew.select(index < 0, index + np.asarray(size, dtype)[()], index))
        else:
            result.append(index)
    return result


def dynamic_slice(operand, start_indices, slice_sizes: Sequence[int], *,
                  allow_negative_indices: bool | Sequence[bool] = True):
    """Wraps XLA's DynamicSlice: the window of `slice_sizes` at `start_indices`.

    Args:
      operand: the array to slice.
      start_indices: one scalar start per dimension; may be traced.
      slice_sizes: the static size of the window along each dimension.
      allow_negative_indices: per dimension (or one bool for all), whether a
        negative start counts from the end of the axis.

    Returns:
      The window. Starts are clamped so that the window lies inside the
      operand: ``dynamic_slice(jnp.arange(5), (4,), (2,))`` is ``[3, 4]``.
    """
    starts = _normalize_start_indices(operand, start_indices, allow_negative_indices)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=_canonicalize_shape(slice_sizes))


# ---------------------------------------------------------------------------
# dynamic_update_slice

dynamic_update_slice_p = Primitive("dynamic_update_slice")
dynamic_update_slice_p.declare(key_reuse=_key_reuse.KeyReuseSignature(_key_reuse.Sink(1), _key_reuse.Forward(0, 0)))


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract_eval(operand: ShapedArray, update: ShapedArray,
                                        *start_indices: ShapedArray) -> ShapedArray:
    if operand.ndim != update.ndim:
        raise TypeError(
            "dynamic_update_slice update must have the same rank as operand, "
            f"got update shape {update.shape} for operand shape {operand.shape}."
        )
    if operand.ndim != len(start_indices):
        raise TypeError(
            "dynamic_update_slice start_indices must have length equal to the rank of operand, "
            f"got indices {start_indices} for operand shape {operand.shape}."
        )
    if not all(a >= b for a, b in zip(operand.shape, update.shape, strict=True)):
        raise TypeError(
            "dynamic_update_slice update shape must be smaller than operand shape, "
            f"got update shape {update.shape} for operand shape {operand.shape}."
        )
    if any(i.ndim != 0 for i in start_indices):
        raise TypeError(f"start_indices arguments to dynamic_update_slice must be scalars, got indices {start_indices}")
    check_same_dtypes_no_tip("dynamic_update_slice", operand, update)
    _check_index_dtypes("dynamic_update_slice", "", start_indices)
    weak = operand.weak_type and update.weak_type and all(i.weak_type for i in start_indices)
    return ShapedArray(operand.shape, operand.dtype, weak)


dynamic_update_slice_p.def_sharding_rule(sharding_rules.dynamic_update_slice_rule)


def dynamic_update_slice(operand, update, start_indices, *,
                         allow_negative_indices: bool | Sequence[bool] = True):
    """Wraps XLA's DynamicUpdateSlice: `operand` with `update` written at `start_indices`.

    Starts are clamped so that `update` fits entirely inside `operand`:
    ``dynamic_update_slice(jnp.zeros(6), jnp.ones(3), (5,))`` writes the last
    three elements.
    """
    starts = _normalize_start_indices(operand, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


# ---------------------------------------------------------------------------
# pad

pad_p = Primitive("pad").declare(fusible=True, cost="cheap")  # a layout op XLA fuses


def _dilated_size(size: int, interior: int) -> int:
    return 0 if size == 0 else 1 + (interior + 1) * (size - 1)


@pad_p.def_abstract_eval
def _pad_abstract_eval(operand: ShapedArray, padding_value: ShapedArray, *, padding_config) -> ShapedArray:
    if padding_value.ndim != 0:
        raise ValueError(f"padding_value must be a scalar; got np.shape(padding_value)={padding_value.shape}")
    if len(padding_config) != operand.ndim:
        raise ValueError(
            "length of padding_config must equal the number of axes of operand, "
            f"got padding_config {padding_config} for operand shape {operand.shape}"
        )
    if not all(interior >= 0 for _, _, interior in padding_config):
        raise ValueError(f"interior padding in padding_config must be nonnegative, got padding_config {padding_config}")
    shape = tuple(low + high + _dilated_size(size, interior)
                  for (low, high, interior), size in zip(padding_config, operand.shape, strict=True))
    if not all(d >= 0 for d in shape):
        raise ValueError(
            f"Dimension size after padding is not at least 0, got result shape {shape}, for padding_config "
            f"{padding_config} and operand shape {operand.shape}"
        )
    if operand.dtype != padding_value.dtype:
        raise TypeError(f"pad operand and padding_value must be same dtype: got {operand.dtype} and {padding_value.dtype}.")
    return ShapedArray(shape, operand.dtype, operand.weak_type and padding_value.weak_type)


pad_p.def_sharding_rule(sharding_rules.varying_shape_rule("padding"))


def pad(operand, padding_value, padding_config: Sequence[tuple[int, int, int]]):
    """Applies low, high and interior padding to an array (XLA's Pad).

    Args:
      operand: the array to pad.
      padding_value: the scalar inserted as padding; must have operand's dtype.
      padding_config: one ``(low, high, interior)`` triple per dimension.
        Negative ``low``/``high`` remove elements from that edge; ``interior``
        (non-negative) inserts that many values between neighbours.

    Example: ``pad(jnp.array([1, 2, 3]), 0, [(1, -1, 1)])`` is ``[0, 1, 0, 2, 0]``.
    """
    # Normalised to tuples of ints so the param is hashable (JAX keeps inner
    # lists and then refuses them as unhashable).
    config = tuple(tuple(operator.index(p) for p in triple) for triple in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


# ---------------------------------------------------------------------------
# split

split_p = Primitive("split", multiple_results=True)


@split_p.def_abstract_eval
def _split_abstract_eval(operand: ShapedArray, *, sizes, axis) -> list[ShapedArray]:
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if operand.shape[axis] != sum(sizes):
        raise ValueError(
            f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the operand shape {list(operand.shape)}"
        )
    shape = list(operand.shape)
    outs = []
    for size in sizes:
        shape[axis] = size
        outs.append(ShapedArray(tuple(shape), operand.dtype, operand.weak_type))
    return outs


split_p.def_sharding_rule(sharding_rules.split_rule)


def _canonicalize_axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else axis


def split(operand, sizes: Sequence[int], axis: int = 0) -> list:
    """Splits `operand` along `axis` into pieces of the given `sizes` (which
    must sum to the axis' length); returns a list of ``len(sizes)`` arrays."""
    ndim = len(shape_of(operand))
    return split_p.bind(operand, sizes=tuple(operator.index(s) for s in sizes), axis=_canonicalize_axis(axis, ndim))


# ---------------------------------------------------------------------------
# One-axis convenience wrappers


def slice_in_dim(operand, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0):
    """``operand[..., start_index:limit_index:stride]`` along `axis` (a static slice).

    None means the start (or end) of the axis; negative bounds count from the end.
    """
    shape = shape_of(operand)
    axis = int(axis)
    length = shape[axis]
    start = 0 if start_index is None else operator.index(start_index)
    limit = length if limit_index is None else operator.index(limit_index)
    start = start + length if start < 0 else start
    limit = limit + length if limit < 0 else limit
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, operator.index(stride)
    return shapes.slice(operand, starts, limits, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """``operand[..., index]`` along `axis` for a static integer `index`
    (kept as a size-1 axis when `keepdims`)."""
    index, axis = operator.index(index), int(axis)
    size = shape_of(operand)[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    result = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return result if keepdims else shapes.squeeze(result, (axis,))


def _zero_like_index(index):
    # The start used for the other axes: 0 of the index's own kind, so every
    # start has one dtype (a Python int stays a Python int).
    if type(index) in (int, bool):
        return 0
    return np.zeros((), dtype_of(index))


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
    """``operand[..., start_index:start_index + slice_size]`` along `axis`,
    with a possibly traced `start_index` (clamped like dynamic_slice)."""
    shape = shape_of(operand)
    axis = int(axis)
    starts = [_zero_like_index(start_index)] * len(shape)
    starts[axis] = start_index
    sizes = list(shape)
    sizes[axis] = operator.index(slice_size)
    allow_negative = [False] * len(shape)
    allow_negative[axis] = allow_negative_indices
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative)


def _index_in_dim_body(operand, index, *, axis, keepdims, allow_negative_indices):
    result = dynamic_slice_in_dim(operand, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return result if keepdims else shapes.squeeze(result, (axis,))


# JAX jits these two wrappers (their jaxprs show a `jit` named after them).
# The public functions pass the static options by keyword, so the shared
# jit sees them as static whether the caller gave them by position or name.
_index_in_dim_body.__name__ = _index_in_dim_body.__qualname__ = "dynamic_index_in_dim"
_jitted_index_in_dim = jit(_index_in_dim_body, static_argnames=("axis", "keepdims", "allow_negative_indices"))


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
    """``operand[..., index]`` along `axis` with a possibly traced `index`."""
    return _jitted_index_in_dim(operand, index, axis=int(axis), keepdims=bool(keepdims),
                                allow_negative_indices=allow_negative_indices)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
    """Writes `update` into `operand` starting at `start_index` along `axis`
    (and at 0 along every other axis)."""
    axis = int(axis)
    ndim = len(shape_of(operand))
    starts = [_zero_like_index(start_index)] * ndim
    starts[axis] = start_index
    allow_negative = [False] * ndim
    allow_negative[axis] = allow_negative_indices
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow_negative)


def _update_index_in_dim_body(operand, update, index, *, axis, allow_negative_indices):
    if len(shape_of(update)) != len(shape_of(operand)):
        assert len(shape_of(update)) + 1 == len(shape_of(operand))
        update = shapes.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis, allow_negative_indices=allow_negative_indices)


_update_index_in_dim_body.__name__ = _update_index_in_dim_body.__qualname__ = "dynamic_update_index_in_dim"
_jitted_update_index_in_dim = jit(_update_index_in_dim_body, static_argnames=("axis", "allow_negative_indices"))


def dynamic_update_index_in_dim(operand, update, index, axis: int, *, allow_negative_indices: bool = True):
    """Writes `update` as the slice `index` of `operand` along `axis`; an
    `update` of one rank less gets the axis inserted."""
    return _jitted_update_index_in_dim(operand, update, index, axis=int(axis),
                                       allow_negative_indices=allow_negative_indices)


# ---------------------------------------------------------------------------
# Autodiff rules (gather/scatter's live with them in gather_scatter.py)

from pyjax._src import core as _core  # noqa: E402
from pyjax._src.ad_util import Zero as _Zero, instantiate as _instantiate, zeros_like_aval as _zeros_like_aval  # noqa: E402
from pyjax._src.interpreters.jvp import defjvp_zero as _defjvp_zero  # noqa: E402
from pyjax._src.interpreters.transpose import is_undefined_primal as _undefined  # noqa: E402


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    operand, *starts = primals
    out = dynamic_slice_p.bind(operand, *starts, slice_sizes=slice_sizes)
    if type(tangents[0]) is _Zero:
        return out, _Zero(_core.get_aval(out))
    return out, dynamic_slice_p.bind(tangents[0], *starts, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, operand, *starts, slice_sizes):
    # The cotangent lands in a zero operand at the (clamped) same place.
    zeros = _zeros_like_aval(operand.aval)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


dynamic_slice_p.def_jvp(_dynamic_slice_jvp)
dynamic_slice_p.def_transpose(_dynamic_slice_transpose)


def _dynamic_update_slice_jvp(primals, tangents):
    operand, update, *starts = primals
    out = dynamic_update_slice_p.bind(operand, update, *starts)
    t_operand, t_update = tangents[0], tangents[1]
    if type(t_operand) is _Zero and type(t_update) is _Zero:
        return out, _Zero(_core.get_aval(out))
    return out, dynamic_update_slice_p.bind(_instantiate(t_operand), _instantiate(t_update), *starts)


def _dynamic_update_slice_transpose(ct, operand, update, *starts):
    update_aval = update.aval if _undefined(update) else _core.get_aval(update)
    ct_operand = ct_update = None
    if _undefined(operand):
        ct_operand = dynamic_update_slice_p.bind(ct, _zeros_like_aval(update_aval), *starts)
    if _undefined(update):
        ct_update = dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape)
    return [ct_operand, ct_update] + [None] * len(starts)


dynamic_update_slice_p.def_jvp(_dynamic_update_slice_jvp)
dynamic_update_slice_p.def_transpose(_dynamic_update_slice_transpose)


def _pad_jvp(primals, tangents, *, padding_config):
    operand, padding_value = primals
    out = pad_p.bind(operand, padding_value, padding_config=padding_config)
    if all(type(t) is _Zero for t in tangents):
        return out, _Zero(_core.get_aval(out))
    return out, pad_p.bind(_instantiate(tangents[0]), _instantiate(tangents[1]), padding_config=padding_config)


def _pad_transpose(ct, operand, padding_value, *, padding_config):
    # Undo the padding: negative edge padding removes what was added, then a
    # strided slice drops the interior padding. The padding value's cotangent
    # is everything else: sum(ct) - sum(ct_operand).
    from pyjax._src.lax.reductions import reduce_sum
    from pyjax._src.lax.shapes import slice as static_slice

    # The configs are computed with NumPy and kept as np.int64, as in JAX
    # (its jaxpr text shows them that way).
    from pyjax._src.lax.shapes import slice_p as static_slice_p

    ct_aval = _core.get_aval(ct)
    lows, highs, interiors = zip(*padding_config) if padding_config else ((), (), ())
    unpad = tuple(zip(np.negative(lows), np.negative(highs), np.zeros_like(interiors)))
    unpadded = pad_p.bind(ct, np.zeros((), ct_aval.dtype)[()], padding_config=unpad)
    shape = _core.get_aval(unpadded).shape
    strides = tuple(np.add(interiors, 1))
    # (strides always given, ones included, as JAX's transpose passes them)
    ct_operand = static_slice_p.bind(unpadded, start_indices=tuple(np.zeros_like(lows)), limit_indices=shape,
                                     strides=strides)
    ct_padding_value = None
    if _undefined(padding_value):
        axes = tuple(range(len(ct_aval.shape)))
        from pyjax._src.lax.elementwise import sub

        ct_padding_value = sub(reduce_sum(ct, axes), reduce_sum(ct_operand, axes))
    return [ct_operand if _undefined(operand) else None, ct_padding_value]


pad_p.def_jvp(_pad_jvp)
pad_p.def_transpose(_pad_transpose)


def _split_jvp(primals, tangents, *, sizes, axis):
    (operand,), (t,) = primals, tangents
    outs = split_p.bind(operand, sizes=sizes, axis=axis)
    if type(t) is _Zero:
        return outs, [_Zero(_core.get_aval(o)) for o in outs]
    return outs, split_p.bind(t, sizes=sizes, axis=axis)


def _split_transpose(cts, operand, *, sizes, axis):
    from pyjax._src.lax.shapes import concatenate

    pieces = [_instantiate(ct) for ct in cts]
    return [concatenate(pieces, axis)]


split_p.def_jvp(_split_jvp)
split_p.def_transpose(_split_transpose)


# ---------------------------------------------------------------------------
# Batching rules. pad and split keep the batch axis where it is (a batched
# padding value becomes a select against a mask of the padding). A
# dynamic_slice is a gather and a dynamic_update_slice a scatter with one
# index vector, and that is how JAX 0.11 batches them — whether the operand,
# the starts or both are batched — so they go through the gather/scatter
# rules: the scalar starts become one (B, n) or (n,) index array.

from pyjax._src.interpreters import batching as _batching  # noqa: E402
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402
from pyjax._src.lax import gather_scatter as _gather_scatter  # noqa: E402


def _pad_batch(axis_data, args, dims, *, padding_config):
    (operand, padding_value), (d, pd) = args, dims
    not_mapped = _batching.not_mapped
    if d is not_mapped:
        # operand: (...) -> (B, ...), padded per example below.
        operand = shapes.broadcast(operand, (axis_data.size,))
        d = 0
    config = list(padding_config)
    config.insert(d, (0, 0, 0))
    config = tuple(config)
    if pd is not_mapped:
        return pad_p.bind(operand, padding_value, padding_config=config), d
    # padding_value: (B,). Pad with zeros, then select each example's value
    # where a padded mask of ones says "padding".
    dtype = _core.get_aval(operand).dtype
    padded = pad_p.bind(operand, np.zeros((), dtype)[()], padding_config=config)
    ones = shapes.broadcast_in_dim(np.True_, _core.get_aval(operand).shape, ())
    inside = pad_p.bind(ones, np.False_, padding_config=config)
    values = shapes.broadcast_in_dim(padding_value, _core.get_aval(padded).shape, (d,))
    return ew.select(inside, padded, values), d


def _split_batch(axis_data, args, dims, *, sizes, axis):
    (operand,), (d,) = args, dims
    return split_p.bind(operand, sizes=sizes, axis=axis + (axis >= d)), [d] * len(sizes)


def _batched_start_indices(starts, start_dims):
    """The scalar starts as one index array: ((B, n), 0) when any start is
    batched (unbatched ones repeat down the column), else ((n,), not_mapped)."""
    not_mapped = _batching.not_mapped
    if not starts:
        return np.array([], np.int32), not_mapped
    sizes = [_core.get_aval(s).shape[d] for s, d in zip(starts, start_dims, strict=True) if d is not not_mapped]
    if not sizes:
        return shapes.concatenate([shapes.broadcast(s, (1,)) for s in starts], 0), not_mapped
    columns = [shapes.broadcast_in_dim(s, (sizes[0], 1), () if d is not_mapped else (0,))
               for s, d in zip(starts, start_dims, strict=True)]
    return shapes.concatenate(columns, 1), 0


def _dynamic_slice_batch(axis_data, args, dims, *, slice_sizes):
    (operand, *starts), (d, *start_dims) = args, dims
    example_ndim = _core.get_aval(operand).ndim - (d is not _batching.not_mapped)
    axes = tuple(range(example_ndim))
    # One index vector reading a window of slice_sizes: offset axes are all axes.
    dnums = _gather_scatter.GatherDimensionNumbers(offset_dims=axes, collapsed_slice_dims=(), start_index_map=axes)
    index, index_dim = _batched_start_indices(starts, start_dims)
    return _gather_scatter.gather_p.rule("batch")(
        axis_data, [operand, index], [d, index_dim], dimension_numbers=dnums, slice_sizes=slice_sizes,
        unique_indices=True, indices_are_sorted=True, mode=_gather_scatter.GatherScatterMode.CLIP, fill_value=None)


def _dynamic_update_slice_batch(axis_data, args, dims):
    (operand, update, *starts), (d, update_dim, *start_dims) = args, dims
    update_ndim = _core.get_aval(update).ndim - (update_dim is not _batching.not_mapped)
    axes = tuple(range(update_ndim))
    # One index vector writing the whole update as a window.
    dnums = _gather_scatter.ScatterDimensionNumbers(update_window_dims=axes, inserted_window_dims=(),
                                                    scatter_dims_to_operand_dims=axes)
    index, index_dim = _batched_start_indices(starts, start_dims)
    out, out_dim = _gather_scatter.scatter_p.rule("batch")(
        axis_data, [operand, index, update], [d, index_dim, update_dim], update_jaxpr=None, update_consts=(),
        dimension_numbers=dnums, indices_are_sorted=True, unique_indices=True,
        mode=_gather_scatter.GatherScatterMode.CLIP)
    return _batching_util.moveaxis(out, out_dim, 0), 0


pad_p.def_batch(_pad_batch)
split_p.def_batch(_split_batch)
dynamic_slice_p.def_batch(_dynamic_slice_batch)
dynamic_update_slice_p.def_batch(_dynamic_update_slice_batch)
