"""BCSR: batched compressed-sparse-row arrays (data, indices, indptr) and their
primitives. Each rule reads the stored elements' rows from `indptr` and
runs BCOO's program on (row, column) indices."""

from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from pyjax._src import api, core, dtypes, tree_util
from pyjax._src.ad_util import Zero
from pyjax._src.avals import ShapedArray
from pyjax._src.extend_core import concrete_or_error
from pyjax._src.extend_rules import defjvp, primitive_batchers
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.sparse import bcoo_core, bcoo_dot, bcoo_ops
from pyjax._src.sparse.bcoo import BCOO
from pyjax._src.sparse.legacy import csr_rows
from pyjax._src.sparse.util import JAXSparse, SparseInfo, nfold_vmap
from pyjax._src.rules import SHARDING_OF_SPARSE
import pyjax.numpy as jnp


def _bcoo_indices(indices, indptr):
    """BCSR (indices, indptr) -> BCOO indices `batch + (nse, 2)`."""
    n_batch = indices.ndim - 1
    batch = np.broadcast_shapes(indices.shape[:n_batch], indptr.shape[:n_batch])
    indices = jnp.broadcast_to(indices, batch + indices.shape[n_batch:])
    indptr = jnp.broadcast_to(indptr, batch + indptr.shape[n_batch:])
    fun = lambda i, p: jnp.stack([csr_rows(p, i.shape[0]), i], axis=-1)
    return nfold_vmap(fun, n_batch)(indices, indptr)


def _vmap_batch(impl, n_out=None):
    def rule(args, dims, **params):
        out = api.vmap(lambda *a: impl(*a, **params), in_axes=tuple(dims))(*args)
        return out, (0 if n_out is None else [0] * n_out)
    return rule


# ---------------------------------------------------------------------------
# bcsr_todense, bcsr_extract

bcsr_todense_p = core.Primitive("bcsr_todense")
bcsr_todense_p.declare(sharding_reason=SHARDING_OF_SPARSE)
bcsr_extract_p = core.Primitive("bcsr_extract")
bcsr_extract_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _bcsr_todense_eager(data, indices, indptr, *, spinfo):
    return bcoo_core._bcoo_todense_eager(data, _bcoo_indices(indices, indptr), spinfo=spinfo)


def _bcsr_extract_eager(indices, indptr, mat):
    return bcoo_core._bcoo_extract_impl(_bcoo_indices(indices, indptr), mat, assume_unique=True)


def _bcsr_extract_shape_rule(indices, indptr, mat):
    n_batch, nse = indices.ndim - 1, indices.shape[-1]
    return ShapedArray((*mat.shape[:n_batch], nse, *mat.shape[n_batch + 2:]), mat.dtype)


bcsr_todense_p.def_impl(_bcsr_todense_eager)
bcsr_todense_p.def_abstract_eval(lambda data, indices, indptr, *, spinfo: ShapedArray(tuple(spinfo.shape), data.dtype))
defjvp(bcsr_todense_p, lambda g, d, i, p, *, spinfo: bcsr_todense_p.bind(g, i, p, spinfo=spinfo), None, None)
bcsr_todense_p.def_transpose(lambda ct, d, i, p, *, spinfo: (
    Zero(d.aval) if type(ct) is Zero else bcsr_extract_p.bind(i, p, ct), None, None))
primitive_batchers[bcsr_todense_p] = _vmap_batch(_bcsr_todense_eager)

bcsr_extract_p.def_impl(_bcsr_extract_eager)
bcsr_extract_p.def_abstract_eval(_bcsr_extract_shape_rule)
defjvp(bcsr_extract_p, None, None, lambda g, i, p, m: bcsr_extract_p.bind(i, p, g))
bcsr_extract_p.def_transpose(lambda ct, i, p, m: (
    None, None, Zero(m.aval) if type(ct) is Zero else bcsr_todense_p.bind(ct, i, p, spinfo=SparseInfo(m.aval.shape))))
primitive_batchers[bcsr_extract_p] = _vmap_batch(_bcsr_extract_eager)


