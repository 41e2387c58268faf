"""BCOO products: bcoo_dot_general (sparse x dense), bcoo_dot_general_sampled
(a dense product read at a sparse pattern) and bcoo_spdot_general (sparse x
sparse)."""

from __future__ import annotations

import math

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ad_util import Zero
from pyjax._src.avals import ShapedArray
from pyjax._src.extend_rules import defjvp, primitive_batchers
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.lax.dot import _dot_transpose_lhs, _dot_transpose_rhs
from pyjax._src.sparse import bcoo_core
from pyjax._src.sparse.util import SparseInfo, axis_size, batch_to_front, broadcast_batch, nfold_vmap
from pyjax._src import api
from pyjax._src.rules import SHARDING_OF_SPARSE
import pyjax.numpy as jnp
from pyjax import lax


def _canonical_dn(dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    return ((tuple(int(d) for d in lc), tuple(int(d) for d in rc)), (tuple(int(d) for d in lb), tuple(int(d) for d in rb)))


def _out_shape(lhs_shape, rhs_shape, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    for l, r in (*zip(lc, rc), *zip(lb, rb)):
        if lhs_shape[l] != rhs_shape[r]:
            raise TypeError("dot_general requires contracting dimensions to have the same shape, "
                            f"got {tuple(lhs_shape[d] for d in lc)} and {tuple(rhs_shape[d] for d in rc)}.")
    lf = [lhs_shape[d] for d in range(len(lhs_shape)) if d not in lc and d not in lb]
    rf = [rhs_shape[d] for d in range(len(rhs_shape)) if d not in rc and d not in rb]
    return (*(lhs_shape[d] for d in lb), *lf, *rf)


def _out_dtype(lhs_dtype, rhs_dtype, preferred_element_type):
    if preferred_element_type is not None:
        return np.dtype(preferred_element_type)
    return np.dtype(dtypes.result_type(lhs_dtype, rhs_dtype))


# ---------------------------------------------------------------------------
# bcoo_dot_general

bcoo_dot_general_p = core.Primitive("bcoo_dot_general")
bcoo_dot_general_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _dot_unbatched(data, indices, rhs, contracting, shape, out_dtype):
    lc, rc = contracting
    n_sparse = indices.shape[-1]
    in_sparse = [(l, r) for l, r in zip(lc, rc) if l < n_sparse]
    in_dense = [(l, r) for l, r in zip(lc, rc) if l >= n_sparse]
    free_sparse = [d for d in range(n_sparse) if d not in lc]
    if in_sparse:
        # Gather, per stored element, the rhs slice its sparse index selects.
        gathered = [r for _, r in in_sparse]
        rest = [d for d in range(rhs.ndim) if d not in gathered]
        rhs = jnp.moveaxis(rhs, gathered, list(range(len(gathered))))
        rhs = rhs.at[tuple(indices[:, l] for l, _ in in_sparse)].get(mode="fill", fill_value=0)
        dn = (([1 + l - n_sparse for l, _ in in_dense], [1 + rest.index(r) for _, r in in_dense]), ([0], [0]))
    else:
        dn = (([1 + l - n_sparse for l, _ in in_dense], [r for _, r in in_dense]), ([], []))
    prod = lax.dot_general(data.astype(out_dtype), rhs.astype(out_dtype), dn)
    if not free_sparse:
        return prod.sum(0)
    out = jnp.zeros(tuple(shape[d] for d in free_sparse) + prod.shape[1:], out_dtype)
    return out.at[tuple(indices[:, d] for d in free_sparse)].add(prod, mode="drop")


def _shift(dims, removed):
    return tuple(d - (d > removed) for d in dims)


def _dot_batched(data, indices, rhs, dn, shape, n_batch, out_dtype):
    (lc, rc), (lb, rb) = dn
    if n_batch == 0:
        return _dot_unbatched(data, indices, rhs, (lc, rc), shape, out_dtype)
    # Peel the leading batch dimension of the sparse operand with vmap.
    lc1, lb1 = _shift(lc, 0), _shift(lb, 0)
    if 0 in lb:
        j = lb.index(0)
        r = rb[j]
        inner = ((lc1, _shift(rc, r)), (lb1[:j] + lb1[j + 1:], _shift(rb[:j] + rb[j + 1:], r)))
        in_axes, out_axis, summed = (0, 0, r), j, False
    elif 0 in lc:
        j = lc.index(0)
        r = rc[j]
        inner = ((lc1[:j] + lc1[j + 1:], _shift(rc[:j] + rc[j + 1:], r)), (lb1, _shift(rb, r)))
        in_axes, out_axis, summed = (0, 0, r), 0, True
    else:
        inner = ((lc1, rc), (lb1, rb))
        in_axes, out_axis, summed = (0, 0, None), len(lb), False
    fun = lambda d, i, x: _dot_batched(d, i, x, inner, shape[1:], n_batch - 1, out_dtype)
    out = api.vmap(fun, in_axes=in_axes, out_axes=out_axis)(data, indices, rhs)
    return out.sum(0) if summed else out


def _bcoo_dot_general_impl(lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    n_batch = lhs_indices.ndim - 2
    data, indices = broadcast_batch(lhs_data, lhs_indices, n_batch)
    batch = lhs_spinfo.shape[:n_batch]
    data = jnp.broadcast_to(data, batch + data.shape[n_batch:])
    indices = jnp.broadcast_to(indices, batch + indices.shape[n_batch:])
    out_dtype = _out_dtype(lhs_data.dtype, rhs.dtype, preferred_element_type)
    return _dot_batched(data, indices, rhs, _canonical_dn(dimension_numbers), lhs_spinfo.shape, n_batch, out_dtype)


def _bcoo_dot_general_abstract_eval(lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type,
                                    lhs_spinfo):
    (lc, rc), (lb, rb) = dimension_numbers
    n_batch = lhs_indices.ndim - 2
    if any(d >= n_batch for d in lb):
        raise NotImplementedError("bcoo_dot_general batch dimensions must be among the batch dimensions "
                                  "of the sparse operand")
    shape = _out_shape(lhs_spinfo.shape, rhs.shape, dimension_numbers)
    return ShapedArray(shape, _out_dtype(lhs_data.dtype, rhs.dtype, preferred_element_type))


def _dot_general_transpose(ct, lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type,
                           lhs_spinfo):
    assert not is_undefined_primal(lhs_indices)
    if type(ct) is Zero:
        return [None if not is_undefined_primal(x) else Zero(x.aval) for x in (lhs_data, lhs_indices, rhs)]
    (lc, rc), (lb, rb) = dimension_numbers
    if is_undefined_primal(lhs_data):
        dense_aval = ShapedArray(tuple(lhs_spinfo.shape), lhs_data.aval.dtype)
        dense = _dot_transpose_lhs(ct, dense_aval, rhs, dimension_numbers=dimension_numbers, precision=None,
                                   preferred_element_type=None, out_sharding=None)
        return [bcoo_core.bcoo_extract(lhs_indices, dense), None, None]
    lhs_ndim = len(lhs_spinfo.shape)
    lf = [d for d in range(lhs_ndim) if d not in lc and d not in lb]
    rf = [d for d in range(rhs.aval.ndim) if d not in rc and d not in rb]
    dn = ((tuple(lf), tuple(range(len(lb), len(lb) + len(lf)))), (tuple(lb), tuple(range(len(lb)))))
    out = bcoo_dot_general_p.bind(lhs_data, lhs_indices, ct, dimension_numbers=dn,
                                  lhs_spinfo=lhs_spinfo, preferred_element_type=preferred_element_type)
    # The product's axes: batch, lhs contracting (in lhs order), rhs free.
    lc_sorted = sorted(lc)
    where = {}
    for j, r in enumerate(rb):
        where[r] = j
    for l, r in zip(lc, rc):
        where[r] = len(lb) + lc_sorted.index(l)
    for k, r in enumerate(rf):
        where[r] = len(lb) + len(lc) + k
    out = lax.transpose(out, tuple(where[d] for d in range(rhs.aval.ndim)))
    if out.dtype != rhs.aval.dtype:
        out = out.astype(rhs.aval.dtype)
    return [None, None, out]


def _bcoo_dot_general_batch(args, dims, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    size = axis_size(args, dims)
    (lc, rc), (lb, rb) = dimension_numbers
    data, indices = batch_to_front(args[:2], dims[:2], size)
    lc, lb = tuple(d + 1 for d in lc), tuple(d + 1 for d in lb)
    rhs = args[2]
    if dims[2] is None:
        out_dim = len(lb)
    else:
        rhs = jnp.moveaxis(rhs, dims[2], 0)
        rc, rb = tuple(d + 1 for d in rc), tuple(d + 1 for d in rb)
        lb, rb, out_dim = (0, *lb), (0, *rb), 0
    spinfo = lhs_spinfo._replace(shape=(size, *lhs_spinfo.shape))
    out = bcoo_dot_general_p.bind(data, indices, rhs, dimension_numbers=((lc, rc), (lb, rb)),
                                  preferred_element_type=preferred_element_type, lhs_spinfo=spinfo)
    return out, out_dim


bcoo_dot_general_p.def_impl(_bcoo_dot_general_impl)
bcoo_dot_general_p.def_abstract_eval(_bcoo_dot_general_abstract_eval)
defjvp(bcoo_dot_general_p,
       lambda g, d, i, r, **kw: bcoo_dot_general_p.bind(g, i, r, **kw),
       None,
       lambda g, d, i, r, **kw: bcoo_dot_general_p.bind(d, i, g, **kw))
bcoo_dot_general_p.def_transpose(_dot_general_transpose)
primitive_batchers[bcoo_dot_general_p] = _bcoo_dot_general_batch


# ---------------------------------------------------------------------------
# bcoo_dot_general_sampled

bcoo_dot_general_sampled_p = core.Primitive("bcoo_dot_general_sampled")
bcoo_dot_general_sampled_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _sampled_impl(A, B, indices, *, dimension_numbers):
    dense = lax.dot_general(A, B, _canonical_dn(dimension_numbers))
    return bcoo_core.bcoo_extract_p.bind(indices, dense, assume_unique=True)


def _sampled_abstract_eval(A, B, indices, *, dimension_numbers):
    shape = _out_shape(A.shape, B.shape, dimension_numbers)
    dense = ShapedArray(shape, _out_dtype(A.dtype, B.dtype, None))
    return bcoo_core._bcoo_extract_abstract_eval(indices, dense, assume_unique=True)


def _sampled_transpose(ct, A, B, indices, *, dimension_numbers):
    assert not is_undefined_primal(indices)
    A_aval = A.aval if is_undefined_primal(A) else core_aval(A)
    B_aval = B.aval if is_undefined_primal(B) else core_aval(B)
    shape = _out_shape(A_aval.shape, B_aval.shape, dimension_numbers)
    if type(ct) is Zero:
        return [Zero(x.aval) if is_undefined_primal(x) else None for x in (A, B, indices)]
    dense = bcoo_core.bcoo_todense_p.bind(ct, indices, spinfo=SparseInfo(shape))
    kw = dict(dimension_numbers=dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None)
    if is_undefined_primal(A):
        return [_dot_transpose_lhs(dense, A.aval, B, **kw), None, None]
    return [None, _dot_transpose_rhs(dense, A, B.aval, **kw), None]


def core_aval(x):
    return x.aval if hasattr(x, "aval") else ShapedArray(np.shape(x), np.result_type(x))


def _sampled_batch(args, dims, *, dimension_numbers):
    fun = lambda A, B, i: _sampled_impl(A, B, i, dimension_numbers=dimension_numbers)
    return api.vmap(fun, in_axes=tuple(dims))(*args), 0


bcoo_dot_general_sampled_p.def_impl(_sampled_impl)
bcoo_dot_general_sampled_p.def_abstract_eval(_sampled_abstract_eval)
defjvp(bcoo_dot_general_sampled_p,
       lambda g, A, B, i, **kw: bcoo_dot_general_sampled_p.bind(g, B, i, **kw),
       lambda g, A, B, i, **kw: bcoo_dot_general_sampled_p.bind(A, g, i, **kw),
       None)
bcoo_dot_general_sampled_p.def_transpose(_sampled_transpose)
primitive_batchers[bcoo_dot_general_sampled_p] = _sampled_batch


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
    """Contract two dense arrays, evaluating the result only at given sparse indices.

    Args:
      A: dense left operand.
      B: dense right operand.
      indices: BCOO index array naming the output positions to compute.
      dimension_numbers: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``,
        as in :func:`jax.lax.dot_general`.

    Returns:
      The BCOO data array holding the product at ``indices``.
    """
    return bcoo_dot_general_sampled_p.bind(jnp.asarray(A), jnp.asarray(B), jnp.asarray(indices),
                                           dimension_numbers=_canonical_dn(dimension_numbers))


# ---------------------------------------------------------------------------
# bcoo_spdot_general

bcoo_spdot_general_p = core.Primitive("bcoo_spdot_general", multiple_results=True)
bcoo_spdot_general_p.declare(sharding_reason=SHARDING_OF_SPARSE)


def _spdot_nse(lhs_indices, rhs_indices, out_sparse_shape) -> int:
    return min(lhs_indices.shape[-2] * rhs_indices.shape[-2], math.prod(out_sparse_shape))


def _spdot_check(lhs_data, lhs_indices, rhs_data, rhs_indices, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    if lhs_indices.ndim != 2 or rhs_indices.ndim != 2 or lb or rb:
        raise NotImplementedError("bcoo_spdot_general: batch dimensions are not supported yet in pyjax")
    if lhs_data.ndim != 1 or rhs_data.ndim != 1:
        raise NotImplementedError("bcoo_spdot_general: dense dimensions are not supported yet in pyjax")


def _spdot_impl(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo, dimension_numbers,
                preferred_element_type):
    (lc, rc), _ = dimension_numbers
    lf = [d for d in range(lhs_indices.shape[-1]) if d not in lc]
    rf = [d for d in range(rhs_indices.shape[-1]) if d not in rc]
    out_shape = _out_shape(lhs_spinfo.shape, rhs_spinfo.shape, dimension_numbers)
    out_dtype = _out_dtype(lhs_data.dtype, rhs_data.dtype, preferred_element_type)
    # Every pair of stored elements gives an output element (zero where the
    # contracted indices differ); duplicates are then summed.
    match = jnp.all(lhs_indices[:, None, list(lc)] == rhs_indices[None, :, list(rc)], axis=-1)
    data = jnp.where(match, lhs_data.astype(out_dtype)[:, None] * rhs_data.astype(out_dtype)[None, :], 0)
    n_l, n_r = lhs_indices.shape[0], rhs_indices.shape[0]
    idx = jnp.concatenate([jnp.broadcast_to(lhs_indices[:, None, lf], (n_l, n_r, len(lf))),
                           jnp.broadcast_to(rhs_indices[None, :, rf], (n_l, n_r, len(rf)))], axis=-1)
    nse = _spdot_nse(lhs_indices, rhs_indices, out_shape)
    out = bcoo_core._sum_duplicates_unbatched(data.reshape(-1), idx.reshape(n_l * n_r, -1).astype(lhs_indices.dtype),
                                              sparse_shape=out_shape, nse=nse)
    return list(out)


def _spdot_abstract_eval(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo,
                         dimension_numbers, preferred_element_type):
    _spdot_check(lhs_data, lhs_indices, rhs_data, rhs_indices, dimension_numbers)
    out_shape = _out_shape(lhs_spinfo.shape, rhs_spinfo.shape, dimension_numbers)
    nse = _spdot_nse(lhs_indices, rhs_indices, out_shape)
    return [ShapedArray((nse,), _out_dtype(lhs_data.dtype, rhs_data.dtype, preferred_element_type)),
            ShapedArray((nse, len(out_shape)), lhs_indices.dtype)]


def _spdot_jvp(primals, tangents, **params):
    ld, li, rd, ri = primals
    tl, _, tr, _ = tangents
    data, indices = bcoo_spdot_general_p.bind(*primals, **params)
    t = Zero(ShapedArray(data.shape, data.dtype))
    # Linear in each data operand; the output pattern depends on the indices only.
    if type(tl) is not Zero:
        t = bcoo_spdot_general_p.bind(tl, li, rd, ri, **params)[0]
    if type(tr) is not Zero:
        t2 = bcoo_spdot_general_p.bind(ld, li, tr, ri, **params)[0]
        t = t2 if type(t) is Zero else t + t2
    return [data, indices], [t, Zero(ShapedArray(indices.shape, dtypes.float0))]


def _spdot_batch(args, dims, **params):
    # The product of two patterns has an nse fixed by the shapes alone, so each
    # batch member gives outputs of one shape: a map over the batch stacks them
    # (a loop, not an unrolled copy per member, under jit).
    batched = [i for i, d in enumerate(dims) if d is not None]
    xs = [jnp.moveaxis(args[i], dims[i], 0) for i in batched]

    def one(members):
        operands = list(args)
        for i, x in zip(batched, members):
            operands[i] = x
        return tuple(bcoo_spdot_general_p.bind(*operands, **params))

    return list(lax.map(one, xs)), [0, 0]


bcoo_spdot_general_p.def_impl(_spdot_impl)
bcoo_spdot_general_p.def_abstract_eval(_spdot_abstract_eval)
bcoo_spdot_general_p.def_jvp(_spdot_jvp)
primitive_batchers[bcoo_spdot_general_p] = _spdot_batch


# ---------------------------------------------------------------------------
# The public entry point


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None,
                     out_sharding=None):
    """Sparse-aware counterpart of :func:`jax.lax.dot_general`.

    Args:
      lhs: dense array or BCOO array.
      rhs: dense array or BCOO array.
      dimension_numbers: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.
      precision: ignored.
      preferred_element_type: optional accumulation/result dtype.
      out_sharding: ignored.

    Returns:
      A BCOO array when both operands are BCOO; otherwise a dense array.
    """
    from pyjax._src.sparse.bcoo import BCOO

    del precision, out_sharding  # unused
    dn = _canonical_dn(dimension_numbers)
    lhs_is_sparse, rhs_is_sparse = isinstance(lhs, BCOO), isinstance(rhs, BCOO)
    if lhs_is_sparse and rhs_is_sparse:
        shape = _out_shape(lhs.shape, rhs.shape, dn)
        data, indices = bcoo_spdot_general_p.bind(lhs.data, lhs.indices, rhs.data, rhs.indices,
                                                  lhs_spinfo=lhs._info, rhs_spinfo=rhs._info,
                                                  dimension_numbers=dn, preferred_element_type=preferred_element_type)
        return BCOO((data, indices), shape=shape, indices_sorted=True, unique_indices=True)
    if isinstance(lhs, BCOO):
        return bcoo_dot_general_p.bind(lhs.data, lhs.indices, jnp.asarray(rhs), dimension_numbers=dn,
                                       preferred_element_type=preferred_element_type, lhs_spinfo=lhs._info)
    if isinstance(rhs, BCOO):
        # dense . sparse: the sparse-first product with its free axes swapped back.
        (lc, rc), (lb, rb) = dn
        out = bcoo_dot_general_p.bind(rhs.data, rhs.indices, jnp.asarray(lhs), dimension_numbers=((rc, lc), (rb, lb)),
                                      preferred_element_type=preferred_element_type, lhs_spinfo=rhs._info)
        lhs_ndim = jnp.ndim(lhs)
        n_lf = lhs_ndim - len(lc) - len(lb)
        n_rf = rhs.ndim - len(rc) - len(rb)
        nb = len(lb)
        perm = (*range(nb), *range(nb + n_rf, nb + n_rf + n_lf), *range(nb, nb + n_rf))
        return lax.transpose(out, perm)
    return lax.dot_general(lhs, rhs, dn, preferred_element_type=preferred_element_type)
