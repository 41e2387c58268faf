"""BCOO's conversion and layout primitives: bcoo_todense, bcoo_fromdense,
bcoo_extract, bcoo_transpose, bcoo_sort_indices, bcoo_sum_duplicates.

A BCOO array of shape `batch + sparse + dense` is two arrays: `data` of shape
`batch + (nse,) + dense` and `indices` of shape `batch + (nse, n_sparse)`
(batch dimensions of size 1 broadcast). Each rule is written for one batch
element and mapped over the batch dimensions; under vmap a primitive gains
a batch dimension (the mapped axis moved to the front).
"""

from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.extend_core import concrete_or_error
from pyjax._src.ad_util import Zero
from pyjax._src.avals import ShapedArray
from pyjax._src.extend_rules import primitive_batchers
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.sparse.util import SparseInfo, batch_to_front, axis_size, broadcast_batch, nfold_vmap
from pyjax._src.rules import SHARDING_OF_SPARSE
import pyjax.numpy as jnp
from pyjax import lax


def _sparse_cols(indices):
    return tuple(indices[..., i] for i in range(indices.shape[-1]))


def _padding_mask(indices, sparse_shape):
    """True where an index row is in bounds (fromdense pads with `shape`)."""
    if indices.shape[-1] == 0:
        return jnp.ones(indices.shape[:-1], bool)
    return jnp.all(indices < jnp.array(sparse_shape, indices.dtype), axis=-1)


def _with_batch(spinfo: SparseInfo, size: int) -> SparseInfo:
    return spinfo._replace(shape=(size, *spinfo.shape))


# ---------------------------------------------------------------------------
# bcoo_todense

bcoo_todense_p = core.Primitive("bcoo_todense")
bcoo_todense_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _todense_unbatched(data, indices, *, shape):
    n_sparse = indices.shape[-1]
    if n_sparse == 0:
        return data.sum(0)
    out = jnp.zeros(shape, data.dtype)
    return out.at[_sparse_cols(indices)].add(data, mode="drop")


def _bcoo_todense_eager(data, indices, *, spinfo):
    n_batch = indices.ndim - 2
    data, indices = broadcast_batch(data, indices, n_batch)
    data = jnp.broadcast_to(data, spinfo.shape[:n_batch] + data.shape[n_batch:])
    indices = jnp.broadcast_to(indices, spinfo.shape[:n_batch] + indices.shape[n_batch:])
    fun = lambda d, i: _todense_unbatched(d, i, shape=spinfo.shape[n_batch:])
    return nfold_vmap(fun, n_batch)(data, indices)


def _bcoo_todense_shape_rule(data, indices, *, spinfo):
    return ShapedArray(tuple(spinfo.shape), data.dtype, weak_type=data.weak_type)


def _bcoo_todense_jvp(primals, tangents, *, spinfo):
    data, indices = primals
    t, _ = tangents
    out = bcoo_todense_p.bind(data, indices, spinfo=spinfo)
    if type(t) is Zero:
        return out, Zero(ShapedArray(out.shape, out.dtype))
    return out, bcoo_todense_p.bind(t, indices, spinfo=spinfo)


def _bcoo_todense_transpose_rule(ct, data, indices, *, spinfo):
    assert is_undefined_primal(data) and not is_undefined_primal(indices)
    if type(ct) is Zero:
        return Zero(data.aval), None
    return bcoo_extract(indices, ct), None


def _bcoo_todense_batch(args, dims, *, spinfo):
    size = axis_size(args, dims)
    data, indices = batch_to_front(args, dims, size)
    return bcoo_todense_p.bind(data, indices, spinfo=_with_batch(spinfo, size)), 0


bcoo_todense_p.def_impl(_bcoo_todense_eager)
bcoo_todense_p.def_abstract_eval(_bcoo_todense_shape_rule)
bcoo_todense_p.def_jvp(_bcoo_todense_jvp)
bcoo_todense_p.def_transpose(_bcoo_todense_transpose_rule)
primitive_batchers[bcoo_todense_p] = _bcoo_todense_batch


def bcoo_todense(mat):
    """Converts a batched sparse matrix to a dense matrix.

    Args:
      mat: BCOO matrix.

    Returns:
      The dense version of ``mat``.
    """
    return _bcoo_todense(*mat._bufs, spinfo=mat._info)


