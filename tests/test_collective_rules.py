"""Autodiff and vmap of `ragged_all_to_all` and `all_gather_invariant`
(`all_gather(..., to='invarying')`), issue 22.

Values are checked against NumPy oracles written independently of the
rules: a ragged exchange's gradients against the Jacobian of the NumPy
exchange (it is linear in its data) and against finite differences; an
invariant gather's against the unsharded computation. The jaxprs are JAX
0.11's (tests/golden/programs_collective_rules.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
from pyjax import lax
from pyjax._src.public_test_util import check_grads
from pyjax.sharding import AxisType, PartitionSpec as P

N_DEV, PER, ROWS, OUT_ROWS = 4, 2, 12, 14


def _mesh():
    return jax.make_mesh((N_DEV,), ("x",), axis_types=(AxisType.Auto,))


def _exchange_plan(seed: int):
    """Per-device offsets and sizes (sender's view of output_offsets) that
    write each receiver's slices contiguously, by sender."""
    rng = np.random.default_rng(seed)
    k = N_DEV * PER
    sends = [rng.integers(0, 3, k) for _ in range(N_DEV)]  # plans that overflow a buffer are skipped
    in_off = [np.concatenate([[0], np.cumsum(s)[:-1]]).astype(np.int32) for s in sends]
    recv = [np.array([sends[s][r * PER + q] for s in range(N_DEV) for q in range(PER)], np.int32)
            for r in range(N_DEV)]
    out_off = []
    for i in range(N_DEV):
        offs = []
        for kk in range(k):
            r, q = divmod(kk, PER)
            offs.append(sum(int(sends[s][r * PER + qq]) for s in range(N_DEV) for qq in range(PER)
                            if (s, qq) < (i, q)))
        out_off.append(np.array(offs, np.int32))
    return [np.concatenate(t) for t in (in_off, [s.astype(np.int32) for s in sends], out_off, recv)]


def _fits(plan) -> bool:
    in_off, send, out_off, recv = (t.reshape(N_DEV, -1) for t in plan)
    return all((in_off[d] + send[d]).max() <= ROWS and recv[d].sum() <= OUT_ROWS for d in range(N_DEV))


def _plans():
    seeds = [s for s in range(40) if _fits(_exchange_plan(s))]
    return [_exchange_plan(s) for s in seeds[:3]]


def _reference(operand, output, in_off, send, out_off, recv):
    """The exchange on global arrays (device d's block is rows d * size...):
    sender s's slice k goes to receiver k // PER at the sender's
    output_offsets[k]."""
    ops, outs = operand.reshape(N_DEV, ROWS, *operand.shape[1:]), output.reshape(N_DEV, OUT_ROWS, *output.shape[1:])
    in_off, send, out_off = (t.reshape(N_DEV, -1) for t in (in_off, send, out_off))
    result = outs.copy()
    for s in range(N_DEV):
        for kk in range(N_DEV * PER):
            size, start, at = int(send[s][kk]), int(in_off[s][kk]), int(out_off[s][kk])
            result[kk // PER][at:at + size] = ops[s][start:start + size]
    return result.reshape(output.shape)


def _ragged(mesh):
    return jax.shard_map(lambda *xs: lax.ragged_all_to_all(*xs, axis_name="x"), mesh=mesh, in_specs=P("x"),
                         out_specs=P("x"))


@pytest.mark.parametrize("plan_index", [0, 1, 2])
@pytest.mark.parametrize("trailing", [(), (3,)])
def test_ragged_grad_is_the_transposed_exchange(plan_index, trailing):
    plan = _plans()[plan_index]
    rng = np.random.default_rng(plan_index)
    a = rng.standard_normal((N_DEV * ROWS, *trailing)).astype(np.float32)
    b = rng.standard_normal((N_DEV * OUT_ROWS, *trailing)).astype(np.float32)
    w = rng.standard_normal(b.shape).astype(np.float32)
    f = _ragged(_mesh())
    np.testing.assert_array_equal(np.asarray(f(a, b, *plan)), _reference(a, b, *plan))
    ga, gb = jax.grad(lambda x, y: (f(x, y, *plan) * w).sum(), argnums=(0, 1))(a, b)
    # The exchange is linear: the gradient is w through the transposed Jacobian.
    jac_a = np.stack([_reference(e.reshape(a.shape), np.zeros_like(b), *plan).ravel()
                      for e in np.eye(a.size, dtype=np.float32)], axis=1)
    jac_b = np.stack([_reference(np.zeros_like(a), e.reshape(b.shape), *plan).ravel()
                      for e in np.eye(b.size, dtype=np.float32)], axis=1)
    np.testing.assert_allclose(np.asarray(ga).ravel(), jac_a.T @ w.ravel(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(gb).ravel(), jac_b.T @ w.ravel(), rtol=1e-6, atol=1e-6)
    # Only the output operand differentiated: its cotangent alone.
    gb_only = jax.grad(lambda y: (f(a, y, *plan) * w).sum())(b)
    np.testing.assert_allclose(np.asarray(gb_only), np.asarray(gb), rtol=0, atol=0)


def test_ragged_grads_match_finite_differences():
    plan = _plans()[0]
    rng = np.random.default_rng(3)
    a = rng.standard_normal(N_DEV * ROWS).astype(np.float32)
    b = rng.standard_normal(N_DEV * OUT_ROWS).astype(np.float32)
    f = _ragged(_mesh())
    check_grads(lambda x, y: jax.numpy.sin(f(x, y, *plan)), (a, b), order=1, modes=("rev",), eps=1e-2,
                atol=1e-2, rtol=1e-2)


def test_ragged_vmap_of_shard_map_is_one_exchange_per_entry():
    plans = _plans()
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, N_DEV * ROWS)).astype(np.float32)
    b = rng.standard_normal((3, N_DEV * OUT_ROWS)).astype(np.float32)
    index = [np.stack([p[i] for p in plans]) for i in range(4)]
    got = np.asarray(jax.vmap(_ragged(_mesh()))(a, b, *index))
    for e in range(3):
        np.testing.assert_array_equal(got[e], _reference(a[e], b[e], *plans[e]))
    # Offsets shared by every entry (unbatched) and an unbatched output buffer.
    got = np.asarray(jax.vmap(_ragged(_mesh()), in_axes=(0, None, None, None, None, None))(a, b[0], *plans[0]))
    for e in range(3):
        np.testing.assert_array_equal(got[e], _reference(a[e], b[0], *plans[0]))


def test_ragged_vmap_inside_shard_map():
    plans = _plans()
    rng = np.random.default_rng(6)
    a = rng.standard_normal((N_DEV * ROWS, 3)).astype(np.float32)  # batch on axis 1
    b = rng.standard_normal((3, N_DEV * OUT_ROWS)).astype(np.float32)
    index = [np.stack([p[i] for p in plans]) for i in range(4)]
    body = jax.vmap(lambda *xs: lax.ragged_all_to_all(*xs, axis_name="x"), in_axes=(1, 0, 0, 0, 0, 0))
    f = jax.shard_map(body, mesh=_mesh(), in_specs=(P("x"),) + (P(None, "x"),) * 5, out_specs=P(None, "x"))
    got = np.asarray(f(a, b, *index))
    for e in range(3):
        np.testing.assert_array_equal(got[e], _reference(a[:, e], b[e], *plans[e]))
    grad = jax.grad(lambda x: (f(x, b, *index) ** 2).sum())(a)
    for e in range(3):  # d/dx sum(out^2) = 2 out routed back: compare with the per-entry exchange's grad
        single = _ragged(_mesh())
        want = jax.grad(lambda x: (single(x, b[e], *plans[e]) ** 2).sum())(a[:, e])
        np.testing.assert_allclose(np.asarray(grad[:, e]), np.asarray(want), rtol=1e-6)


def test_ragged_vmap_over_its_own_axis_is_refused_as_jax():
    i = np.zeros(4, np.int32)
    f = jax.vmap(lambda v: lax.ragged_all_to_all(v, v, i, i, i, i, axis_name="v"), axis_name="v")
    with pytest.raises(NotImplementedError, match="^Please open a feature request!$"):  # (JAX 0.11's words)
        f(np.ones((4, 8), np.float32))


@pytest.mark.parametrize("names,spec,axis,tiled", [
    ("x", P("x"), 0, False), (("x", "y"), P(None, ("x", "y")), 1, True), ("y", P("x", "y"), 1, True),
])
def test_all_gather_invariant_grad_equals_unsharded(names, spec, axis, tiled):
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))
    a = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    out_spec = P("x") if names == "y" else P()
    f = jax.shard_map(lambda v: lax.all_gather(v, names, axis=axis, tiled=tiled, to="invarying"), mesh=mesh,
                      in_specs=spec, out_specs=out_spec)
    out = np.asarray(f(a))
    w = np.random.default_rng(2).standard_normal(out.shape).astype(np.float32)
    grad = np.asarray(jax.grad(lambda v: (jax.numpy.cos(f(v)) * w).sum())(a))
    # Unsharded: the gather only rearranges a's blocks (each exactly once).
    if names == "x":
        unsharded = lambda v: v.reshape(4, 2, 16)  # noqa: E731
    else:
        unsharded = lambda v: v  # noqa: E731
    np.testing.assert_allclose(out, a.reshape(out.shape), rtol=0)
    want = -np.sin(unsharded(a)) * w
    np.testing.assert_allclose(grad, want.reshape(a.shape), rtol=1e-5, atol=1e-6)


