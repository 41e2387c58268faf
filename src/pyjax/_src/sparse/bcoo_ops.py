"""BCOO operations written on the data and indices arrays (no primitives of
their own): reductions, reshapes, slices, concatenation, elementwise
products and layout changes. They trace, differentiate and map as the array
operations they are made of."""

from __future__ import annotations

import math
import operator
import warnings
from typing import Sequence

import numpy as np

from pyjax._src.sparse import bcoo_core
from pyjax._src.sparse.util import SparseEfficiencyError, SparseEfficiencyWarning, broadcast_batch
import pyjax.numpy as jnp
from pyjax import lax


def _bcoo(data, indices, shape, sorted_=False, unique=False):
    from pyjax._src.sparse.bcoo import BCOO
    return BCOO((data, indices), shape=shape, indices_sorted=sorted_, unique_indices=unique)


def _full_batch(mat):
    """data and indices with batch dimensions at the array's full batch shape."""
    n = mat.n_batch
    data = jnp.broadcast_to(mat.data, mat.shape[:n] + mat.data.shape[n:])
    indices = jnp.broadcast_to(mat.indices, mat.shape[:n] + mat.indices.shape[n:])
    return data, indices


def _invalidate(data, indices, keep, fill):
    """Stored elements outside `keep` become padding: zero data, index `fill`."""
    data = jnp.where(keep.reshape(keep.shape + (1,) * (data.ndim - keep.ndim)), data, 0)
    indices = jnp.where(keep[..., None], indices, jnp.array(fill, indices.dtype))
    return data, indices


def _valid(indices, sparse_shape):
    return bcoo_core._padding_mask(indices, sparse_shape)


def bcoo_reduce_sum(mat, *, axes: Sequence[int]):
    """Add up the elements of a BCOO array along the given axes.

    Args:
      mat: the BCOO array.
      axes: the axes of ``mat`` to reduce over.

    Returns:
      A BCOO array holding the sums.
    """
    axes = sorted({int(a) % mat.ndim for a in axes})
    n_batch, n_sparse = mat.n_batch, mat.n_sparse
    data, indices = mat.data, mat.indices
    dense_axes = [a - n_batch - n_sparse for a in axes if a >= n_batch + n_sparse]
    if dense_axes:
        data = data.sum(tuple(n_batch + 1 + d for d in dense_axes))
    sparse_axes = [a - n_batch for a in axes if n_batch <= a < n_batch + n_sparse]
    if sparse_axes:
        indices = indices[..., [d for d in range(n_sparse) if d not in sparse_axes]]
    batch_axes = [a for a in axes if a < n_batch]
    if batch_axes:
        data, indices = _full_batch(_bcoo(data, indices, mat.shape))
        for a in reversed(batch_axes):
            # Fold the summed batch axis into the stored elements.
            nb = data.ndim - 1 - (mat.n_dense - len(dense_axes))
            data = jnp.moveaxis(data, a, nb - 1)
            data = data.reshape(data.shape[:nb - 1] + (-1,) + data.shape[nb + 1:])
            indices = jnp.moveaxis(indices, a, indices.ndim - 3)
            indices = indices.reshape(indices.shape[:-3] + (-1, indices.shape[-1]))
    shape = tuple(d for i, d in enumerate(mat.shape) if i not in axes)
    changed = bool(sparse_axes or batch_axes)
    return _bcoo(data, indices, shape, mat.indices_sorted and not changed, mat.unique_indices and not changed)


def _split_shape(new_sizes, parts):
    """new_sizes split into consecutive groups whose products are `parts`."""
    out, start = [], 0
    for i, size in enumerate(parts):
        stop = start
        prod = 1
        while stop < len(new_sizes) and (prod != size or (i == len(parts) - 1 and stop < len(new_sizes))):
            prod *= new_sizes[stop]
            stop += 1
            if prod == size and i < len(parts) - 1:
                break
        if prod != size:
            return None
        out.append(tuple(new_sizes[start:stop]))
        start = stop
    return out if start == len(new_sizes) else None


