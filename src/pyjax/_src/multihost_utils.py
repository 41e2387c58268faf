"""`jax.experimental.multihost_utils`.

With several processes (jax.distributed over MPI) each function exchanges
with the others through multihost_mpi.py. With one, every process-level
exchange is with itself:
`process_allgather` returns the value (tiled, or with a leading axis of
size 1 = `process_count()`), `broadcast_one_to_all` returns its input as
NumPy arrays, `sync_global_devices` and `assert_equal` have no other
process to wait for or compare with. `host_local_array_to_global_array`
places the host's data over the mesh (the local array is the global one)
and `global_array_to_host_local_array` gives it back, placed, as JAX does
with one process. Both are primitives under a trace, as in JAX.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from pyjax._src import core, distributed, multihost_mpi
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = ["ProcessFailureError", "assert_equal", "broadcast_one_to_all", "global_array_to_host_local_array",
           "host_local_array_to_global_array", "live_devices", "process_allgather",
           "reached_preemption_sync_point", "sync_global_devices"]


class ProcessFailureError(Exception):
    """Raised by `live_devices` when processes fail (never, with one process)."""

    def __init__(self, failed_devices: set) -> None:
        super().__init__(f"processes failed; failed devices: {failed_devices}")
        self.failed_devices = failed_devices


def _host_value(x) -> np.ndarray:
    return np.asarray(x)


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
    """Each leaf gathered from every process as a NumPy array: an Array
    spanning processes whole; a process-local value stacked over the
    processes (a leading axis of size `process_count()`), or joined along
    its first axis when `tiled`."""
    def gather(x):
        if distributed.spans_processes():
            return multihost_mpi.global_value(x) if multihost_mpi.spans(x) else \
                multihost_mpi.allgather(_host_value(x), tiled)
        value = _host_value(x)
        return value if tiled and value.ndim else value[None]

    return tree_map(gather, in_tree)


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
    """Process 0's leaves on every process, as NumPy arrays (one process: its own)."""
    if distributed.spans_processes():
        leaves, tree = tree_flatten(in_tree)
        return tree_unflatten(tree, multihost_mpi.broadcast(leaves, is_source))
    return tree_map(_host_value, in_tree)


def sync_global_devices(name: str) -> None:
    """Waits until every process reaches a barrier named `name` (one process: returns)."""
    if distributed.spans_processes():
        multihost_mpi.sync(name)


def assert_equal(in_tree, fail_message: str = "") -> None:
    """Checks that `in_tree` is equal on every process (one process: always)."""
    if distributed.spans_processes():
        multihost_mpi.assert_equal(tree_flatten(in_tree)[0], fail_message)


def reached_preemption_sync_point(step_id: int) -> bool:
    """Whether a preemption sync point was reached at `step_id` (no preemption
    service runs: never)."""
    return False


@contextlib.contextmanager
def live_devices(devices):
    """The devices of live processes, within the block (one process: all of them)."""
    yield list(devices)


# ---------------------------------------------------------------------------
# Host-local <-> global arrays


def _place(x, global_mesh, pspec):
    from pyjax._src.sharding.named import NamedSharding
    from pyjax._src.lax.identity import device_put

    return device_put(x, NamedSharding(global_mesh, pspec))


def host_local_array_to_global_array_impl(arr: Any, *, global_mesh: Any, pspec: Any):
    """The eager conversion: with one process the host-local array is the global one, placed."""
    if distributed.spans_processes():
        return multihost_mpi.to_global(arr, global_mesh, pspec)
    return _place(arr, global_mesh, pspec)


def global_array_to_host_local_array_impl(arr: Any, *, global_mesh: Any, pspec: Any):
    """The eager conversion: with one process the host-local array is the
    global one; a host value is placed over the mesh with its axes Auto."""
    from pyjax._src.sharding.mesh import AxisType, Mesh

    if distributed.spans_processes() and multihost_mpi.spans(arr):
        return multihost_mpi.to_local(arr, global_mesh, pspec)
    if getattr(arr, "sharding", None) is not None and hasattr(arr, "addressable_shards"):
        return _place(arr, global_mesh, pspec)
    auto = Mesh(global_mesh.devices, global_mesh.axis_names, axis_types=(AxisType.Auto,) * len(global_mesh.axis_names))
    return _place(arr, auto, pspec)


