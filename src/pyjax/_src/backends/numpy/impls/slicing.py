"""NumPy impls of the slicing family: dynamic_slice, dynamic_update_slice,
pad, split, gather and the scatters.

Everything is vectorised: windows are read with one advanced-indexing
expression and combined with `ufunc.at` (which accumulates duplicates, as
XLA's scatter-add does; a large scatter-add's sums run in C once the native
kernel is built, the same additions in the same order). Where NumPy and XLA
differ the impl does what XLA does and says so:

- dynamic starts are clamped so the whole window fits (NumPy would wrap
  negatives and truncate at the end);
- gather windows out of bounds are clamped (CLIP, PROMISE_IN_BOUNDS) or
  filled (FILL_OR_DROP); scatter windows out of bounds are clamped (CLIP) or
  dropped whole (FILL_OR_DROP, PROMISE_IN_BOUNDS) — even their in-bounds part;
- scatter (replace) with repeated indices keeps the last update, as XLA on
  CPU does; NumPy leaves the winner unspecified.

Operands are never written: scatters and dynamic_update_slice copy first.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.backends.numpy.impls import standard as impls
from pyjax._src.lax import gather_scatter as gs
from pyjax._src.lax import slicing as sl

IMPLS: dict = {}

_Mode = gs.GatherScatterMode


def _array(x) -> np.ndarray:
    """`x` as an ndarray; a Python scalar gets its canonical (weak) dtype,
    not NumPy's 64-bit default."""
    if type(x) in dtypes.python_scalar_types_to_dtypes:
        return np.asarray(x, dtypes.canonicalize_dtype(dtypes.python_scalar_types_to_dtypes[type(x)]))
    return np.asarray(x)


def _clamped_starts(start_indices, shape, window) -> list[int]:
    # XLA: start = clamp(start, 0, size - window), so the window is in bounds.
    return [min(max(int(s), 0), size - w) for s, size, w in zip(start_indices, shape, window, strict=True)]


# ---------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice


def _dynamic_slice(operand, *start_indices, slice_sizes):
    x = _array(operand)
    starts = _clamped_starts(start_indices, x.shape, slice_sizes)
    return x[tuple(slice(s, s + n) for s, n in zip(starts, slice_sizes, strict=True))]


def _dynamic_update_slice(operand, update, *start_indices):
    x = _array(operand)
    update = np.asarray(update)
    starts = _clamped_starts(start_indices, x.shape, update.shape)
    out = x.copy()
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape, strict=True))] = update
    return out


IMPLS[sl.dynamic_slice_p] = _dynamic_slice
IMPLS[sl.dynamic_update_slice_p] = _dynamic_update_slice


# ---------------------------------------------------------------------------
# pad and split


def _pad(operand, padding_value, *, padding_config):
    x = _array(operand)
    # Lay out the interior-dilated operand with the positive edge padding,
    # then cut away the negative edges.
    grown, placed, cut = [], [], []
    for (low, high, interior), size in zip(padding_config, x.shape, strict=True):
        dilated = 0 if size == 0 else 1 + (interior + 1) * (size - 1)
        lead, tail = max(low, 0), max(high, 0)
        grown.append(lead + dilated + tail)
        placed.append(slice(lead, lead + dilated, interior + 1))
        cut.append(slice(max(-low, 0), lead + dilated + tail - max(-high, 0)))
    out = np.full(grown, padding_value, dtype=x.dtype)
    out[tuple(placed)] = x
    return out[tuple(cut)]


def _split(operand, *, sizes, axis):
    # Basic slices along `axis`: the views np.split makes, without its ~40 us
    # of Python (a transformer's q, k, v split off one projection).
    x = _array(operand)
    index, outs, start = [slice(None)] * x.ndim, [], 0
    for size in sizes:
        index[axis] = slice(start, start + size)
        outs.append(x[tuple(index)])
        start += size
    return outs


IMPLS[sl.pad_p] = _pad
IMPLS[sl.split_p] = _split


