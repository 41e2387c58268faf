"""`jax.distributed` on MPI: several processes joined into one set of devices.

`initialize()` under `mpiexec`/`mpirun` takes this process's index and the
number of processes from MPI's world communicator (mpi4py, imported only
here and only then: `pip install 'pyjax[mpi]'`). Each process then owns
`jax_num_cpu_devices` devices of the global list (sharding/devices.py);
meshes span processes, and the per-device runtime of shard_map hands the
collectives whose device groups cross processes to MPI
(backends/numpy/impls/spmd_mpi.py). docs/distributed.md.

A process that dies of an uncaught exception takes every process down
(`MPI_Abort`, after printing which process failed and why), so that the
others never wait forever in a collective it will not reach. A process
that ends otherwise waits, at exit, up to `shutdown_timeout_seconds` for
the others to end too (a barrier on a communicator of its own), and
takes them down if they do not: one of them is then stuck in a collective.
"""

from __future__ import annotations

import atexit
import os
import sys
import time
import traceback
import zlib
from typing import Any, Sequence

from pyjax._src.sharding import devices as devices_mod

__all__ = ["initialize", "shutdown", "is_initialized", "comm", "spans_processes", "abort"]

_INSTALL_HINT = ("jax.distributed.initialize needs mpi4py and an MPI library: install them with "
                 "`pip install 'pyjax[mpi]'` (or `pip install mpich mpi4py`), then launch the program with "
                 "`mpiexec -n <processes> python ...`")

_ENV_HINTS = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
              "MPI_LOCALRANKID", "HYDI_CONTROL_FD")


class _State:
    comm: Any = None          # MPI.COMM_WORLD once initialised
    mpi: Any = None           # the mpi4py.MPI module
    previous_hook: Any = None  # sys.excepthook before ours
    exit_comm: Any = None     # a duplicate of the world's, for the barrier at exit only
    exit_timeout: float = 300.0
    subs: dict = {}           # sorted process indices -> their communicator


_state = _State()


def under_mpi_launcher() -> bool:
    """Whether this process was started by an MPI launcher (mpiexec, mpirun, srun with PMI)."""
    return any(name in os.environ for name in _ENV_HINTS)


def _import_mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(f"{_INSTALL_HINT} ({e})") from None
    return MPI


def _check_arg(name: str, given: Any, actual: Any) -> None:
    if given is not None and given != actual:
        raise ValueError(f"jax.distributed.initialize: {name}={given!r} does not match MPI, which runs this "
                         f"process as {actual!r} (with MPI the launcher decides the process ids and count; "
                         f"call initialize() without arguments)")


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None, slice_index: int | None = None,
               partition_index: int | None = None) -> None:
    """Joins this process to the others started by the same MPI launch.

    The process index and count come from MPI; `num_processes` and
    `process_id`, when given, must agree with them. `coordinator_address` is
    accepted and unused (MPI's launcher wires the processes), and so are the
    coordination service's other settings. Must run before
    anything uses the devices. At exit (or `shutdown`) a process waits up to
    `shutdown_timeout_seconds` for the others before ending them all."""
    if _state.comm is not None:
        raise RuntimeError("distributed.initialize should only be called once.")
    if cluster_detection_method not in (None, "mpi4py", "mpi"):
        raise ValueError(f"jax.distributed.initialize: cluster_detection_method={cluster_detection_method!r}: "
                         "pyjax joins processes with MPI only ('mpi4py')")
    if num_processes is not None and (not isinstance(num_processes, int) or num_processes < 1):
        raise TypeError(f"num_processes must be a positive int. Got {num_processes!r}")
    if process_id is not None and (not isinstance(process_id, int) or process_id < 0):
        raise TypeError(f"process_id must be a nonnegative int. Got {process_id!r}")
    if local_device_ids is not None:
        raise ValueError("jax.distributed.initialize: local_device_ids is not supported (each process owns "
                         "jax_num_cpu_devices devices)")
    if devices_mod.initialized():
        devices_mod.set_processes(0, 1)  # (raises JAX's error: the devices exist already)
    mpi = _import_mpi()
    world = mpi.COMM_WORLD
    _check_arg("num_processes", num_processes, world.Get_size())
    _check_arg("process_id", process_id, world.Get_rank())
    devices_mod.set_processes(world.Get_rank(), world.Get_size())
    _state.comm, _state.mpi = world, mpi
    _state.exit_comm, _state.exit_timeout = world.Dup(), float(shutdown_timeout_seconds)
    _state.previous_hook = sys.excepthook
    sys.excepthook = _abort_on_uncaught
    atexit.register(_at_exit)


def is_initialized() -> bool:
    """Whether `initialize` has joined this process to the others."""
    return _state.comm is not None


