"""Sorting primitives: sort, top_k and approx_top_k.

`sort` sorts one or more operands of one shape along `dimension`, ordered
lexicographically by the first `num_keys` of them; the rest follow the same
permutation. `top_k` returns the k largest entries along `axis` and their
int32 indices. `approx_top_k` is the primitive behind `approx_max_k` and
`approx_min_k`; its params say how approximate the answer may be, and on a
CPU backend the answer is exact (as it is on JAX's CPU backend).
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive

__all__ = [
    "approx_max_k", "approx_min_k", "approx_top_k_p", "sort", "sort_key_val", "sort_p", "top_k",
    "top_k_p",
]


def _canonicalize_axis(axis: int, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


# ---------------------------------------------------------------------------
# sort


sort_p = Primitive("sort", multiple_results=True)


@sort_p.def_abstract_eval
def _sort_abstract_eval(*operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int) -> list:
    if any(o.shape != operands[0].shape for o in operands[1:]):
        shapes = " ".join(str(o.shape) for o in operands)
        raise TypeError(f"Arguments to sort must have equal shapes, got: {shapes}")
    # Sorting permutes values: every aval (weak type included) comes back as it was.
    return list(operands)


def _varying_alike(operands) -> list:
    # In a shard_map body lax.sort casts its operands to vary over the same
    # manual axes (JAX's wrapper does; sort_p itself types each result as its
    # operand, so a rule binding it directly inserts no pvary).
    vmas = [set(getattr(_core.get_aval(x), "vma", ())) for x in operands]
    union = set().union(*vmas)
    if all(v == union for v in vmas):
        return list(operands)
    from pyjax._src.lax.parallel_vma import pvary_p
    from pyjax._src.sharding.mesh import get_abstract_mesh

    order = get_abstract_mesh().axis_names
    return [x if v == union else pvary_p.bind(x, axes=tuple(n for n in order if n in union - v))
            for x, v in zip(operands, vmas)]


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sorts `operand` along `dimension` (XLA's Sort).

    For floating-point inputs -0.0 and 0.0 compare equal and NaNs sort to the
    end; complex inputs sort lexicographically by (real, imaginary).

    Args:
      operand: an array, or a sequence of arrays of one shape.
      dimension: the axis to sort along. Default: -1.
      is_stable: keep equal elements in their original order. Default: True.
      num_keys: how many of the operands are sort keys; the order is
        lexicographic over them, the first being primary. The remaining
        operands are permuted the same way.

    Returns:
      The sorted array, or a tuple of sorted arrays for a sequence input.

    >>> lax.sort(jnp.array([3., 1., 2.]))   # doctest: +SKIP
    Array([1., 2., 3.], dtype=float32)
    """
    if isinstance(operand, (tuple, list)):
        if len(operand) == 0:
            raise TypeError("Sort requires at least one operand")
        if not 1 <= num_keys <= len(operand):
            raise ValueError(f"num_keys={num_keys!r} must be between 1 and len(operand)={len(operand)}")
        dimension = _canonicalize_axis(dimension, len(np.shape(operand[0])))
        operand = _varying_alike(operand)
        return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable),
                                 num_keys=int(num_keys)))
    if num_keys != 1:
        raise ValueError(f"num_keys={num_keys!r} must equal 1 for a single operand.")
    dimension = _canonicalize_axis(dimension, len(np.shape(operand)))
    return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """Sorts `keys` along `dimension` and applies the same permutation to `values`.

    Returns:
      A pair (sorted keys, permuted values).
    """
    dimension = _canonicalize_axis(dimension, len(np.shape(keys)))
    k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=bool(is_stable), num_keys=1)
    return k, v


# ---------------------------------------------------------------------------
# top_k


top_k_p = Primitive("top_k", multiple_results=True)


@top_k_p.def_abstract_eval
def _top_k_abstract_eval(operand: ShapedArray, *, k: int, axis: int, is_stable: bool) -> list:
    if np.issubdtype(operand.dtype, np.complexfloating):
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if operand.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.shape}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"axis argument out of range: axis={axis!r} for operand.shape={operand.shape!r}")
    shape = list(operand.shape)
    if shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along axis;"
                         f" got k={k!r} with shape={shape!r} and axis={axis!r}")
    int32_max = int(np.iinfo(np.int32).max)
    if shape[axis] > int32_max + 1:
        raise ValueError(
            "top_k returns int32 indices, which will overflow for array dimensions larger than "
            f"the maximum int32 ({int32_max}). Got operand.shape={operand.shape!r}")
    shape[axis] = k
    return [operand.update(shape=tuple(shape)),
            ShapedArray(tuple(shape), np.dtype(np.int32), False, operand.sharding)]