# ---------------------------------------------------------------------------
# Index vectors -> per-axis window starts (shared by gather and scatter)


def _window_starts(indices: np.ndarray, operand_ndim: int, index_map, operand_batching_dims,
                   indices_batching_dims) -> list:
    """For each operand axis, the start of every window (an array over the
    indices' batch shape, or the scalar 0)."""
    batch_shape = indices.shape[:-1]
    starts: list = [0] * operand_ndim
    for k, d in enumerate(index_map):
        starts[d] = indices[..., k].astype(np.int64)
    # A batching axis pairs operand position b with the b-th batch entry.
    for operand_dim, indices_dim in zip(operand_batching_dims, indices_batching_dims, strict=True):
        position = [1] * len(batch_shape)
        position[indices_dim] = batch_shape[indices_dim]
        starts[operand_dim] = np.arange(batch_shape[indices_dim], dtype=np.int64).reshape(position)
    return starts


def _bound_windows(starts: list, index_map, shape, window, clamp: bool, batch_shape) -> np.ndarray:
    """Clamps the starts (in place) so every window lies inside the operand,
    and returns the mask of windows that were inside before clamping (all
    True when `clamp`: then clamping is the semantics, not just safety)."""
    in_bounds = None
    for d in index_map:
        upper = shape[d] - window[d]
        if not clamp:
            ok = (starts[d] >= 0) & (starts[d] <= upper)
            in_bounds = ok if in_bounds is None else in_bounds & ok
        starts[d] = np.minimum(np.maximum(starts[d], 0), max(upper, 0))  # (np.clip's wrapper: ~4x the cost)
    if in_bounds is None:
        return np.ones(batch_shape, bool)
    return np.broadcast_to(in_bounds, batch_shape)


def _row_axis(shape, index_map, collapsed, batching, window) -> int | None:
    """The one operand axis indexed when every window is a whole row along it
    (that axis collapsed, every other axis read in full), else None."""
    if len(index_map) != 1 or batching or tuple(collapsed) != tuple(index_map):
        return None
    (axis,) = index_map
    if all(window[d] == shape[d] for d in range(len(shape)) if d != axis):
        return axis
    return None


# ---------------------------------------------------------------------------
# gather