def shutdown() -> None:
    """Leaves the distributed system (waits for every process first). Does
    nothing if it is not running. The devices stay as they were made."""
    if _state.comm is None:
        return
    _wait_for_all("shutting down")
    for sub in _state.subs.values():
        if sub is not _state.comm:
            sub.Free()
    _state.subs.clear()
    _state.exit_comm.Free()
    sys.excepthook = _state.previous_hook
    _state.comm = None


def comm():
    """MPI's world communicator (None when not initialised)."""
    return _state.comm


def mpi():
    return _state.mpi


def sub_comm(procs: tuple):
    """The communicator of processes `procs` (sorted; its rank k is procs[k]).
    Made, collectively over just those processes, on first use."""
    found = _state.subs.get(procs)
    if found is None:
        world = _state.comm
        if procs == tuple(range(world.Get_size())):
            found = world
        else:
            found = world.Create_group(world.Get_group().Incl(list(procs)))
        _state.subs[procs] = found
    return found


# PYJAX_DISTRIBUTED_CHECKS=0 skips the exchange of signatures before each
# cross-process collective (one small Allgather): programs that differ
# between processes then fail inside MPI, or hang, instead of raising.
CHECK_SIGNATURES = [os.environ.get("PYJAX_DISTRIBUTED_CHECKS", "1") != "0"]


def check_signature(comm, what: str) -> None:
    """Checks that every process of `comm` is at the same exchange `what`
    (the primitive, axes, shapes and dtypes) before data moves: a program
    that differs between processes gets a clear error, not a hang or a
    mixed-up buffer."""
    import numpy as np

    if not CHECK_SIGNATURES[0]:
        return
    mine = np.array([zlib.crc32(what.encode())], np.int64)
    every = np.empty(comm.Get_size(), np.int64)
    comm.Allgather(mine, every)
    if (every != every[0]).any():
        texts = comm.allgather(what)
        lines = "\n".join(f"  process {world_rank(comm, k)}: {t}" for k, t in enumerate(texts))
        raise ValueError("pyjax.distributed: the processes reached different collectives (their programs "
                         f"differ: different shapes, dtypes or operations):\n{lines}")


def world_rank(comm, rank: int) -> int:
    """The world rank of `comm`'s rank `rank`."""
    if comm is _state.comm:
        return rank
    return _state.mpi.Group.Translate_ranks(comm.Get_group(), [rank], _state.comm.Get_group())[0]


def gather_value(x) -> Any:
    """The whole value of an Array whose shards several processes hold,
    assembled on every process from each process's shards (a collective:
    every process must call it, as every process runs the same program)."""
    import numpy as np

    index_key = lambda ix: tuple((i.start, i.stop, i.step) if isinstance(i, slice) else i for i in ix)  # noqa: E731
    mine = {index_key(s.index): (s.index, np.asarray(s.data)) for s in x.addressable_shards if s.replica_id == 0}
    out = np.empty(x.shape, x.dtype)
    for part in _state.comm.allgather(mine):
        for index, data in part.values():
            out[index] = data
    return out


def spans_processes() -> bool:
    return _state.comm is not None and _state.comm.Get_size() > 1


_ABORT_GRACE_SECONDS = 0.5


def abort(message: str) -> None:
    """Prints `message` and ends every process of the launch."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    sys.stdout.flush()
    # MPI_Abort makes the launcher kill every process, its forwarding proxies
    # included; a proxy killed before it has read this process's pipes drops
    # the message (MPICH's Hydra did, about one launch in six). A short pause
    # lets the output reach the launcher first.
    time.sleep(_ABORT_GRACE_SECONDS)
    _state.comm.Abort(1)


def _wait_for_all(doing: str) -> None:
    # A barrier with a deadline: every process reaching it in time ends
    # normally; otherwise one is stuck (in a collective this one will not
    # reach), and waiting would hang the launch.
    request = _state.exit_comm.Ibarrier()
    deadline = time.monotonic() + _state.exit_timeout
    while not request.Test():
        if time.monotonic() > deadline:
            rank, size = _state.comm.Get_rank(), _state.comm.Get_size()
            abort(f"pyjax.distributed: process {rank} of {size} is {doing}, but the other processes did not reach "
                  f"the end within {_state.exit_timeout:g} s (one may be waiting in a collective this process "
                  f"will not reach); aborting all {size} processes")
        time.sleep(0.005)


def _at_exit() -> None:
    if _state.comm is not None:
        _wait_for_all("exiting")


def _abort_on_uncaught(kind, value, tb) -> None:
    # An uncaught exception in one process: show it, then end them all (the
    # others may be waiting in a collective this process will never reach).
    traceback.print_exception(kind, value, tb)
    rank, size = _state.comm.Get_rank(), _state.comm.Get_size()
    text = "".join(traceback.format_exception_only(kind, value)).strip()
    abort(f"pyjax.distributed: process {rank} of {size} raised {text}; aborting all {size} processes")
