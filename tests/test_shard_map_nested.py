"""Issue 22's remaining shard_map features against the unsharded computation:
shard_map nested in shard_map (each over its own axes), shard_map in loop
bodies under jit, a body closing over an enclosing trace's tracer,
ragged_all_to_all (against the semantics JAX documents: XLA:CPU cannot run
it), all_gather(..., to='invarying') and pmap's negative out_axes.

The JAX 0.11 jaxprs, values and errors are golden programs
(tests/golden/programs_shard_map_nested.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
from pyjax import lax
from pyjax._src.backends.numpy.impls import spmd
from pyjax.sharding import AxisType, PartitionSpec as P

MESHES = [(1, 8), (2, 4), (4, 2), (8, 1)]


def _mesh(shape, kind=AxisType.Auto):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(kind, kind))


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _nested(mesh):
    def inner(u):  # u: the (x, y) block
        return lax.psum(u * 2.0, "y") + lax.axis_index("y").astype(np.float32)

    def outer(v):  # v: the x block, whole over y
        w = jax.shard_map(inner, in_specs=P(None, "y"), out_specs=P(None, "y"), axis_names={"y"},
                          check_vma=False)(v)
        return lax.psum(w, "x")

    return jax.shard_map(outer, mesh=mesh, in_specs=P("x"), out_specs=P(), axis_names={"x"}, check_vma=False)


def _nested_reference(a, nx, ny):
    rows, cols = a.shape[0] // nx, a.shape[1] // ny
    blocks = a.reshape(nx, rows, ny, cols)
    summed_y = (blocks * 2.0).sum(axis=2, keepdims=True)  # psum over y within each x block
    per_y = summed_y + np.arange(ny, dtype=np.float32).reshape(1, 1, ny, 1)
    return per_y.sum(axis=0).reshape(rows, ny * cols)  # joined over y, psum over x


@pytest.mark.parametrize("shape", MESHES)
def test_nested_shard_map_runs_each_body_on_its_blocks(shape):
    mesh = _mesh(shape)
    nx, ny = shape
    a = _data((16, 16))
    seen = []
    with spmd.watch_buffers(lambda d, b: seen.append(np.shape(b))):
        out = _nested(mesh)(a)
    np.testing.assert_allclose(np.asarray(out), _nested_reference(a, nx, ny), rtol=1e-5, atol=1e-5)
    # No device ever holds more than its x block (16/nx rows, whole over y).
    assert seen and max(int(np.prod(s)) for s in seen) <= (16 // nx) * 16
    # The inner body's buffers are the (x, y) blocks.
    assert ((16 // nx), 16 // ny) in seen


@pytest.mark.parametrize("shape", [(2, 4), (4, 2)])
def test_nested_shard_map_under_jit_and_typed(shape):
    mesh = _mesh(shape)
    a = _data((8, 16), 1)
    out = jax.jit(_nested(mesh))(a)
    np.testing.assert_allclose(np.asarray(out), _nested_reference(a, *shape), rtol=1e-5, atol=1e-5)

    def outer(v):
        assert jax.sharding.get_abstract_mesh().axis_types == (AxisType.Manual, AxisType.Auto)
        return jax.shard_map(lambda u: lax.psum(u, "y"), in_specs=P(None, "y"), out_specs=P(),
                             axis_names={"y"})(v)

    jaxpr = jax.make_jaxpr(jax.shard_map(outer, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                                         axis_names={"x"}))(a)
    inner = jaxpr.eqns[0].params["jaxpr"].eqns[0]
    assert inner.primitive.name == "shard_map" and inner.params["newly_manual_axes"] == {"y"}
    assert inner.outvars[0].aval.vma == ("x",)  # still varying over the outer axis


def test_shard_map_in_loop_bodies_under_jit():
    mesh = _mesh((4, 2))
    a = _data((8, 16), 2)

    def ref_g(c):
        blocks = c.reshape(4, 2, 16)
        return (blocks - blocks.mean(axis=0, keepdims=True)).reshape(8, 16)

    # A fori body whose shard_map closes over the loop's index (a tracer of
    # the loop's trace).
    def fori_body(i, c):
        return jax.shard_map(lambda v: v - lax.pmean(v, "x") + i, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(c)

    out = jax.jit(lambda c: lax.fori_loop(0, 3, fori_body, c))(a)
    want = a
    for i in range(3):
        want = ref_g(want) + i
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)

    # A scan in a body over x whose step holds a shard_map over y.
    def outer(v):
        def step(c, _):
            inner = jax.shard_map(lambda u: u - lax.pmean(u, "y"), in_specs=P(None, "y"), out_specs=P(None, "y"),
                                  axis_names={"y"})
            return c * 0.5 + inner(c), None

        return lax.scan(step, v, None, length=3)[0]

    f = jax.jit(jax.shard_map(outer, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}))
    want = a
    for _ in range(3):
        cols = want.reshape(8, 2, 8)
        want = want * 0.5 + (cols - cols.mean(axis=1, keepdims=True)).reshape(8, 16)
    np.testing.assert_allclose(np.asarray(f(a)), want, rtol=1e-5, atol=1e-5)


def test_body_closing_over_an_enclosing_tracer():
    mesh = _mesh((4, 2))
    a = _data((8, 16), 3)

    def f(v, s):
        return jax.shard_map(lambda u: lax.psum(u * s, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())(v)

    want = (a.reshape(4, 2, 16) * 3.0).sum(0)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(a, np.float32(3.0))), want, rtol=1e-5)
    jaxpr = jax.make_jaxpr(f)(a, np.float32(3.0))
    assert jaxpr.eqns[0].params["in_specs"] == (P(), P("x"))  # the closed-over value: a replicated argument
    grad = jax.grad(lambda s: f(a, s).sum())(np.float32(3.0))
    np.testing.assert_allclose(float(grad), a.sum(), rtol=1e-4)


def _ragged_reference(operands, outputs, in_off, send, out_off, recv):
    """The receiver's view JAX documents: the offsets it writes at are an
    all_to_all of the senders' output_offsets; sizes are its recv_sizes."""
    n = len(operands)
    per = len(in_off[0]) // n
    results = [o.copy() for o in outputs]
    for r in range(n):
        for i in range(n * per):
            src, k = i // per, r * per + i % per
            at, size = out_off[src][k], recv[r][i]
            start = in_off[src][k]
            results[r][at:at + size] = operands[src][start:start + size]
    return results


