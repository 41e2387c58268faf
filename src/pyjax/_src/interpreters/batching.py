"""vmap's interpreter: every value is a pair (array, which axis is the batch).

A BatchTracer holds a value of the parent trace and its batch dimension
(`not_mapped` when the value is the same for every example). Processing a
primitive unpacks the pairs and calls the primitive's batching rule under the
parent trace; the rule says where the batch axis lands on the output. Named
axes (`axis_name`) let collectives (psum, ...) find the axis they reduce.

Rule signature (rules.py): `batch(axis_data, args, dims, **params) ->
(out, out_dim)` — `dims[i]` is an int or `not_mapped`; for multiple_results
primitives `out` and `out_dim` are lists. Builders: `vectorized` (unary
elementwise), `broadcasting` (n-ary elementwise), `defreducer` (axes params).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from pyjax._src import core


class NotMapped:
    """The batch dimension of an unbatched value."""

    __slots__ = ()

    def __repr__(self):
        return "not_mapped"


not_mapped = NotMapped()


class AxisData:
    """The mapped axis: its name (or None), size, and the spmd axis name."""

    __slots__ = ("name", "size", "spmd_name")

    def __init__(self, name, size: int, spmd_name=None):
        self.name = name
        self.size = size
        self.spmd_name = spmd_name


class BatchTracer(core.Tracer):
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace: BatchTrace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self):
        aval = core.get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = list(aval.shape)
        del shape[self.batch_dim]
        return aval.update(shape=tuple(shape))

    def __repr__(self):
        return f"BatchTracer(val={self.val!r}, batch_dim={self.batch_dim})"


class BatchTrace(core.Trace):
    """Moves a batch axis through every primitive."""

    def __init__(self, parent: core.Trace, axis_data: AxisData):
        self.parent = parent
        self.axis_data = axis_data
        self.valid = True

    def is_valid(self) -> bool:
        return self.valid

    def to_batch_info(self, x):
        if type(x) is BatchTracer and x._trace is self:
            return x.val, x.batch_dim
        return x, not_mapped

    def process_primitive(self, primitive, args, params):
        vals, dims = [], []
        for x in args:
            v, d = self.to_batch_info(x)
            vals.append(v)
            dims.append(d)
        with core.set_current_trace(self.parent):
            if all(d is not_mapped for d in dims) and not getattr(primitive, "is_collective", False):
                return primitive.bind(*vals, **params)
            out, out_dim = primitive.rule("batch")(self.axis_data, vals, dims, **params)
        if primitive.multiple_results:
            return [self.wrap(o, d) for o, d in zip(out, out_dim, strict=True)]
        return self.wrap(out, out_dim)

    def wrap(self, val, batch_dim):
        if batch_dim is not_mapped:
            return val
        return BatchTracer(self, val, batch_dim)


def find_axis(name) -> AxisData:
    """The AxisData of the innermost enclosing vmap with this axis name."""
    trace = core.current_trace()
    while trace is not None:
        if type(trace) is BatchTrace and trace.axis_data.name == name:
            return trace.axis_data
        trace = getattr(trace, "parent", None)
    raise NameError(f"Found an unbound axis name: {name}. To fix this, please call {'{}'} under `jax.shard_map`.")


# ---------------------------------------------------------------------------
# Moving batch dimensions


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


def batch_flat(fun: Callable, args: Sequence, in_dims: Sequence, out_dims_thunk: Callable, axis_data: AxisData):
    """Runs fun under a BatchTrace; returns flat outputs moved to the
    requested out_dims (a callable, so out_axes can be a prefix tree)."""
    trace = BatchTrace(core.current_trace(), axis_data)
    try:
        ins = [trace.wrap(a, d) for a, d in zip(args, in_dims, strict=True)]
        with core.set_current_trace(trace):
            outs = fun(*ins)
        infos = [trace.to_batch_info(o) for o in outs]
    finally:
        trace.valid = False
    out_dims = out_dims_thunk(len(infos))
    return [matchaxis(v, d, od, axis_data.size) for (v, d), od in zip(infos, out_dims, strict=True)]


__all__ = ["AxisData", "BatchTrace", "BatchTracer", "batch_flat", "bdim_at_front", "broadcast_batch",
           "broadcasting", "defreducer", "find_axis", "matchaxis", "moveaxis", "not_mapped", "vectorized"]
