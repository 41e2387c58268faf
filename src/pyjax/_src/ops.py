"""jax.ops: segment reductions (segment_sum, segment_prod, segment_max, segment_min).

Each is one scatter of `data` into an array of `num_segments` rows filled
with the reduction's identity, as in JAX: ids outside [0, num_segments) are
dropped by default (FILL_OR_DROP), so an empty segment keeps the identity
(0, 1, the dtype's lowest or highest value, -inf or inf). With `bucket_size`
the rows are first scattered into one partial result per bucket of ids,
which are then reduced, for the numerical stability of long sums.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.lax import gather_scatter as lax_gs
from pyjax._src.numpy import at, creation, reductions, ufuncs
from pyjax._src.numpy.util import check_arraylike


def _identity(scatter_op: Callable, dtype) -> Any:
    if scatter_op is lax_gs.scatter_add:
        return 0
    if scatter_op is lax_gs.scatter_mul:
        return 1
    low = scatter_op is lax_gs.scatter_max  # max starts from the lowest value, min from the highest
    if dtype == np.bool_:
        return not low
    if dtypes.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return info.min if low else info.max
    return -float("inf") if low else float("inf")


def _num_segments(name: str, num_segments, segment_ids) -> int:
    if num_segments is None:
        if isinstance(segment_ids, core.Tracer):
            num_segments = reductions.max(segment_ids) + 1
        else:
            num_segments = int(np.max(np.asarray(segment_ids))) + 1
    if isinstance(num_segments, core.Tracer):
        raise errors.ConcretizationTypeError(num_segments, f"{name}() `num_segments` argument.")
    num_segments = int(num_segments)
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    return num_segments


def _segment_update(name: str, data, segment_ids, scatter_op: Callable, num_segments, indices_are_sorted: bool,
                    unique_indices: bool, bucket_size: int | None, reducer: Callable, mode):
    check_arraylike(name, data, segment_ids)
    mode = lax_gs.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data = creation.asarray(data)
    segment_ids = creation.asarray(segment_ids)
    dtype = data.dtype
    # The Python name of the function (segment_sum) is what JAX's message says, whichever reduction runs.
    num_segments = _num_segments("segment_sum", num_segments, segment_ids)
    if bucket_size is None:
        out = creation.full((num_segments,) + data.shape[1:], _identity(scatter_op, dtype), dtype=dtype)
        return at.scatter_update(out, segment_ids, data, scatter_op, indices_are_sorted, unique_indices,
                                 mode=mode, normalize_indices=False)
    num_buckets = -(-int(np.size(segment_ids)) // bucket_size)
    out = creation.full((num_buckets, num_segments) + data.shape[1:], _identity(scatter_op, dtype), dtype=dtype)
    bucket_of = ufuncs.floor_divide(creation.arange(segment_ids.shape[0]), bucket_size)
    out = at.scatter_update(out, (bucket_of, segment_ids[None, :]), data, scatter_op, indices_are_sorted,
                            unique_indices, mode=mode, normalize_indices=False)
    return reducer(out, axis=0).astype(dtype)


_SHARED_ARGS = """
    Args:
      data: an array with the values to be {verb}.
      segment_ids: an array with integer dtype that indicates the segments of
        `data` (along its leading axis) to be {verb}. Values can be repeated
        and need not be sorted.
      num_segments: optional, an int with nonnegative value indicating the
        number of segments. The default is set to be the minimum number of
        segments that would support all indices in ``segment_ids``,
        calculated as ``max(segment_ids) + 1``. Since `num_segments`
        determines the size of the output, a static value must be provided
        to use ``{name}`` in a JIT-compiled function.
      indices_are_sorted: whether ``segment_ids`` is known to be sorted.
      unique_indices: whether `segment_ids` is known to be free of duplicates.
      bucket_size: size of bucket to group indices into. ``{name}`` is
        performed on each bucket separately{why}. Default ``None`` means no
        bucketing.
      mode: a :class:`jax.lax.GatherScatterMode` value describing how
        out-of-bounds indices should be handled. By default, values outside
        of the range [0, num_segments) are dropped and do not contribute to
        the result.
      out_sharding: accepted for JAX's signature; only ``None`` is supported
        until pyjax has shardings.

    Returns:
      An array with shape :code:`(num_segments,) + data.shape[1:]`
      representing the segment {what}.
"""


def _check_sharding(out_sharding) -> None:
    if out_sharding is not None:
        raise NotImplementedError("out_sharding: pyjax has no shardings yet (issue 21)")


def segment_sum(data, segment_ids, num_segments: int | None = None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size: int | None = None, mode=None, out_sharding=None):
    _check_sharding(out_sharding)
    return _segment_update("segment_sum", data, segment_ids, lax_gs.scatter_add, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.sum, mode)


def segment_prod(data, segment_ids, num_segments: int | None = None, indices_are_sorted: bool = False,
                 unique_indices: bool = False, bucket_size: int | None = None, mode=None, out_sharding=None):
    _check_sharding(out_sharding)
    return _segment_update("segment_prod", data, segment_ids, lax_gs.scatter_mul, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.prod, mode)


def segment_max(data, segment_ids, num_segments: int | None = None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size: int | None = None, mode=None, out_sharding=None):
    _check_sharding(out_sharding)
    return _segment_update("segment_max", data, segment_ids, lax_gs.scatter_max, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.max, mode)


def segment_min(data, segment_ids, num_segments: int | None = None, indices_are_sorted: bool = False,
                unique_indices: bool = False, bucket_size: int | None = None, mode=None, out_sharding=None):
    _check_sharding(out_sharding)
    return _segment_update("segment_min", data, segment_ids, lax_gs.scatter_min, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, reductions.min, mode)


for _fun, _noun, _verb, _why in (
        (segment_sum, "sum", "summed", " to improve numerical stability of addition"),
        (segment_prod, "product", "reduced", " to improve numerical stability"),
        (segment_max, "maximum", "reduced", ""),
        (segment_min, "minimum", "reduced", "")):
    _fun.__doc__ = (f"Computes the {_noun} within segments of an array.\n\n"
                    f"    Similar to TensorFlow's `{_fun.__name__}`.\n"
                    + _SHARED_ARGS.format(verb=_verb, name=_fun.__name__, why=_why, what=_noun + "s"))
del _fun, _noun, _verb, _why