def bcoo_reshape(mat, *, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None, sharding=None):
    """Sparse implementation of {func}`jax.lax.reshape`.

    Args:
      mat: the BCOO array to reshape.
      new_sizes: the target shape; it must hold the same number of elements, and
        batch, sparse and dense dimensions may not be merged with one another.
      dimensions: optional axis order to apply before reshaping, of length
        ``mat.ndim``; it may only reorder axes within the batch, sparse or
        dense group.
      sharding: ignored.

    Returns:
      out: reshaped array.
    """
    new_sizes = tuple(int(s) for s in new_sizes)
    if dimensions is not None and tuple(dimensions) != tuple(range(mat.ndim)):
        mat = bcoo_core.bcoo_transpose(mat, permutation=dimensions)
    n_batch, n_sparse = mat.n_batch, mat.n_sparse
    batch, sparse, dense = mat.shape[:n_batch], mat.shape[n_batch:n_batch + n_sparse], mat.shape[n_batch + n_sparse:]
    groups = _split_shape(new_sizes, (math.prod(batch), math.prod(sparse), math.prod(dense)))
    if groups is None or (dense and groups[2] != dense):
        raise ValueError(f"bcoo_reshape: new_sizes={new_sizes} mixes batch, sparse and dense dimensions of "
                         f"an array of shape {mat.shape} with n_batch={n_batch} and n_dense={mat.n_dense}")
    new_batch, new_sparse, _ = groups
    data, indices = _full_batch(mat) if new_batch != batch else (mat.data, mat.indices)
    data = data.reshape(new_batch + data.shape[n_batch:])
    indices = indices.reshape(new_batch + indices.shape[n_batch:])
    if new_sparse != sparse:
        valid = _valid(indices, sparse)
        flat = jnp.zeros(indices.shape[:-1], indices.dtype)
        for i, size in enumerate(sparse):
            flat = flat * size + indices[..., i]
        cols = []
        for size in reversed(new_sparse):
            cols.append(flat % size)
            flat = flat // size
        indices = jnp.stack(cols[::-1], axis=-1) if cols else flat[..., None][..., :0]
        data, indices = _invalidate(data, indices, valid, new_sparse)
    return _bcoo(data, indices, new_sizes, mat.indices_sorted and new_sparse == sparse, mat.unique_indices)


