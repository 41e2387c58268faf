"""Shared pieces of the sparse formats: SparseInfo, the JAXSparse base class,
the efficiency warnings and the batch-dimension helpers the rules use."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from pyjax._src import api
import pyjax.numpy as jnp


class SparseEfficiencyError(ValueError):
    pass


class SparseEfficiencyWarning(UserWarning):
    pass


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
    pass


class SparseInfo(NamedTuple):
    """The static part of a BCOO/BCSR operand that its primitives carry as a param."""
    shape: tuple[int, ...]
    indices_sorted: bool = False
    unique_indices: bool = False


class JAXSparse:
    """Base class for the sparse array formats (JAX's `jax.experimental.sparse.JAXSparse`)."""
    data: Any
    shape: tuple[int, ...]
    # Arrays' operators that can return NotImplemented do, so that ours run.
    _defer_binops_to_me = True
    dtype = property(lambda self: self.data.dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    def __init__(self, args, *, shape):
        self.shape = tuple(shape)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        name = type(self).__name__
        try:
            nse, dtype, shape = self.nse, self.dtype, list(self.shape)
        except Exception:  # noqa: BLE001  (a malformed object still prints)
            return f"{name}(<invalid>)"
        extra = "".join(f", {k}={getattr(self, k)}" for k in ("n_batch", "n_dense") if getattr(self, k, 0))
        return f"{name}({np.dtype(dtype).name}{shape}, nse={nse}{extra})"

    def tree_flatten(self):
        raise NotImplementedError("tree_flatten")

    def todense(self):
        raise NotImplementedError(f"{type(self).__name__}.todense")

    def transpose(self, axes=None):
        raise NotImplementedError(f"{type(self).__name__}.transpose")

    @property
    def T(self):
        return self.transpose()

    def block_until_ready(self):
        for leaf in self.tree_flatten()[0]:
            leaf.block_until_ready()
        return self

    def __neg__(self):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.negative)(self)

    def __pos__(self):
        return self

    def __matmul__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.matmul)(self, other)

    def __rmatmul__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.matmul)(other, self)

    def __mul__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.multiply)(self, other)

    def __rmul__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.multiply)(other, self)

    def __add__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.add)(self, other)

    def __radd__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.add)(other, self)

    def __sub__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.subtract)(self, other)

    def __rsub__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.subtract)(other, self)

    def __truediv__(self, other):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(jnp.divide)(self, other)

    def __getitem__(self, idx):
        from pyjax._src.sparse.transform import sparsify
        return sparsify(lambda x: x[idx])(self)

    def sum(self, *args, **kwargs):
        from pyjax._src.sparse.transform import sparsify

        def total(x):
            return x.sum(*args, **kwargs)
        return sparsify(total)(self)


def broadcast_batch(data, indices, n_batch: int):
    """data and indices with their batch dimensions broadcast to one shape
    (a format keeps size-1 batch dimensions to share data or indices)."""
    batch = np.broadcast_shapes(data.shape[:n_batch], indices.shape[:n_batch])
    data = jnp.broadcast_to(data, batch + data.shape[n_batch:])
    indices = jnp.broadcast_to(indices, batch + indices.shape[n_batch:])
    return data, indices


def nfold_vmap(fun, n: int, in_axes=0, out_axes=0):
    """`fun` mapped over n leading axes (vmap n times)."""
    for _ in range(n):
        fun = api.vmap(fun, in_axes=in_axes, out_axes=out_axes)
    return fun


def batch_to_front(args, dims, size: int):
    """Operands with their vmap axis at the front (size 1 where unbatched: a
    format's batch dimensions broadcast)."""
    out = []
    for x, d in zip(args, dims):
        if d is None:
            out.append(jnp.expand_dims(x, 0))
        else:
            out.append(jnp.moveaxis(x, d, 0))
    return out


def axis_size(args, dims) -> int:
    return next(x.shape[d] for x, d in zip(args, dims) if d is not None)


def safe_zip(*args):
    return zip(*args, strict=True)
