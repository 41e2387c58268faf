"""Indexing with static indices: integers, slices, None and Ellipsis.

`x[1:3, ::-1, None, 0]` becomes static slice, rev, broadcast_in_dim and
squeeze primitives. Indexing with arrays (gather) arrives with the full
jax.numpy indexing issue; until then it raises a clear error.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import aval_of


def _static_int(i):
    if type(i) is int or isinstance(i, np.integer):
        return int(i)
    if type(i) is Array and not i.aval.shape and np.issubdtype(i.aval.dtype, np.integer):
        return int(i)
    return None


def getitem(x, index):
    """x[index] for static integer/slice/None/Ellipsis indices."""
    if not isinstance(index, tuple):
        index = (index,)
    shape = aval_of(x).shape
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > len(shape):
        raise IndexError(f"Too many indices: {len(shape)}-dimensional array indexed with {n_real} regular indices.")
    if any(i is Ellipsis for i in index):
        at = next(k for k, i in enumerate(index) if i is Ellipsis)
        index = index[:at] + (slice(None),) * (len(shape) - n_real) + tuple(i for i in index[at + 1:] if i is not Ellipsis)
    else:
        index = index + (slice(None),) * (len(shape) - n_real)
    starts, limits, strides, reversed_axes, squeezed, out_dims = [], [], [], [], [], []
    axis = 0
    for item in index:
        if item is None:
            out_dims.append(None)
            continue
        size = shape[axis]
        as_int = _static_int(item)
        if as_int is not None:
            if not -size <= as_int < size:
                raise IndexError(f"index {as_int} is out of bounds for axis {axis} with size {size}")
            as_int %= size
            starts.append(as_int), limits.append(as_int + 1), strides.append(1)
            squeezed.append(axis)
        elif isinstance(item, slice):
            start, stop, step = item.indices(size)
            count = len(range(start, stop, step))
            if step < 0:
                reversed_axes.append(axis)
                start, step = size - 1 - start, -step
            starts.append(start)
            limits.append(start + (count - 1) * step + 1 if count else start)
            strides.append(step)
            out_dims.append(axis)
        elif isinstance(item, (core.Tracer, Array, np.ndarray, list)) or hasattr(item, "__jax_array__"):
            raise NotImplementedError(
                "Indexing with arrays (gather) is not implemented yet in pyjax; "
                "use static integers, slices, None and Ellipsis."
            )
        else:
            raise TypeError(f"Indexer must be an integer, slice, None or Ellipsis; got {item!r}")
        axis += 1
    out = x
    if reversed_axes:
        out = lax_shapes.rev(out, reversed_axes)
    if any(s != 0 for s in starts) or any(lim != d for lim, d in zip(limits, shape, strict=True)) or any(s != 1 for s in strides):
        out = lax_shapes.slice(out, starts, limits, strides if any(s != 1 for s in strides) else None)
    if squeezed:
        out = lax_shapes.squeeze(out, squeezed)
    if None in out_dims:
        kept_shape = aval_of(out).shape
        new_shape = tuple(1 if d is None else 0 for d in out_dims)
        src = iter(kept_shape)
        new_shape = tuple(1 if d is None else next(src) for d in out_dims)
        kept = tuple(k for k, d in enumerate(out_dims) if d is not None)
        out = lax_shapes.broadcast_in_dim(out, new_shape, kept)
    return out