def bcsr_todense(mat):
    """Materialize a BCSR array as a dense array.

    Args:
      mat: the BCSR array.

    Returns:
      The dense version of ``mat``.
    """
    return bcsr_todense_p.bind(mat.data, mat.indices, mat.indptr, spinfo=mat._info)


def bcsr_extract(indices, indptr, mat):
    """Gather the entries of dense ``mat`` at the positions a BCSR layout names.

    Args:
      indices: BCSR column-index array.
      indptr: BCSR row-pointer array.
      mat: the dense array to read from.

    Returns:
      The matching BCSR data array.
    """
    return bcsr_extract_p.bind(jnp.asarray(indices), jnp.asarray(indptr), jnp.asarray(mat))


# ---------------------------------------------------------------------------
# bcsr_fromdense

bcsr_fromdense_p = core.Primitive("bcsr_fromdense", multiple_results=True)
bcsr_fromdense_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _bcsr_fromdense_eager(mat, *, nse, n_batch, n_dense, index_dtype):
    data, idx = bcoo_core._bcoo_fromdense_eager(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                                index_dtype=index_dtype)
    n_rows = mat.shape[n_batch]

    def indptr(rows):
        counts = jnp.zeros(n_rows + 1, index_dtype).at[rows + 1].add(1, mode="drop")
        return jnp.cumsum(counts).astype(index_dtype)

    return [data, idx[..., 1], nfold_vmap(indptr, n_batch)(idx[..., 0])]


def _bcsr_fromdense_shape_rule(mat, *, nse, n_batch, n_dense, index_dtype):
    if mat.ndim - n_batch - n_dense != 2:
        raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
    batch = mat.shape[:n_batch]
    return [ShapedArray((*batch, nse, *mat.shape[n_batch + 2:]), mat.dtype),
            ShapedArray((*batch, nse), np.dtype(index_dtype)),
            ShapedArray((*batch, mat.shape[n_batch] + 1), np.dtype(index_dtype))]


def _bcsr_fromdense_jvp(primals, tangents, **params):
    (mat,), (t,) = primals, tangents
    data, indices, indptr = bcsr_fromdense_p.bind(mat, **params)
    t_data = Zero(ShapedArray(data.shape, data.dtype)) if type(t) is Zero else bcsr_extract_p.bind(indices, indptr, t)
    zero = lambda x: Zero(ShapedArray(x.shape, dtypes.float0))
    return [data, indices, indptr], [t_data, zero(indices), zero(indptr)]


bcsr_fromdense_p.def_impl(_bcsr_fromdense_eager)
bcsr_fromdense_p.def_abstract_eval(_bcsr_fromdense_shape_rule)
bcsr_fromdense_p.def_jvp(_bcsr_fromdense_jvp)
primitive_batchers[bcsr_fromdense_p] = lambda args, dims, **kw: (
    bcsr_fromdense_p.bind(jnp.moveaxis(args[0], dims[0], 0), **{**kw, "n_batch": kw["n_batch"] + 1}), [0, 0, 0])


def bcsr_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0, index_dtype=jnp.int32):
    """Build a BCSR array holding the nonzeros of a dense array.

    Args:
      mat: the dense array.
      nse: stored elements per batch entry; computed from ``mat`` when omitted.
      n_batch: count of leading batch dimensions (default 0).
      n_dense: count of trailing dense dimensions (default 0).
      index_dtype: dtype of the index arrays (default int32).

    Returns:
      The BCSR form of ``mat``.
    """
    mat = jnp.asarray(mat)
    if nse is None:
        nse = concrete_or_error(operator.index, bcoo_core._count_stored_elements(mat, n_batch, n_dense),
                                bcoo_core._NSE_CONTEXT.replace("bcoo_fromdense", "bcsr_fromdense").replace(
                                    "BCOO.", "BCSR."))
    nse = concrete_or_error(operator.index, nse, "nse argument of bcsr_fromdense()")
    data, indices, indptr = bcsr_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                                  index_dtype=np.dtype(index_dtype))
    return BCSR((data, indices, indptr), shape=mat.shape)


