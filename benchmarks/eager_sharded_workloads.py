"""Eager operations on Arrays sharded over 8 virtual CPU devices, for
`compare.py --extra benchmarks/eager_sharded_workloads.py` (issue 22: an
eager op on placed Arrays runs per device, spmd_eager.py).

Loading this file sets JAX_NUM_CPU_DEVICES=8 for the whole run (bench.py
loads extra files before it imports the implementation); run these
workloads on their own (`--only`).

    REF_PY=/tmp/jax-ref/bin/python IMPL_PY=python3 IMPL_PATH=src python3 ../shared/bench/compare.py \\
        --extra benchmarks/eager_sharded_workloads.py --only eager_sharded_add_16mb,eager_sharded_small,eager_sharded_sum

eager_sharded_add_16mb: x + y on two (4096, 1024) float32 arrays split 8 ways by rows (Auto mesh)
eager_sharded_small:    x * 2.0 + y on (8, 4) arrays split 8 ways: per-op dispatch
eager_sharded_sum:      x.sum(0) of a (4096, 1024) float32 array split 8 ways by rows (a psum of partials)
"""

import os

import numpy as np

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")


def _placed(ctx, shape, seeds=(0, 1)):
    jax = ctx.jax
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    sharding = jax.sharding.NamedSharding(mesh, P("x"))
    return [jax.device_put(np.random.RandomState(s).standard_normal(shape).astype(np.float32), sharding)
            for s in seeds]


def _add_16mb(ctx, res):
    xs = _placed(ctx, (4096, 1024), (0, 1, 2))
    ctx.checksum(xs[0] + xs[1])
    ctx.time_steady(lambda i: xs[i % 2] + xs[2], budget=ctx.budget * 0.8)
    ctx.extra(MB=16)


def _small(ctx, res):
    xs = _placed(ctx, (8, 4), (0, 1, 2))
    ctx.checksum(xs[0] * 2.0 + xs[2])
    ctx.time_steady(lambda i: xs[i % 2] * 2.0 + xs[2], budget=ctx.budget * 0.8)


def _sum(ctx, res):
    xs = _placed(ctx, (4096, 1024))
    ctx.checksum(xs[0].sum(0))
    ctx.time_steady(lambda i: xs[i % 2].sum(0), budget=ctx.budget * 0.8)


def register(workload):
    workload("eager_sharded_add_16mb", budget=8, desc="eager x + y, (4096, 1024) f32 split 8 ways")(_add_16mb)
    workload("eager_sharded_small", budget=6, desc="eager x * 2 + y, (8, 4) f32 split 8 ways")(_small)
    workload("eager_sharded_sum", budget=8, desc="eager x.sum(0), (4096, 1024) f32 split 8 ways")(_sum)