def bcoo_reshape_method(mat, *args, order="C"):
    """BCOO.reshape: `reshape(*shape)` or `reshape(shape)`."""
    shape = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
    shape = tuple(shape)
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape = tuple(mat.size // known if s == -1 else s for s in shape)
    return bcoo_reshape(mat, new_sizes=shape)


def bcoo_broadcast_in_dim(mat, *, shape, broadcast_dimensions, sharding=None):
    """BCOO counterpart of :func:`jax.lax.broadcast_in_dim`.

    The result may have more and larger dimensions; data is repeated as needed.

    Args:
      mat: the BCOO array.
      shape: shape of the result.
      broadcast_dimensions: for each axis of ``mat``, the result axis it maps to.
      sharding: ignored.

    Returns:
      The broadcast BCOO array.
    """
    shape, bdims = tuple(shape), tuple(broadcast_dimensions)
    n_batch, n_sparse = mat.n_batch, mat.n_sparse
    sparse_out, dense_out = bdims[n_batch:n_batch + n_sparse], bdims[n_batch + n_sparse:]
    # A new dimension is a batch one before the sparse ones, a dense one
    # after the first dense one, and a (length-1) sparse one otherwise.
    first_sparse = min(sparse_out, default=min(dense_out, default=len(shape)))
    first_dense = min(dense_out, default=len(shape))
    new = [d for d in range(len(shape)) if d not in bdims]
    new_batch = [d for d in new if d < first_sparse]
    new_dense = [d for d in new if d > first_dense]
    new_sparse = [d for d in new if d not in new_batch and d not in new_dense]
    if any(shape[d] != 1 for d in new_sparse):
        raise NotImplementedError("Adding sparse dimensions with lengths != 1")
    nb_out = n_batch + len(new_batch)
    dense_all = sorted([*dense_out, *new_dense])
    # New batch dimensions are stored with length 1 (batch dimensions broadcast).
    old_batch = {bdims[i]: i for i in range(n_batch)}
    data_batch = tuple(mat.data.shape[old_batch[d]] if d in old_batch else 1 for d in range(nb_out))
    ind_batch = tuple(mat.indices.shape[old_batch[d]] if d in old_batch else 1 for d in range(nb_out))
    data_shape = (*data_batch, mat.nse, *(shape[d] for d in dense_all))
    data_dims = (*bdims[:n_batch], nb_out, *(nb_out + 1 + dense_all.index(d) for d in dense_out))
    data = lax.broadcast_in_dim(mat.data, data_shape, data_dims)
    indices = mat.indices
    ns_out = n_sparse + len(new_sparse)
    if new_sparse:
        # New length-1 sparse dimensions have index 0 for every stored element.
        order = sorted([*sparse_out, *new_sparse])
        zeros = jnp.zeros(indices.shape[:-1], indices.dtype)
        indices = jnp.stack([indices[..., sparse_out.index(d)] if d in sparse_out else zeros for d in order], -1)
    indices = lax.broadcast_in_dim(indices, (*ind_batch, mat.nse, ns_out), (*bdims[:n_batch], nb_out, nb_out + 1))
    return _bcoo(data, indices, shape, mat.indices_sorted, mat.unique_indices)


def bcoo_concatenate(operands, *, dimension: int):
    """BCOO counterpart of :func:`jax.lax.concatenate`.

    Args:
      operands: the BCOO arrays to join. Their shapes agree except along
        ``dimension``, and they share the same batch/sparse/dense split.
      dimension: non-negative axis to join along; it must be a batch or sparse
        axis (joining along dense axes is unsupported).

    Returns:
      A single BCOO array holding all the operands.
    """
    dimension = operator.index(dimension)
    ops = list(operands)
    n_batch, n_sparse = ops[0].n_batch, ops[0].n_sparse
    if any(o.n_batch != n_batch or o.n_dense != ops[0].n_dense for o in ops):
        raise ValueError("bcoo_concatenate requires inputs to have matching nse dimensions.")
    shape = list(ops[0].shape)
    shape[dimension] = sum(o.shape[dimension] for o in ops)
    if dimension < n_batch:
        pairs = [_full_batch(o) for o in ops]
        nse = max(o.nse for o in ops)
        pairs = [(jnp.pad(d, [(0, 0)] * n_batch + [(0, nse - o.nse)] + [(0, 0)] * o.n_dense),
                  jnp.pad(i, [(0, 0)] * n_batch + [(0, nse - o.nse), (0, 0)],
                          constant_values=0)) for (d, i), o in zip(pairs, ops)]
        data = jnp.concatenate([p[0] for p in pairs], axis=dimension)
        indices = jnp.concatenate([p[1] for p in pairs], axis=dimension)
        return _bcoo(data, indices, shape)
    if dimension >= n_batch + n_sparse:
        raise NotImplementedError("bcoo_concatenate: concatenation of dense dimensions")
    col = dimension - n_batch
    new_sparse = tuple(shape[n_batch:n_batch + n_sparse])
    batch = tuple(shape[:n_batch])
    datas, idxs, offset = [], [], 0
    for o in ops:
        d, i = _full_batch(o)
        valid = _valid(i, o.shape[n_batch:n_batch + n_sparse])
        i = i.at[..., col].add(offset)
        d, i = _invalidate(d, i, valid, new_sparse)
        datas.append(jnp.broadcast_to(d, batch + d.shape[n_batch:]))
        idxs.append(jnp.broadcast_to(i, batch + i.shape[n_batch:]))
        offset += o.shape[dimension]
    return _bcoo(jnp.concatenate(datas, axis=n_batch), jnp.concatenate(idxs, axis=n_batch), shape)


def _slice_sparse(mat, starts, sizes, strides, shape):
    n_batch, n_sparse = mat.n_batch, mat.n_sparse
    data, indices = mat.data, mat.indices
    sparse_starts = jnp.array(starts[n_batch:n_batch + n_sparse], indices.dtype)
    sparse_sizes = shape[n_batch:n_batch + n_sparse]
    strides_ = np.array(strides[n_batch:n_batch + n_sparse])
    shifted = indices - sparse_starts
    keep = jnp.all((shifted >= 0) & (shifted < jnp.array(sizes[n_batch:n_batch + n_sparse]) * strides_)
                   & (shifted % strides_ == 0), axis=-1)
    return _invalidate(data, (shifted // strides_).astype(indices.dtype), keep, sparse_sizes)


def _cap_nse(mat):
    """A slice stores at most as many elements as its sparse part has."""
    size = math.prod(mat.shape[mat.n_batch:mat.n_batch + mat.n_sparse])
    return bcoo_core.bcoo_sum_duplicates(mat, nse=size) if size < mat.nse else mat


def bcoo_slice(mat, *, start_indices: Sequence[int], limit_indices: Sequence[int],
               strides: Sequence[int] | None = None):
    """Sparse implementation of {func}`jax.lax.slice`.

    Args:
      mat: the BCOO array to slice.
      start_indices: first index to keep along each of the ``mat.ndim`` axes.
      limit_indices: one past the last index to keep along each axis.
      strides: optional per-axis step (only unit steps are supported).

    Returns:
      out: BCOO array containing the slice.
    """
    start = tuple(int(s) for s in start_indices)
    limit = tuple(int(s) for s in limit_indices)
    strides = (1,) * mat.ndim if strides is None else tuple(int(s) for s in strides)
    sizes = tuple(max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(start, limit, strides))
    n_batch, n_sparse = mat.n_batch, mat.n_sparse
    data, indices = _slice_sparse(mat, start, sizes, strides, sizes)
    nb, nd = n_batch, mat.n_dense

    def batch_slice(x, tail):
        lo = [0 if x.shape[i] == 1 else start[i] for i in range(nb)]
        hi = [1 if x.shape[i] == 1 else limit[i] for i in range(nb)]
        st = [1 if x.shape[i] == 1 else strides[i] for i in range(nb)]
        return lax.slice(x, lo + [0] * len(tail), hi + list(tail), st + [1] * len(tail))

    data = batch_slice(data, data.shape[nb:])
    indices = batch_slice(indices, indices.shape[nb:])
    if nd:
        k = nb + 1
        data = lax.slice(data, [0] * k + list(start[nb + n_sparse:]), list(data.shape[:k]) + list(limit[nb + n_sparse:]),
                         [1] * k + list(strides[nb + n_sparse:]))
    return _cap_nse(_bcoo(data, indices, sizes))


def bcoo_dynamic_slice(mat, start_indices: Sequence, slice_sizes: Sequence[int]):
    """Sparse implementation of {func}`jax.lax.dynamic_slice`.

    Args:
      mat: BCOO array to slice.
      start_indices: one scalar start index per axis (may be traced).
      slice_sizes: static, non-negative extent of the slice along each axis.

    Returns:
      out: BCOO array containing the slice.
    """
    sizes = tuple(int(s) for s in slice_sizes)
    starts = [jnp.clip(jnp.asarray(s, jnp.int32), 0, d - z) for s, d, z in zip(start_indices, mat.shape, sizes)]
    n_batch, n_sparse, nb = mat.n_batch, mat.n_sparse, mat.n_batch
    data, indices = _full_batch(mat) if n_batch else (mat.data, mat.indices)
    sub = _bcoo(data, indices, mat.shape)
    data, indices = _slice_sparse(sub, starts, sizes, (1,) * mat.ndim, sizes)
    zero = jnp.zeros((), jnp.int32)
    data = lax.dynamic_slice(data, [*starts[:nb], zero, *([zero] * mat.n_dense)],
                             [*sizes[:nb], data.shape[nb], *data.shape[nb + 1:]])
    indices = lax.dynamic_slice(indices, [*starts[:nb], zero, zero], [*sizes[:nb], *indices.shape[nb:]])
    if mat.n_dense:
        data = lax.dynamic_slice(data, [zero] * (nb + 1) + starts[nb + n_sparse:],
                                 [*data.shape[:nb + 1], *sizes[nb + n_sparse:]])
    return _cap_nse(_bcoo(data, indices, sizes))


def bcoo_rev(operand, dimensions: Sequence[int]):
    """Sparse implementation of {func}`jax.lax.rev`"""
    dims = sorted(int(d) % operand.ndim for d in dimensions)
    nb, ns = operand.n_batch, operand.n_sparse
    data, indices = _full_batch(operand) if any(d < nb for d in dims) else (operand.data, operand.indices)
    batch = [d for d in dims if d < nb]
    if batch:
        data, indices = jnp.flip(data, batch), jnp.flip(indices, batch)
    sparse = [d - nb for d in dims if nb <= d < nb + ns]
    if sparse:
        sizes = operand.shape[nb:nb + ns]
        valid = _valid(indices, sizes)
        flip = np.zeros(ns, bool)
        flip[sparse] = True
        flipped = jnp.where(jnp.array(flip), jnp.array(sizes, indices.dtype) - 1 - indices, indices)
        data, indices = _invalidate(data, flipped, valid, sizes)
    dense = [nb + 1 + d - nb - ns for d in dims if d >= nb + ns]
    if dense:
        data = jnp.flip(data, dense)
    return _bcoo(data, indices, operand.shape)


def bcoo_squeeze(arr, *, dimensions: Sequence[int]):
    """Sparse implementation of {func}`jax.lax.squeeze`.

    Removes the listed length-1 axes.

    Args:
      arr: the BCOO array.
      dimensions: the axes to drop; each must have size 1.

    Returns:
      out: the BCOO array without those axes.
    """
    dims = sorted({int(d) % arr.ndim for d in dimensions})
    if any(arr.shape[d] != 1 for d in dims):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one, got "
                         f"shape={arr.shape} and dimensions={tuple(dimensions)}")
    nb, ns = arr.n_batch, arr.n_sparse
    batch = [d for d in dims if d < nb]
    sparse = [d - nb for d in dims if nb <= d < nb + ns]
    dense = [d - nb - ns for d in dims if d >= nb + ns]
    data = lax.squeeze(arr.data, [*batch, *(nb + 1 + d for d in dense)])
    indices = lax.squeeze(arr.indices, batch)
    if sparse:
        indices = indices[..., [d for d in range(ns) if d not in sparse]]
    shape = tuple(s for i, s in enumerate(arr.shape) if i not in dims)
    return _bcoo(data, indices, shape, arr.indices_sorted, arr.unique_indices)


def bcoo_multiply_sparse(lhs, rhs):
    """Multiply two BCOO arrays elementwise.

    Args:
      lhs, rhs: BCOO arrays of identical shape.

    Returns:
      Their elementwise product, as a BCOO array.
    """
    if lhs.shape != rhs.shape:
        raise ValueError(f"bcoo_multiply_sparse: shapes must match, got {lhs.shape} and {rhs.shape}")
    if lhs.n_batch != rhs.n_batch or lhs.n_dense or rhs.n_dense:
        raise NotImplementedError("bcoo_multiply_sparse: operands with dense dimensions or different n_batch")
    nb = lhs.n_batch
    sparse_shape = lhs.shape[nb:]
    ld, li = _full_batch(lhs)
    rd, ri = _full_batch(rhs)

    def unbatched(ld, li, rd, ri):
        # Every pair of stored elements at one index multiplies; the matches come first.
        match = jnp.all(li[:, None, :] == ri[None, :, :], axis=-1) & _valid(li, sparse_shape)[:, None]
        match = match.reshape(-1)
        prod = (ld[:, None] * rd[None, :]).reshape(-1)
        idx = jnp.broadcast_to(li[:, None, :], (li.shape[0], ri.shape[0], li.shape[1])).reshape(-1, li.shape[1])
        order = jnp.argsort(~match, stable=True)
        data, idx = _invalidate(prod[order], idx[order], match[order], sparse_shape)
        return data, idx

    from pyjax._src.sparse.util import nfold_vmap
    data, indices = nfold_vmap(unbatched, nb)(ld, li, rd, ri)
    return _bcoo(data, indices, lhs.shape)


def bcoo_multiply_dense(sp_mat, v):
    """Multiply a BCOO array elementwise by a dense array.

    Args:
      sp_mat: the BCOO array.
      v: dense array with the same shape as ``sp_mat``.

    Returns:
      The data array of the product, in ``sp_mat``'s sparsity pattern.
    """
    v = jnp.asarray(v)
    if v.ndim > sp_mat.ndim:
        raise NotImplementedError("bcoo_multiply_dense: v has more dimensions than the sparse operand")
    v = jnp.broadcast_to(v, np.broadcast_shapes(v.shape, sp_mat.shape)) if v.shape != sp_mat.shape else v
    if v.shape != sp_mat.shape:
        raise NotImplementedError("bcoo_multiply_dense: broadcasting the sparse operand")
    return sp_mat.data * bcoo_core.bcoo_extract_p.bind(sp_mat.indices, v, assume_unique=True)


def bcoo_eliminate_zeros(mat, *, nse: int | None = None):
    """Drops stored elements that are zero, then sums duplicates."""
    nb = mat.n_batch
    keep = mat.data != 0
    if mat.n_dense:
        keep = keep.any(tuple(range(nb + 1, mat.data.ndim)))
    data, indices = broadcast_batch(mat.data, mat.indices, nb)
    keep = jnp.broadcast_to(keep, indices.shape[:-1])
    data, indices = _invalidate(data, indices, keep, mat.shape[nb:nb + mat.n_sparse])
    return bcoo_core.bcoo_sum_duplicates(_bcoo(data, indices, mat.shape), nse=nse)


def bcoo_update_layout(mat, *, n_batch: int | None = None, n_dense: int | None = None,
                       on_inefficient: str | None = "error"):
    """Re-store a BCOO array with a different number of batch and dense dimensions.

    Args:
      mat: the BCOO array.
      n_batch: batch dimension count of the result; ``None`` keeps ``mat.n_batch``.
      n_dense: dense dimension count of the result; ``None`` keeps ``mat.n_dense``.
      on_inefficient: what to do when the new layout may blow up storage:
        ``'error'`` (raise), ``'warn'`` (warn) or ``None`` (say nothing).

    Returns:
      A BCOO array with the requested layout whose dense form equals
      ``mat.todense()`` (up to floating-point rounding).
    """
    n_batch = operator.index(mat.n_batch if n_batch is None else n_batch)
    n_dense = operator.index(mat.n_dense if n_dense is None else n_dense)
    if n_batch == mat.n_batch and n_dense == mat.n_dense:
        return mat
    for what, new, old in (("n_batch", n_batch, mat.n_batch), ("n_dense", n_dense, mat.n_dense)):
        if new > old and on_inefficient is not None:
            msg = (f"For matrix of shape {mat.shape}, increasing {what} from {old} to {new} results in "
                   f"inefficient storage. To disable this error, set the on_inefficient argument of "
                   f"bcoo_update_layout to 'warn' or None.")
            if on_inefficient == "error":
                raise SparseEfficiencyError(msg)
            warnings.warn(msg, category=SparseEfficiencyWarning, stacklevel=2)
    # A static bound on the stored elements per batch element of the new layout.
    nse = mat.nse * math.prod(mat.shape[n_batch:mat.n_batch]) * math.prod(
        mat.shape[mat.ndim - mat.n_dense:mat.ndim - n_dense] if n_dense < mat.n_dense else ())
    sparse_size = math.prod(mat.shape[n_batch:mat.ndim - n_dense])
    nse = max(1, min(nse, sparse_size)) if sparse_size else 0
    return bcoo_core.bcoo_fromdense(mat.todense(), nse=nse, n_batch=n_batch, n_dense=n_dense,
                                    index_dtype=mat.indices.dtype)


def bcoo_gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
                indices_are_sorted=False, mode=None, fill_value=None):
    """BCOO version of lax.gather: each gathered slice becomes one element of
    a new leading batch dimension (slices are clamped into bounds)."""
    from pyjax._src import api

    dn = dimension_numbers
    if dn.operand_batching_dims or dn.start_indices_batching_dims:
        raise NotImplementedError("bcoo_gather: operand batching dimensions")
    start_indices = jnp.asarray(start_indices)
    batch_shape = start_indices.shape[:-1]
    out_rank = len(batch_shape) + operand.ndim - len(dn.collapsed_slice_dims)
    if tuple(dn.offset_dims) != tuple(range(len(batch_shape), out_rank)):
        raise NotImplementedError("bcoo_gather: offset dimensions must follow the batch dimensions")

    def one(idx):
        starts = [jnp.zeros((), idx.dtype)] * operand.ndim
        for i, d in enumerate(dn.start_index_map):
            starts[d] = idx[i]
        out = bcoo_dynamic_slice(operand, starts, slice_sizes)
        return bcoo_squeeze(out, dimensions=dn.collapsed_slice_dims) if dn.collapsed_slice_dims else out

    flat = start_indices.reshape(-1, start_indices.shape[-1])
    out = api.vmap(one)(flat)
    if len(batch_shape) != 1:
        out = bcoo_reshape(out, new_sizes=(*batch_shape, *out.shape[1:]))
    return out


def _conv_operand_1d(x):
    """(data, positions) of a (1, 1, n) operand's stored elements."""
    from pyjax._src.sparse.bcoo import BCOO

    if isinstance(x, BCOO):
        x = bcoo_update_layout(x, n_batch=2, n_dense=0, on_inefficient=None)
        data, pos = x.data[0, 0], x.indices[0, 0, :, 0]
        return jnp.where(pos < x.shape[-1], data, 0), pos
    x = jnp.asarray(x)
    return x[0, 0], jnp.arange(x.shape[-1], dtype=jnp.int32)


def bcoo_conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                              dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None,
                              preferred_element_type=None):
    """A general convolution with one of the operands sparse: as JAX's, only the
    1-D case with unit batch and feature dimensions, unit strides and no dilation.

    Returns:
      A BCOO array of shape ``(1, 1, n)`` holding the convolution.
    """
    from pyjax._src.sparse.bcoo import BCOO

    if jnp.ndim(lhs) != 3 or jnp.ndim(rhs) != 3:
        raise NotImplementedError("bcoo convolution: only 1-D convolutions (3-D operands)")
    if tuple(window_strides) != (1,):
        raise NotImplementedError("bcoo convolution with non-unit window_strides.")
    if tuple(lhs_dilation or (1,)) != (1,) or tuple(rhs_dilation or (1,)) != (1,):
        raise NotImplementedError("bcoo convolution with lhs_dilation.")
    if feature_group_count != 1 or batch_group_count != 1:
        raise NotImplementedError("bcoo convolution with non-unit group counts.")
    if dimension_numbers is not None and tuple(map(tuple, dimension_numbers)) != ((0, 1, 2),) * 3:
        raise NotImplementedError("bcoo convolution with dimension numbers other than the default")
    if tuple(jnp.shape(lhs)[:2]) != (1, 1) or tuple(jnp.shape(rhs)[:2]) != (1, 1):
        raise NotImplementedError("bcoo convolution with leading dimensions other than (1, 1)")
    n, k = jnp.shape(lhs)[2], jnp.shape(rhs)[2]
    if isinstance(padding, str):
        total = max(k - 1, 0) if padding.upper() == "SAME" else 0
        lo, hi = total // 2, total - total // 2
    else:
        ((lo, hi),) = [tuple(map(int, p)) for p in padding]
    size = max(0, n + lo + hi - k + 1)
    a, p = _conv_operand_1d(lhs)
    b, q = _conv_operand_1d(rhs)
    # XLA's convolution is a correlation: out[i] += lhs[i + j - lo] * rhs[j].
    data = (a[:, None] * b[None, :]).ravel()
    pos = (p[:, None] - q[None, :] + lo).ravel()
    data, pos = _invalidate(data, pos[:, None].astype(jnp.int32), (pos >= 0) & (pos < size), (size,))
    return BCOO((data[None, None], pos[None, None]), shape=(1, 1, size))
