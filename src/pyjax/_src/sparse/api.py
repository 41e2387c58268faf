"""Format-generic entry points: todense (and todense_p), empty, eye,
random_bcoo, and the sparse-aware autodiff wrappers (grad, value_and_grad,
jacfwd, jacrev, jacobian), which differentiate with respect to a sparse
array's data within its sparsity pattern."""

from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import api, api_ad, api_jac, core, dtypes, tree_util
from pyjax._src.ad_util import Zero
from pyjax._src.avals import ShapedArray
from pyjax._src.extend_core import concrete_or_error
from pyjax._src.extend_rules import primitive_batchers
from pyjax._src.sparse.bcoo import BCOO
from pyjax._src.sparse.bcsr import BCSR, bcsr_extract
from pyjax._src.sparse.bcoo_core import bcoo_extract
from pyjax._src.sparse.legacy import COO, CSC, CSR, _coo_extract, csr_rows
from pyjax._src.sparse.transform import sparse_rules_bcoo
from pyjax._src.sparse.util import JAXSparse
from pyjax._src.rules import SHARDING_OF_SPARSE
import pyjax.numpy as jnp

_is_sparse = lambda x: isinstance(x, JAXSparse)

# ---------------------------------------------------------------------------
# todense

todense_p = core.Primitive("todense")
todense_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _todense_impl(*bufs, tree):
    arr = tree_util.tree_unflatten(tree, bufs)
    return arr.todense() if _is_sparse(arr) else arr


def _todense_abstract_eval(*bufs, tree):
    arr = tree_util.tree_unflatten(tree, bufs)
    if _is_sparse(arr):
        return ShapedArray(tuple(arr.shape), arr.dtype, weak_type=getattr(bufs[0], "weak_type", False))
    return arr


def _todense_jvp_rule(primals, tangents, *, tree):
    out = todense_p.bind(*primals, tree=tree)
    if type(tangents[0]) is Zero:
        return out, Zero(ShapedArray(out.shape, out.dtype))
    # Only the data is differentiable; the index arrays are the primal's.
    return out, todense_p.bind(tangents[0], *primals[1:], tree=tree)


def _todense_transpose(ct, *bufs, tree):
    arr = tree_util.tree_unflatten(tree, [bufs[0].aval if i == 0 else b for i, b in enumerate(bufs)])
    if type(ct) is Zero:
        return (Zero(bufs[0].aval), *(None for _ in bufs[1:]))
    if isinstance(arr, BCOO):
        return (bcoo_extract(bufs[1], ct), None)
    if isinstance(arr, BCSR):
        return (bcsr_extract(bufs[1], bufs[2], ct), None, None)
    if isinstance(arr, COO):
        return (_coo_extract(bufs[1], bufs[2], ct), None, None)
    if isinstance(arr, CSR):
        return (_coo_extract(csr_rows(bufs[2], bufs[1].shape[0]), bufs[1], ct), None, None)
    raise NotImplementedError(f"todense_transpose for {type(arr)}")


todense_p.def_impl(_todense_impl)
todense_p.def_abstract_eval(_todense_abstract_eval)
todense_p.def_jvp(_todense_jvp_rule)
todense_p.def_transpose(_todense_transpose)
primitive_batchers[todense_p] = lambda args, dims, *, tree: (
    api.vmap(functools.partial(_todense_impl, tree=tree), in_axes=tuple(dims))(*args), 0)


def _todense_sparse_rule(*args, tree):
    # Under sparsify the operand is the sparse value itself (traced as one leaf).
    return args[0].todense() if _is_sparse(args[0]) else todense_p.bind(*args, tree=tree)


sparse_rules_bcoo[todense_p] = _todense_sparse_rule


def todense(arr):
    """Return a dense version of ``arr``; dense inputs are returned unchanged."""
    bufs, tree = tree_util.tree_flatten(arr)
    return todense_p.bind(*bufs, tree=tree)


# ---------------------------------------------------------------------------
# Constructors

