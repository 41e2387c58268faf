"""Products: matmul (and the @ operator), dot, vdot, inner, outer.

All lower to lax.dot_general with `preferred_element_type` set to the
promoted dtype, as jax.numpy does, then restore the weak type.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import aval_of, check_arraylike, ensure_array, promote_dtypes


def _promote(name, a, b):
    check_arraylike(name, a, b)
    a, b = (ensure_array(x) for x in promote_dtypes(name, a, b))
    aval_a, aval_b = aval_of(a), aval_of(b)
    return a, b, aval_a, aval_b, aval_a.weak_type and aval_b.weak_type


def _preferred(dtype, preferred_element_type):
    if preferred_element_type is not None:
        return dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
    return dtype


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """Matrix product with NumPy's broadcasting of batch dimensions."""
    a, b, aa, ab, weak = _promote("matmul", a, b)
    for i, aval in enumerate((aa, ab)):
        if aval.ndim == 0:
            raise ValueError(f"matmul: Input operand {i} does not have enough dimensions (has 0, requires 1)")
    a_is_mat, b_is_mat = aa.ndim > 1, ab.ndim > 1
    a_batch = aa.shape[:-2] if a_is_mat else ()
    b_batch = ab.shape[:-2] if b_is_mat else ()
    nbatch = max(len(a_batch), len(b_batch))
    a_batch = (None,) * (nbatch - len(a_batch)) + tuple(a_batch)
    b_batch = (None,) * (nbatch - len(b_batch)) + tuple(b_batch)
    a_squeeze, b_squeeze, a_bdims, b_bdims = [], [], [], []
    out_batch, out_a, out_b = [], [], []
    for i, (da, db) in enumerate(zip(a_batch, b_batch, strict=True)):
        if da is None:
            out_b.append(i)
        elif db is None:
            out_a.append(i)
        elif da == 1 and db != 1:
            out_b.append(i)
            a_squeeze.append(len(out_batch) + len(out_a) + len(a_squeeze))
        elif db == 1 and da != 1:
            out_a.append(i)
            b_squeeze.append(len(out_batch) + len(out_b) + len(b_squeeze))
        elif da == db:
            a_bdims.append(len(out_batch) + len(out_a))
            b_bdims.append(len(out_batch) + len(out_b))
            out_batch.append(i)
        else:
            raise ValueError(f"Incompatible shapes for matmul arguments: {aa.shape} and {ab.shape}")
    if a_is_mat:
        out_a.append(nbatch)
    if b_is_mat:
        out_b.append(nbatch + a_is_mat)
    a = lax_shapes.squeeze(a, a_squeeze)
    b = lax_shapes.squeeze(b, b_squeeze)
    a_ndim, b_ndim = aval_of(a).ndim, aval_of(b).ndim
    dims = (((a_ndim - 1,), (b_ndim - 1 - b_is_mat,)), (tuple(a_bdims), tuple(b_bdims)))
    out = lax_dot.dot_general(a, b, dims, precision, _preferred(aa.dtype, preferred_element_type))
    perm = tuple(int(p) for p in np.argsort(out_batch + out_a + out_b))
    out = lax_shapes.transpose(out, perm)
    return lax_ew._convert_element_type(out, aval_of(out).dtype, weak)


def dot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product: contracts the last axis of `a` with the second-to-last of `b`."""
    a, b, aa, ab, weak = _promote("dot", a, b)
    if aa.ndim == 0 or ab.ndim == 0:
        return lax_ew.mul_p.bind(a, b)
    contract_b = ab.ndim - 2 if ab.ndim > 1 else 0
    dims = (((aa.ndim - 1,), (contract_b,)), ((), ()))
    out = lax_dot.dot_general(a, b, dims, precision, _preferred(aa.dtype, preferred_element_type))
    return lax_ew._convert_element_type(out, aval_of(out).dtype, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays (conjugating `a`)."""
    from pyjax._src.numpy.shape_ops import ravel

    a, b = ravel(ensure_array(a)), ravel(ensure_array(b))
    if np.issubdtype(aval_of(a).dtype, np.complexfloating):
        a = lax_ew.conj(a)
    return dot(a, b, precision=precision, preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contracts the last axes of `a` and `b`."""
    a, b, aa, ab, weak = _promote("inner", a, b)
    if aa.ndim == 0 or ab.ndim == 0:
        return lax_ew.mul_p.bind(a, b)
    dims = (((aa.ndim - 1,), (ab.ndim - 1,)), ((), ()))
    out = lax_dot.dot_general(a, b, dims, precision, _preferred(aa.dtype, preferred_element_type))
    return lax_ew._convert_element_type(out, aval_of(out).dtype, weak)


def outer(a, b, out=None):
    """Outer product of the flattened arrays."""
    from pyjax._src.numpy.shape_ops import ravel
    from pyjax._src.numpy.ufuncs import multiply

    a, b = ravel(ensure_array(a)), ravel(ensure_array(b))
    return multiply(lax_shapes.expand_dims(a, (1,)), b)
