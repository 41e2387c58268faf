"""Arrays spanning processes and multihost_utils, run by `mpiexec -n N
python3 tests/mpi/multihost.py` (N = 2 or 4; 8 devices in all). Every
process checks what it sees and prints one line; tests/test_mpi.py runs it.
"""

import numpy as np

import pyjax as jax
from pyjax.experimental import multihost_utils as mhu
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

jax.distributed.initialize()
n, me = jax.process_count(), jax.process_index()
jax.config.update("jax_num_cpu_devices", 8 // n)

# the devices: global list, this process's own, each naming its process
assert [d.id for d in jax.devices()] == list(range(8))
assert [d.process_index for d in jax.devices()] == [i * n // 8 for i in range(8)]
assert jax.local_devices() == [d for d in jax.devices() if d.process_index == me]
assert jax.local_device_count() == 8 // n and jax.device_count() == 8
assert all(d.process_index == me for d in jax.local_devices())

mesh = jax.make_mesh((8,), ("d",), axis_types=(AxisType.Auto,))
full = np.arange(8 * 3, dtype=np.float32).reshape(8, 3)

# make_array_from_process_local_data: this process's rows only
rows = 8 // n
mine = full[me * rows:(me + 1) * rows]
g = jax.make_array_from_process_local_data(NamedSharding(mesh, P("d")), mine)
assert g.shape == (8, 3) and not g.is_fully_addressable
assert len(g.addressable_shards) == 8 // n
for s in g.addressable_shards:
    assert s.device.process_index == me
    np.testing.assert_array_equal(np.asarray(s.data), full[s.index])
try:
    np.asarray(g)
except RuntimeError as e:
    assert "non-addressable" in str(e)
else:
    raise AssertionError("fetching an array spanning processes should fail")

assert repr(g) == "Array(shape=(8, 3), dtype=float32)"  # (as JAX prints an array spanning processes)

# make_array_from_callback: called for this process's devices only
seen = []
c = jax.make_array_from_callback((8, 3), NamedSharding(mesh, P("d")), lambda idx: seen.append(idx) or full[idx])
assert len(seen) == 8 // n

# process_allgather: a global array whole; process-local values stacked
np.testing.assert_array_equal(mhu.process_allgather(g), full)
np.testing.assert_array_equal(mhu.process_allgather(c), full)
stacked = mhu.process_allgather(np.full((2,), me, np.int32))
np.testing.assert_array_equal(stacked, np.repeat(np.arange(n, dtype=np.int32)[:, None], 2, axis=1))
np.testing.assert_array_equal(mhu.process_allgather(np.array([me]), tiled=True), np.arange(n))

# broadcast_one_to_all: process 0's value everywhere
out = mhu.broadcast_one_to_all({"a": np.array([me * 10 + 1]), "b": np.float32(me)})
assert out["a"].tolist() == [1] and float(out["b"]) == 0.0
mhu.sync_global_devices("checked")
mhu.assert_equal(np.arange(3))
try:
    mhu.assert_equal(np.array([me]), "differs:")
except AssertionError as e:
    assert "differs:" in str(e)
else:
    raise AssertionError("assert_equal should fail on different values")

# host-local <-> global
grid = jax.make_mesh((8,), ("d",), axis_types=(AxisType.Explicit,))
glob = mhu.host_local_array_to_global_array(mine, grid, P("d"))
assert glob.shape == (8, 3) and not glob.is_fully_addressable
np.testing.assert_array_equal(mhu.process_allgather(glob), full)
back = mhu.global_array_to_host_local_array(glob, grid, P("d"))
assert back.shape == mine.shape and back.is_fully_addressable
np.testing.assert_array_equal(np.asarray(back), mine)

assert back.sharding.mesh == grid.local_mesh and grid.local_mesh.devices.size == 8 // n
assert list(grid.local_mesh.devices.flat) == jax.local_devices()

# eager operations on an Array spanning processes run per device (spmd_eager)
import pyjax.numpy as jnp  # noqa: E402

np.testing.assert_array_equal(mhu.process_allgather(jnp.sin(g) * 2), np.sin(full) * 2)
total = jnp.sum(g, axis=0)
assert total.is_fully_replicated
np.testing.assert_array_equal(np.asarray(total), full.sum(0))

# device_put to another layout (every process calls it: the value is gathered)
np.testing.assert_array_equal(np.asarray(jax.device_put(g, NamedSharding(mesh, P()))), full)

# a replicated result is readable everywhere
rep = jax.device_put(full, NamedSharding(mesh, P()))
np.testing.assert_array_equal(np.asarray(rep), full)

print(f"process {me} of {n}: multihost checks passed")
jax.distributed.shutdown()
