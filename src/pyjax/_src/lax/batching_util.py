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
from pyjax._src.interpreters.batching import not_mapped


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


def broadcast_batch(x, size: int, axis: int):
    """An unbatched x given a batch axis of `size` at `axis`. (The dimension
    numbers come out of NumPy, np.int64 entries, as in JAX's jaxpr text.)"""
    from pyjax._src.lax.shapes import broadcast_in_dim_p

    shape = list(core.get_aval(x).shape)
    shape.insert(axis, size)
    dims = tuple(np.delete(np.arange(len(shape)), axis))
    return broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=dims, sharding=None)


def matchaxis(x, src, dst, size: int):
    """x with its batch axis at `dst` (`not_mapped` dst: x must be unbatched)."""
    if src is dst or src == dst:
        return x
    if dst is not_mapped:
        raise ValueError("at vmap out_axes, got axis spec None but output was batched on axis " f"{src}")
    if src is not_mapped:
        return broadcast_batch(x, size, dst)
    return moveaxis(x, src, dst)


# ---------------------------------------------------------------------------
# Rule builders


def vectorized(primitive) -> None:
    """A unary elementwise primitive: the batch axis stays where it is."""

    def rule(axis_data, args, dims, **params):
        return primitive.bind(*args, **params), dims[0]

    primitive.def_batch(rule)


def broadcasting(primitive) -> None:
    """An n-ary elementwise primitive (lax broadcasts size-1 and rank-0 operands).

    Batched operands of equal rank with the batch axis in the same place go
    through unchanged. Otherwise batch axes move to the front; an unbatched
    operand of full rank gets a size-1 axis there (lax broadcasts it).
    """

    def rule(axis_data, args, dims, **params):
        ndims = [core.get_aval(x).ndim for x in args]
        mapped = [(d, n) for d, n in zip(dims, ndims, strict=True) if d is not not_mapped]
        first_dim, first_ndim = mapped[0]
        if all(d == first_dim and n == first_ndim for d, n in mapped) and all(
            d is not not_mapped or n == 0 for d, n in zip(dims, ndims, strict=True)
        ):
            return primitive.bind(*args, **params), first_dim
        out_ndim = max(n - (0 if d is not_mapped else 1) for d, n in zip(dims, ndims, strict=True)) + 1
        # Unbatched operands first, then the batched ones (JAX's equation order).
        moved = list(args)
        for i, (x, d, n) in enumerate(zip(args, dims, ndims, strict=True)):
            if d is not_mapped and n:
                moved[i] = _expand_unbatched(x, n, out_ndim)
        for i, (x, d, n) in enumerate(zip(args, dims, ndims, strict=True)):
            if d is not not_mapped:
                x = moveaxis(x, d, 0)
                moved[i] = _expand_batched(x, n, out_ndim) if n < out_ndim else x
        return primitive.bind(*moved, **params), 0

    primitive.def_batch(rule)


def _expand_unbatched(x, ndim: int, out_ndim: int):
    # (n...) -> (1, [1...], n...): size-1 axes that lax broadcasting fills.
    # The dimension numbers come out of NumPy (np.int64), as in JAX's text.
    from pyjax._src.lax.shapes import broadcast_in_dim_p

    shape = core.get_aval(x).shape
    lead = out_ndim - ndim
    new_shape = (1,) * lead + tuple(shape)
    dims = tuple(np.arange(lead, out_ndim))
    return broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=dims, sharding=None)


def _expand_batched(x, ndim: int, out_ndim: int):
    # (B, n...) -> (B, 1..., n...)
    from pyjax._src.lax.shapes import broadcast_in_dim_p

    shape = core.get_aval(x).shape
    extra = out_ndim - ndim
    new_shape = (shape[0],) + (1,) * extra + tuple(shape[1:])
    dims = (0,) + tuple(range(1 + extra, out_ndim))
    return broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=dims, sharding=None)


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