def top_k(operand, k: int, *, axis: int = -1, is_stable: bool = True):
    """Returns the top `k` values and their indices along `axis` of `operand`.

    Floating-point values are ordered totally: -NaN < -inf < ... < -0.0 < 0.0
    < ... < inf < NaN. Ties keep their original order when `is_stable`.

    Args:
      operand: an N-dimensional array of a non-complex type.
      k: the number of entries to return.
      axis: the axis to search along. Default: -1.
      is_stable: preserve the relative order of equal elements. Default: True.

    Returns:
      A pair (values, indices); `values[..., i, ...]` is the i-th largest entry
      and `indices` (int32) says where it was.

    >>> values, indices = lax.top_k(jnp.array([9., 3., 6., 4., 10.]), 3)   # doctest: +SKIP
    >>> values, indices
    (Array([10.,  9.,  6.], dtype=float32), Array([4, 0, 2], dtype=int32))
    """
    k = int(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = _canonicalize_axis(axis, len(np.shape(operand)))
    return top_k_p.bind(operand, k=k, axis=axis, is_stable=bool(is_stable))


# ---------------------------------------------------------------------------
# approx_top_k

# XLA's reduction windows are tiled by the TPU layout: 1024-element chunks
# for a rank-1 operand, 128-element lanes otherwise.
_TPU_CHUNK_TILING = 1024
_TPU_LANE_TILING = 128


def approx_top_k_reduction_output_size(input_size: int, rank: int, k: int, recall_target: float,
                                       aggregate_to_topk: bool, input_size_override: int = -1):
    """(output size, log2 of the reduction) of XLA's ApproxTopK along its dimension.

    With `aggregate_to_topk` the output holds exactly k entries. Otherwise the
    operand is split into M windows, one candidate each; the expected recall is
    about exp((1 - k) / M), so M = (1 - k) / log(recall) windows (at least one
    tile) are kept, rounded to halvings of the input and to whole tiles.
    """
    if aggregate_to_topk:
        return k, -1
    tiling = _TPU_CHUNK_TILING if rank == 1 else _TPU_LANE_TILING
    if input_size <= tiling:
        return input_size, 0
    if input_size_override >= 0 and input_size > input_size_override:
        raise ValueError(f"reduction_input_size_override: {input_size_override} should be greater "
                         f"equals to operands[reduction_dim]: {input_size}")
    logical_size = input_size_override if input_size_override >= 0 else input_size
    tiles = -(-input_size // tiling)
    if k == 1:  # one window per tile: ceil(log2(logical tiles)) halvings
        return tiling, (-(-logical_size // tiling) - 1).bit_length()
    recall = float(np.float32(recall_target))  # XLA keeps the target as a float32
    if recall == 1.0:
        return input_size, 0
    if not 0.0 < recall < 1.0:
        raise ValueError("recall_target should range in (0,1]")
    windows = min(max(int((1.0 - k) / math.log(recall)), tiling), logical_size)
    halvings = (logical_size // windows).bit_length() - 1  # floor(log2(...))
    if halvings <= 0:
        return input_size, 0
    # No more halvings than whole tiles allow (counted by floor division, as XLA does).
    halvings = min(halvings, (input_size // tiling - 1).bit_length())
    return -(-tiles // (1 << halvings)) * tiling, halvings


approx_top_k_p = Primitive("approx_top_k", multiple_results=True)


@approx_top_k_p.def_abstract_eval
def _approx_top_k_abstract_eval(operand: ShapedArray, *, k: int, reduction_dimension: int,
                                recall_target: float, is_max_k: bool,
                                reduction_input_size_override: int, aggregate_to_topk: bool) -> list:
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if operand.ndim == 0:
        raise TypeError(f"approx_top_k operand must have >= 1 dimension, got {operand.shape}")
    dims = list(operand.shape)
    size = dims[reduction_dimension]  # an out-of-range dimension raises IndexError, as in JAX
    if size < k:
        raise ValueError(f"k must be smaller than the size of reduction_dim {size}, got {k}")
    if not dtypes.issubdtype(operand.dtype, np.floating):
        raise ValueError("operand must be a floating type")
    dims[reduction_dimension] = approx_top_k_reduction_output_size(
        size, len(dims), k, recall_target, aggregate_to_topk, reduction_input_size_override)[0]
    shape = tuple(dims)
    return [operand.update(shape=shape), ShapedArray(shape, np.dtype(np.int32), False, operand.sharding)]


def _approx_top_k(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
                  aggregate_to_topk, is_max_k):
    return approx_top_k_p.bind(
        operand, k=int(k), reduction_dimension=int(reduction_dimension), recall_target=recall_target,
        is_max_k=is_max_k, reduction_input_size_override=int(reduction_input_size_override),
        aggregate_to_topk=bool(aggregate_to_topk))


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """Returns max `k` values and their indices of `operand`, approximately.

    See https://arxiv.org/abs/2206.14286 for the algorithm. On CPU the result
    is exact.

    Args:
      operand: the array to search; must be of a floating type.
      k: the number of largest values wanted.
      reduction_dimension: the axis to search along. Default: -1.
      recall_target: the recall the approximation aims for.
      reduction_input_size_override: when positive, the size used instead of
        `operand.shape[reduction_dimension]` to evaluate the recall (for an
        operand that is a shard of a larger one).
      aggregate_to_topk: when true, the results are the top k in sorted order;
        when false, an implementation-defined number (at least k) of
        candidates is returned.

    Returns:
      A pair (values, int32 indices along `reduction_dimension`).
    """
    return _approx_top_k(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
                         aggregate_to_topk, True)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """Returns min `k` values and their indices of `operand`, approximately.

    The arguments and results are those of `approx_max_k`, for the smallest
    values instead of the largest.
    """
    return _approx_top_k(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
                         aggregate_to_topk, False)


# ---------------------------------------------------------------------------
# Autodiff rules
#
# Sorting permutes: a tangent follows its value. sort carries an iota along
# with the keys to learn the permutation; top_k and approx_top_k return their
# indices anyway. The tangents are then gathered at those indices (as JAX
# writes them, so gradient jaxprs print the same equations). Indices get no
# tangent (float0 zeros).

from pyjax._src import core as _core
from pyjax._src.ad_util import Zero as _Zero
from pyjax._src.ad_util import tangent_aval as _tangent_aval
from pyjax._src.jit import jit as _jit
from pyjax._src.lax import elementwise as _ew
from pyjax._src.lax import gather_scatter as _gs
from pyjax._src.lax import shapes as _shapes


def _index_dtype_for_shape(shape) -> np.dtype:
    # The narrowest unsigned type JAX uses for positions along any axis.
    return np.dtype(np.uint64) if any(d > np.iinfo(np.uint32).max for d in shape) else np.dtype(np.uint32)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = _core.get_aval(primals[0]).shape
    iota = _shapes.broadcasted_iota(_index_dtype_for_shape(shape), shape, dimension,
                                    out_sharding=sharding_rules.typed_sharding(_core.get_aval(primals[0])))  # (placed as the keys)
    *sorted_primals, permutation = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                                               num_keys=num_keys)
    # Every other axis is a batching axis: each row gathers from its own row.
    batch_dims = tuple(np.delete(np.arange(len(shape), dtype=np.int64), dimension))
    dnums = _gs.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(dimension,), start_index_map=(dimension,),
                                       operand_batching_dims=batch_dims, start_indices_batching_dims=batch_dims)
    indices = _shapes.expand_dims(permutation, (len(shape),))
    tangents_out = [t if type(t) is _Zero else
                    _gs.gather(t, indices, dnums, (1,) * len(shape), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)
                    for t in tangents]
    return sorted_primals, tangents_out


sort_p.def_jvp(_sort_jvp)


def _top_k_jvp(primals, tangents, *, k, axis, is_stable):
    (operand,), (tangent,) = primals, tangents
    values, indices = top_k(operand, k, axis=axis, is_stable=is_stable)
    if type(tangent) is _Zero:
        tangent_out = _Zero(_tangent_aval(_core.get_aval(values)))
    else:
        idx_shape = _core.get_aval(indices).shape
        rank = len(idx_shape)
        others = tuple(i for i in range(rank) if i != axis)
        dnums = _gs.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
                                           operand_batching_dims=others, start_indices_batching_dims=others)
        tangent_out = _gs.gather(tangent, _shapes.reshape(indices, idx_shape + (1,)), dnums, (1,) * rank)
    return [values, indices], [tangent_out, _Zero(_tangent_aval(_core.get_aval(indices)))]


top_k_p.def_jvp(_top_k_jvp)


def _take_along_axis(arr, indices, axis):
    """jnp.take_along_axis for indices of arr's rank (the case approx_top_k's
    JVP needs), as JAX stages it: negative indices wrap, out-of-bounds fill
    with NaN."""
    arr_shape, idx_shape = _core.get_aval(arr).shape, _core.get_aval(indices).shape
    axis_size = arr_shape[axis]
    if not np.issubdtype(_core.get_aval(indices).dtype, np.unsignedinteger):
        size = np.asarray(axis_size, _core.get_aval(indices).dtype)[()]
        indices = _ew.select(_ew.lt(indices, np.zeros((), size.dtype)[()]), _ew.add(indices, size), indices)
    indices = _shapes.reshape(indices, idx_shape + (1,))
    offset_dims, slice_sizes, batch_dims = [], [], []
    for i in range(len(arr_shape)):
        if i == axis:
            slice_sizes.append(1)
        elif idx_shape[i] == 1:  # the whole (size-1) axis of arr: no index needed
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
        else:  # matching axes: element i of the indices reads element i of arr
            slice_sizes.append(1 if arr_shape[i] else 0)
            batch_dims.append(i)
    dnums = _gs.GatherDimensionNumbers(offset_dims=tuple(offset_dims), collapsed_slice_dims=(axis,),
                                       start_index_map=(axis,), operand_batching_dims=tuple(batch_dims),
                                       start_indices_batching_dims=tuple(batch_dims))
    return _gs.gather(arr, indices, dnums, tuple(slice_sizes), mode="fill")


_take_along_axis.__name__ = _take_along_axis.__qualname__ = "take_along_axis"
_jitted_take_along_axis = _jit(_take_along_axis, static_argnames=("axis",))


def _approx_top_k_jvp(primals, tangents, *, k, reduction_dimension, recall_target, is_max_k,
                      reduction_input_size_override, aggregate_to_topk):
    (operand,), (tangent,) = primals, tangents
    wrapper = approx_max_k if is_max_k else approx_min_k
    values, indices = wrapper(operand, k, reduction_dimension, recall_target, reduction_input_size_override,
                              aggregate_to_topk)
    if type(tangent) is _Zero:
        tangent_out = _Zero(_tangent_aval(_core.get_aval(values)))
    else:
        axis = reduction_dimension % len(_core.get_aval(indices).shape)
        tangent_out = _jitted_take_along_axis(tangent, indices, axis=axis)
    return [values, indices], [tangent_out, _Zero(_tangent_aval(_core.get_aval(indices)))]


approx_top_k_p.def_jvp(_approx_top_k_jvp)


# ---------------------------------------------------------------------------
# Batching rules. Sorting and selecting act along one axis, so the batch axis
# just stays out of its way: sort aligns every operand with the first
# batched one (an unbatched operand is broadcast) and sorts the shifted
# dimension; top_k and approx_top_k keep the batch axis in place. This is
# JAX 0.11's placement, so staged jaxprs match.

from pyjax._src.interpreters import batching as _batching  # noqa: E402
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402
from pyjax._src.lax import sharding_rules


def _sort_batch(axis_data, args, dims, *, dimension, is_stable, num_keys):
    not_mapped = _batching.not_mapped
    prototype, bdim = next((x, d) for x, d in zip(args, dims, strict=True) if d is not not_mapped)
    shape = _core.get_aval(prototype).shape
    aligned = []
    for x, d in zip(args, dims, strict=True):
        if d is not_mapped:
            # x: (n...) -> the prototype's shape and placement, batch axis at bdim (as JAX's rule)
            example_axes = tuple(np.delete(np.arange(len(shape)), bdim))
            sharding = _core.get_aval(prototype).sharding
            aligned.append(_shapes.broadcast_in_dim(x, shape, example_axes, out_sharding=sharding))
        else:
            aligned.append(_batching_util.moveaxis(x, d, bdim))
    outs = sort_p.bind(*aligned, dimension=dimension + (bdim <= dimension), is_stable=is_stable,
                       num_keys=num_keys)
    return outs, [bdim] * len(aligned)


def _top_k_batch(axis_data, args, dims, *, k, axis, is_stable):
    (operand,), (d,) = args, dims
    # operand: (..., B at d, ...) -> values, indices: (..., B at d, ...)
    outs = top_k(operand, k, axis=axis + (d <= axis), is_stable=is_stable)
    return list(outs), [d, d]


def _approx_top_k_batch(axis_data, args, dims, *, k, reduction_dimension, recall_target, is_max_k,
                        reduction_input_size_override, aggregate_to_topk):
    (operand,), (d,) = args, dims
    # The example's axes, numbered in the batched operand.
    example_axes = [a for a in range(_core.get_aval(operand).ndim) if a != d]
    outs = approx_top_k_p.bind(
        operand, k=k, reduction_dimension=example_axes[reduction_dimension], recall_target=recall_target,
        is_max_k=is_max_k, reduction_input_size_override=reduction_input_size_override,
        aggregate_to_topk=aggregate_to_topk)
    return outs, [d, d]


sort_p.def_batch(_sort_batch)
top_k_p.def_batch(_top_k_batch)
approx_top_k_p.def_batch(_approx_top_k_batch)
sort_p.def_sharding_rule(sharding_rules.sort_rule)
top_k_p.def_sharding_rule(sharding_rules.top_k_rule)
approx_top_k_p.def_sharding_rule(sharding_rules.keep_each_rule)