def _bcoo_todense(data, indices, *, spinfo):
    return bcoo_todense_p.bind(jnp.asarray(data), jnp.asarray(indices), spinfo=SparseInfo(*spinfo))


# ---------------------------------------------------------------------------
# bcoo_fromdense

bcoo_fromdense_p = core.Primitive("bcoo_fromdense", multiple_results=True)
bcoo_fromdense_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _fromdense_unbatched(mat, *, nse, n_dense, index_dtype):
    n_sparse = mat.ndim - n_dense
    mask = mat != 0
    if n_dense:
        mask = jnp.any(mask, axis=tuple(range(n_sparse, mat.ndim)))
    if n_sparse == 0:
        return mat[None], jnp.zeros((nse, 0), index_dtype)
    cols = jnp.nonzero(mask, size=nse, fill_value=mask.shape)
    indices = jnp.stack(cols, axis=1).astype(index_dtype)
    data = mat.at[cols].get(mode="fill", fill_value=0)
    return data, indices


def _bcoo_fromdense_eager(mat, *, nse, n_batch, n_dense, index_dtype):
    fun = lambda m: _fromdense_unbatched(m, nse=nse, n_dense=n_dense, index_dtype=index_dtype)
    return list(nfold_vmap(fun, n_batch)(mat))


def _bcoo_fromdense_shape_rule(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    batch, dense = mat.shape[:n_batch], mat.shape[n_batch + n_sparse:]
    return [ShapedArray((*batch, nse, *dense), mat.dtype, weak_type=mat.weak_type),
            ShapedArray((*batch, nse, n_sparse), np.dtype(index_dtype))]


def _bcoo_fromdense_jvp_rule(primals, tangents, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (t,) = primals, tangents
    data, indices = bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense, index_dtype=index_dtype)
    if type(t) is Zero:
        t_data = Zero(ShapedArray(data.shape, data.dtype))
    else:
        t_data = bcoo_extract(indices, t)
    return [data, indices], [t_data, Zero(ShapedArray(indices.shape, dtypes.float0))]


def _bcoo_fromdense_batch(args, dims, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (d,) = args, dims
    mat = jnp.moveaxis(mat, d, 0)
    return bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense, index_dtype=index_dtype), [0, 0]


bcoo_fromdense_p.def_impl(_bcoo_fromdense_eager)
bcoo_fromdense_p.def_abstract_eval(_bcoo_fromdense_shape_rule)
bcoo_fromdense_p.def_jvp(_bcoo_fromdense_jvp_rule)
primitive_batchers[bcoo_fromdense_p] = _bcoo_fromdense_batch


def _count_stored_elements(mat, n_batch: int, n_dense: int):
    mask = mat != 0
    if n_dense:
        mask = mask.any(axis=tuple(range(mat.ndim - n_dense, mat.ndim)))
    mask = mask.sum(axis=tuple(range(n_batch, mask.ndim)))
    return mask.max() if mask.size else 0


_NSE_CONTEXT = ("\nThe error arose for the nse argument of bcoo_fromdense. In order for\n"
                "BCOO.fromdense() to be used in traced/compiled code, you must pass a concrete\n"
                "value to the nse (number of stored elements) argument.\n")


def bcoo_fromdense(mat, *, nse: int | None = None, n_batch: int = 0, n_dense: int = 0, index_dtype=jnp.int32):
    """Creates a BCOO array from a (dense) :class:`~jax.Array`.

    Args:
      mat: An array to be converted to BCOO.
      nse: number of specified elements in each batch (computed from ``mat``
        when not given, which requires a concrete ``mat``).
      n_batch: number of batch dimensions (default: 0)
      n_dense: number of block_dimensions (default: 0)
      index_dtype: dtype of sparse indices (default: int32)

    Returns:
      mat_bcoo: BCOO representation of the matrix.
    """
    from pyjax._src.sparse.bcoo import BCOO

    mat = jnp.asarray(mat)
    if nse is None:
        nse = concrete_or_error(operator.index, _count_stored_elements(mat, n_batch, n_dense), _NSE_CONTEXT)
    nse = concrete_or_error(operator.index, nse, "nse argument of bcoo_fromdense()")
    data, indices = bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense, index_dtype=index_dtype)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


