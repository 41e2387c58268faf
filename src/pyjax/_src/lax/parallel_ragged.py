"""Collectives of shard_map bodies beyond parallel_comm's: `ragged_all_to_all`
and `all_gather_invariant` (what `all_gather(..., to='invarying')` binds).

`ragged_all_to_all(operand, output, input_offsets, send_sizes,
output_offsets, recv_sizes, axis_name=)` sends slices of the leading axis
of each device's `operand` to the devices of `axis_name`: slice k goes to
the device whose index is `k // (K / axis size)` and lands in its `output`
at the sender's `output_offsets[k]`. Its type is `output`'s. (XLA:CPU cannot
run it; pyjax's per-device runtime does, as JAX documents it.)

`all_gather_invariant` gathers as `all_gather` does, and its result's type
is invariant over the gathered axes (the same value on every device of a
group), where `all_gather`'s stays varying.

Both are linear in their data. `ragged_all_to_all` transposes into another
ragged exchange running the other way (each device's offsets exchanged by
an `all_to_all` first), and its `output` operand's cotangent is the
cotangent with the received slices zeroed; `all_gather_invariant`
transposes into each device slicing its own block out of the (invariant)
cotangent. Under vmap over another axis, a batched ragged exchange folds the
batch into the leading axis (offsets shifted per batch entry) and a gather
moves its dimension past the batch axis.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.ad_util import Zero, instantiate, zeros_like_aval
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import gather_scatter as gs
from pyjax._src.lax import shapes
from pyjax._src.lax.batching_util import broadcast_batch, moveaxis
from pyjax._src.lax.parallel import (
    axes_tuple, axis_index, canonical_groups, check_axis_names, fold_axis, named_axis_size,
)
from pyjax._src.lax.parallel_vma import pvary_p
from pyjax._src.lax.slicing import _canonicalize_axis, dynamic_slice_in_dim
from pyjax._src.rules import SHARDING_OF_COLLECTIVE

__all__ = ["all_gather_invariant_p", "ragged_all_to_all", "ragged_all_to_all_p"]

ragged_all_to_all_p = Primitive("ragged_all_to_all")
ragged_all_to_all_p.declare(sharding_reason=SHARDING_OF_COLLECTIVE)
ragged_all_to_all_p.is_collective = True  # its batching rule resolves vmap's names

_RAGGED_OPERANDS = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")


def _ragged_abstract_eval(operand, output, *sizes, axis_name, axis_index_groups):
    # (JAX's checks, in its order: the index operands' dtypes, then their ranks.)
    for name, aval in zip(_RAGGED_OPERANDS, sizes):
        if not np.issubdtype(aval.dtype, np.integer):
            raise ValueError(f"ragged_all_to_all {name} must be integer type.")
    for name, aval in zip(_RAGGED_OPERANDS, sizes):
        if len(aval.shape) != 1 or aval.shape[0] < 1:
            raise ValueError(f"ragged_all_to_all {name} must be rank 1 with positive dimension size, but got "
                             f"shape {aval.shape}")
    check_axis_names(axis_name, "ragged_all_to_all")
    return output.update(weak_type=False)


ragged_all_to_all_p.def_abstract_eval(_ragged_abstract_eval)


def _ragged_jvp(primals, tangents, **params):
    # Linear in the data (operand, output); the offsets and sizes only index.
    out = ragged_all_to_all_p.bind(*primals, **params)
    data = [instantiate(t) for t in tangents[:2]]
    return out, ragged_all_to_all_p.bind(*data, *primals[2:], **params)


ragged_all_to_all_p.def_jvp(_ragged_jvp)


def _varying_like(x, aval):
    # A fresh value (a zero) typed as varying over the same manual axes as
    # `aval`, cast where it is made (as JAX's zeros of a varying type are).
    return pvary_p.bind(x, axes=aval.vma) if getattr(aval, "vma", ()) else x


def _scatter_positions(positions, n: int):
    # jnp's `.at[positions]` on a length-n axis: negative positions count from
    # the end; each becomes a one-element index vector.
    zero = np.zeros((), positions.aval.dtype)[()]
    wrapped = ew.select(ew.lt(positions, zero), ew.add(positions, np.asarray(n, positions.aval.dtype)[()]), positions)
    k = positions.aval.shape[0]
    return shapes.broadcast_in_dim(wrapped, (k, 1), (0,))


_POINTS = gs.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,), operand_batching_dims=(),
                                     scatter_indices_batching_dims=())


def _received_mask(ct, starts, sizes):
    """1 where this device's `output` was overwritten by the exchange (the
    rows [starts[k], starts[k] + sizes[k])), else 0, broadcast to ct's shape:
    +1 at each start, -1 at each end, summed along the rows.

    (JAX 0.11 *sets* the starts to 1, so an empty slice ending where another
    starts cancels that start and the mask goes wrong; adding keeps an empty
    slice's +1 and -1 together. That one equation is a scatter-add here.)"""
    n, k = ct.aval.shape[0], starts.aval.shape[0]
    i32 = np.dtype(np.int32)
    marks = shapes.full((n,), 0, i32)
    marks = gs.scatter_add(marks, _scatter_positions(starts, n), shapes.full((k,), 1, i32), _POINTS, mode="fill")
    ends = _scatter_positions(ew.add(starts, sizes), n)
    marks = gs.scatter_add(marks, ends, shapes.full((k,), -1, i32), _POINTS, mode="fill")
    from pyjax._src.lax.windowed import cumsum  # (the cumulative family loads with its first use)
    mask = cumsum(marks, 0)
    ndim = ct.aval.ndim
    mask = shapes.expand_dims(mask, tuple(range(1, ndim))) if ndim > 1 else mask
    return shapes.broadcast_in_dim(mask, ct.aval.shape, tuple(range(ndim)))


def _ragged_transpose(ct, operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, *, axis_name,
                      axis_index_groups):
    from pyjax._src.lax.parallel_comm import all_to_all

    if type(ct) is Zero:
        return [Zero(operand.aval) if is_undefined_primal(operand) else None,
                Zero(output.aval) if is_undefined_primal(output) else None, None, None, None, None]
    operand_aval = operand.aval if is_undefined_primal(operand) else core.get_aval(operand)
    zero = _varying_like(zeros_like_aval(operand_aval.update(vma=())), operand_aval)
    # On each device, per peer: where that peer's slices landed here, and
    # where in the peer's operand they came from.
    landed = all_to_all(output_offsets, axis_name, 0, 0, tiled=True)
    origins = all_to_all(input_offsets, axis_name, 0, 0, tiled=True)
    # The slices go back: received rows (recv_sizes of them per peer) are sent
    # to their origins, and fill `send_sizes` rows there.
    operand_ct = ragged_all_to_all_p.bind(ct, zero, landed, recv_sizes, origins, send_sizes, axis_name=axis_name,
                                          axis_index_groups=axis_index_groups)
    # Rows of `output` the exchange overwrote had no effect on the result.
    mask = _received_mask(ct, landed, recv_sizes)
    output_ct = ew.select_n(mask, ct, shapes.full(ct.aval.shape, 0, ct.aval.dtype))
    return [operand_ct, output_ct, None, None, None, None]


ragged_all_to_all_p.def_transpose(_ragged_transpose)


def _offsets_batch_second(x, d, size: int):
    # An index operand (K,) as (K, batch).
    if d is not_mapped:
        k = core.get_aval(x).shape[0]
        return shapes.broadcast_in_dim(x, (k, size), (0,))
    return x if d == 1 else moveaxis(x, d, 1)


def _ragged_batch(axis_data, args, dims, *, axis_name, axis_index_groups):
    params = {"axis_name": axis_name, "axis_index_groups": axis_index_groups}
    if axis_data.name not in axis_name and all(d is not_mapped for d in dims):
        return ragged_all_to_all_p.bind(*args, **params), not_mapped
    if axis_data.name in axis_name or axis_index_groups:  # (JAX's message, for either)
        raise NotImplementedError("Please open a feature request!")
    size = axis_data.size
    # Each batch entry becomes a block of the leading axis: entry b's rows
    # start at b * N (operand) and b * M (output); slice k of entry b is
    # index k * size + b of the merged index operands, so the devices it
    # goes to are unchanged.
    operand, output = (broadcast_batch(x, size, 0) if d is not_mapped else moveaxis(x, d, 0)
                       for x, d in zip(args[:2], dims[:2]))
    n, m = operand.aval.shape[1], output.aval.shape[1]
    in_off, send, out_off, recv = (_offsets_batch_second(x, d, size) for x, d in zip(args[2:], dims[2:]))
    in_off = ew.add(in_off, _entry_starts(in_off.aval.dtype, size, n))
    out_off = ew.add(out_off, _entry_starts(out_off.aval.dtype, size, m))
    merged = [fold_axis(x, 0) for x in (operand, output, in_off, send, out_off, recv)]
    out = ragged_all_to_all(*merged, axis_name=axis_name)
    shape = core.get_aval(out).shape
    return shapes.reshape(out, (size, shape[0] // size, *shape[1:])), 0


def _entry_starts(dtype, size: int, rows: int):
    # [[0, rows, 2 * rows, ...]]: where each batch entry's block starts.
    starts = shapes.broadcast_in_dim(shapes.iota(dtype, size), (1, size), (1,))
    return ew.mul(starts, np.asarray(rows, dtype)[()])


ragged_all_to_all_p.def_batch(_ragged_batch)


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, *, axis_name,
                      axis_index_groups=None):
    """Ragged all-to-all over the mapped axis `axis_name` (JAX's
    `lax.ragged_all_to_all`): each device sends
    `operand[input_offsets[k]:input_offsets[k] + send_sizes[k]]` to device
    `k // (K / axis size)` of the axis, written there at `output_offsets[k]`;
    returns `output` updated with what this device received. With
    `axis_index_groups` (lists of indices into the axis, all of one size) the
    exchange runs within each group, `k // (K / group size)` naming a member
    of the sender's group."""
    names = axes_tuple(axis_name)
    return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes,
                                    axis_name=names, axis_index_groups=canonical_groups(axis_index_groups))


def ragged_exchange(operands: list, output_offsets: list, send_sizes: list, input_offsets: list,
                    outputs: list) -> list:
    """The devices of one group's exchange (in axis order): what each device's
    `output` becomes."""
    n = len(operands)
    results = [np.array(o, copy=True) for o in outputs]
    for src in range(n):
        offsets_in, sizes, offsets_out = (np.asarray(a[src]) for a in (input_offsets, send_sizes, output_offsets))
        per_device = len(sizes) // n
        for k in range(len(sizes)):
            size, start, at = int(sizes[k]), int(offsets_in[k]), int(offsets_out[k])
            if size:
                results[k // per_device][at:at + size] = np.asarray(operands[src])[start:start + size]
    return results


# ---------------------------------------------------------------------------
# all_gather(..., to='invarying')

all_gather_invariant_p = Primitive("all_gather_invariant")
all_gather_invariant_p.declare(sharding_reason=SHARDING_OF_COLLECTIVE)
all_gather_invariant_p.is_collective = True


def _gather_invariant_abstract_eval(aval, *, all_gather_dimension, axis_name, axis_size, tiled):
    shape = list(aval.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return aval.update(shape=tuple(shape), vma=tuple(a for a in aval.vma if a not in axis_name))


all_gather_invariant_p.def_abstract_eval(_gather_invariant_abstract_eval)


def _gather_invariant_transpose(ct, operand, *, all_gather_dimension, axis_name, axis_size, tiled):
    # The cotangent is the same on every device of the group; each keeps the
    # block it contributed (no sum: the gather did not add anything up).
    if type(ct) is Zero:
        return [Zero(operand.aval)]
    block = ct.aval.shape[all_gather_dimension] // axis_size
    start = ew.mul(axis_index(axis_name), np.asarray(block, np.int32)[()])
    out = dynamic_slice_in_dim(ct, start, block, all_gather_dimension)
    return [out if tiled else shapes.squeeze(out, (all_gather_dimension,))]


deflinear(all_gather_invariant_p, _gather_invariant_transpose)


def _gather_invariant_batch(axis_data, args, dims, *, all_gather_dimension, axis_name, axis_size, tiled):
    (x,), (d,) = args, dims
    names = axes_tuple(axis_name)
    params = {"axis_name": axis_name, "axis_size": axis_size, "tiled": tiled}
    if axis_data.name not in names:
        if d is not_mapped:
            return all_gather_invariant_p.bind(x, all_gather_dimension=all_gather_dimension, **params), d
        # The gathered dimension and the batch axis move past each other.
        dim = all_gather_dimension
        if d <= dim:
            dim += 1
        elif not tiled:
            d += 1
        return all_gather_invariant_p.bind(x, all_gather_dimension=dim, **params), d
    # Over vmap's own axis: the lanes' values stacked (or concatenated) along
    # the gathered dimension, the same for every lane.
    if len(names) > 1:
        raise NotImplementedError(f"all_gather_invariant over several axis names {names} including vmap's axis "
                                  f"{axis_data.name!r}: Please open a feature request!")
    assert axis_size == axis_data.size, "axis size doesn't match"
    if d is not_mapped:
        shape = list(core.get_aval(x).shape)
        shape.insert(all_gather_dimension, axis_size)
        kept = tuple(i for i in range(len(shape)) if i != all_gather_dimension)
        y = shapes.broadcast_in_dim(x, tuple(shape), kept)
    else:
        y = moveaxis(x, d, all_gather_dimension)
    return (fold_axis(y, all_gather_dimension) if tiled else y), not_mapped


all_gather_invariant_p.def_batch(_gather_invariant_batch)


def all_gather_invariant(x, names: tuple, *, axis: int, tiled: bool):
    """`all_gather(x, names, axis=, tiled=, to='invarying')` of one array."""
    check_axis_names(names, "all_gather")
    ndim = core.get_aval(x).ndim
    dim = _canonicalize_axis(axis, ndim if tiled else ndim + 1)
    return all_gather_invariant_p.bind(x, all_gather_dimension=dim, axis_name=names,
                                       axis_size=named_axis_size(names, None), tiled=tiled)