# ---------------------------------------------------------------------------
# bcsr_dot_general

bcsr_dot_general_p = core.Primitive("bcsr_dot_general")
bcsr_dot_general_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _bcsr_dot_impl(data, indices, indptr, rhs, **params):
    return bcoo_dot._bcoo_dot_general_impl(data, _bcoo_indices(indices, indptr), rhs, **params)


def _bcsr_dot_abstract_eval(data, indices, indptr, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    idx = ShapedArray((*indices.shape, 2), indices.dtype)
    return bcoo_dot._bcoo_dot_general_abstract_eval(data, idx, rhs, dimension_numbers=dimension_numbers,
                                                    lhs_spinfo=lhs_spinfo, preferred_element_type=preferred_element_type)


def _bcsr_dot_transpose(ct, data, indices, indptr, rhs, **params):
    cts = bcoo_dot._dot_general_transpose(ct, data, _bcoo_indices(indices, indptr), rhs, **params)
    return [cts[0], None, None, cts[2]]


bcsr_dot_general_p.def_impl(_bcsr_dot_impl)
bcsr_dot_general_p.def_abstract_eval(_bcsr_dot_abstract_eval)
defjvp(bcsr_dot_general_p,
       lambda g, d, i, p, r, **kw: bcsr_dot_general_p.bind(g, i, p, r, **kw), None, None,
       lambda g, d, i, p, r, **kw: bcsr_dot_general_p.bind(d, i, p, g, **kw))
bcsr_dot_general_p.def_transpose(_bcsr_dot_transpose)
primitive_batchers[bcsr_dot_general_p] = _vmap_batch(_bcsr_dot_impl)


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None,
                     out_sharding=None):
    """Sparse-aware counterpart of :func:`jax.lax.dot_general` for BCSR operands.

    Args:
      lhs: dense array or BCSR array.
      rhs: dense array or BCSR array.
      dimension_numbers: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.
      precision: ignored.
      preferred_element_type: optional accumulation/result dtype.
      out_sharding: ignored.

    Returns:
      A sparse array when both operands are sparse; otherwise a dense array.
    """
    del precision, out_sharding
    dn = bcoo_dot._canonical_dn(dimension_numbers)
    if isinstance(lhs, BCSR) and not isinstance(rhs, JAXSparse):
        return bcsr_dot_general_p.bind(*lhs._bufs, jnp.asarray(rhs), dimension_numbers=dn,
                                       lhs_spinfo=lhs._info, preferred_element_type=preferred_element_type)
    to_bcoo = lambda x: x.to_bcoo() if isinstance(x, BCSR) else x
    return bcoo_dot.bcoo_dot_general(to_bcoo(lhs), to_bcoo(rhs), preferred_element_type=preferred_element_type,
                                     dimension_numbers=dn)


# ---------------------------------------------------------------------------
# The class and the operations by way of BCOO