# ---------------------------------------------------------------------------
# bcoo_extract

bcoo_extract_p = core.Primitive("bcoo_extract")
bcoo_extract_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _extract_unbatched(indices, mat, *, assume_unique):
    if indices.shape[-1] == 0:
        # Every stored element is at the one position (the duplicates' rule: the first keeps it).
        if assume_unique:
            return jnp.broadcast_to(mat[None], (indices.shape[0], *mat.shape))
        return jnp.zeros((indices.shape[0], *mat.shape), mat.dtype).at[0].set(mat)
    data = mat.at[_sparse_cols(indices)].get(mode="fill", fill_value=0)
    if not assume_unique:
        # Duplicated indices keep the value at their first occurrence only.
        same = jnp.all(indices[:, None, :] == indices[None, :, :], axis=-1)
        earlier = jnp.tril(same, -1).any(axis=1)
        data = jnp.where(earlier.reshape(earlier.shape + (1,) * (data.ndim - 1)), 0, data)
    return data


def _bcoo_extract_impl(indices, mat, *, assume_unique):
    n_batch = indices.ndim - 2
    batch = np.broadcast_shapes(indices.shape[:n_batch], mat.shape[:n_batch])
    indices = jnp.broadcast_to(indices, batch + indices.shape[n_batch:])
    mat = jnp.broadcast_to(mat, batch + mat.shape[n_batch:])
    fun = lambda i, m: _extract_unbatched(i, m, assume_unique=assume_unique)
    return nfold_vmap(fun, n_batch)(indices, mat)


def _bcoo_extract_abstract_eval(indices, mat, *, assume_unique):
    n_batch, (nse, n_sparse) = indices.ndim - 2, indices.shape[-2:]
    batch = np.broadcast_shapes(indices.shape[:n_batch], mat.shape[:n_batch])
    return ShapedArray((*batch, nse, *mat.shape[n_batch + n_sparse:]), mat.dtype, weak_type=mat.weak_type)


def _bcoo_extract_jvp(primals, tangents, *, assume_unique):
    indices, mat = primals
    _, t = tangents
    out = bcoo_extract_p.bind(indices, mat, assume_unique=assume_unique)
    if type(t) is Zero:
        return out, Zero(ShapedArray(out.shape, out.dtype))
    return out, bcoo_extract_p.bind(indices, t, assume_unique=assume_unique)


def _bcoo_extract_transpose(ct, indices, mat, *, assume_unique):
    assert is_undefined_primal(mat) and not is_undefined_primal(indices)
    if type(ct) is Zero:
        return None, Zero(mat.aval)
    spinfo = SparseInfo(mat.aval.shape, unique_indices=assume_unique)
    return None, bcoo_todense_p.bind(ct, indices, spinfo=spinfo)


def _bcoo_extract_batch(args, dims, *, assume_unique):
    size = axis_size(args, dims)
    indices, mat = batch_to_front(args, dims, size)
    if dims[1] is None:
        mat = jnp.broadcast_to(mat, (size, *mat.shape[1:]))
    return bcoo_extract_p.bind(indices, mat, assume_unique=assume_unique), 0


bcoo_extract_p.def_impl(_bcoo_extract_impl)
bcoo_extract_p.def_abstract_eval(_bcoo_extract_abstract_eval)
bcoo_extract_p.def_jvp(_bcoo_extract_jvp)
bcoo_extract_p.def_transpose(_bcoo_extract_transpose)
primitive_batchers[bcoo_extract_p] = _bcoo_extract_batch


def bcoo_extract(sparr, arr, *, assume_unique: bool | None = None):
    """Extracts values from a dense array according to the sparse array's indices.

    Args:
      sparr: a BCOO array (or a bare index array) giving the positions to read.
      arr: dense array of the same shape as ``sparr``.
      assume_unique: defaults to ``sparr.unique_indices``. When true, every
        index gets its own value even if it repeats; when false, repeated
        indices share one summed value, placed at the first occurrence.

    Returns:
      A BCOO array sharing ``sparr``'s sparsity pattern, or just the gathered
      data when ``sparr`` was an index array.
    """
    from pyjax._src.sparse.bcoo import BCOO

    if isinstance(sparr, BCOO):
        if assume_unique is None:
            assume_unique = sparr.unique_indices
        data = bcoo_extract_p.bind(sparr.indices, jnp.asarray(arr), assume_unique=assume_unique)
        return BCOO((data, sparr.indices), shape=sparr.shape, indices_sorted=sparr.indices_sorted,
                    unique_indices=sparr.unique_indices)
    return bcoo_extract_p.bind(jnp.asarray(sparr), jnp.asarray(arr),
                               assume_unique=True if assume_unique is None else assume_unique)