_FORMATS = {"bcsr": BCSR, "bcoo": BCOO, "coo": COO, "csr": CSR, "csc": CSC}


def empty(shape: Sequence[int], dtype=None, index_dtype="int32", sparse_format: str = "bcoo", **kwds) -> JAXSparse:
    """Create an empty sparse array.

    Args:
      shape: the shape of the result, as a sequence of ints.
      dtype: optional dtype of the stored values.
      index_dtype: optional dtype used for the indices.
      sparse_format: name of the sparse format to build, e.g. ``'bcoo'``.
      **kwds: extra keywords forwarded to the format's ``_empty`` constructor.
    Returns:
      A sparse array of the requested format with no stored elements.
    """
    if sparse_format not in _FORMATS:
        raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of {list(_FORMATS.keys())}")
    dtype = dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.default_float_dtype())
    return _FORMATS[sparse_format]._empty(tuple(shape), dtype=dtype, index_dtype=index_dtype, **kwds)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, index_dtype="int32", sparse_format: str = "bcoo",
        **kwds) -> JAXSparse:
    """Build a two-dimensional sparse identity-like matrix.

    Args:
      N: row count of the result.
      M: optional column count; ``N`` is used when omitted.
      k: which diagonal holds the ones. ``0`` (default) is the main diagonal,
         positive values select diagonals above it and negative values below.
      dtype: optional dtype of the stored values.
      index_dtype: optional dtype used for the indices.
      sparse_format: name of the sparse format to build, e.g. ``'bcoo'``.
      **kwds: extra keywords forwarded to the format's ``_eye`` constructor.

    Returns:
      A 2D sparse matrix whose ``k``-th diagonal is filled with ones.
    """
    formats = {k_: v for k_, v in _FORMATS.items() if k_ != "bcsr"}
    M = N if M is None else M
    N, M, k = (concrete_or_error(operator.index, v) for v in (N, M, k))
    dtype = dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.default_float_dtype())
    return formats[sparse_format]._eye(M=M, N=N, k=k, dtype=dtype, index_dtype=index_dtype, **kwds)


def random_bcoo(key, shape: Sequence[int], *, dtype=None, indices_dtype=None, nse: float | int = 0.2,
                n_batch: int = 0, n_dense: int = 0, unique_indices: bool = True, sorted_indices: bool = False,
                generator: Callable | None = None, **kwds: Any) -> BCOO:
    """Generate a random BCOO matrix.

    Args:
      key: PRNG key handed to ``generator``.
      shape: shape of the result.
      dtype: dtype of the stored values.
      indices_dtype: dtype of the BCOO indices.
      nse: how many elements to store; a value strictly between 0 and 1 is read
        as a fraction of the sparse part of the shape (default 0.2).
      n_batch: count of leading batch dimensions; needs ``n_batch >= 0`` and
        ``n_batch + n_dense <= len(shape)``.
      n_dense: count of trailing dense dimensions; needs ``n_dense >= 0`` and
        ``n_batch + n_dense <= len(shape)``.
      unique_indices: whether the generated indices are free of duplicates
        (default True).
      sorted_indices: whether the indices are put in lexicographic order
        (default False).
      generator: callable taking ``(key, shape, dtype, **kwds)`` that produces
        the values; :func:`jax.random.uniform` by default.
      **kwds: extra keywords forwarded to ``generator``.

    Returns:
      A :class:`BCOO` array with the requested layout.
    """
    import pyjax.random as random

    generator = random.uniform if generator is None else generator
    dtype = dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.default_float_dtype())
    shape = tuple(map(operator.index, shape))
    n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
    if min(n_batch, n_dense) < 0 or n_batch + n_dense > len(shape):
        raise ValueError(f"Invalid n_batch={n_batch}, n_dense={n_dense} for shape={shape}")
    n_sparse = len(shape) - n_batch - n_dense
    batch, sparse = shape[:n_batch], shape[n_batch:n_batch + n_sparse]
    sparse_size = math.prod(sparse)
    if not 0 <= nse < sparse_size:
        raise ValueError(f"got nse={nse}, expected to be between 0 and {sparse_size}")
    if 0 < nse < 1:
        nse = int(math.ceil(nse * sparse_size))
    nse = operator.index(nse)
    indices_dtype = dtypes.default_int_dtype() if indices_dtype is None else indices_dtype

    def one_batch(k):
        if not sparse:
            return jnp.zeros((nse, n_sparse), indices_dtype)
        flat = random.choice(k, sparse_size, shape=(nse,), replace=not unique_indices).astype(indices_dtype)
        return jnp.column_stack(jnp.unravel_index(flat, sparse))

    # One key for the data, one per batch element for its indices.
    keys = random.split(key, math.prod(batch) + 1)
    data = generator(keys[0], shape=(*batch, nse, *shape[n_batch + n_sparse:]), dtype=dtype, **kwds)
    indices = api.vmap(one_batch)(keys[1:]).reshape((*batch, nse, n_sparse))
    mat = BCOO((data, indices), shape=shape)
    if sorted_indices:
        mat = mat.sort_indices()
    return mat


