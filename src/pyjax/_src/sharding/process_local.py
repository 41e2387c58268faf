"""`jax.make_array_from_process_local_data`: a global Array from each
process's part of it (docs/distributed.md).

Along a dimension whose global size equals the local data's, a device's
slice is read from the local data as is (the processes hold the same
values there). Along any other, the distinct slices this process's devices
hold, in order, are laid end to end in the local data.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from pyjax._src.sharding import devices as devices_mod
from pyjax._src.sharding.named import NamedSharding, Sharding
from pyjax._src.sharding.sharded_array import make_array_from_callback
from pyjax._src.tree_util import tree_flatten, tree_unflatten


def _partitions(sharding, ndim: int) -> list[int]:
    if isinstance(sharding, NamedSharding):
        spec = tuple(sharding.spec) + (None,) * (ndim - len(sharding.spec))
        mesh = sharding.mesh
        return [math.prod(mesh.shape[a] for a in ((e,) if isinstance(e, str) else (e or ()))) for e in spec]
    return [1] * ndim  # (a one-device or replicated sharding: nothing split)


def _local_starts(sharding, shape: tuple) -> list[list[int]]:
    # For each dimension, the distinct starts of this process's devices' slices, in order.
    me = devices_mod.process_index()
    indices = [i for d, i in sharding.devices_indices_map(shape).items() if d.process_index == me]
    return [sorted({ix[k].indices(n)[0] for ix in indices}) for k, n in enumerate(shape)]


def _infer_global_shape(sharding, local_shape: tuple) -> tuple:
    parts = _partitions(sharding, len(local_shape))
    trial = tuple(n * p for n, p in zip(local_shape, parts))
    starts = _local_starts(sharding, trial)
    out = []
    for n, p, s in zip(local_shape, parts, starts):
        if (n * p) % len(s):
            raise ValueError(f"make_array_from_process_local_data: cannot infer the global shape of local data of "
                             f"shape {local_shape} for {sharding}; pass global_shape")
        out.append(n * p // len(s))
    return tuple(out)


def _one(sharding, local_data: Any, global_shape: Sequence[int] | None):
    local = np.asarray(local_data)
    shape = _infer_global_shape(sharding, local.shape) if global_shape is None else tuple(int(d) for d in global_shape)
    if len(shape) != local.ndim:
        raise ValueError(f"make_array_from_process_local_data: global_shape {shape} and the local data's shape "
                         f"{local.shape} differ in rank")
    starts = _local_starts(sharding, shape)

    def read(index: tuple):
        pieces = []
        for k, (s, n, g) in enumerate(zip(index, local.shape, shape)):
            lo, hi, _ = s.indices(g)
            if n == g:
                pieces.append(slice(lo, hi))
                continue
            # this slice's place among the process's distinct (equal) slices along k
            offset = starts[k].index(lo) * (hi - lo)
            if offset + hi - lo > n:
                raise ValueError(f"make_array_from_process_local_data: local data of shape {local.shape} is too "
                                 f"small for this process's shards of a {shape} array along dimension {k}")
            pieces.append(slice(offset, offset + hi - lo))
        return local[tuple(pieces)]

    return make_array_from_callback(shape, sharding, read, dtype=local.dtype)


def make_array_from_process_local_data(sharding: Any, local_data: Any, global_shape: Any = None) -> Any:
    """A global Array laid out by `sharding` whose shards on this process's
    devices come from `local_data` (this process's part of the array);
    `global_shape` is inferred when each process holds an equal share."""
    leaves, tree = tree_flatten(local_data)
    sh_leaves = [sharding] * len(leaves) if isinstance(sharding, Sharding) else tree_flatten(sharding)[0]
    if global_shape is None or all(isinstance(d, (int, np.integer)) for d in global_shape):
        shapes = [global_shape] * len(leaves)
    else:
        shapes = tree_flatten(global_shape, is_leaf=lambda x: isinstance(x, tuple))[0]
    return tree_unflatten(tree, [_one(s, x, g) for s, x, g in zip(sh_leaves, leaves, shapes, strict=True)])
