"""Data-parallel training over 8 (virtual CPU) devices with shard_map.

An MLP is trained twice from the same start: on one device, and with the
batch split 8 ways, each device computing the gradient of its shard and
`lax.psum` adding them up (the parameters stay replicated). The two loss
curves are printed side by side: they agree.

    python examples/data_parallel.py [--impl pyjax|jax] [--steps N]

Under MPI the same program runs on several processes, the 8 devices split
between them (docs/distributed.md); process 0 prints:

    mpiexec -n 2 python examples/data_parallel.py
"""

import argparse
import importlib
import os

import numpy as np

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--impl", default="pyjax", choices=["pyjax", "jax"], help="which implementation to run on")
parser.add_argument("--steps", type=int, default=12, help="training steps")
args = parser.parse_args()

jax = importlib.import_module(args.impl)
# Started by mpiexec (MPICH or Open MPI): join the processes, as in JAX
# explicitly and before the devices are first used; 8 devices in all.
processes = int(os.environ.get("PMI_SIZE") or os.environ.get("OMPI_COMM_WORLD_SIZE") or 1)
if "PMI_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ:
    jax.distributed.initialize()
jax.config.update("jax_num_cpu_devices", 8 // processes)
jnp = importlib.import_module(f"{args.impl}.numpy")
lax = importlib.import_module(f"{args.impl}.lax")
P = jax.sharding.PartitionSpec

BATCH, SIZES, LR = 128, (16, 64, 64, 4), 0.5
rng = np.random.default_rng(0)
params = [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
          for m, n in zip(SIZES[:-1], SIZES[1:])]
inputs = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
labels = (inputs[:, :4].argmax(1) + (inputs[:, 4] > 0)) % SIZES[-1]  # a learnable rule
targets = np.eye(SIZES[-1], dtype=np.float32)[labels]


def total_loss(params, x, y):
    """The summed softmax cross-entropy of an MLP over the examples in x."""
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    logits = h @ w + b
    logits = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
    return -jnp.sum(logits * y)


def sgd(params, grads):
    return jax.tree.map(lambda p, g: p - LR * g, params, grads)


@jax.jit
def step(params, x, y):
    """One step on one device: the mean loss over the whole batch."""
    loss, grads = jax.value_and_grad(lambda p: total_loss(p, x, y) / BATCH)(params)
    return sgd(params, grads), loss


mesh = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def local_step(params, x, y):
    """One device's part: its shard's share of the mean loss and gradient,
    summed over the devices (psum) so every replica takes the same step."""
    loss, grads = jax.value_and_grad(lambda p: total_loss(p, x, y) / BATCH)(params)
    loss, grads = lax.psum((loss, grads), "data")
    return sgd(params, grads), loss


# check_vma=False: each device's gradient is its own until psum adds them.
# (With vma types on, the gradient of the replicated params would come out
# already summed: the transpose of the implicit pvary is a psum.)
parallel_step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                      out_specs=(P(), P()), check_vma=False))

x = jax.device_put(inputs, jax.NamedSharding(mesh, P("data")))
y = jax.device_put(targets, jax.NamedSharding(mesh, P("data")))
if jax.process_index() != 0:
    print = lambda *a, **k: None  # noqa: E731  (one process reports)
print(f"{jax.process_count()} process(es), {len(jax.devices())} devices; each holds a batch shard of shape {x.addressable_shards[0].data.shape}")

single, parallel = params, params
print("step  one device  8 devices")
curves = ([], [])
for i in range(args.steps):
    single, loss1 = step(single, inputs, targets)
    parallel, loss8 = parallel_step(parallel, x, y)
    curves[0].append(float(loss1))
    curves[1].append(float(loss8))
    print(f"{i:4d}  {float(loss1):10.4f}  {float(loss8):9.4f}")
gap = max(abs(a - b) for a, b in zip(*curves))
print("curves agree:", gap < 1e-4)
print("parameters agree:", all(np.allclose(np.asarray(a), np.asarray(b), atol=1e-5)
                               for a, b in zip(jax.tree.leaves(single), jax.tree.leaves(parallel))))
