"""Ragged matrix multiplication, composed from dot_general and masks.

JAX has a `ragged_dot_general` primitive; pyjax computes the same values
with existing primitives, so every transformation applies: the group of
each index along the ragged dimension is found from the cumulative group
sizes, and a 0/1 mask of (index, group) selects, per mode,

1. ragged non-contracting dim ``m``: the dense product with every group of
   ``rhs``, then each row's own group;
2. ragged contracting dim ``k``: per group, the product over that group's
   slice of ``k`` (a new leading axis ``g``);
3. ragged batch dim ``b``: the batched product (the groups change nothing).

In modes 1 and 2, indices past ``sum(group_sizes)`` belong to no group and give zeros.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax._standard import as_array

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Describes ragged, group, and dot dimensions for ragged dot general.

    Args:
      dot_dimension_numbers: ``((lhs_contracting_dims, rhs_contracting_dims),
        (lhs_batch_dims, rhs_batch_dims))``.
      lhs_ragged_dimensions: the ``lhs`` ragged dimensions (one).
      rhs_group_dimensions: the ``rhs`` group dimensions (at most one).
    """

    dot_dimension_numbers: Any
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers", tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def ragged_dot(lhs: Any, rhs: Any, group_sizes: Any, precision: Any = None, preferred_element_type: Any = None,
               group_offset: Any = None, out_sharding: Any = None) -> Any:
    """Ragged matrix multiplication.

    Args:
      lhs: (m, k) shaped array.
      rhs: (g, k, n) shaped array.
      group_sizes: (g,) shaped array with integer element type; the ith
        element is the number of consecutive rows of ``lhs`` in group i.
      precision: Optional. Consistent with precision argument for :func:`jax.lax.dot`.
      preferred_element_type: Optional. Consistent with :func:`jax.lax.dot`.
      group_offset: Optional; not supported (JAX's CPU path refuses it too).

    Returns:
      (m, n) shaped array: row i is ``lhs[i] @ rhs[group of i]``; rows past
      ``sum(group_sizes)`` are zero.
    """
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision=precision,
                              preferred_element_type=preferred_element_type, group_offset=group_offset,
                              out_sharding=out_sharding)


def _others(n: int, *excluded) -> list[int]:
    return [i for i in range(n) if all(i not in e for e in excluded)]


