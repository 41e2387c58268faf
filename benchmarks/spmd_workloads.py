"""Per-device (shard_map, pmap) workloads on 8 virtual CPU devices, for
`compare.py --extra benchmarks/spmd_workloads.py` (issue 22).

Loading this file sets JAX_NUM_CPU_DEVICES=8 for the whole run (bench.py
loads extra files before it imports the implementation), so JAX and pyjax
both see 8 CPU devices; run these workloads on their own (`--only`).

    REF_PY=/tmp/jax-ref/bin/python IMPL_PY=python3 IMPL_PATH=src python3 ../shared/bench/compare.py \\
        --extra benchmarks/spmd_workloads.py --only smap_psum_64mb,smap_psum_64mb_jit,dp_train_step,jit_sharded_dispatch,pmap_small

smap_psum_64mb:       eager shard_map psum of a 64 MB float32 array split 8 ways (each device's 8 MB block
                      summed over the 8 devices)
smap_psum_64mb_jit:   the same under jit
dp_train_step:        the MLP train step (784-512-512-10, batch 128) data-parallel: batch split 8 ways,
                      shard_map + psum of the gradients, jitted, parameters fed back
jit_sharded_dispatch: a cached jit of a*b+1 on (8, 4) arrays sharded over 8 devices: per-call dispatch
pmap_small:           pmap of x*2+1 over 8 devices of a (8, 4) array: per-call dispatch
"""

import os

import numpy as np

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")


def _mesh(jax, name="x"):
    return jax.make_mesh((8,), (name,), axis_types=(jax.sharding.AxisType.Auto,))


def _psum_workload(ctx, jitted: bool):
    jax = ctx.jax
    P = jax.sharding.PartitionSpec
    mesh = _mesh(jax)
    sharding = jax.sharding.NamedSharding(mesh, P("x"))
    xs = [jax.device_put(np.random.RandomState(s).standard_normal((8 * 2048, 1024)).astype(np.float32), sharding)
          for s in (0, 1)]  # 64 MB each: 8 MB per device
    f = jax.shard_map(lambda v: jax.lax.psum(v, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
    if jitted:
        f = jax.jit(f)
    ctx.checksum(f(xs[0]))
    ctx.time_steady(lambda i: f(xs[i % 2]), budget=ctx.budget * 0.8)
    ctx.extra(MB=64)


def _mlp_params(ctx):
    sizes = (784, 512, 512, 10)
    return [(ctx.randn((m, n), scale=1.0 / np.sqrt(m), seed=k), ctx.jnp.zeros((n,), ctx.jnp.float32))
            for k, (m, n) in enumerate(zip(sizes[:-1], sizes[1:]))]


def _dp_train_step(ctx, res):
    jax, jnp = ctx.jax, ctx.jnp
    P = jax.sharding.PartitionSpec
    mesh = _mesh(jax, "data")
    batch = 128

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.maximum(h @ w + b, 0.0)
        logits = h @ params[-1][0] + params[-1][1]
        logits = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
        return -jnp.sum(logits * y) / batch

    def local_step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        value, grads = jax.lax.psum((value, grads), "data")
        return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads), value

    step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                 out_specs=(P(), P()), check_vma=False))
    sharding = jax.sharding.NamedSharding(mesh, P("data"))
    data = []
    for s in (0, 1):
        x = np.random.RandomState(s).standard_normal((batch, 784)).astype(np.float32)
        y = np.eye(10, dtype=np.float32)[np.random.RandomState(s + 10).randint(0, 10, batch)]
        data.append((jax.device_put(x, sharding), jax.device_put(y, sharding)))
    state = {"params": _mlp_params(ctx)}
    params, value = step(state["params"], *data[0])
    ctx.checksum(value)

    def call(i):
        state["params"], value = step(state["params"], *data[i % 2])
        return value

    seconds = ctx.time_steady(call, budget=ctx.budget * 0.8)
    ctx.extra(steps_per_s=1.0 / seconds)


def _jit_sharded_dispatch(ctx, res):
    jax = ctx.jax
    P = jax.sharding.PartitionSpec
    sharding = jax.sharding.NamedSharding(_mesh(jax), P("x"))
    args = [(jax.device_put(np.full((8, 4), s + 1.0, np.float32), sharding),
             jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), sharding)) for s in (0, 1)]
    f = jax.jit(lambda a, b: a * b + 1.0)
    ctx.checksum(f(*args[0]))
    ctx.time_steady(lambda i: f(*args[i % 2]), budget=ctx.budget * 0.8)


def _pmap_small(ctx, res):
    jax = ctx.jax
    xs = [np.full((8, 4), s + 1.0, np.float32) for s in (0, 1)]
    f = jax.pmap(lambda v: v * 2.0 + 1.0)
    ctx.checksum(f(xs[0]))
    ctx.time_steady(lambda i: f(xs[i % 2]), budget=ctx.budget * 0.8)


def register(workload):
    workload("smap_psum_64mb", budget=10, desc="eager shard_map psum of a 64 MB array over 8 devices")(
        lambda ctx, res: _psum_workload(ctx, False))
    workload("smap_psum_64mb_jit", budget=10, desc="jit(shard_map) psum of a 64 MB array over 8 devices")(
        lambda ctx, res: _psum_workload(ctx, True))
    workload("dp_train_step", budget=10, desc="MLP train step, batch split over 8 devices, psum of grads")(
        _dp_train_step)
    workload("jit_sharded_dispatch", budget=6, desc="cached jit on (8,4) arrays sharded over 8 devices")(
        _jit_sharded_dispatch)
    workload("pmap_small", budget=6, desc="pmap of x*2+1 on a (8,4) array over 8 devices")(_pmap_small)