def _gather(operand, indices, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted, mode,
            fill_value):
    dnums = dimension_numbers
    mode = _Mode.from_any(mode)
    if mode == _Mode.ONE_HOT:
        raise NotImplementedError("gather mode ONE_HOT is not supported by the NumPy backend")
    x = _array(operand)
    indices = np.asarray(indices)
    batch_shape = indices.shape[:-1]
    nb = len(batch_shape)
    starts = _window_starts(indices, x.ndim, dnums.start_index_map, dnums.operand_batching_dims,
                            dnums.start_indices_batching_dims)
    fill = mode == _Mode.FILL_OR_DROP
    in_bounds = _bound_windows(starts, dnums.start_index_map, x.shape, slice_sizes, not fill, batch_shape)
    dropped = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
    kept = [d for d in range(x.ndim) if d not in dropped]
    row_axis = _row_axis(x.shape, dnums.start_index_map, dnums.collapsed_slice_dims, dnums.operand_batching_dims,
                         slice_sizes)
    if row_axis is not None and nb:
        # Whole rows along one axis (an embedding lookup): np.take copies
        # them; the same elements as indexing every axis, far fewer indices.
        taken = np.take(x, starts[row_axis], axis=row_axis)
        window = np.moveaxis(taken, tuple(range(row_axis, row_axis + nb)), tuple(range(nb)))
    elif not kept and x.ndim and all(slice_sizes[d] == 1 for d in range(x.ndim)):
        # One element per index (a diagonal): the starts index every axis.
        window = x[tuple(starts)]
        if np.shape(window) != batch_shape:  # (no start varies over the batch)
            window = np.broadcast_to(window, batch_shape)
    elif any(slice_sizes[d] == 0 for d in dropped):
        # A batching axis with an empty window: nothing to read.
        window = np.zeros(batch_shape + tuple(slice_sizes[d] for d in kept), x.dtype)
    else:
        # Index every operand axis with start + offset: result axes are the
        # batch axes, then the window axes of the kept operand dims.
        index = []
        for d in range(x.ndim):
            start = np.reshape(starts[d], np.shape(starts[d]) + (1,) * len(kept)) if np.ndim(starts[d]) else starts[d]
            if d in dropped:
                index.append(start)
            else:
                offset_shape = [1] * (nb + len(kept))
                offset_shape[nb + kept.index(d)] = slice_sizes[d]
                index.append(start + np.arange(slice_sizes[d], dtype=np.int64).reshape(offset_shape))
        index = [np.broadcast_to(i, batch_shape + tuple(slice_sizes[d] for d in kept)) for i in index]
        window = x[tuple(index)] if x.ndim else np.broadcast_to(x, batch_shape)
    # Move the window axes to `offset_dims`; batch axes fill the rest in order.
    out_ndim = nb + len(dnums.offset_dims)
    source = [None] * out_ndim
    for k, d in enumerate(dnums.offset_dims):
        source[d] = nb + k
    batch_axes = iter(range(nb))
    source = [next(batch_axes) if s is None else s for s in source]
    result = np.transpose(window, source)
    if fill and not in_bounds.all():  # (every window in bounds: nothing to fill, no pass over the result)
        value = gs.default_fill_value(x.dtype) if fill_value is None else fill_value
        mask = np.expand_dims(in_bounds, tuple(dnums.offset_dims))
        # Conversion like lax.full_like: an integer fill wraps into the dtype.
        result = np.where(mask, result, np.array(value).astype(x.dtype))
    # (ascontiguousarray makes a 0-d result 1-d: keep the gathered shape)
    return np.ascontiguousarray(result).reshape(np.shape(result))


IMPLS[gs.gather_p] = _gather


# ---------------------------------------------------------------------------
# scatter


def _scatter_targets(x: np.ndarray, indices, updates: np.ndarray, dnums, mode):
    """The operand position of every update element, as a tuple of flat
    index arrays, and the updates that land (out-of-bounds windows dropped
    unless CLIP)."""
    mode = _Mode.from_any(mode)
    if mode == _Mode.ONE_HOT:
        raise NotImplementedError("scatter mode ONE_HOT is not supported by the NumPy backend")
    indices = np.asarray(indices)
    batch_shape = indices.shape[:-1]
    starts = _window_starts(indices, x.ndim, dnums.scatter_dims_to_operand_dims, dnums.operand_batching_dims,
                            dnums.scatter_indices_batching_dims)
    window_operand_dims = [d for d in range(x.ndim)
                           if d not in dnums.inserted_window_dims and d not in dnums.operand_batching_dims]
    window = [1] * x.ndim
    for d, u in zip(window_operand_dims, dnums.update_window_dims, strict=True):
        window[d] = updates.shape[u]
    in_bounds = _bound_windows(starts, dnums.scatter_dims_to_operand_dims, x.shape, window,
                               mode == _Mode.CLIP, batch_shape)
    # Lay each start out in the updates' axes: batch axes where updates has
    # its scatter axes, size 1 at its window axes.
    window_axes = tuple(dnums.update_window_dims)
    if not window_axes:  # one element per index (a diagonal's gradient): the starts are the targets
        targets = [np.broadcast_to(start, batch_shape).reshape(-1) for start in starts]
        if in_bounds.all():
            return tuple(targets), updates.reshape(-1)
        keep = in_bounds.reshape(-1)
        return tuple(t[keep] for t in targets), updates.reshape(-1)[keep]
    targets = []
    for d in range(x.ndim):
        position = np.expand_dims(np.broadcast_to(starts[d], batch_shape), window_axes)
        if d in window_operand_dims:
            u = dnums.update_window_dims[window_operand_dims.index(d)]
            offset_shape = [1] * updates.ndim
            offset_shape[u] = updates.shape[u]
            position = position + np.arange(updates.shape[u], dtype=np.int64).reshape(offset_shape)
        targets.append(np.broadcast_to(position, updates.shape))
    keep = np.broadcast_to(np.expand_dims(in_bounds, window_axes), updates.shape)
    if keep.all():
        return tuple(t.reshape(-1) for t in targets), updates.reshape(-1)
    return tuple(t[keep] for t in targets), updates[keep]


