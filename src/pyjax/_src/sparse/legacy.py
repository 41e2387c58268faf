"""The legacy 2-D formats COO, CSR and CSC and their primitives (coo_todense,
coo_fromdense, coo_matvec, coo_matmat, csr_* likewise). pyjax runs them as
NumPy-backed array programs; JAX's CPU does the same (no cuSPARSE there)."""

from __future__ import annotations

import functools
import operator
from typing import NamedTuple

import numpy as np

from pyjax._src import api, core, dtypes
from pyjax._src.ad_util import Zero
from pyjax._src.avals import ShapedArray
from pyjax._src.extend_core import concrete_or_error
from pyjax._src.extend_rules import defjvp, primitive_batchers
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.sparse.util import JAXSparse
from pyjax._src.rules import SHARDING_OF_SPARSE
import pyjax.numpy as jnp


class COOInfo(NamedTuple):
    shape: tuple[int, ...]
    rows_sorted: bool = False
    cols_sorted: bool = False


def _vmap_batch(impl):
    """A batching rule mapping the primitive's array program over the axis."""
    def rule(args, dims, **params):
        return api.vmap(functools.partial(impl, **params), in_axes=tuple(dims))(*args), 0
    return rule


def _count(mat):
    return concrete_or_error(operator.index, (jnp.asarray(mat) != 0).sum(), "nse argument of fromdense()")


def _linear_parts(primitive, n_index: int, impl, fromdense_name: str):
    """A product primitive `(data, *index arrays, rhs)` linear in data and rhs."""
    defjvp(primitive,
           lambda g, d, *rest, **kw: primitive.bind(g, *rest, **kw),
           *([None] * n_index),
           lambda g, d, *rest, **kw: primitive.bind(d, *rest[:-1], g, **kw))
    primitive_batchers[primitive] = _vmap_batch(impl)


# ---------------------------------------------------------------------------
# COO

def _coo_shape(spinfo):
    return spinfo.shape


coo_todense_p = core.Primitive("coo_todense")
coo_todense_p.declare(sharding_reason=SHARDING_OF_SPARSE)
coo_fromdense_p = core.Primitive("coo_fromdense", multiple_results=True)
coo_fromdense_p.declare(sharding_reason=SHARDING_OF_SPARSE)
coo_matvec_p = core.Primitive("coo_matvec")
coo_matvec_p.declare(sharding_reason=SHARDING_OF_SPARSE)
coo_matmat_p = core.Primitive("coo_matmat")
coo_matmat_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _coo_todense_eager(data, row, col, *, spinfo):
    return jnp.zeros(spinfo.shape, data.dtype).at[row, col].add(data, mode="drop")


def _coo_extract(row, col, mat):
    return mat.at[row, col].get(mode="fill", fill_value=0)


coo_todense_p.def_impl(_coo_todense_eager)
coo_todense_p.def_abstract_eval(lambda data, row, col, *, spinfo: ShapedArray(tuple(spinfo.shape), data.dtype))
defjvp(coo_todense_p, lambda g, d, r, c, *, spinfo: coo_todense_p.bind(g, r, c, spinfo=spinfo), None, None)
coo_todense_p.def_transpose(lambda ct, d, r, c, *, spinfo: (
    Zero(d.aval) if type(ct) is Zero else _coo_extract(r, c, ct), None, None))
primitive_batchers[coo_todense_p] = _vmap_batch(_coo_todense_eager)


def _coo_fromdense_eager(mat, *, nse, index_dtype):
    row, col = jnp.nonzero(mat, size=nse, fill_value=mat.shape)
    return [mat.at[row, col].get(mode="fill", fill_value=0), row.astype(index_dtype), col.astype(index_dtype)]


def _coo_fromdense_jvp_rule(primals, tangents, *, nse, index_dtype):
    (mat,), (t,) = primals, tangents
    data, row, col = coo_fromdense_p.bind(mat, nse=nse, index_dtype=index_dtype)
    t_data = Zero(ShapedArray(data.shape, data.dtype)) if type(t) is Zero else _coo_extract(row, col, t)
    f0 = Zero(ShapedArray(row.shape, dtypes.float0))
    return [data, row, col], [t_data, f0, f0]


