"""multihost_utils across the processes of an MPI launch (docs/distributed.md).

multihost_utils.py calls these when `jax.distributed.initialize` joined
several processes. The values move with mpi4py's object collectives
(pickled NumPy arrays): these are utilities for data loading, checks and
printing, not the training step's collectives (those are shard_map's,
backends/numpy/impls/spmd_mpi.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyjax._src import distributed


def global_value(x: Any) -> np.ndarray:
    """The whole value of an Array whose shards several processes hold,
    assembled on every process from each process's shards."""
    return distributed.gather_value(x)


def spans(x: Any) -> bool:
    return getattr(x, "is_fully_addressable", True) is False


def allgather(value: np.ndarray, tiled: bool) -> np.ndarray:
    """Every process's `value`, stacked on a new leading axis (or joined
    along the first, when `tiled`), in process order."""
    every = distributed.comm().allgather(np.asarray(value))
    shapes = {v.shape for v in every}
    if len(shapes) > 1:
        raise ValueError(f"process_allgather: the processes passed values of different shapes {sorted(shapes)}")
    return np.concatenate(every) if tiled and every[0].ndim else np.stack(every)


def broadcast(leaves: list, is_source: bool | None) -> list:
    """The source process's leaves on every process (the source: process 0
    unless `is_source` names others; the first of those sends)."""
    comm = distributed.comm()
    me = comm.Get_rank()
    flags = comm.allgather(me == 0 if is_source is None else bool(is_source))
    if not any(flags):
        raise ValueError("broadcast_one_to_all: no process has is_source=True")
    root = flags.index(True)
    return comm.bcast([np.asarray(x) for x in leaves] if me == root else None, root=root)


def sync(name: str) -> None:
    """A barrier that also checks every process reached the same name."""
    names = distributed.comm().allgather(name)
    if len(set(names)) > 1:
        raise AssertionError(f"sync_global_devices: the processes reached different sync points: {names}")


def assert_equal(leaves: list, fail_message: str) -> None:
    every = distributed.comm().allgather([np.asarray(x) for x in leaves])
    for p, theirs in enumerate(every[1:], start=1):
        if len(theirs) != len(leaves) or any(a.shape != b.shape or not np.array_equal(a, b, equal_nan=True)
                                             for a, b in zip(every[0], theirs)):
            raise AssertionError(f"{fail_message} Expected: {every[0]}; got: {theirs} on process {p}")


def to_global(arr: Any, global_mesh: Any, pspec: Any) -> Any:
    """This process's part `arr` as its shards of a global Array over `global_mesh`."""
    from pyjax._src.sharding.named import NamedSharding
    from pyjax._src.sharding.process_local import make_array_from_process_local_data

    return make_array_from_process_local_data(NamedSharding(global_mesh, pspec), np.asarray(arr))


def to_local(arr: Any, global_mesh: Any, pspec: Any) -> Any:
    """This process's part of a global Array, as an Array over its own devices."""
    from pyjax._src.lax.identity import device_put
    from pyjax._src.sharding.named import NamedSharding

    mesh = global_mesh.local_mesh
    shards = arr.addressable_shards
    lows = [min(s.index[k].indices(n)[0] for s in shards) for k, n in enumerate(arr.shape)]
    highs = [max(s.index[k].indices(n)[1] for s in shards) for k, n in enumerate(arr.shape)]
    out = np.empty(tuple(h - lo for lo, h in zip(lows, highs)), arr.dtype)
    for s in shards:
        where = tuple(slice(ix.indices(n)[0] - lo, ix.indices(n)[1] - lo)
                      for ix, n, lo in zip(s.index, arr.shape, lows))
        out[where] = np.asarray(s.data)
    return device_put(out, NamedSharding(mesh, pspec))