# ---------------------------------------------------------------------------
# bcoo_transpose

bcoo_transpose_p = core.Primitive("bcoo_transpose", multiple_results=True)
bcoo_transpose_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _transpose_perms(permutation, n_batch: int, n_sparse: int, n_dense: int):
    permutation = tuple(int(p) for p in permutation)
    if sorted(permutation) != list(range(n_batch + n_sparse + n_dense)):
        raise TypeError(f"bcoo_transpose: permutation must be a permutation of range({len(permutation)}); "
                        f"got {permutation}")
    batch = permutation[:n_batch]
    sparse = [p - n_batch for p in permutation[n_batch:n_batch + n_sparse]]
    dense = [p - n_batch - n_sparse for p in permutation[n_batch + n_sparse:]]
    if sorted(batch) != list(range(n_batch)) or sorted(sparse) != list(range(n_sparse)):
        raise NotImplementedError("bcoo_transpose: permutation must not mix batch, sparse and dense dimensions; "
                                  f"got {permutation} for n_batch={n_batch}, n_dense={n_dense}")
    return list(batch), sparse, dense


def _bcoo_transpose_impl(data, indices, *, permutation, spinfo):
    n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
    batch, sparse, dense = _transpose_perms(permutation, n_batch, n_sparse, data.ndim - 1 - n_batch)
    data = jnp.transpose(data, (*batch, n_batch, *(n_batch + 1 + d for d in dense)))
    indices = jnp.transpose(indices, (*batch, n_batch, n_batch + 1))
    if sparse != list(range(n_sparse)):
        indices = indices[..., np.array(sparse, dtype=int)]
    return [data, indices]


def _bcoo_transpose_abstract_eval(data, indices, *, permutation, spinfo):
    n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
    batch, sparse, dense = _transpose_perms(permutation, n_batch, n_sparse, data.ndim - 1 - n_batch)
    d_shape = tuple(data.shape[i] for i in (*batch, n_batch, *(n_batch + 1 + d for d in dense)))
    i_shape = tuple(indices.shape[i] for i in (*batch, n_batch, n_batch + 1))
    return [ShapedArray(d_shape, data.dtype, weak_type=data.weak_type), ShapedArray(i_shape, indices.dtype)]


def _bcoo_transpose_jvp(primals, tangents, *, permutation, spinfo):
    data, indices = primals
    t, _ = tangents
    out = bcoo_transpose_p.bind(data, indices, permutation=permutation, spinfo=spinfo)
    if type(t) is Zero:
        t_out = Zero(ShapedArray(out[0].shape, out[0].dtype))
    else:
        t_out = bcoo_transpose_p.bind(t, indices, permutation=permutation, spinfo=spinfo)[0]
    return out, [t_out, Zero(ShapedArray(out[1].shape, dtypes.float0))]


def _bcoo_transpose_transpose(cts, data, indices, *, permutation, spinfo):
    ct, _ = cts
    if type(ct) is Zero:
        return Zero(data.aval), None
    # Only the data's batch and dense axes moved: undo that on the cotangent.
    n_batch, n_sparse = indices.aval.ndim - 2, indices.aval.shape[-1]
    batch, _, dense = _transpose_perms(permutation, n_batch, n_sparse, data.aval.ndim - 1 - n_batch)
    axes = (*batch, n_batch, *(n_batch + 1 + d for d in dense))
    return lax.transpose(ct, tuple(int(i) for i in np.argsort(axes))), None


def _bcoo_transpose_batch(args, dims, *, permutation, spinfo):
    size = axis_size(args, dims)
    data, indices = batch_to_front(args, dims, size)
    perm = (0, *(p + 1 for p in permutation))
    return bcoo_transpose_p.bind(data, indices, permutation=perm, spinfo=_with_batch(spinfo, size)), [0, 0]