coo_fromdense_p.def_impl(_coo_fromdense_eager)
coo_fromdense_p.def_abstract_eval(lambda mat, *, nse, index_dtype: [
    ShapedArray((nse,), mat.dtype), ShapedArray((nse,), np.dtype(index_dtype)), ShapedArray((nse,), np.dtype(index_dtype))])
coo_fromdense_p.def_jvp(_coo_fromdense_jvp_rule)
primitive_batchers[coo_fromdense_p] = lambda args, dims, **kw: (
    api.vmap(lambda m: _coo_fromdense_eager(m, **kw), in_axes=dims[0])(args[0]), [0, 0, 0])


def _coo_product(data, row, col, B, *, spinfo, transpose):
    rows, cols = (col, row) if transpose else (row, col)
    n_out = spinfo.shape[1] if transpose else spinfo.shape[0]
    gathered = B.at[cols].get(mode="fill", fill_value=0)
    prod = (data.reshape(data.shape + (1,) * (B.ndim - 1)) * gathered).astype(data.dtype)
    return jnp.zeros((n_out, *B.shape[1:]), prod.dtype).at[rows].add(prod, mode="drop")


def _coo_product_abstract_eval(data, row, col, B, *, spinfo, transpose):
    n_out = spinfo.shape[1] if transpose else spinfo.shape[0]
    return ShapedArray((n_out, *B.shape[1:]), data.dtype)


def _coo_product_transpose(primitive):
    def rule(ct, data, row, col, B, *, spinfo, transpose):
        if type(ct) is Zero:
            return [Zero(x.aval) if is_undefined_primal(x) else None for x in (data, row, col, B)]
        if is_undefined_primal(B):
            return [None, None, None, primitive.bind(data, row, col, ct, spinfo=spinfo, transpose=not transpose)]
        rows, cols = (col, row) if transpose else (row, col)
        prod = ct.at[rows].get(mode="fill", fill_value=0) * B.at[cols].get(mode="fill", fill_value=0)
        return [prod.reshape(prod.shape[0], -1).sum(-1), None, None, None]
    return rule


for _p in (coo_matvec_p, coo_matmat_p):
    _p.def_impl(_coo_product)
    _p.def_abstract_eval(_coo_product_abstract_eval)
    _linear_parts(_p, 2, _coo_product, "coo")
    _p.def_transpose(_coo_product_transpose(_p))


def coo_todense(mat):
    """Convert a COO-format sparse matrix to a dense matrix."""
    return coo_todense_p.bind(mat.data, mat.row, mat.col, spinfo=mat._info)


def coo_fromdense(mat, *, nse=None, index_dtype=jnp.int32):
    """Create a COO-format sparse matrix from a dense matrix."""
    mat = jnp.asarray(mat)
    nse = _count(mat) if nse is None else concrete_or_error(operator.index, nse, "coo_fromdense nse argument")
    data, row, col = coo_fromdense_p.bind(mat, nse=nse, index_dtype=np.dtype(index_dtype))
    return COO((data, row, col), shape=mat.shape, rows_sorted=True)


def coo_matvec(mat, v, transpose=False):
    """Product of COO sparse matrix and a dense vector."""
    return coo_matvec_p.bind(mat.data, mat.row, mat.col, jnp.asarray(v), spinfo=mat._info, transpose=transpose)


def coo_matmat(mat, B, *, transpose=False):
    """Product of COO sparse matrix and a dense matrix."""
    return coo_matmat_p.bind(mat.data, mat.row, mat.col, jnp.asarray(B), spinfo=mat._info, transpose=transpose)


# ---------------------------------------------------------------------------
# CSR

