"""jax.numpy.linalg norms and products: norm, vector_norm, matrix_norm, the
array-API aliases (matmul, tensordot, vecdot, outer, cross, trace, diagonal,
matrix_transpose), multi_dot, tensorinv and tensorsolve.
"""

from __future__ import annotations

import itertools
import math
import operator
from functools import partial

import numpy as np

from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.linalg import _arrays, _promote_inexact, _shape, inv, solve, svd
from pyjax._src.numpy.util import aval_of, canonicalize_axis
from pyjax._src.scipy import jnp_pending as jnp

__all__ = [
    "cross", "diagonal", "matmul", "matrix_norm", "matrix_transpose", "multi_dot", "norm", "outer", "tensordot",
    "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm",
]


def _abs_squared(x):
    """|x|**2 as JAX writes it: real(x * conj(x))."""
    product = x * (lax_ew.conj(x) if aval_of(x).dtype.kind == "c" else x)
    return lax_ew.real(product) if aval_of(product).dtype.kind == "c" else product


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return jnp.sqrt(jnp.sum(_abs_squared(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return jnp.max(jnp.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return jnp.min(jnp.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return jnp.sum(x != 0, dtype=jnp.finfo(aval_of(x).dtype).dtype, axis=axis, keepdims=keepdims)
    if ord == 1:
        return jnp.sum(jnp.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        message = f"Invalid order '{ord}' for vector norm."
        if ord == "inf":
            message += "Use 'jax.numpy.inf' instead."
        if ord == "-inf":
            message += "Use '-jax.numpy.inf' instead."
        raise ValueError(message)  # noqa: TRY004 (JAX raises ValueError)
    abs_x = jnp.abs(x)
    dtype = aval_of(abs_x).dtype
    order = np.array(ord, dtype)[()]
    inverse = np.array(1.0 / order, dtype)[()]
    return jnp.power(jnp.sum(jnp.power(abs_x, order), axis=axis, keepdims=keepdims), inverse)


@partial(jit, static_argnames=("ord", "axis", "keepdims"))
def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector or matrix norm.

    Args:
      x: input array.
      ord: the norm's order. Over one axis: 2 (default), any p, inf, -inf, 0
        (the count of nonzeros), 1. Over two axes: ``'fro'`` (default),
        ``'nuc'``, 1, -1, 2, -2, inf, -inf.
      axis: None (the Frobenius/2-norm of everything when ord is None), one
        axis (a vector norm) or two axes (a matrix norm).
      keepdims: keep the reduced axes as size-1 dimensions.
    """
    (x,) = _promote_inexact(*_arrays("jnp.linalg.norm", x))
    ndim = aval_of(x).ndim
    if axis is None:
        if ord is None:
            return jnp.sqrt(jnp.sum(_abs_squared(x), keepdims=keepdims))
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axis = tuple(canonicalize_axis(a, ndim) for a in axis)
    else:
        axis = (canonicalize_axis(axis, ndim),)
    if len(axis) == 1:
        return _vector_norm(x, 2 if ord is None else ord, axis, keepdims)
    if len(axis) != 2:
        raise ValueError(f"Improper number of axes for norm: axis={axis!r}. Pass one axis to compute a "
                         "vector-norm, or two axes to compute a matrix-norm.")
    row_axis, col_axis = axis
    if ord is None or ord in ("f", "fro"):
        return jnp.sqrt(jnp.sum(_abs_squared(x), axis=axis, keepdims=keepdims))
    # The induced 1- and inf-norms are the extreme column and row sums; once
    # one axis is summed away, the other's index shifts down if it was after it.
    if ord in (1, -1):
        if not keepdims and col_axis > row_axis:
            col_axis -= 1
        sums = jnp.sum(jnp.abs(x), axis=row_axis, keepdims=keepdims)
        if ord == 1:
            return jnp.max(sums, axis=col_axis, keepdims=keepdims, initial=0)
        return jnp.min(sums, axis=col_axis, keepdims=keepdims)
    if ord in (np.inf, -np.inf):
        if not keepdims and row_axis > col_axis:
            row_axis -= 1
        sums = jnp.sum(jnp.abs(x), axis=col_axis, keepdims=keepdims)
        if ord == np.inf:
            return jnp.max(sums, axis=row_axis, keepdims=keepdims, initial=0)
        return jnp.min(sums, axis=row_axis, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = svd(jnp.moveaxis(x, axis, (-2, -1)), compute_uv=False)
        if ord == 2:
            y = jnp.max(s, axis=-1, initial=0)
        elif ord == -2:
            y = jnp.min(s, axis=-1)
        else:
            y = jnp.sum(s, axis=-1)
        return jnp.expand_dims(y, axis) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """The vector norm of `x` over `axis` (all axes when None), of order `ord`
    (2, any p, inf, -inf, 0 or 1)."""
    (x,) = _arrays("jnp.linalg.vector_norm", x)
    return _vector_norm(x, ord, axis, keepdims)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """The matrix norm of the trailing matrices of `x` (see norm)."""
    (x,) = _arrays("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


def matrix_transpose(x, /):
    """Swaps the last two axes of `x`."""
    (x,) = _arrays("jnp.linalg.matrix_transpose", x)
    ndim = aval_of(x).ndim
    if ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={ndim}")
    return lax_shapes.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


def outer(x1, x2, /):
    """Outer product of two vectors: ``x1[:, None] * x2[None, :]``."""
    x1, x2 = _arrays("jnp.linalg.outer", x1, x2)
    if aval_of(x1).ndim != 1 or aval_of(x2).ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={aval_of(x1).ndim} "
                         f"x2.ndim={aval_of(x2).ndim}")
    return x1[:, None] * x2[None, :]


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along `axis` (broadcasting the rest)."""
    x1, x2 = _arrays("jnp.linalg.outer", x1, x2)
    n1, n2 = _shape(x1)[axis], _shape(x2)[axis]
    if n1 != 3 or n2 != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they have "
                         f"x1.shape[axis]={n1} and x2.shape[axis]={n2}")
    return jnp.cross(x1, x2, axis=axis)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Matrix product (jnp.matmul)."""
    x1, x2 = _arrays("jnp.linalg.matmul", x1, x2)
    return jnp.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """Tensor contraction over `axes` (jnp.tensordot)."""
    x1, x2 = _arrays("jnp.linalg.tensordot", x1, x2)
    return jnp.tensordot(x1, x2, axes=axes, precision=precision, preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """Conjugated dot product of vectors along `axis` (jnp.vecdot)."""
    x1, x2 = _arrays("jnp.linalg.vecdot", x1, x2)
    return jnp.vecdot(x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type)


def diagonal(x, /, *, offset: int = 0):
    """The `offset` diagonal of each trailing matrix of `x`."""
    (x,) = _arrays("jnp.linalg.diagonal", x)
    return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
    """Sum of the `offset` diagonal of each trailing matrix of `x`."""
    (x,) = _arrays("jnp.linalg.trace", x)
    return jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def tensorinv(a, ind: int = 2):
    """The inverse of `a` as a linear map from its first `ind` axes to the rest:
    ``tensordot(tensorinv(a, ind), a, ind)`` is the identity."""
    (a,) = _arrays("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind!r}")
    shape = _shape(a)
    contracting, rest = shape[:ind], shape[ind:]
    flat = (math.prod(contracting), math.prod(rest))
    if flat[0] != flat[1]:
        raise ValueError("tensorinv is only possible when the product of the first `ind` dimensions equals that "
                         f"of the remaining dimensions. got arr.shape={shape} with ind={ind}.")
    return jnp.reshape(inv(jnp.reshape(a, flat)), (*rest, *contracting))


def tensorsolve(a, b, axes=None):
    """Solves ``tensordot(a, x, x.ndim) = b`` for x.

    Args:
      a: an array whose leading axes match b's shape and whose trailing axes
        are x's shape (after moving `axes` to the end).
      b: the right-hand side.
      axes: axes of `a` to move to the end first.
    """
    a, b = _arrays("tensorsolve", a, b)
    if axes is not None:
        a = jnp.moveaxis(a, axes, len(axes) * (aval_of(a).ndim - 1,))
    b_shape = _shape(b)
    out_shape = _shape(a)[len(b_shape):]
    if _shape(a)[:len(b_shape)] != b_shape:
        raise ValueError("After moving axes to end, leading shape of a must match shape of b. "
                         f"got a.shape={_shape(a)}, b.shape={b_shape}")
    size = math.prod(b_shape)
    if size != math.prod(out_shape):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); "
                         f"got a.shape={_shape(a)}, b.ndim={len(b_shape)}.")
    a = jnp.reshape(a, (size, math.prod(out_shape)))
    return jnp.reshape(solve(a, jnp.ravel(b)), out_shape)


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices, in the cheapest order.

    The first and last arrays may be vectors. The order is chosen as
    jnp.einsum's path optimisation chooses it.
    """
    arrays = _arrays("jnp.linalg.multi_dot", *arrays)
    if len(arrays) == 1:
        # As in JAX: a lone array is taken as the sequence of its rows.
        arrays = [arrays[0][i] for i in range(_shape(arrays[0])[0])] if _shape(arrays[0]) else []
    if len(arrays) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrays)}")
    ndims = [aval_of(a).ndim for a in arrays]
    if not (ndims[0] in (1, 2) and ndims[-1] in (1, 2) and all(n == 2 for n in ndims[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the first and last array "
                         f"which may be 1 or 2 dimensional. Got array shapes {[_shape(a) for a in arrays]}")
    if any(_shape(a)[-1] != _shape(b)[0] for a, b in itertools.pairwise(arrays)):
        raise ValueError("multi_dot: last dimension of each array must match first dimension of following array. "
                         f"Got array shapes {[_shape(a) for a in arrays]}")
    einsum_axes = [(i, i + 1) for i in range(len(arrays))]
    if ndims[0] == 1:
        einsum_axes[0] = einsum_axes[0][1:]
    if ndims[-1] == 1:
        einsum_axes[-1] = einsum_axes[-1][:1]
    return jnp.einsum(*itertools.chain(*zip(arrays, einsum_axes)), optimize="auto", precision=precision)
