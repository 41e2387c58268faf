"""Allreduce bandwidth across processes: `psum` inside a jitted shard_map
against mpi4py's `Allreduce` of the same buffers, in the same run.

    mpiexec -n 2 python3 benchmarks/mpi_allreduce.py [--devices-per-process 1] [--reps 10]

Each process holds one device (by default) whose shard is the whole buffer
(4, 64 and 256 MB of float32); the psum over the mesh axis spanning the
processes is MPI's Allreduce (a float sum of two values: the order cannot
change a bit). With more devices per process the float sum is folded in
device order along the processes instead (bit for bit with one process).
Process 0 prints a table: best-of-reps seconds, bandwidth as buffer bytes
over time, and the ratio psum/raw (docs/distributed.md records it).
"""

import argparse
import time

import numpy as np

import pyjax as jax
from pyjax import lax
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--devices-per-process", type=int, default=1)
parser.add_argument("--reps", type=int, default=10)
parser.add_argument("--sizes", default="4,64,256", help="buffer sizes in MB")
args = parser.parse_args()

jax.distributed.initialize()
jax.config.update("jax_num_cpu_devices", args.devices_per_process)
comm = jax._src.distributed.comm()
n = jax.device_count()
mesh = jax.make_mesh((n,), ("d",), axis_types=(AxisType.Auto,))
psum = jax.jit(jax.shard_map(lambda a: lax.psum(a, "d"), mesh=mesh, in_specs=P("d"), out_specs=P("d"),
                             check_vma=False))


def timed(fn) -> float:
    comm.Barrier()
    start = time.perf_counter()
    fn()
    comm.Barrier()
    return time.perf_counter() - start


def best_pair(raw, ours, reps):
    # The two alternate, so that a busy moment of the machine costs both.
    pairs = [(timed(raw), timed(ours)) for _ in range(reps)]
    return min(p[0] for p in pairs), min(p[1] for p in pairs)


rows = []
for mb in (int(s) for s in args.sizes.split(",")):
    count = mb * 2**20 // 4  # float32 elements per device
    local = np.random.default_rng(jax.process_index()).standard_normal(
        (args.devices_per_process * count,)).astype(np.float32)
    x = jax.make_array_from_process_local_data(NamedSharding(mesh, P("d")), local)
    send = local[:count].copy()
    recv = np.empty_like(send)
    psum(x)  # (traced and compiled once)
    comm.Allreduce(send, recv)
    t_raw, t_psum = best_pair(lambda: comm.Allreduce(send, recv), lambda: psum(x), args.reps)
    rows.append((mb, t_raw, t_psum))

if jax.process_index() == 0:
    print(f"{jax.process_count()} processes x {args.devices_per_process} device(s); best of {args.reps}")
    print("   MB   raw Allreduce s   (MB/s)    psum s   (MB/s)   psum/raw bandwidth")
    for mb, t_raw, t_psum in rows:
        print(f"{mb:5d}   {t_raw:12.4f} {mb / t_raw:9.0f}   {t_psum:8.4f} {mb / t_psum:8.0f}   {t_raw / t_psum:8.2f}")
jax.distributed.shutdown()