csr_todense_p = core.Primitive("csr_todense")
csr_todense_p.declare(sharding_reason=SHARDING_OF_SPARSE)
csr_fromdense_p = core.Primitive("csr_fromdense", multiple_results=True)
csr_fromdense_p.declare(sharding_reason=SHARDING_OF_SPARSE)
csr_matvec_p = core.Primitive("csr_matvec")
csr_matvec_p.declare(sharding_reason=SHARDING_OF_SPARSE)
csr_matmat_p = core.Primitive("csr_matmat")
csr_matmat_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def csr_rows(indptr, nse: int):
    """The row of each stored element (the number of rows for padding)."""
    return jnp.searchsorted(indptr[1:], jnp.arange(nse, dtype=indptr.dtype), side="right").astype(indptr.dtype)


def _csr_todense_eager(data, indices, indptr, *, shape):
    return _coo_todense_eager(data, csr_rows(indptr, data.shape[0]), indices, spinfo=COOInfo(shape))


csr_todense_p.def_impl(_csr_todense_eager)
csr_todense_p.def_abstract_eval(lambda data, indices, indptr, *, shape: ShapedArray(tuple(shape), data.dtype))
defjvp(csr_todense_p, lambda g, d, i, p, *, shape: csr_todense_p.bind(g, i, p, shape=shape), None, None)
csr_todense_p.def_transpose(lambda ct, d, i, p, *, shape: (
    Zero(d.aval) if type(ct) is Zero else _coo_extract(csr_rows(p, d.aval.shape[0]), i, ct), None, None))
primitive_batchers[csr_todense_p] = _vmap_batch(_csr_todense_eager)


def _csr_fromdense_eager(mat, *, nse, index_dtype):
    data, row, col = _coo_fromdense_eager(mat, nse=nse, index_dtype=index_dtype)
    counts = jnp.zeros(mat.shape[0] + 1, index_dtype).at[row + 1].add(1, mode="drop")
    return [data, col, jnp.cumsum(counts).astype(index_dtype)]


def _csr_fromdense_jvp_rule(primals, tangents, *, nse, index_dtype):
    (mat,), (t,) = primals, tangents
    data, indices, indptr = csr_fromdense_p.bind(mat, nse=nse, index_dtype=index_dtype)
    t_data = Zero(ShapedArray(data.shape, data.dtype)) if type(t) is Zero else \
        _coo_extract(csr_rows(indptr, nse), indices, t)
    return [data, indices, indptr], [t_data, Zero(ShapedArray(indices.shape, dtypes.float0)),
                                     Zero(ShapedArray(indptr.shape, dtypes.float0))]


csr_fromdense_p.def_impl(_csr_fromdense_eager)
csr_fromdense_p.def_abstract_eval(lambda mat, *, nse, index_dtype: [
    ShapedArray((nse,), mat.dtype), ShapedArray((nse,), np.dtype(index_dtype)),
    ShapedArray((mat.shape[0] + 1,), np.dtype(index_dtype))])
csr_fromdense_p.def_jvp(_csr_fromdense_jvp_rule)
primitive_batchers[csr_fromdense_p] = lambda args, dims, **kw: (
    api.vmap(lambda m: _csr_fromdense_eager(m, **kw), in_axes=dims[0])(args[0]), [0, 0, 0])


def _csr_product(data, indices, indptr, B, *, shape, transpose):
    return _coo_product(data, csr_rows(indptr, data.shape[0]), indices, B, spinfo=COOInfo(shape), transpose=transpose)


def _csr_product_abstract_eval(data, indices, indptr, B, *, shape, transpose):
    return ShapedArray(((shape[1] if transpose else shape[0]), *B.shape[1:]), data.dtype)


def _csr_product_transpose(primitive):
    coo_rule = _coo_product_transpose(coo_matmat_p)

    def rule(ct, data, indices, indptr, B, *, shape, transpose):
        if type(ct) is not Zero and is_undefined_primal(B):
            return [None, None, None, primitive.bind(data, indices, indptr, ct, shape=shape, transpose=not transpose)]
        n = (data.aval if is_undefined_primal(data) else data).shape[0]
        out = coo_rule(ct, data, csr_rows(indptr, n), indices, B, spinfo=COOInfo(shape), transpose=transpose)
        return [out[0], None, None, out[3]]
    return rule