def _row_scatter(operand, indices, updates, dnums, mode):
    """(a fresh copy of the operand, the row axis, the row of every landing
    update, those updates as rows) when every update window is a whole row
    along one operand axis, else None."""
    x = _array(operand)
    indices, updates = np.asarray(indices), np.asarray(updates, dtype=x.dtype)
    window_dims = tuple(dnums.update_window_dims)
    window = [1] * x.ndim
    others = [d for d in range(x.ndim) if d not in dnums.inserted_window_dims]
    if len(others) != len(window_dims):
        return None
    for d, u in zip(others, window_dims, strict=True):
        window[d] = updates.shape[u]
    axis = _row_axis(x.shape, dnums.scatter_dims_to_operand_dims, dnums.inserted_window_dims,
                     dnums.operand_batching_dims, window)
    batch_shape = indices.shape[:-1]
    if axis is None or not batch_shape or _Mode.from_any(mode) == _Mode.ONE_HOT:
        return None
    starts = _window_starts(indices, x.ndim, dnums.scatter_dims_to_operand_dims, (), ())
    in_bounds = _bound_windows(starts, (axis,), x.shape, window, _Mode.from_any(mode) == _Mode.CLIP, batch_shape)
    batch_axes = [a for a in range(updates.ndim) if a not in window_dims]
    rows = np.transpose(updates, (*batch_axes, *window_dims)).reshape(-1, *(x.shape[d] for d in others))
    index = np.broadcast_to(starts[axis], batch_shape).reshape(-1)
    keep = in_bounds.reshape(-1)
    if not keep.all():
        index, rows = index[keep], rows[keep]
    return x.copy(), axis, index, rows


def _prepared(operand, indices, updates, dnums, mode):
    """A fresh copy of the operand, a flat (contiguous) view of it, the flat
    position of every landing update, and those updates."""
    x = _array(operand)
    updates = np.asarray(updates, dtype=x.dtype)
    targets, values = _scatter_targets(x, indices, updates, dnums, mode)
    flat = np.ravel_multi_index(targets, x.shape) if x.ndim else np.zeros(len(values), np.int64)
    out = x.copy()
    return out, out.reshape(-1), flat, values


# `kernel(out, index, rows) -> bool`: out[index[i]] += rows[i] in order, as
# np.add.at does it, for a C-contiguous 2-D `out` (native/scatter.py, set by
# install()); False leaves it to np.add.at.
_add_kernel: list = [None]


def set_add_kernel(kernel) -> None:
    _add_kernel[0] = kernel


def _kernel_add(out: np.ndarray, index: np.ndarray, values: np.ndarray) -> bool:
    # The updates summed into rows of `out` along its leading axis.
    kernel = _add_kernel[0]
    if kernel is None or not out.ndim or not out.flags.c_contiguous:
        return False
    width = out.size // out.shape[0] if out.shape[0] else 0
    return kernel(out.reshape(out.shape[0], width), index, values.reshape(len(index), width))