def test_ragged_all_to_all_documented_example():
    mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Auto,))
    arrays = [np.array([1, 2, 2, 3, 4, 0], np.float32), np.zeros(8, np.float32),
              np.array([0, 1, 0, 1], np.int32), np.array([1, 2, 1, 1], np.int32),
              np.array([0, 0, 1, 2], np.int32), np.array([1, 1, 2, 1], np.int32)]
    f = jax.shard_map(lambda *xs: lax.ragged_all_to_all(*xs, axis_name="x"), mesh=mesh, in_specs=P("x"),
                      out_specs=P("x"))
    np.testing.assert_array_equal(np.asarray(f(*arrays)), [1, 3, 0, 0, 2, 2, 4, 0])
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(*arrays)), [1, 3, 0, 0, 2, 2, 4, 0])


@pytest.mark.parametrize("shape", [(4, 2), (2, 4)])
def test_ragged_all_to_all_random_against_numpy(shape):
    mesh = _mesh(shape)
    nx, ny = shape
    rng = np.random.default_rng(7)
    per, rows, out_rows = 2, 12, 24
    # Each x group exchanges; y only repeats the groups (each y column its own data).
    devices = [(i, j) for i in range(nx) for j in range(ny)]
    sends = {d: rng.integers(0, 3, nx * per) for d in devices}
    ops, outs, in_off, send, out_off, recv = {}, {}, {}, {}, {}, {}
    for (i, j) in devices:
        ops[i, j] = rng.standard_normal((rows, 3)).astype(np.float32)
        outs[i, j] = np.full((out_rows, 3), -1.0, np.float32)
        send[i, j] = sends[i, j].astype(np.int32)
        in_off[i, j] = np.concatenate([[0], np.cumsum(send[i, j])[:-1]]).astype(np.int32)
    for (i, j) in devices:  # receiver r lays the slices it gets out contiguously, by source
        recv[i, j] = np.array([sends[s, j][i * per + q] for s in range(nx) for q in range(per)], np.int32)
    for (i, j) in devices:  # sender's output_offsets: where its slice k lands on receiver k // per
        offs = []
        for k in range(nx * per):
            r, q = divmod(k, per)
            before = sum(int(sends[s, j][r * per + qq]) for s in range(nx) for qq in range(per)
                         if (s, qq) < (i, q))
            offs.append(before)
        out_off[i, j] = np.array(offs, np.int32)

    def stack(table):  # per-device blocks into global arrays split P(('x', 'y'))
        return np.concatenate([table[d] for d in devices])

    f = jax.shard_map(lambda *xs: lax.ragged_all_to_all(*xs, axis_name="x"), mesh=mesh,
                      in_specs=P(("x", "y")), out_specs=P(("x", "y")))
    got = np.asarray(f(*(stack(t) for t in (ops, outs, in_off, send, out_off, recv))))
    for j in range(ny):
        col = [(i, j) for i in range(nx)]
        want = _ragged_reference(*([t[d] for d in col] for t in (ops, outs, in_off, send, out_off, recv)))
        for (i, _), w in zip(col, want):
            k = devices.index((i, j))
            np.testing.assert_array_equal(got[k * out_rows:(k + 1) * out_rows], w)


def test_all_gather_invarying():
    mesh = _mesh((4, 2))
    a = _data((8, 16), 4)
    f = jax.shard_map(lambda v: lax.all_gather(v, "y", axis=1, tiled=True, to="invarying") * 2, mesh=mesh,
                      in_specs=P("x", "y"), out_specs=P("x"))
    np.testing.assert_allclose(np.asarray(f(a)), a * 2, rtol=1e-6)
    body = jax.make_jaxpr(f)(a).eqns[0].params["jaxpr"]
    assert body.eqns[0].primitive.name == "all_gather_invariant" and body.eqns[0].outvars[0].aval.vma == ("x",)
    g = jax.shard_map(lambda v: lax.all_gather(v, "x", to="invarying"), mesh=mesh, in_specs=P("x"), out_specs=P())
    np.testing.assert_allclose(np.asarray(g(a)), a.reshape(4, 2, 16), rtol=1e-6)


@pytest.mark.parametrize("out_axes,shape", [(-1, (8, 3)), (-2, (8, 3, 2)), (-1, (4, 5))])
def test_pmap_negative_out_axes(out_axes, shape):
    a = _data(shape, 5)
    out = np.asarray(jax.pmap(lambda v: v * 2 + 1, out_axes=out_axes)(a))
    # As JAX 0.11: each device's result gets a size-1 axis at out_axes, and
    # the devices' results are joined along axis 0.
    per_device = [np.expand_dims(v * 2 + 1, out_axes) for v in a]
    np.testing.assert_allclose(out, np.concatenate(per_device, axis=0), rtol=1e-6)