for _p in (csr_matvec_p, csr_matmat_p):
    _p.def_impl(_csr_product)
    _p.def_abstract_eval(_csr_product_abstract_eval)
    _linear_parts(_p, 2, _csr_product, "csr")
    _p.def_transpose(_csr_product_transpose(_p))


def csr_todense(mat):
    """Convert a CSR-format sparse matrix to a dense matrix."""
    return csr_todense_p.bind(mat.data, mat.indices, mat.indptr, shape=mat.shape)


def csr_fromdense(mat, *, nse=None, index_dtype=np.int32):
    """Create a CSR-format sparse matrix from a dense matrix."""
    mat = jnp.asarray(mat)
    nse = _count(mat) if nse is None else concrete_or_error(operator.index, nse, "csr_fromdense nse argument")
    data, indices, indptr = csr_fromdense_p.bind(mat, nse=nse, index_dtype=np.dtype(index_dtype))
    return CSR((data, indices, indptr), shape=mat.shape)


def csr_matvec(mat, v, transpose=False):
    """Product of CSR sparse matrix and a dense vector."""
    return csr_matvec_p.bind(mat.data, mat.indices, mat.indptr, jnp.asarray(v), shape=mat.shape, transpose=transpose)


def csr_matmat(mat, B, *, transpose=False):
    """Product of CSR sparse matrix and a dense matrix."""
    return csr_matmat_p.bind(mat.data, mat.indices, mat.indptr, jnp.asarray(B), shape=mat.shape, transpose=transpose)


# ---------------------------------------------------------------------------
# The classes


class COO(JAXSparse):
    """Two-dimensional sparse matrix in coordinate (COO) format; experimental.

    Only a few operations are provided and support for transformations such
    as ``grad`` is limited; :class:`jax.experimental.sparse.BCOO` is usually
    the better choice.
    """
    nse = property(lambda self: self.data.size)
    _info = property(lambda self: COOInfo(self.shape, self._rows_sorted, self._cols_sorted))
    _bufs = property(lambda self: (self.data, self.row, self.col))

    def __init__(self, args, *, shape, rows_sorted=False, cols_sorted=False):
        data, row, col = args
        self.data, self.row, self.col = jnp.asarray(data), jnp.asarray(row), jnp.asarray(col)
        self._rows_sorted, self._cols_sorted = rows_sorted, cols_sorted
        super().__init__(args, shape=shape)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        return coo_fromdense(mat, index_dtype=index_dtype, nse=nse)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32"):
        if len(shape) != 2:
            raise ValueError(f"COO must have ndim=2; got shape={shape}")
        data = jnp.empty(0, dtype)
        return cls((data, jnp.empty(0, index_dtype), jnp.empty(0, index_dtype)), shape=shape, rows_sorted=True,
                   cols_sorted=True)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32"):
        diag = max(0, min(N + min(0, k), M - max(0, k)))
        row = jnp.arange(diag, dtype=index_dtype) + max(0, -k)
        col = jnp.arange(diag, dtype=index_dtype) + max(0, k)
        return cls((jnp.ones(diag, dtype), row, col), shape=(N, M), rows_sorted=True, cols_sorted=True)

    def todense(self):
        return coo_todense(self)

    def transpose(self, axes=None):
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return COO((self.data, self.col, self.row), shape=self.shape[::-1], rows_sorted=self._cols_sorted,
                   cols_sorted=self._rows_sorted)

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            raise NotImplementedError("matmul between two sparse objects.")
        other = jnp.asarray(other)
        dtype = jnp.promote_types(self.dtype, other.dtype)
        fn = coo_matvec if other.ndim == 1 else coo_matmat
        mat = COO((self.data.astype(dtype), self.row, self.col), shape=self.shape, rows_sorted=self._rows_sorted,
                  cols_sorted=self._cols_sorted)
        return fn(mat, other.astype(dtype))

    def tree_flatten(self):
        return (self.data, self.row, self.col), (self.shape, self._rows_sorted, self._cols_sorted)


