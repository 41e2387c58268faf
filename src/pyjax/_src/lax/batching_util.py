"""Batching helpers that move batch axes with lax primitives, and the rule
builders: `vectorized` (unary elementwise), `broadcasting` (n-ary
elementwise), `defreducer` (primitives with an `axes` param).

They sit in the lax layer because they bind lax primitives (transpose,
broadcast_in_dim); the BatchTrace itself (interpreters/batching.py) knows no
primitive.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.tokens import AbstractToken


def moveaxis(x, src: int, dst: int):
    """x with axis `src` moved to `dst` (a transpose; nothing when equal)."""
    from pyjax._src.lax.shapes import transpose

    if src == dst:
        return x
    ndim = core.get_aval(x).ndim
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return transpose(x, tuple(perm))


def bdim_at_front(x, bdim, size: int):
    """x with its batch axis first; an unbatched x is broadcast to `size`."""
    if bdim is not_mapped:
        from pyjax._src.lax.shapes import broadcast_in_dim

        shape = tuple(core.get_aval(x).shape)
        return broadcast_in_dim(x, (size,) + shape, tuple(range(1, len(shape) + 1)))
    return moveaxis(x, bdim, 0)


def broadcast_batch(x, size: int, axis: int, mesh_axis=None):
    """An unbatched x given a batch axis of `size` at `axis` (typed on the
    Explicit `mesh_axis` the inputs' batch axis is split over, if any). (The
    dimension numbers come out of NumPy, np.int64 entries, as in JAX's jaxpr text.)"""
    from pyjax._src.lax.shapes import broadcast_in_dim_p
    from pyjax._src.sharding.vmap_axes import with_batch_axis

    shape = list(core.get_aval(x).shape)
    shape.insert(axis, size)
    dims = tuple(np.delete(np.arange(len(shape)), axis))
    return broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=dims,
                                   sharding=with_batch_axis(x, axis, mesh_axis))


def matchaxis(x, src, dst, size: int, mesh_axis=None):
    """x with its batch axis at `dst` (`not_mapped` dst: x must be unbatched)."""
    if src is dst or src == dst:
        return x
    if dst is not_mapped:
        raise ValueError("at vmap out_axes, got axis spec None but output was batched on axis " f"{src}")
    if src is not_mapped:
        if type(core.get_aval(x)) is AbstractToken:
            raise TypeError("vmap cannot give a token a batch axis: tokens are never mapped (return it with "
                            "out_axes=None)")
        return broadcast_batch(x, size, dst, mesh_axis)
    return moveaxis(x, src, dst)


batching.register_matchaxis(matchaxis)


# ---------------------------------------------------------------------------
# Rule builders


def vectorized(primitive) -> None:
    """A unary elementwise primitive: the batch axis stays where it is."""

    def rule(axis_data, args, dims, **params):
        return primitive.bind(*args, **params), dims[0]

    primitive.def_batch(rule)


def broadcasting(primitive) -> None:
    """An n-ary elementwise primitive (lax broadcasts size-1 and rank-0 operands).

    JAX's broadcast batcher, in its order: when every operand of nonzero rank
    has the first batched operand's shape and batch axis, the primitive runs
    as is. Otherwise, in argument order, each operand of nonzero rank gets
    its batch axis at the front (an unbatched one a size-1 axis there, which
    lax broadcasting fills); then, again in argument order, a batched operand
    of lower rank (a per-example scalar) gets trailing size-1 axes.
    """

    def rule(axis_data, args, dims, **params):
        avals = [core.get_aval(x) for x in args]
        shape = dim = None
        for aval, d in zip(avals, dims, strict=True):
            if d is not not_mapped:
                shape, dim = aval.shape, d
                break
        if all(d == dim and a.shape == shape for a, d in zip(avals, dims, strict=True) if a.shape):
            return primitive.bind(*args, **params), dim
        moved = [_batch_axis_first(x, d, a) if a.shape else x for x, a, d in zip(args, avals, dims, strict=True)]
        ndims = [core.get_aval(x).ndim for x in moved]
        out_ndim = max(ndims)
        for i, (x, d, n) in enumerate(zip(moved, dims, ndims, strict=True)):
            if d is not not_mapped and n < out_ndim:
                moved[i] = _trailing_unit_axes(x, n, out_ndim)
        return primitive.bind(*moved, **params), 0

    primitive.def_batch(rule)


def _batch_axis_first(x, d, aval):
    # JAX's bdim_at_front(x, d, 1): an unbatched operand gets a size-1 axis.
    if d is not_mapped:
        return broadcast_batch(x, 1, 0)
    return moveaxis(x, d, 0)


def _trailing_unit_axes(x, ndim: int, out_ndim: int):
    # (B,) -> (B, 1, ..., 1): expand_dims at the trailing positions, as JAX.
    from pyjax._src.lax.shapes import broadcast_in_dim_p

    shape = core.get_aval(x).shape
    new_shape = tuple(shape) + (1,) * (out_ndim - ndim)
    return broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=tuple(range(ndim)), sharding=None)


def defreducer(primitive, axes_param: str = "axes") -> None:
    """A reduction over `axes`: the axes shift past the batch axis, which
    stays (renumbered for the removed axes)."""

    def rule(axis_data, args, dims, **params):
        (x,), (d,) = args, dims
        axes = params[axes_param]
        shifted = tuple(np.where(np.asarray(axes) >= d, np.asarray(axes) + 1, np.asarray(axes))) if axes else ()
        out_dim = d - sum(1 for a in axes if a < d)
        return primitive.bind(x, **dict(params, **{axes_param: shifted})), out_dim

    primitive.def_batch(rule)
