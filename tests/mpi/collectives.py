"""Collectives, sharded jit and a data-parallel step over 8 devices, run by
several processes (`mpiexec -n 2|4 python3 tests/mpi/collectives.py
--check REF`) or by one (`python3 tests/mpi/collectives.py --record REF`,
8 devices in one process). With --check, every process compares each of
its shards of every result with the one-process result, bitwise.
tests/test_mpi.py runs both.
"""

import argparse
import sys

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

DEVICES = 8


def cases(mesh, mesh8):
    """name -> a zero-argument function computing a global Array."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    xi = rng.integers(-1000, 1000, (8, 16)).astype(np.int32)
    x8 = rng.standard_normal((64, 6)).astype(np.float32)

    def smap(f, in_specs, out_specs, m=mesh, _axes=None):
        extra = {} if _axes is None else {"axis_names": _axes}
        return jax.shard_map(f, mesh=m, in_specs=in_specs, out_specs=out_specs, check_vma=False, **extra)

    xy = P("x", "y")
    out = {
        "psum_x": lambda: smap(lambda a: lax.psum(a, "x"), xy, xy)(x),
        "psum_y": lambda: smap(lambda a: lax.psum(a, "y"), xy, xy)(x),
        "psum_xy": lambda: smap(lambda a: lax.psum(a, ("x", "y")), xy, xy)(x),
        "psum_int": lambda: smap(lambda a: lax.psum(a, ("x", "y")), xy, xy)(xi),
        "pmean_xy": lambda: smap(lambda a: lax.pmean(a, ("x", "y")), xy, xy)(x),
        "pmax_xy": lambda: smap(lambda a: lax.pmax(a, ("x", "y")), xy, xy)(x),
        "pmin_x": lambda: smap(lambda a: lax.pmin(a, "x"), xy, xy)(x),
        "psum_scalar": lambda: smap(lambda a: lax.psum(jnp.sum(a), ("x", "y")), xy, P())(x),
        "psum_scalar_x": lambda: smap(lambda a: lax.psum(jnp.sum(a), "x")[None, None], xy, xy)(x),
        "psum_interleaved": lambda: smap(lambda a: lax.psum(a, "d"), P("d"), P("d"), _interleaved())(x8),
        "psum_scatter_interleaved": lambda: smap(lambda a: lax.psum_scatter(a, "d", tiled=True), P(), P("d"),
                                                 _interleaved())(x8),
        "nested_xy": lambda: smap(lambda a: jax.shard_map(lambda b: lax.psum(b, "x") * 2,
                                                          in_specs=P(None, "x"), out_specs=P(None, "x"),
                                                          axis_names={"x"}, check_vma=False)(a), P(None, "y"),
                                  P(None, "y"), _axes={"y"})(x),
        "psum_8": lambda: smap(lambda a: lax.psum(a, "d"), P("d"), P("d"), mesh8)(x8),
        "all_gather_x": lambda: smap(lambda a: lax.all_gather(a, "x"), xy, P(None, None, "y"))(x),
        "all_gather_tiled_8": lambda: smap(lambda a: lax.all_gather(a, "d", tiled=True), P("d"), P("d"),
                                           mesh8)(x8),
        "psum_scatter_8": lambda: smap(lambda a: lax.psum_scatter(a, "d", tiled=True), P(), P("d"), mesh8)(x8),
        "psum_scatter_x": lambda: smap(lambda a: lax.psum_scatter(a, "x", scatter_dimension=1, tiled=True),
                                       P(None, "y"), P(None, ("y", "x")))(x),
        "psum_scatter_int_x": lambda: smap(lambda a: lax.psum_scatter(a, "x", scatter_dimension=1, tiled=True),
                                           P(None, "y"), P(None, ("y", "x")))(xi),
        "psum_scatter_x_untiled": lambda: smap(lambda a: lax.psum_scatter(a, "x")[None], P(None, "y"),
                                               P("x", "y"))(x[:2]),
        "all_to_all_8": lambda: smap(lambda a: lax.all_to_all(a, "d", 0, 0, tiled=True), P("d"), P("d"),
                                     mesh8)(x8),
        "all_to_all_x": lambda: smap(lambda a: lax.all_to_all(a, "x", 1, 0, tiled=True), xy, xy)(x),
        "all_to_all_xy": lambda: smap(lambda a: lax.all_to_all(a, ("x", "y"), 0, 1, tiled=True), P(("x", "y")),
                                      P(("x", "y")))(np.tile(x, (16, 1))),
        "ppermute_ring_8": lambda: smap(lambda a: lax.ppermute(a, "d", [(i, (i + 1) % 8) for i in range(8)]),
                                        P("d"), P("d"), mesh8)(x8),
        "ppermute_x": lambda: smap(lambda a: lax.ppermute(a, "x", [(0, 1)]), xy, xy)(x),
        "axis_index_xy": lambda: smap(lambda a: a * 0 + lax.axis_index(("x", "y")), xy, xy)(xi),
        "scan_psum": lambda: smap(lambda a: lax.scan(lambda c, _: (lax.psum(c * 0.5, "d"), None), a, None,
                                                     length=3)[0], P("d"), P("d"), mesh8)(x8),
        "while_psum": lambda: smap(_while_body, P("d"), P("d"), mesh8)(x8),
        "jit_shard_map": lambda: jax.jit(smap(lambda a: jnp.tanh(lax.psum(a @ a.T, "d")), P("d"), P(), mesh8))(x8),
    }
    return out


def _interleaved():
    # A mesh whose axis alternates between processes: the ordered fold
    # passes from process to process and back.
    order = [0, 4, 1, 5, 2, 6, 3, 7]
    return jax.sharding.Mesh(np.array(jax.devices())[order], ("d",), axis_types=(AxisType.Auto,))


def _while_body(a):
    def cond(c):
        return c[1] < 3

    def body(c):
        return lax.psum(c[0], "d") * 0.25, c[1] + 1

    return lax.while_loop(cond, body, (a, 0))[0]


def spmd_cases():
    """Sharded jit (Explicit axes): the program runs per device, its
    collectives inserted by the partitioner."""
    mesh = jax.make_mesh((DEVICES,), ("d",), axis_types=(AxisType.Explicit,))
    rng = np.random.default_rng(1)
    w = rng.standard_normal((6, 5)).astype(np.float32)
    x = rng.standard_normal((32, 6)).astype(np.float32)
    xs = jax.device_put(x, NamedSharding(mesh, P("d")))
    auto = jax.make_mesh((DEVICES,), ("d",), axis_types=(AxisType.Auto,))
    xa = jax.make_array_from_process_local_data(NamedSharding(auto, P("d")), _rows(x))
    return {
        "jit_auto_global": lambda: jax.jit(lambda a: jnp.tanh(a @ w) * 2.0)(xa),
        "spmd_sum": lambda: jax.jit(lambda a: jnp.sum(a * 2.0, axis=0))(xs),
        "spmd_matmul": lambda: jax.jit(lambda a: jnp.tanh(a @ w))(xs),
    }


def _rows(x):
    # this process's rows of x (all of them with one process)
    n = x.shape[0] // jax.process_count()
    return x[jax.process_index() * n:(jax.process_index() + 1) * n]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--record")
    parser.add_argument("--check")
    args = parser.parse_args()
    if args.check:
        jax.distributed.initialize()
    jax.config.update("jax_num_cpu_devices", DEVICES // jax.process_count())
    grid = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    line = jax.make_mesh((DEVICES,), ("d",), axis_types=(AxisType.Auto,))
    table = {**cases(grid, line), **spmd_cases()}
    if args.record:
        np.savez(args.record, **{k: np.asarray(f()) for k, f in table.items()})
        print(f"recorded {len(table)} results")
        return
    ref = np.load(args.check)
    me = jax.process_index()
    checked = 0
    for name, f in table.items():
        out = f()
        want = ref[name]
        assert out.shape == want.shape, (name, out.shape, want.shape)
        assert out.is_fully_addressable == (jax.process_count() == 1), name
        for shard in out.addressable_shards:
            assert shard.device.process_index == me
            got = np.asarray(shard.data)
            if got.tobytes() != want[shard.index].tobytes():
                print(f"process {me}: {name} differs on {shard.device} at {shard.index}:\n{got}\n{want[shard.index]}")
                sys.exit(1)
            checked += 1
    print(f"process {me} of {jax.process_count()}: {len(table)} results, {checked} shards equal bitwise")
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