class CSR(JAXSparse):
    """Two-dimensional sparse matrix in compressed-sparse-row (CSR) format; experimental.

    Only a few operations are provided and support for transformations such
    as ``grad`` is limited; :class:`jax.experimental.sparse.BCOO` is usually
    the better choice.
    """
    nse = property(lambda self: self.data.size)
    _bufs = property(lambda self: (self.data, self.indices, self.indptr))

    def __init__(self, args, *, shape):
        data, indices, indptr = args
        self.data, self.indices, self.indptr = jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr)
        super().__init__(args, shape=shape)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        return csr_fromdense(mat, index_dtype=index_dtype, nse=nse)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32"):
        if len(shape) != 2:
            raise ValueError(f"CSR must have ndim=2; got shape={shape}")
        return cls((jnp.empty(0, dtype), jnp.empty(0, index_dtype), jnp.zeros(shape[0] + 1, index_dtype)),
                   shape=shape)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32"):
        return csr_fromdense(jnp.eye(N, M, k, dtype=dtype), index_dtype=index_dtype)

    def todense(self):
        return csr_todense(self)

    def transpose(self, axes=None):
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return CSC(self._bufs, shape=self.shape[::-1])

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            raise NotImplementedError("matmul between two sparse objects.")
        other = jnp.asarray(other)
        dtype = jnp.promote_types(self.dtype, other.dtype)
        fn = csr_matvec if other.ndim == 1 else csr_matmat
        return fn(CSR((self.data.astype(dtype), self.indices, self.indptr), shape=self.shape), other.astype(dtype))

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), (self.shape,)


class CSC(JAXSparse):
    """Two-dimensional sparse matrix in compressed-sparse-column (CSC) format; experimental."""
    nse = property(lambda self: self.data.size)
    _bufs = property(lambda self: (self.data, self.indices, self.indptr))

    def __init__(self, args, *, shape):
        data, indices, indptr = args
        self.data, self.indices, self.indptr = jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr)
        super().__init__(args, shape=shape)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        return csr_fromdense(jnp.asarray(mat).T, nse=nse, index_dtype=index_dtype).T

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32"):
        return CSR._empty(tuple(shape)[::-1], dtype=dtype, index_dtype=index_dtype).T

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32"):
        return CSR._eye(N=M, M=N, k=-k, dtype=dtype, index_dtype=index_dtype).T

    def todense(self):
        return csr_todense(self.T).T

    def transpose(self, axes=None):
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return CSR(self._bufs, shape=self.shape[::-1])

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            raise NotImplementedError("matmul between two sparse objects.")
        other = jnp.asarray(other)
        dtype = jnp.promote_types(self.dtype, other.dtype)
        fn = csr_matvec if other.ndim == 1 else csr_matmat
        return fn(CSR((self.data.astype(dtype), self.indices, self.indptr), shape=self.shape[::-1]),
                  other.astype(dtype), transpose=True)

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), (self.shape,)


def _register(cls, fields, aux_names):
    from pyjax._src import tree_util

    def unflatten(aux, children):
        obj = object.__new__(cls)
        for name, value in zip(fields, children):
            setattr(obj, name, value)
        for name, value in zip(aux_names, aux):
            setattr(obj, name, value)
        return obj

    tree_util.register_pytree_node(cls, lambda m: (tuple(getattr(m, f) for f in fields),
                                                   tuple(getattr(m, a) for a in aux_names)), unflatten)


_register(COO, ("data", "row", "col"), ("shape", "_rows_sorted", "_cols_sorted"))
_register(CSR, ("data", "indices", "indptr"), ("shape",))
_register(CSC, ("data", "indices", "indptr"), ("shape",))