def ltg_abstract_eval(arr, *, global_mesh, pspec):
    """The global type of a host-local array (one process: the same)."""
    return arr


def gtl_abstract_eval(arr, *, global_mesh, pspec):
    """The host-local type of a global array (one process: the same)."""
    return arr


host_local_array_to_global_array_p = core.Primitive("host_local_array_to_global_array")
host_local_array_to_global_array_p.declare(sharding_reason="one process: the identity on its operand's type, as JAX types it")
global_array_to_host_local_array_p = core.Primitive("global_array_to_host_local_array")
global_array_to_host_local_array_p.declare(sharding_reason="one process: the identity on its operand's type, as JAX types it")
for _prim, _rule in ((host_local_array_to_global_array_p, ltg_abstract_eval),
                     (global_array_to_host_local_array_p, gtl_abstract_eval)):
    _prim.def_abstract_eval(_rule)
del _prim, _rule
deflinear(host_local_array_to_global_array_p,
          lambda ct, x, **params: [global_array_to_host_local_array_p.bind(ct, **params)])
deflinear(global_array_to_host_local_array_p,
          lambda ct, x, **params: [host_local_array_to_global_array_p.bind(ct, **params)])


def ltg_batcher(insert_axis, axis_data, vals_in, dims_in, global_mesh, pspec):
    """The batching rule of both conversions: the batch axis is not split."""
    from pyjax._src.sharding.partition_spec import PartitionSpec

    (x,), (d,) = vals_in, dims_in
    entries = list(pspec) + [None] * max(0, d - len(pspec))
    entries.insert(d, None)
    primitive = host_local_array_to_global_array_p if insert_axis else global_array_to_host_local_array_p
    return primitive.bind(x, global_mesh=global_mesh, pspec=PartitionSpec(*entries)), d


host_local_array_to_global_array_p.def_batch(
    lambda axis_data, args, dims, **p: ltg_batcher(True, axis_data, args, dims, **p))
global_array_to_host_local_array_p.def_batch(
    lambda axis_data, args, dims, **p: ltg_batcher(False, axis_data, args, dims, **p))


def _convert(primitive, impl, inputs, global_mesh, pspecs):
    from pyjax._src.lax.parallel import in_eager_mode
    from pyjax._src.sharding.partition_spec import PartitionSpec
    from pyjax._src.tree_util import broadcast_prefix

    leaves, tree = tree_flatten(inputs)
    is_spec = lambda x: x is None or isinstance(x, PartitionSpec)  # noqa: E731
    specs = broadcast_prefix(pspecs, inputs, is_leaf=is_spec)
    out = []
    for x, spec in zip(leaves, specs):
        spec = PartitionSpec() if spec is None else spec
        if in_eager_mode():
            out.append(impl(x, global_mesh=global_mesh, pspec=spec))
        else:
            out.append(primitive.bind(x, global_mesh=global_mesh, pspec=spec))
    return tree_unflatten(tree, out)


def host_local_array_to_global_array(local_inputs: Any, global_mesh: Any, pspecs: Any):
    """Global arrays over `global_mesh` from each process's local data, laid
    out as `pspecs` (a PartitionSpec or a prefix tree of them)."""
    return _convert(host_local_array_to_global_array_p, host_local_array_to_global_array_impl,
                    local_inputs, global_mesh, pspecs)


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Any, pspecs: Any):
    """Each process's local part of global arrays (one process: all of it, placed)."""
    return _convert(global_array_to_host_local_array_p, global_array_to_host_local_array_impl,
                    global_inputs, global_mesh, pspecs)