# ---------------------------------------------------------------------------
# Sparse-aware autodiff


def _ensure_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _for_sparse_ad(fun, argnums, args):
    """(fun on data, argnums, args, gradient rebuilder): a sparse argument is
    differentiated through its data, its other buffers held fixed."""
    nums = _ensure_tuple(concrete_or_error(None, argnums))
    flat, trees = [], []
    for i in nums:
        leaves, tree = tree_util.tree_flatten(args[i], is_leaf=_is_sparse)
        flat.append([x.data if _is_sparse(x) else x for x in leaves])
        trees.append((tree, leaves))
    new_args = list(args)
    for i, f in zip(nums, flat):
        new_args[i] = f

    def rebuild(i, values):
        tree, leaves = trees[nums.index(i)]
        out = []
        for leaf, v in zip(leaves, values):
            if _is_sparse(leaf):
                bufs, t = tree_util.tree_flatten(leaf)
                make = lambda d, bufs=bufs, t=t: tree_util.tree_unflatten(t, [d, *bufs[1:]])
                for _ in range(jnp.ndim(v) - jnp.ndim(bufs[0])):
                    make = api.vmap(make)
                v = make(v)
            out.append(v)
        return tree_util.tree_unflatten(tree, out)

    def fun_flat(*a, **kw):
        a = list(a)
        for i in nums:
            a[i] = rebuild(i, a[i])
        return fun(*a, **kw)

    def post(grads):
        single = isinstance(argnums, int)
        out = tuple(rebuild(i, g) for i, g in zip(nums, (grads,) if single else grads))
        return out[0] if single else out

    return fun_flat, argnums, new_args, post


def _sparse_ad(transform, doc_name):
    def wrapper(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, **kwargs) -> Callable:
        @functools.wraps(fun)
        def wrapped(*args, **kw):
            fun_flat, nums, new_args, post = _for_sparse_ad(fun, argnums, args)
            out = transform(fun_flat, argnums=nums, has_aux=has_aux, **kwargs)(*new_args, **kw)
            if transform is api_ad.value_and_grad:
                (val, grads) = out
                return val, post(grads)
            if has_aux:
                return post(out[0]), out[1]
            return post(out)
        return wrapped

    wrapper.__name__ = doc_name
    wrapper.__doc__ = (f"Sparse-aware version of :func:`jax.{doc_name}`\n\n    Arguments and return values are the "
                       f"same as :func:`jax.{doc_name}`, but when taking\n    the gradient with respect to a "
                       ":class:`jax.experimental.sparse` array, the\n    gradient is computed in the subspace "
                       "defined by the array's sparsity pattern.\n    ")
    return wrapper


grad = _sparse_ad(api_ad.grad, "grad")
value_and_grad = _sparse_ad(api_ad.value_and_grad, "value_and_grad")
jacfwd = _sparse_ad(api_jac.jacfwd, "jacfwd")
jacrev = _sparse_ad(api_jac.jacrev, "jacrev")
jacobian = jacrev