def test_all_gather_invariant_under_vmap():
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))
    a = np.random.default_rng(3).standard_normal((8, 16, 3)).astype(np.float32)
    # vmap inside the body over a non-mesh axis: the gather dimension moves past it.
    for axis, tiled in ((1, True), (0, False)):
        g = jax.shard_map(jax.vmap(lambda v: lax.all_gather(v, "x", axis=axis, tiled=tiled, to="invarying"),
                                   in_axes=2), mesh=mesh, in_specs=P(None, "x"), out_specs=P())
        got = np.asarray(g(a))
        blocks = a.reshape(8, 4, 4, 3)  # (rows, device, block, batch)
        want = np.moveaxis(a, 2, 0) if tiled else blocks.transpose(3, 1, 0, 2)
        np.testing.assert_allclose(got, want, rtol=0)
    # vmap of the shard_map: the body batched.
    f = jax.shard_map(lambda v: lax.all_gather(v, ("x", "y"), axis=1, tiled=True, to="invarying"), mesh=mesh,
                      in_specs=P(None, ("x", "y")), out_specs=P())
    b = np.moveaxis(a, 2, 0)
    np.testing.assert_allclose(np.asarray(jax.vmap(f)(b)), b, rtol=0)
    # vmap over the gathered name itself: the lanes' values, as all_gather gives them.
    x = a[:, :, 0]
    for axis, tiled in ((0, False), (0, True), (1, False)):
        inv = jax.vmap(lambda v: lax.all_gather(v, "i", axis=axis, tiled=tiled, to="invarying"), axis_name="i")
        var = jax.vmap(lambda v: lax.all_gather(v, "i", axis=axis, tiled=tiled), axis_name="i")
        np.testing.assert_allclose(np.asarray(inv(x)), np.asarray(var(x)), rtol=0)
