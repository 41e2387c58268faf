"""shard_map's arguments and results as per-device buffers.

`device_buffers` hands each device the buffer of its shard: a placed Array
already laid out as the in_spec says gives its own shards (no copy, no
assembly); anything else is sliced per device (a reshard). Replicas of a
block are handed as one buffer (the runtime computes on it once). `place_outputs`
wraps each device's result buffers into Arrays sharded as out_specs says.

With several processes (docs/distributed.md) only this process's devices
get buffers (another's row is None): an argument not laid out as its
in_spec says must then be a value every process holds whole (host data).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.sharding import devices as devices_mod
from pyjax._src.sharding.named import NamedSharding, aval_sharding
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.sharding.sharded_array import ShardedArray


def _padded(spec: PartitionSpec, ndim: int) -> tuple:
    return tuple(spec) + (None,) * (ndim - len(spec))


def _own_shards(x: Any, spec: PartitionSpec, mesh) -> dict | None:
    # The shards of `x` by device when `x` is laid out exactly as `spec` on `mesh`.
    if not isinstance(x, ShardedArray) or x._shards is None:
        return None
    s = x.sharding
    if not isinstance(s, NamedSharding) or s.mesh != mesh:
        return None
    if _padded(s.spec, x.ndim) != _padded(spec, x.ndim):
        return None
    return dict(zip(s._device_assignment, x._shards))


def device_buffers(flat: Sequence[Any], in_specs: Sequence[PartitionSpec], mesh) -> list[list]:
    """For each device of `mesh` (in `mesh.devices.flat` order), the buffers of
    its shards of the arguments."""
    devices = list(mesh.devices.flat)
    me = devices_mod.process_index()
    out = [[] if d.process_index == me else None for d in devices]
    for x, spec in zip(flat, in_specs):
        own = _own_shards(x, spec, mesh)
        value = _whole(x, spec) if own is None else None  # (not laid out as in_specs says: sliced per device)
        layout = _layout(mesh, spec, tuple(np.shape(x) if own is not None else value.shape))
        # Devices holding the same block (replicas) are handed one buffer:
        # the runtime then computes on a replicated value once.
        blocks: dict = {}
        for k, (d, (index, key)) in enumerate(zip(devices, layout)):
            if out[k] is None:
                continue
            if key not in blocks:
                blocks[key] = value[index] if own is None else own[d]
            out[k].append(blocks[key])
    return out


_LAYOUTS: dict = {}  # (mesh, spec, shape) -> per device: its block's index and that index as a key


def _layout(mesh, spec: PartitionSpec, shape: tuple) -> list:
    # (Computed once per layout: a training step hands the same ones every call.)
    cache_key = (mesh, spec, shape)
    found = _LAYOUTS.get(cache_key)
    if found is None:
        indices = NamedSharding(mesh, spec).devices_indices_map(shape)
        found = [(indices[d], tuple((i.start, i.stop, i.step) if isinstance(i, slice) else i for i in indices[d]))
                 for d in mesh.devices.flat]
        if len(_LAYOUTS) >= 1024:
            _LAYOUTS.clear()
        _LAYOUTS[cache_key] = found
    return found


def whole_program_args(flat_args: Sequence[Any], lone_shard_map: bool = False) -> list | None:
    """The arguments a whole-program call runs on per device: placed Arrays
    as they are, host values (NumPy, Python scalars) as buffers of their
    canonical types. Host values go that way for a lone shard_map (run on
    the global program, they left the results replicated where JAX places
    them as out_specs says) and with several processes; else in one
    process a mix of Arrays and host values runs per device through
    spmd_eager.py, and host values alone on the global program."""
    from pyjax._src import core, dtypes
    from pyjax._src.array import Array

    if all(isinstance(x, Array) for x in flat_args):
        return list(flat_args)
    if not lone_shard_map and devices_mod.process_count() == 1:
        return None
    return [x if isinstance(x, Array) else np.asarray(x, dtypes.canonicalize_dtype(core.concrete_aval(x).dtype))
            for x in flat_args]


def _whole(x: Any, spec) -> np.ndarray:
    if isinstance(x, ShardedArray) and x._shards is not None and not x.is_fully_addressable \
            and not x.is_fully_replicated:
        raise ValueError(f"shard_map: an argument of type {x.aval.str_short(False)} placed as {x.sharding} spans "
                         f"several processes and is not laid out as its in_spec {spec} says; resharding across "
                         "processes is not supported: place it as the in_spec says (jax.device_put with "
                         "NamedSharding(mesh, in_spec)) or pass host data every process holds")
    return np.asarray(x)


def global_aval(aval: ShapedArray, spec: PartitionSpec, mesh) -> ShapedArray:
    """The type of the array joined from per-device values of `aval` as `spec` says."""
    shape = list(aval.shape)
    for i, entry in enumerate(spec):
        names = () if entry is None else (entry if isinstance(entry, tuple) else (entry,))
        for name in names:
            shape[i] *= mesh.shape[name]
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type,
                       aval_sharding(NamedSharding(mesh, spec), len(shape)))


def place_outputs(per_device: list[list], body_avals: Sequence[ShapedArray], out_specs: Sequence[PartitionSpec],
                  mesh) -> list:
    """Each output as a placed Array holding the devices' own result buffers."""
    devices = list(mesh.devices.flat)
    outs = []
    for k, (aval, spec) in enumerate(zip(body_avals, out_specs)):
        sharding, placed = _placement(aval, spec, mesh)
        by_device = {d: np.asarray(per_device[i][k], aval.dtype) for i, d in enumerate(devices)
                     if per_device[i] is not None}
        shards = [by_device.get(d) for d in sharding._device_assignment]
        outs.append(ShardedArray(shards, placed, sharding))
    return outs


_PLACEMENTS: dict = {}  # (body aval, spec, mesh) -> (the result's sharding, its global aval)


def _placement(aval: ShapedArray, spec: PartitionSpec, mesh) -> tuple:
    key = (aval, spec, mesh)
    found = _PLACEMENTS.get(key)
    if found is None:
        found = (NamedSharding(mesh, spec), global_aval(aval, spec, mesh))
        if len(_PLACEMENTS) >= 1024:
            _PLACEMENTS.clear()
        _PLACEMENTS[key] = found
    return found