def _combining_scatter(ufunc):
    def impl(operand, indices, updates, *, update_jaxpr, update_consts, dimension_numbers, indices_are_sorted,
             unique_indices, mode):
        rows = _row_scatter(operand, indices, updates, dimension_numbers, mode) if ufunc in (np.add, np.subtract) \
            else None
        if rows is not None:
            # Whole rows (an embedding's gradient): flat positions from the
            # row starts, without indexing every axis; ufunc.at by elements
            # (by rows it is far slower), in the same order as before.
            out, axis, index, values = rows
            if ufunc is np.add and axis == 0 and _kernel_add(out, index, values):
                return out
            steps = [st // out.itemsize for st in out.strides]
            within = np.zeros((), np.int64)
            for d in range(out.ndim):
                if d != axis:
                    within = np.add.outer(within, np.arange(out.shape[d], dtype=np.int64) * steps[d])
            flat = np.add.outer(index.astype(np.int64) * steps[axis], within.reshape(-1)).reshape(-1)
            ufunc.at(out.reshape(-1), flat, values.reshape(-1))
            return out
        out, out_flat, flat, values = _prepared(operand, indices, updates, dimension_numbers, mode)
        if ufunc is np.add and _kernel_add(out_flat, flat, values):
            return out
        # ufunc.at applies every update, so repeated positions accumulate.
        # NaNs propagate through min/max as in XLA, without NumPy's warning.
        with np.errstate(invalid="ignore"):
            ufunc.at(out_flat, flat, values)
        if ufunc in (np.maximum, np.minimum) and impls.float_zeros(out):
            # XLA orders -0.0 below +0.0; ufunc.at kept the first zero it met.
            is_max = ufunc is np.maximum
            won = impls.zero_winners(np.asarray(operand, out.dtype), is_max).reshape(-1).copy()
            np.logical_or.at(won, flat, impls.zero_winners(values, is_max))
            out = impls.ordered_zeros(out, won.reshape(out.shape), is_max)
        return out

    impl.__name__ = f"scatter_{ufunc.__name__}"
    return impl


def _scatter(operand, indices, updates, *, update_jaxpr, update_consts, dimension_numbers, indices_are_sorted,
             unique_indices, mode):
    out, out_flat, flat, values = _prepared(operand, indices, updates, dimension_numbers, mode)
    if update_jaxpr is None:
        # Last update wins: keep each position's last occurrence.
        _, first_in_reversed = np.unique(flat[::-1], return_index=True)
        last = len(flat) - 1 - first_in_reversed
        out_flat[flat[last]] = values[last]
        return out
    # A general combiner (scatter_apply): applied once per update, in order.
    # Updates are grouped into rounds by how many earlier updates hit the
    # same position, so each round is one vectorised step that touches every
    # position at most once.
    order = np.argsort(flat, kind="stable")
    sorted_flat = flat[order]
    run_starts = np.flatnonzero(np.r_[True, sorted_flat[1:] != sorted_flat[:-1]]) if len(flat) else np.zeros(0, np.int64)
    run_lengths = np.diff(np.r_[run_starts, len(flat)])
    occurrence = np.empty(len(flat), np.int64)
    occurrence[order] = np.arange(len(flat)) - np.repeat(run_starts, run_lengths)
    for r in range(int(occurrence.max(initial=-1)) + 1):
        chosen = np.flatnonzero(occurrence == r)
        positions = flat[chosen]
        out_flat[positions] = _apply_jaxpr(update_jaxpr, out_flat[positions], values[chosen])
    return out


def _apply_jaxpr(jaxpr, current: np.ndarray, updates: np.ndarray) -> np.ndarray:
    # The merged impl table is built by impls.py after importing this module.
    from pyjax._src.backends.numpy.impls import IMPLS as ALL_IMPLS
    from pyjax._src.backends.numpy.impls.interpreter import run_jaxpr

    (result,) = run_jaxpr(jaxpr, ALL_IMPLS, [current, updates])
    return np.broadcast_to(np.asarray(result, dtype=current.dtype), current.shape)


IMPLS[gs.scatter_p] = _scatter
IMPLS[gs.scatter_add_p] = _combining_scatter(np.add)
IMPLS[gs.scatter_sub_p] = _combining_scatter(np.subtract)
IMPLS[gs.scatter_mul_p] = _combining_scatter(np.multiply)
IMPLS[gs.scatter_min_p] = _combining_scatter(np.minimum)
IMPLS[gs.scatter_max_p] = _combining_scatter(np.maximum)