class BCSR(JAXSparse):
    """Sparse array in batched compressed-sparse-row (BCSR) format; experimental."""
    n_batch = property(lambda self: self.indices.ndim - 1)
    n_sparse = property(lambda self: 2)
    n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)
    nse = property(lambda self: self.indices.shape[-1])
    _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted, self.unique_indices))
    _bufs = property(lambda self: (self.data, self.indices, self.indptr))

    def __init__(self, args, *, shape: Sequence[int], indices_sorted: bool = False, unique_indices: bool = False):
        data, indices, indptr = args
        self.data, self.indices, self.indptr = jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr)
        self.indices_sorted, self.unique_indices = indices_sorted, unique_indices
        super().__init__(args, shape=tuple(shape))

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
        """Build a BCSR array holding the nonzeros of the dense array ``mat``."""
        return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense, n_batch=n_batch)

    @classmethod
    def from_bcoo(cls, arr: BCOO) -> BCSR:
        """Convert a BCOO array with two sparse dimensions to BCSR."""
        if arr.n_sparse != 2:
            raise NotImplementedError(f"BSCR must have 2 sparse dimensions; got n_sparse={arr.n_sparse}")
        arr = bcoo_core.bcoo_sort_indices(arr)
        n_rows, nb = arr.shape[arr.n_batch], arr.n_batch
        data, idx = bcoo_ops._full_batch(arr)

        def indptr(rows):
            counts = jnp.zeros(n_rows + 1, idx.dtype).at[rows + 1].add(1, mode="drop")
            return jnp.cumsum(counts).astype(idx.dtype)

        return cls((data, idx[..., 1], nfold_vmap(indptr, nb)(idx[..., 0])), shape=arr.shape,
                   indices_sorted=True, unique_indices=arr.unique_indices)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
        """Build a BCSR array from a :mod:`scipy.sparse` matrix or array."""
        if n_dense != 0 or n_batch != 0:
            raise NotImplementedError("BCSR from_scipy_sparse with nonzero n_dense/n_batch.")
        mat = mat.tocsr()
        index_dtype = index_dtype or np.int32
        return cls((jnp.asarray(mat.data), jnp.asarray(mat.indices.astype(index_dtype)),
                    jnp.asarray(mat.indptr.astype(index_dtype))), shape=mat.shape)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0):
        return cls.from_bcoo(BCOO._empty(shape, dtype=dtype, index_dtype=index_dtype, n_dense=n_dense,
                                         n_batch=n_batch, nse=nse))

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32", n_batch=0, n_dense=0):
        return cls.from_bcoo(BCOO._eye(N, M, k, dtype=dtype, index_dtype=index_dtype, n_batch=n_batch,
                                       n_dense=n_dense))

    def to_bcoo(self) -> BCOO:
        return BCOO((self.data, _bcoo_indices(self.indices, self.indptr)), shape=self.shape,
                    indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

    def todense(self):
        """Create a dense version of the array."""
        return bcsr_todense(self)

    def transpose(self, *args, **kwargs):
        raise NotImplementedError("Tranpose is not implemented.")

    def sum_duplicates(self, nse=None, remove_zeros=True):
        return bcsr_sum_duplicates(self, nse=nse)

    def __matmul__(self, other):
        from pyjax._src.sparse.transform import sparsify
        if isinstance(other, JAXSparse):
            raise NotImplementedError("matmul between two sparse objects.")
        return sparsify(jnp.matmul)(self.to_bcoo(), other)

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), (self.shape, self.indices_sorted, self.unique_indices)


def _bcsr_unflatten(aux, children):
    obj = object.__new__(BCSR)
    obj.data, obj.indices, obj.indptr = children
    obj.shape, obj.indices_sorted, obj.unique_indices = aux
    return obj


tree_util.register_pytree_node(BCSR, BCSR.tree_flatten, _bcsr_unflatten)


def bcsr_sum_duplicates(mat, nse=None):
    """Merge repeated indices of a BCSR array by adding their values.

    Args:
      mat: the BCSR array.
      nse: optional number of stored elements in the result. Pass it when
        calling under ``jit`` or other transformations; when omitted it is
        computed from the concrete indices. A larger value pads the result
        with fill entries, a smaller one drops the surplus elements.

    Returns:
      A BCSR array with sorted, duplicate-free indices.
    """
    return BCSR.from_bcoo(bcoo_core.bcoo_sum_duplicates(mat.to_bcoo(), nse=nse))


def bcsr_broadcast_in_dim(mat, *, shape, broadcast_dimensions, sharding=None):
    """BCSR counterpart of :func:`jax.lax.broadcast_in_dim`."""
    return BCSR.from_bcoo(bcoo_ops.bcoo_broadcast_in_dim(mat.to_bcoo(), shape=shape,
                                                         broadcast_dimensions=broadcast_dimensions))


def bcsr_concatenate(operands, *, dimension):
    """Sparse implementation of :func:`jax.lax.concatenate`."""
    return BCSR.from_bcoo(bcoo_ops.bcoo_concatenate([o.to_bcoo() for o in operands], dimension=dimension))