bcoo_transpose_p.def_impl(_bcoo_transpose_impl)
bcoo_transpose_p.def_abstract_eval(_bcoo_transpose_abstract_eval)
bcoo_transpose_p.def_jvp(_bcoo_transpose_jvp)
bcoo_transpose_p.def_transpose(_bcoo_transpose_transpose)
primitive_batchers[bcoo_transpose_p] = _bcoo_transpose_batch


def bcoo_transpose(mat, *, permutation):
    """Transpose a BCOO-format array.

    Args:
      mat: A BCOO-format array.
      permutation: a reordering of ``range(mat.ndim)``; output axis ``i`` is
        input axis ``permutation[i]``. Batch axes may only move among batch
        axes, and dense axes only among dense axes.

    Returns:
      A BCOO-format array.
    """
    from pyjax._src.sparse.bcoo import BCOO

    permutation = tuple(int(p) for p in permutation)
    data, indices = bcoo_transpose_p.bind(mat.data, mat.indices, permutation=permutation, spinfo=mat._info)
    shape = tuple(mat.shape[p] for p in permutation)
    return BCOO((data, indices), shape=shape, indices_sorted=False, unique_indices=mat.unique_indices)


# ---------------------------------------------------------------------------
# bcoo_sort_indices and bcoo_sum_duplicates

bcoo_sort_indices_p = core.Primitive("bcoo_sort_indices", multiple_results=True)
bcoo_sort_indices_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _sort_unbatched(data, indices):
    if indices.shape[-1] == 0:
        return data, indices
    order = jnp.lexsort(tuple(indices[:, i] for i in reversed(range(indices.shape[-1]))))
    return data[order], indices[order]


def _bcoo_sort_indices_eager(data, indices, *, spinfo):
    n_batch = indices.ndim - 2
    data, indices = broadcast_batch(data, indices, n_batch)
    return list(nfold_vmap(_sort_unbatched, n_batch)(data, indices))


def _same_avals(data, indices, **_):
    return [data, indices]


def _bcoo_sort_indices_jvp_rule(primals, tangents, *, spinfo):
    data, indices = primals
    t, _ = tangents
    n_batch = indices.ndim - 2
    # The tangent moves as the data does: sort (position, tangent) pairs alongside.
    perm = jnp.broadcast_to(lax.broadcasted_iota(np.int32, data.shape[:n_batch + 1], n_batch),
                            np.broadcast_shapes(data.shape[:n_batch], indices.shape[:n_batch]) + data.shape[n_batch:n_batch + 1])
    out_perm, out_indices = bcoo_sort_indices_p.bind(perm, indices, spinfo=spinfo)
    data_b, _ = broadcast_batch(data, indices, n_batch)
    gather = nfold_vmap(lambda x, p: x[p], n_batch)
    data_out = gather(data_b, out_perm)
    if type(t) is Zero:
        t_out = Zero(ShapedArray(data_out.shape, data_out.dtype))
    else:
        t_out = gather(broadcast_batch(t, indices, n_batch)[0], out_perm)
    return [data_out, out_indices], [t_out, Zero(ShapedArray(out_indices.shape, dtypes.float0))]


def _bcoo_layout_batch(primitive):
    def rule(args, dims, **params):
        size = axis_size(args, dims)
        data, indices = batch_to_front(args, dims, size)
        return primitive.bind(data, indices, **{**params, "spinfo": _with_batch(params["spinfo"], size)}), [0, 0]
    return rule


bcoo_sort_indices_p.def_impl(_bcoo_sort_indices_eager)
bcoo_sort_indices_p.def_abstract_eval(_same_avals)
bcoo_sort_indices_p.def_jvp(_bcoo_sort_indices_jvp_rule)
primitive_batchers[bcoo_sort_indices_p] = _bcoo_layout_batch(bcoo_sort_indices_p)


def bcoo_sort_indices(mat):
    """Sort indices of a BCOO array.

    Args:
      mat : BCOO array

    Returns:
      mat_out : BCOO array with sorted indices.
    """
    from pyjax._src.sparse.bcoo import BCOO

    data, indices = bcoo_sort_indices_p.bind(mat.data, mat.indices, spinfo=mat._info)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=mat.unique_indices)