def ragged_dot_general(lhs: Any, rhs: Any, group_sizes: Any,
                       ragged_dot_dimension_numbers: RaggedDotDimensionNumbers, precision: Any = None,
                       preferred_element_type: Any = None, group_offset: Any = None,
                       out_sharding: Any = None) -> Any:
    """Ragged matrix multiplication with general dimension numbers.

    Like :func:`jax.lax.dot_general`, ``lhs`` and ``rhs`` have arbitrary batch
    and contracting dimensions; ``lhs`` has one ragged dimension of ``g``
    consecutive groups (sizes ``group_sizes``, shape ``[g]``), and ``rhs`` may
    have one group dimension. Three modes, by the kind of the ragged dimension:

    1. non-contracting (``m``): ``[b...,m...,k...], [g,b...,k...,n...] -> [b...,m...,n...]``;
    2. contracting (``k``): ``[b...,m...,k...], [b...,k...,n...] -> [g,b...,m...,n...]``;
    3. batch (``b``): ``[b...,m...,k...], [b...,k...,n...] -> [b...,m...,n...]``.
    """
    from pyjax._src.lax import elementwise as ew
    from pyjax._src.lax.dot import dot_general
    from pyjax._src.lax.reductions import reduce_sum
    from pyjax._src.lax.shapes import broadcast_in_dim, transpose

    if group_offset is not None:
        raise NotImplementedError("ragged_dot_general: group_offset is not supported (XLA's CPU backend "
                                  "does not implement it either)")
    lhs, rhs, group_sizes = as_array(lhs), as_array(rhs), as_array(group_sizes)
    la, ra, ga = core.get_aval(lhs), core.get_aval(rhs), core.get_aval(group_sizes)
    dn = ragged_dot_dimension_numbers
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    if not dtypes.issubdtype(ga.dtype, np.integer):
        raise TypeError("ragged_dot_general requires that group_sizes.dtype is subtype of np.integer.")
    if len(dn.lhs_ragged_dimensions) != 1:
        raise TypeError(f"ragged_dot_general expects exactly one lhs ragged dimension, "
                        f"got {len(dn.lhs_ragged_dimensions)}.")
    if len(dn.rhs_group_dimensions) > 1:
        raise TypeError(f"ragged_dot_general expects at most one rhs group dimension, "
                        f"got {len(dn.rhs_group_dimensions)}.")
    if ga.ndim != 1:
        raise NotImplementedError("ragged_dot_general: group_sizes must have shape [g] in pyjax "
                                  f"(batched group sizes are not supported), got shape {ga.shape}.")
    g = ga.shape[0]
    ragged = dn.lhs_ragged_dimensions[0]
    group_dims = dn.rhs_group_dimensions
    kw = dict(precision=precision, preferred_element_type=preferred_element_type)

    # mask[i, j] = 1 where index i of the ragged dimension is in group j.
    size = la.shape[ragged]
    ends = _cumsum(group_sizes)
    starts = ew.sub(ends, group_sizes)
    idx = _iota(size, ga.dtype, (size, g), 0)
    in_group = ew.bitwise_and(ew.ge(idx, broadcast_in_dim(starts, (size, g), (1,))),
                              ew.lt(idx, broadcast_in_dim(ends, (size, g), (1,))))

    if ragged in lc:  # mode 2
        if group_dims:
            raise TypeError("ragged_dot_general: a ragged contracting dimension requires rhs to have no group "
                            "dimension.")
        mask = ew.convert_element_type(transpose(in_group, (1, 0)), la.dtype)  # [g, k]
        # lhs gets a leading group axis, masked along its ragged dimension.
        shape = (g,) + tuple(la.shape)
        masked = ew.mul(broadcast_in_dim(lhs, shape, tuple(range(1, la.ndim + 1))),
                        broadcast_in_dim(mask, shape, (0, ragged + 1)))
        shift = lambda ds: tuple(d + 1 for d in ds)
        out = dot_general(masked, rhs, ((shift(lc), tuple(rc)), (shift(lb), tuple(rb))), **kw)
        # out: [b..., g, m..., n...] -> [g, b..., m..., n...]
        nb = len(lb)
        perm = (nb,) + tuple(range(nb)) + tuple(range(nb + 1, core.get_aval(out).ndim))
        return transpose(out, perm)

    if ragged in lb:  # mode 3
        if group_dims:
            raise TypeError("ragged_dot_general: a ragged batch dimension requires rhs to have no group dimension.")
        # Each batch index pairs its own lhs and rhs slices whatever its group:
        # the product is the batched dot_general (JAX's CPU result too).
        return dot_general(lhs, rhs, ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))), **kw)

    # mode 1: the ragged dimension is an lhs free dimension; rhs has the group dimension.
    if len(group_dims) != 1:
        raise TypeError("ragged_dot_general: a ragged non-contracting dimension requires one rhs group dimension.")
    (gd,) = group_dims
    if ra.shape[gd] != g:
        raise TypeError(f"expected rhs group dimension size to be {g}, got {ra.shape[gd]}.")
    out = dot_general(lhs, rhs, ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))), **kw)
    oa = core.get_aval(out)
    # Output axes: batch, lhs free, rhs free (the group axis among them).
    lhs_free = _others(la.ndim, lc, lb)
    rhs_free = _others(ra.ndim, rc, rb)
    ragged_axis = len(lb) + lhs_free.index(ragged)
    group_axis = len(lb) + len(lhs_free) + rhs_free.index(gd)
    mask = broadcast_in_dim(ew.convert_element_type(in_group, oa.dtype), oa.shape, (ragged_axis, group_axis))
    return reduce_sum(ew.mul(out, mask), (group_axis,))


def _iota(size, dtype, shape, dimension):
    from pyjax._src.lax.shapes import broadcasted_iota

    return broadcasted_iota(dtype, shape, dimension)


def _cumsum(x):
    from pyjax._src.lax.windowed import cumsum

    return cumsum(x, 0)
