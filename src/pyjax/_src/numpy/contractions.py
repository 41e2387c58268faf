"""Products: matmul (and the @ operator), dot, vdot, vecdot, inner, outer,
tensordot, matvec, vecmat, kron and cross.

The contractions lower to one `dot_general` with `preferred_element_type`
set to the promoted dtype, as jax.numpy does: the operands keep their own
dtypes (dot_general accepts mixed ones), and the weak type of the result is
restored afterwards.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.jit import jit
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src import dispatch
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    convert_element_type,
    ensure_arraylike,
    promote_dtypes,
)


def _result_type(name, a, b, preferred_element_type):
    if preferred_element_type is None:
        return dtypes.result_type(a, b, return_weak_type_flag=True)
    return dtypes.check_and_canonicalize_user_dtype(preferred_element_type, name), False


def _finish(result, dtype, weak):
    return convert_element_type(result, dtype, weak)


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Dot product: for 2-D arrays the matrix product; otherwise contracts the
    last axis of `a` with the second-to-last of `b` (the only one if 1-D);
    a scalar operand multiplies.

    Example:
      >>> jnp.dot(jnp.array([[1., 2.], [3., 4.]]), jnp.array([1., 1.]))
      Array([3., 7.], dtype=float32)
    """
    if (type(a) is Array and type(b) is Array and dispatch.active_trace() is None
            and (r := _DOT.two(a, b, precision, preferred_element_type, out_sharding)) is not None):
        return r
    a, b = ensure_arraylike("dot", a, b)
    dtype, weak = _result_type("dot", a, b, preferred_element_type)
    a_ndim, b_ndim = aval_of(a).ndim, aval_of(b).ndim
    if a_ndim == 0 or b_ndim == 0:
        contract = ((), ())
    elif b_ndim == 1:
        contract = ((a_ndim - 1,), (0,))
    else:
        contract = ((a_ndim - 1,), (b_ndim - 2,))
    result = lax_dot.dot_general(a, b, (contract, ((), ())), precision, dtype, out_sharding=out_sharding)
    return _finish(result, dtype, weak)


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with NumPy's broadcasting of batch (leading) axes; a
    1-D operand is a vector (its axis is removed from the result).

    Example:
      >>> jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((4, 5))).shape
      (2, 3, 5)
    """
    if (type(a) is Array and type(b) is Array and dispatch.active_trace() is None
            and (r := _MATMUL.two(a, b, precision, preferred_element_type, out_sharding)) is not None):
        return r
    a, b = ensure_arraylike("matmul", a, b)
    for i, x in enumerate((a, b)):
        if aval_of(x).ndim < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has ndim "
                             f"{aval_of(x).ndim}")
    dtype, weak = _result_type("matmul", a, b, preferred_element_type)
    a_shape, b_shape = aval_of(a).shape, aval_of(b).shape
    a_is_mat, b_is_mat = len(a_shape) > 1, len(b_shape) > 1
    a_batch = a_shape[:-2] if a_is_mat else ()
    b_batch = b_shape[:-2] if b_is_mat else ()
    n_batch = max(len(a_batch), len(b_batch))
    a_batch = (None,) * (n_batch - len(a_batch)) + tuple(a_batch)
    b_batch = (None,) * (n_batch - len(b_batch)) + tuple(b_batch)
    a_squeeze, b_squeeze, both_squeeze = [], [], []
    a_bdims, b_bdims = [], []
    idx_batch, idx_a_other, idx_b_other = [], [], []
    for i, (da, db) in enumerate(zip(a_batch, b_batch)):
        if da is None:
            idx_b_other.append(i)
        elif db is None:
            idx_a_other.append(i)
        elif da == 1 and db == 1:
            # Both length 1: squeezed from both, put back at the end.
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif da == 1:
            idx_b_other.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
        elif db == 1:
            idx_a_other.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
        elif da == db:
            a_bdims.append(len(idx_batch) + len(idx_a_other))
            b_bdims.append(len(idx_batch) + len(idx_b_other))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: {aval_of(a)} and {aval_of(b)}")
    if a_is_mat:
        idx_a_other.append(n_batch)
    if b_is_mat:
        idx_b_other.append(n_batch + a_is_mat)
    perm = np.argsort(np.concatenate([idx_batch, idx_a_other, idx_b_other]))
    a = lax_shapes.squeeze(a, tuple(a_squeeze))
    b = lax_shapes.squeeze(b, tuple(b_squeeze))
    dims = (((aval_of(a).ndim - 1,), (aval_of(b).ndim - 1 - b_is_mat,)), (tuple(a_bdims), tuple(b_bdims)))
    out = lax_dot.dot_general(a, b, dims, precision, dtype, out_sharding=out_sharding)
    result = lax_shapes.transpose(out, tuple(int(p) for p in perm))
    if both_squeeze:
        result = lax_shapes.expand_dims(result, tuple(both_squeeze))
    return _finish(result, dtype, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating `a`."""
    from pyjax._src.numpy.ufuncs import conj

    a, b = ensure_arraylike("vdot", a, b)
    if dtypes.issubdtype(aval_of(a).dtype, np.complexfloating):
        a = conj(a)
    return dot(a.ravel(), b.ravel(), precision=precision, preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """The (conjugated) dot product of vectors along `axis`, broadcasting the
    other axes."""
    from pyjax._src.numpy.shape_ops import moveaxis
    from pyjax._src.numpy.vectorize import vectorize

    x1, x2 = ensure_arraylike("jnp.vecdot", x1, x2)
    if aval_of(x1).shape[axis] != aval_of(x2).shape[axis]:
        raise ValueError(f"axes must match; got shapes {aval_of(x1).shape} and {aval_of(x2).shape} with axis={axis}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    return vectorize(partial(vdot, precision=precision, preferred_element_type=preferred_element_type),
                     signature="(n),(n)->()")(x1, x2)


@jit
def matvec(x1, x2, /):
    """Batched matrix-vector products (broadcasting the leading axes)."""
    from pyjax._src.numpy.vectorize import vectorize

    x1, x2 = ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


@jit
def vecmat(x1, x2, /):
    """Batched (conjugated) vector-matrix products."""
    from pyjax._src.numpy.ufuncs import conj
    from pyjax._src.numpy.vectorize import vectorize

    x1, x2 = ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n),(n,m)->(m)")(conj(x1), x2)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Contracts `axes` of `a` and `b`: an int N (the last N of `a` with the
    first N of `b`), or a pair of axis sequences."""
    a, b = ensure_arraylike("tensordot", a, b)
    a_ndim, b_ndim = aval_of(a).ndim, aval_of(b).ndim
    dtype, weak = _result_type("tensordot", a, b, preferred_element_type)
    if type(axes) is int:
        if axes > min(a_ndim, b_ndim):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks ({aval_of(a).shape} and "
                            f"{aval_of(b).shape})")
        contract = tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            contract = ((canonicalize_axis(ax1, a_ndim),), (canonicalize_axis(ax2, b_ndim),))
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError(f"tensordot requires axes lists to have equal length, got {ax1} and {ax2}.")
            contract = (tuple(canonicalize_axis(i, a_ndim) for i in ax1),
                        tuple(canonicalize_axis(i, b_ndim) for i in ax2))
        else:
            raise TypeError(f"tensordot requires both axes lists to be either ints, tuples or lists, got {ax1} "
                            f"and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of lists/tuples of ints.")
    result = lax_dot.dot_general(a, b, (contract, ((), ())), precision, dtype, out_sharding=out_sharding)
    return _finish(result, dtype, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contracts the last axes of `a` and `b` (multiplies if one is a scalar)."""
    a, b = ensure_arraylike("inner", a, b)
    if aval_of(a).ndim == 0 or aval_of(b).ndim == 0:
        if preferred_element_type is not None:
            a, b = a.astype(preferred_element_type), b.astype(preferred_element_type)
        return a * b
    return tensordot(a, b, (-1, -1), precision=precision, preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    """The outer product of the flattened arrays."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = ensure_arraylike("outer", a, b)
    a, b = promote_dtypes("outer", a, b)
    return a.ravel()[:, None] * b.ravel()[None, :]


@jit
def kron(a, b):
    """The Kronecker product: blocks a[i, j] * b."""
    from pyjax._src.numpy.shape_ops import expand_dims
    from pyjax._src.numpy.util import check_arraylike

    check_arraylike("kron", a, b)
    a, b = promote_dtypes("kron", a, b)
    a_ndim, b_ndim = aval_of(a).ndim, aval_of(b).ndim
    if a_ndim < b_ndim:
        a = expand_dims(a, tuple(range(b_ndim - a_ndim)))
    elif b_ndim < a_ndim:
        b = expand_dims(b, tuple(range(a_ndim - b_ndim)))
    a_reshaped = expand_dims(a, tuple(range(1, 2 * aval_of(a).ndim, 2)))
    b_reshaped = expand_dims(b, tuple(range(0, 2 * aval_of(b).ndim, 2)))
    out_shape = tuple(np.multiply(aval_of(a).shape, aval_of(b).shape))
    return lax_ew.mul(a_reshaped, b_reshaped).reshape(out_shape)


@jit(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
    """The cross product of 3-vectors along `axisa`/`axisb` (2-vectors, a
    deprecated form, give the z component), broadcasting the other axes."""
    import warnings

    from pyjax._src.numpy.creation import array, zeros_like
    from pyjax._src.numpy.shape_ops import moveaxis
    from pyjax._src.numpy.util import check_arraylike

    check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    na, nb = aval_of(a).shape[-1], aval_of(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if na == 2 or nb == 2:
        warnings.warn("Support for 2-dimensional vectors in jnp.cross is deprecated and will be removed in JAX "
                      "0.12.0. Use arrays of 3-dimensional vectors instead.", DeprecationWarning, stacklevel=2)
    if na == 2 and nb == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if na == 3 else zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if nb == 3 else zeros_like(b0)
    c = array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return moveaxis(c, 0, axisc)


# The eager fast paths (dispatch.py Sites) of dot and matmul: option names in call order.
_DOT = dispatch.Site("dot", dot, "precision", "preferred_element_type", "out_sharding")
_MATMUL = dispatch.Site("matmul", matmul, "precision", "preferred_element_type", "out_sharding")
