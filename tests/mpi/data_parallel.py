"""Data-parallel training on 8 devices: one process holding all of them
(`--record REF`), or several under `mpiexec -n 2|4 ... --check REF`, each
holding its share. Two trainings: jit of a shard_map step whose gradients
psum over the devices, and a sharded jit (Explicit batch axis) that the
SPMD partitioner splits per device. --check compares the parameters after
the steps with one process's, bitwise. tests/test_mpi.py runs it.
"""

import argparse

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

DEVICES, BATCH, STEPS, LR = 8, 64, 3, 0.3
SIZES = (8, 16, 4)


def init():
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
              for m, n in zip(SIZES[:-1], SIZES[1:])]
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = np.eye(SIZES[-1], dtype=np.float32)[(x[:, :4].argmax(1))]
    return params, x, y


def loss_fn(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    logits = h @ w + b
    return -jnp.sum((logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)) * y) / BATCH


def sgd(params, grads):
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


def shard_map_training(params, x, y):
    mesh = jax.make_mesh((DEVICES,), ("data",), axis_types=(AxisType.Auto,))

    def local_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        loss, grads = lax.psum((loss, grads), "data")
        return sgd(params, grads), loss

    step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                 out_specs=(P(), P()), check_vma=False))
    # each process feeds only its own rows
    rows = BATCH // jax.process_count()
    lo = jax.process_index() * rows
    xs = jax.make_array_from_process_local_data(NamedSharding(mesh, P("data")), x[lo:lo + rows])
    ys = jax.make_array_from_process_local_data(NamedSharding(mesh, P("data")), y[lo:lo + rows])
    for _ in range(STEPS):
        params, loss = step(params, xs, ys)
    return params, loss


def spmd_training(params, x, y):
    mesh = jax.make_mesh((DEVICES,), ("data",), axis_types=(AxisType.Explicit,))
    xs = jax.device_put(x, NamedSharding(mesh, P("data")))
    ys = jax.device_put(y, NamedSharding(mesh, P("data")))
    params = jax.device_put(params, NamedSharding(mesh, P()))

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return sgd(params, grads), loss

    for _ in range(STEPS):
        params, loss = step(params, xs, ys)
    return params, loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--record")
    parser.add_argument("--check")
    args = parser.parse_args()
    if args.check:
        jax.distributed.initialize()
    jax.config.update("jax_num_cpu_devices", DEVICES // jax.process_count())
    params, x, y = init()
    results = {}
    for name, train in (("shard_map", shard_map_training), ("spmd", spmd_training)):
        trained, loss = train(params, x, y)
        for i, leaf in enumerate([*jax.tree.leaves(trained), loss]):
            assert leaf.is_fully_replicated
            results[f"{name}_{i}"] = np.asarray(leaf)  # (replicated: readable on every process)
    if args.record:
        np.savez(args.record, **results)
        print(f"recorded {len(results)} values")
        return
    ref = np.load(args.check)
    for k, v in results.items():
        if v.tobytes() != ref[k].tobytes():
            raise SystemExit(f"process {jax.process_index()}: {k} differs from one process's:\n{v}\n{ref[k]}")
    assert not np.array_equal(results["shard_map_0"], params[0][0])  # (the steps did train)
    print(f"process {jax.process_index()} of {jax.process_count()}: {len(results)} trained values equal "
          "one process's bitwise")
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