bcoo_sum_duplicates_p = core.Primitive("bcoo_sum_duplicates", multiple_results=True)
bcoo_sum_duplicates_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _sum_duplicates_unbatched(data, indices, *, sparse_shape, nse):
    if indices.shape[-1] == 0:
        return data.sum(0, keepdims=True), indices[:1]
    fill = jnp.array(sparse_shape, indices.dtype)
    valid = _padding_mask(indices, sparse_shape)
    indices = jnp.where(valid[:, None], indices, fill)
    unique, inverse = jnp.unique(indices, axis=0, size=nse, fill_value=fill, return_inverse=True)
    inverse = inverse.reshape(-1)
    data = jnp.where(valid.reshape(valid.shape + (1,) * (data.ndim - 1)), data, 0)
    out = jnp.zeros((nse, *data.shape[1:]), data.dtype).at[inverse].add(data, mode="drop")
    return out, unique


def _bcoo_sum_duplicates_eager(data, indices, *, spinfo, nse):
    n_batch = indices.ndim - 2
    data, indices = broadcast_batch(data, indices, n_batch)
    sparse_shape = spinfo.shape[n_batch:n_batch + indices.shape[-1]]
    fun = lambda d, i: _sum_duplicates_unbatched(d, i, sparse_shape=sparse_shape, nse=nse)
    return list(nfold_vmap(fun, n_batch)(data, indices))


def _bcoo_sum_duplicates_shape_rule(data, indices, *, spinfo, nse):
    n_batch = indices.ndim - 2
    batch = np.broadcast_shapes(data.shape[:n_batch], indices.shape[:n_batch])
    return [ShapedArray((*batch, nse, *data.shape[n_batch + 1:]), data.dtype, weak_type=data.weak_type),
            ShapedArray((*batch, nse, indices.shape[-1]), indices.dtype)]


def _bcoo_sum_duplicates_jvp_rule(primals, tangents, *, spinfo, nse):
    data, indices = primals
    t, _ = tangents
    out_data, out_indices = bcoo_sum_duplicates_p.bind(data, indices, spinfo=spinfo, nse=nse)
    if type(t) is Zero:
        t_out = Zero(ShapedArray(out_data.shape, out_data.dtype))
    else:
        # Summing duplicates is linear in the data for fixed indices.
        t_out = bcoo_sum_duplicates_p.bind(t, indices, spinfo=spinfo, nse=nse)[0]
    return [out_data, out_indices], [t_out, Zero(ShapedArray(out_indices.shape, dtypes.float0))]


bcoo_sum_duplicates_p.def_impl(_bcoo_sum_duplicates_eager)
bcoo_sum_duplicates_p.def_abstract_eval(_bcoo_sum_duplicates_shape_rule)
bcoo_sum_duplicates_p.def_jvp(_bcoo_sum_duplicates_jvp_rule)
primitive_batchers[bcoo_sum_duplicates_p] = _bcoo_layout_batch(bcoo_sum_duplicates_p)


def _unique_count(data, indices, spinfo: SparseInfo) -> int:
    n_batch = indices.ndim - 2
    idx = np.asarray(indices)
    sparse_shape = np.array(spinfo.shape[n_batch:n_batch + idx.shape[-1]])
    idx = idx.reshape(-1, *idx.shape[-2:]) if n_batch else idx[None]
    counts = [len({tuple(r) for r in b if (r < sparse_shape).all()}) for b in idx]
    return max(counts, default=0)


def bcoo_sum_duplicates(mat, nse: int | None = None):
    """Merge repeated indices of a BCOO array by adding their values.

    Args:
      mat: the BCOO array.
      nse: optional number of stored elements in the result. Pass it when
        calling under ``jit`` or other transformations; when omitted it is
        computed from the concrete indices. A larger value pads the result
        with fill entries, a smaller one drops the surplus elements.

    Returns:
      A BCOO array with sorted, duplicate-free indices.
    """
    from pyjax._src.sparse.bcoo import BCOO

    if nse is None:
        indices = concrete_or_error(None, mat.indices, "The error arose for the nse argument of "
                                         "bcoo_sum_duplicates(). ")
        nse = max(_unique_count(mat.data, indices, mat._info), 1)
    nse = concrete_or_error(operator.index, nse, "nse argument of bcoo_sum_duplicates.")
    data, indices = bcoo_sum_duplicates_p.bind(mat.data, mat.indices, spinfo=mat._info, nse=nse)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)
