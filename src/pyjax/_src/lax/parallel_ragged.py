"""Collectives of shard_map bodies beyond parallel_comm's: `ragged_all_to_all`
and `all_gather_invariant` (what `all_gather(..., to='invarying')` binds).

`ragged_all_to_all(operand, output, input_offsets, send_sizes,
output_offsets, recv_sizes, axis_name=)` sends slices of the leading axis
of each device's `operand` to the devices of `axis_name`: slice k goes to
the device whose index is `k // (K / axis size)` and lands in its `output`
at the sender's `output_offsets[k]`. Its type is `output`'s. (XLA:CPU cannot
run it; pyjax's per-device runtime does, as JAX documents it.)

`all_gather_invariant` gathers as `all_gather` does, and its result's type
is invariant over the gathered axes (the same value on every device of a
group), where `all_gather`'s stays varying.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.ad_util import instantiate
from pyjax._src.lax.parallel import axes_tuple, check_axis_names, named_axis_size
from pyjax._src.lax.slicing import _canonicalize_axis
from pyjax._src.rules import SHARDING_OF_COLLECTIVE

__all__ = ["all_gather_invariant_p", "ragged_all_to_all", "ragged_all_to_all_p"]

ragged_all_to_all_p = Primitive("ragged_all_to_all")
ragged_all_to_all_p.declare(sharding_reason=SHARDING_OF_COLLECTIVE)

_RAGGED_OPERANDS = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")


def _ragged_abstract_eval(operand, output, *sizes, axis_name, axis_index_groups):
    # (JAX's checks, in its order: the index operands' dtypes, then their ranks.)
    for name, aval in zip(_RAGGED_OPERANDS, sizes):
        if not np.issubdtype(aval.dtype, np.integer):
            raise ValueError(f"ragged_all_to_all {name} must be integer type.")
    for name, aval in zip(_RAGGED_OPERANDS, sizes):
        if len(aval.shape) != 1 or aval.shape[0] < 1:
            raise ValueError(f"ragged_all_to_all {name} must be rank 1 with positive dimension size, but got "
                             f"shape {aval.shape}")
    check_axis_names(axis_name, "ragged_all_to_all")
    return output.update(weak_type=False)


ragged_all_to_all_p.def_abstract_eval(_ragged_abstract_eval)


def _ragged_jvp(primals, tangents, **params):
    # Linear in the data (operand, output); the offsets and sizes only index.
    out = ragged_all_to_all_p.bind(*primals, **params)
    data = [instantiate(t) for t in tangents[:2]]
    return out, ragged_all_to_all_p.bind(*data, *primals[2:], **params)


ragged_all_to_all_p.def_jvp(_ragged_jvp)


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, *, axis_name,
                      axis_index_groups=None):
    """Ragged all-to-all over the mapped axis `axis_name` (JAX's
    `lax.ragged_all_to_all`): each device sends
    `operand[input_offsets[k]:input_offsets[k] + send_sizes[k]]` to device
    `k // (K / axis size)` of the axis, written there at `output_offsets[k]`;
    returns `output` updated with what this device received."""
    names = axes_tuple(axis_name)
    if axis_index_groups is not None:
        raise NotImplementedError("ragged_all_to_all: axis_index_groups is not supported by pyjax's runtime")
    return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes,
                                    axis_name=names, axis_index_groups=None)


def ragged_exchange(operands: list, output_offsets: list, send_sizes: list, input_offsets: list,
                    outputs: list) -> list:
    """The devices of one group's exchange (in axis order): what each device's
    `output` becomes."""
    n = len(operands)
    results = [np.array(o, copy=True) for o in outputs]
    for src in range(n):
        offsets_in, sizes, offsets_out = (np.asarray(a[src]) for a in (input_offsets, send_sizes, output_offsets))
        per_device = len(sizes) // n
        for k in range(len(sizes)):
            size, start, at = int(sizes[k]), int(offsets_in[k]), int(offsets_out[k])
            if size:
                results[k // per_device][at:at + size] = np.asarray(operands[src])[start:start + size]
    return results


# ---------------------------------------------------------------------------
# all_gather(..., to='invarying')

all_gather_invariant_p = Primitive("all_gather_invariant")
all_gather_invariant_p.declare(sharding_reason=SHARDING_OF_COLLECTIVE)
all_gather_invariant_p.is_collective = True


def _gather_invariant_abstract_eval(aval, *, all_gather_dimension, axis_name, axis_size, tiled):
    shape = list(aval.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return aval.update(shape=tuple(shape), vma=tuple(a for a in aval.vma if a not in axis_name))


all_gather_invariant_p.def_abstract_eval(_gather_invariant_abstract_eval)


def _gather_invariant_jvp(primals, tangents, **params):
    return all_gather_invariant_p.bind(*primals, **params), all_gather_invariant_p.bind(
        instantiate(tangents[0]), **params)


all_gather_invariant_p.def_jvp(_gather_invariant_jvp)


def all_gather_invariant(x, names: tuple, *, axis: int, tiled: bool):
    """`all_gather(x, names, axis=, tiled=, to='invarying')` of one array."""
    check_axis_names(names, "all_gather")
    ndim = core.get_aval(x).ndim
    dim = _canonicalize_axis(axis, ndim if tiled else ndim + 1)
    return all_gather_invariant_p.bind(x, all_gather_dimension=dim, axis_name=names,
                                       axis_size=named_axis_size(names, None), tiled=tiled)
