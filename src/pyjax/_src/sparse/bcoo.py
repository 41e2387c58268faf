"""The BCOO class: batched-coordinate sparse arrays as a pytree of (data, indices)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pyjax._src import tree_util
from pyjax._src.sparse import bcoo_core, bcoo_dot, bcoo_ops
from pyjax._src.sparse.util import JAXSparse, SparseInfo
import pyjax.numpy as jnp


class BCOO(JAXSparse):
    """Sparse array in batched coordinate (BCOO) format; experimental.

    Args:
      args: the ``(data, indices)`` buffers of the array.
      shape: the logical shape of the array.

    Attributes:
      data: the stored values, shaped ``[*batch_dims, nse, *dense_dims]``.
      indices: where each stored value lives, shaped
        ``[*batch_dims, nse, n_sparse]``. Repeated indices add together.

    Examples:
      Building one from a dense array:

      >>> M = jnp.array([[0., 2., 0.], [1., 0., 4.]], dtype=jnp.float32)
      >>> M_sp = BCOO.fromdense(M)
      >>> M_sp
      BCOO(float32[2, 3], nse=3)
    """
    n_batch = property(lambda self: self.indices.ndim - 2)
    n_sparse = property(lambda self: self.indices.shape[-1])
    n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)
    nse = property(lambda self: self.indices.shape[-2])
    _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted, self.unique_indices))
    _bufs = property(lambda self: (self.data, self.indices))

    def __init__(self, args: tuple, *, shape: Sequence[int], indices_sorted: bool = False,
                 unique_indices: bool = False):
        data, indices = args
        self.data, self.indices = jnp.asarray(data), jnp.asarray(indices)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        super().__init__(args, shape=tuple(shape))

    @classmethod
    def fromdense(cls, mat, *, nse: int | None = None, index_dtype=np.int32, n_dense: int = 0,
                  n_batch: int = 0) -> BCOO:
        """Build a BCOO array holding the nonzeros of the dense array ``mat``."""
        return bcoo_core.bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense, n_batch=n_batch)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense: int = 0, n_batch: int = 0) -> BCOO:
        """Build a BCOO array from a :mod:`scipy.sparse` matrix or array."""
        if n_dense != 0 or n_batch != 0:
            raise NotImplementedError("BCOO.from_scipy_sparse supports only n_batch=0 and n_dense=0")
        mat = mat.tocoo()
        data = jnp.asarray(mat.data)
        indices = jnp.column_stack((mat.row, mat.col)).astype(index_dtype or jnp.int32)
        # Scipy's COO arrays do not promise sorted or unique indices.
        return cls((data, indices), shape=mat.shape, indices_sorted=False, unique_indices=False)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense: int = 0, n_batch: int = 0,
               nse: int = 0) -> BCOO:
        """An empty BCOO: every index out of bounds (pointing past the end)."""
        shape = tuple(shape)
        n_sparse = len(shape) - n_dense - n_batch
        batch, sparse, dense = shape[:n_batch], shape[n_batch:n_batch + n_sparse], shape[n_batch + n_sparse:]
        data = jnp.zeros((*batch, nse, *dense), dtype)
        indices = jnp.broadcast_to(jnp.array(sparse, index_dtype), (*batch, nse, n_sparse))
        return cls((data, indices), shape=shape, indices_sorted=True, unique_indices=True)

    @classmethod
    def _eye(cls, N: int, M: int, k: int, *, dtype=None, index_dtype="int32", n_batch: int = 0,
             n_dense: int = 0) -> BCOO:
        if n_batch or n_dense:
            return bcoo_core.bcoo_fromdense(jnp.eye(N, M, k, dtype=dtype), n_batch=n_batch, n_dense=n_dense,
                                            index_dtype=index_dtype)
        diag_size = max(0, min(N + min(0, k), M - max(0, k)))
        k = min(max(k, -N), M)
        row = jnp.arange(diag_size, dtype=index_dtype) + max(0, -k)
        col = jnp.arange(diag_size, dtype=index_dtype) + max(0, k)
        data = jnp.ones(diag_size, dtype=dtype)
        return cls((data, jnp.stack([row, col], axis=1)), shape=(N, M), indices_sorted=True, unique_indices=True)

    def update_layout(self, *, n_batch: int | None = None, n_dense: int | None = None,
                      on_inefficient: str = "error") -> BCOO:
        """Return the same array stored with a different ``n_batch``/``n_dense`` split."""
        return bcoo_ops.bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense, on_inefficient=on_inefficient)

    def sum_duplicates(self, nse: int | None = None, remove_zeros: bool = True) -> BCOO:
        """Return a copy of the array with duplicate indices summed."""
        if remove_zeros:
            return bcoo_ops.bcoo_eliminate_zeros(self, nse=nse)
        return bcoo_core.bcoo_sum_duplicates(self, nse=nse)

    def sort_indices(self) -> BCOO:
        """Return an equivalent array whose indices are in lexicographic order."""
        return bcoo_core.bcoo_sort_indices(self)

    def todense(self):
        """Create a dense version of the array."""
        return bcoo_core.bcoo_todense(self)

    def transpose(self, axes: Sequence[int] | None = None) -> BCOO:
        """Return the transposed array (axes reversed unless ``axes`` is given)."""
        perm = tuple(range(self.ndim)[::-1]) if axes is None else axes
        return bcoo_core.bcoo_transpose(self, permutation=perm)

    def reshape(self, *args, **kwargs) -> BCOO:
        return bcoo_ops.bcoo_reshape_method(self, *args, **kwargs)

    def astype(self, *args, **kwargs) -> BCOO:
        return BCOO((self.data.astype(*args, **kwargs), self.indices), shape=self.shape,
                    indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

    def sum(self, axis: int | Sequence[int] | None = None) -> BCOO:
        """Sum array along axis."""
        if axis is None:
            axis = tuple(range(self.ndim))
        elif isinstance(axis, int):
            axis = (axis,)
        return bcoo_ops.bcoo_reduce_sum(self, axes=axis)

    def __matmul__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.matmul)(self, other)

    def tree_flatten(self):
        return _flatten(self)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return _unflatten(aux_data, children)


class _Aux(dict):
    """BCOO's static data: a dict as JAX prints it, hashable for cache keys."""

    def __hash__(self):
        return hash(tuple(self.items()))


def _flatten(m: BCOO):
    return (m.data, m.indices), _Aux(shape=m.shape, indices_sorted=m.indices_sorted, unique_indices=m.unique_indices)


def _unflatten(aux, children) -> BCOO:
    obj = object.__new__(BCOO)
    obj.data, obj.indices = children
    obj.indices_sorted, obj.unique_indices = aux["indices_sorted"], aux["unique_indices"]
    shape = tuple(aux["shape"])
    data, indices = obj.data, obj.indices
    if isinstance(getattr(indices, "shape", None), tuple) and isinstance(getattr(data, "shape", None), tuple) \
            and len(indices.shape) >= 2:
        # Under vmap the mapped axis (in or out axis 0) is a leading batch
        # dimension the static shape does not know of (JAX's vmappable BCOO):
        # drop it from, or restore it to, the shape.
        n_batch = len(indices.shape) - 2
        k = n_batch + indices.shape[-1] + (len(data.shape) - 1 - n_batch) - len(shape)
        if k < 0:
            shape = shape[-k:]
        elif k > 0:
            shape = (*np.broadcast_shapes(indices.shape[:k], data.shape[:k]), *shape)
    obj.shape = shape
    return obj


tree_util.register_pytree_node(BCOO, _flatten, _unflatten)
