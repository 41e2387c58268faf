"""associative_scan: a parallel prefix scan built from slices, pads and
the combining function (no loop primitive).

The recursion halves the problem: combine neighbouring pairs, scan the
half-size result, then combine the scanned odd elements with the even
ones and interleave. It makes O(log n) calls of `fn`, each on whole
slices, which is what makes it fast on vector hardware (and what makes it
print the same slice/pad/concatenate equations as JAX).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pyjax._src import core
from pyjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = ["associative_scan"]


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """Compute all running combinations of ``elems`` under an associative ``fn``.

    Unlike a sequential `scan`, the prefixes are built in a logarithmic
    number of rounds, each applying ``fn`` to whole slices at once.

    Args:
      fn: an associative binary operation ``r = fn(a, b)`` on pytrees of
        arrays like `elems`, applied elementwise along `axis`:
        ``fn(a, fn(b, c)) == fn(fn(a, b), c)``.
      elems: a pytree of arrays, each with an `axis` dimension of the same size.
      reverse: scan from the end of the axis to its start.
      axis: the axis along which to scan.

    Returns:
      A pytree like `elems` whose ``k``-th element along `axis` combines the
      first ``k + 1`` elements: ``[a, fn(a, b), fn(fn(a, b), c), ...]``.

    Example:
      >>> lax.associative_scan(jnp.add, jnp.arange(0, 4))
      Array([0, 1, 3, 6], dtype=int32)
    """
    from pyjax._src.lax.shapes import concatenate, rev
    from pyjax._src.lax.slicing import slice_in_dim

    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    elems_flat, tree = tree_flatten(elems)
    if reverse:
        elems_flat = [rev(e, [axis]) for e in elems_flat]

    def combine(a_flat, b_flat):
        c = fn(tree_unflatten(tree, a_flat), tree_unflatten(tree, b_flat))
        return tree_flatten(c)[0]

    ndim = len(core.get_aval(elems_flat[0]).shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis = axis % ndim
    axis_sizes = [int(e.shape[axis]) for e in elems_flat]
    num_elems = axis_sizes[0]
    if any(n != num_elems for n in axis_sizes):
        raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                         f"(saw: {[e.shape for e in elems_flat]})")

    def scan_level(elems):
        n = elems[0].shape[axis]
        if n < 2:
            return elems
        reduced = combine([slice_in_dim(e, 0, -1, stride=2, axis=axis) for e in elems],
                          [slice_in_dim(e, 1, None, stride=2, axis=axis) for e in elems])
        odd = scan_level(reduced)
        if n % 2 == 0:
            even = combine([slice_in_dim(e, 0, -1, axis=axis) for e in odd],
                           [slice_in_dim(e, 2, None, stride=2, axis=axis) for e in elems])
        else:
            even = combine(odd, [slice_in_dim(e, 2, None, stride=2, axis=axis) for e in elems])
        even = [concatenate([slice_in_dim(e, 0, 1, axis=axis), r], axis) for e, r in zip(elems, even, strict=True)]
        return [_interleave(a, b, axis) for a, b in zip(even, odd, strict=True)]

    scans = scan_level(elems_flat)
    if reverse:
        scans = [rev(s, [axis]) for s in scans]
    return tree_unflatten(tree, scans)


def _interleave(a, b, axis: int):
    # [a0, a1, ...] and [b0, b1, ...] -> [a0, b0, a1, b1, ...]: pad each with
    # zeros in the other's places and add (or `or`, for booleans).
    from pyjax._src.lax.elementwise import add, bitwise_or
    from pyjax._src.lax.slicing import pad

    a_shape, b_shape = core.get_aval(a).shape, core.get_aval(b).shape
    a_pad = [(0, 0, 0)] * len(a_shape)
    b_pad = [(0, 0, 0)] * len(b_shape)
    same = a_shape[axis] == b_shape[axis]
    a_pad[axis] = (0, 1 if same else 0, 1)
    b_pad[axis] = (1, 0 if same else 1, 1)
    dtype = core.get_aval(a).dtype
    op = bitwise_or if dtype == np.bool_ else add
    zero = np.zeros((), dtype)[()]
    return op(pad(a, zero, a_pad), pad(b, np.zeros((), core.get_aval(b).dtype)[()], b_pad))
