"""Control flow holding collectives inside a shard_map body runs in lockstep
over the devices: scans and fori_loops always, while_loops and conds whose
predicate is device-invariant; a predicate that may vary is refused. Each
result equals the computation without sharding (NumPy).

JAX's jaxprs and vma errors for these bodies are golden programs
(tests/golden/programs_spmd.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.sharding import AxisType, PartitionSpec as P

A = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64


def _mesh(shape=(4, 2)):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))


def _both(f):
    """f eagerly and under jit."""
    return [f, jax.jit(f)]


@pytest.mark.parametrize("shape", [(4, 2), (8, 1), (2, 4)])
def test_scan_with_psum_matches_unsharded(shape):
    mesh = _mesh(shape)

    def body(a):
        def step(c, _):
            c = c * 0.5 + lax.psum(c, "x") / 16  # every device's rows mixed in, each step
            return c, lax.psum(c.sum(), ("x", "y"))
        return lax.scan(step, a, None, length=4)

    def reference(a):
        ys = []
        for _ in range(4):
            s = a.reshape(shape[0], -1, *a.shape[1:]).sum(0)
            a = a * 0.5 + np.tile(s, (shape[0], 1)) / 16
            ys.append(a.sum())
        return a, np.array(ys, np.float32)

    want_c, want_ys = reference(A)
    for f in _both(jax.shard_map(body, mesh=mesh, in_specs=P("x", "y"), out_specs=(P("x", "y"), P()))):
        c, ys = f(A)
        np.testing.assert_allclose(np.asarray(c), want_c, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(ys), want_ys, rtol=1e-5)


def test_reverse_scan_with_xs_and_ppermute():
    mesh = _mesh((8, 1))
    ring = [(i, (i + 1) % 8) for i in range(8)]

    def body(a, xs):
        def step(c, x):
            c = lax.ppermute(c, "x", ring) + x
            return c, c
        return lax.scan(step, a, xs, reverse=True)

    xs = np.arange(3 * 8 * 8, dtype=np.float32).reshape(3, 8, 8)
    c, a = A.copy(), []
    ys = [None] * 3
    for i in (2, 1, 0):
        c = np.roll(c, 1, axis=0) + xs[i]
        ys[i] = c
    for f in _both(jax.shard_map(body, mesh=mesh, in_specs=(P("x"), P(None, "x")), out_specs=(P("x"), P(None, "x")))):
        got_c, got_ys = f(A, xs)
        np.testing.assert_allclose(np.asarray(got_c), c, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(got_ys), np.stack(ys), rtol=1e-6)


def test_fori_loop_with_all_gather():
    mesh = _mesh((4, 2))

    def body(a):
        def step(i, c):
            full = lax.all_gather(c, "x", tiled=True)  # (8, 4): every row
            return c + full.mean(0, keepdims=True) * i
        return lax.fori_loop(0, 3, step, a)

    want = A.copy()
    for i in range(3):
        want = want + want.mean(0, keepdims=True) * i
    for f in _both(jax.shard_map(body, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))):
        np.testing.assert_allclose(np.asarray(f(A)), want, rtol=1e-5)


def test_while_loop_with_invariant_predicate():
    # A global stopping test: iterate until the total over all devices passes 100.
    mesh = _mesh((4, 2))

    def body(a):
        def cond(c):
            return lax.psum(c[1].sum(), ("x", "y")) < 100.0

        def step(c):
            return c[0] + 1, c[1] * 1.5 + lax.pmax(c[1], "x") * 0.0
        return lax.while_loop(cond, step, (0, a))

    want, n = A.copy(), 0
    while want.sum() < 100.0:
        want, n = want * 1.5, n + 1
    for f in _both(jax.shard_map(body, mesh=mesh, in_specs=P("x", "y"), out_specs=(P(), P("x", "y")))):
        count, got = f(A)
        assert int(count) == n
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


@pytest.mark.parametrize("threshold", [0.0, 1e9])
def test_cond_with_invariant_predicate(threshold):
    mesh = _mesh((4, 2))

    def body(a):
        total = lax.psum(a.sum(), ("x", "y"))
        return lax.cond(total > threshold,
                        lambda v: lax.pcast(lax.psum(v, "y"), "y", to="varying"),
                        lambda v: v * 2, a)

    halves = A.reshape(8, 2, 4)
    want = np.tile(halves.sum(1), (1, 2)) if A.sum() > threshold else A * 2
    for f in _both(jax.shard_map(body, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))):
        np.testing.assert_allclose(np.asarray(f(A)), want, rtol=1e-6)


def test_varying_predicate_without_collectives_runs_per_device():
    mesh = _mesh((8, 1))

    def body(a):
        return lax.cond(a.sum() > 3.0, lambda v: v - 1, lambda v: v + 1, a)

    rows = A.sum(1, keepdims=True)
    want = np.where(rows > 3.0, A - 1, A + 1)
    np.testing.assert_allclose(np.asarray(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(A)), want)

    def indexed(a):  # a branch reading the device's coordinate still runs on that device alone
        return lax.cond(a.sum() > 3.0, lambda v: v + lax.axis_index("x").astype(jnp.float32), lambda v: v, a)

    want = np.where(rows > 3.0, A + np.arange(8, dtype=np.float32)[:, None], A)
    for f in _both(jax.shard_map(indexed, mesh=mesh, in_specs=P("x"), out_specs=P("x"))):
        np.testing.assert_allclose(np.asarray(f(A)), want)


def test_varying_predicate_with_collectives_is_refused():
    mesh = _mesh((8, 1))

    def cond_body(a):
        return lax.cond(a.sum() > 3.0, lambda v: lax.pcast(lax.psum(v, "x"), "x", to="varying"),
                        lambda v: v, a)

    def while_body(a):
        return lax.while_loop(lambda c: c.sum() < 10.0, lambda c: c + lax.psum(c, "x"), a)

    for body, what in [(cond_body, "a cond"), (while_body, "a while_loop")]:
        f = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
        with pytest.raises(ValueError, match=f"shard_map: {what} whose body holds collectives has a predicate "
                                             r"that may differ between devices \(its type is .*\{V:x\}\)"):
            f(A)


def test_unchecked_predicates_compared_at_run_time():
    mesh = _mesh((8, 1))

    def body(a, limit):
        return lax.while_loop(lambda c: c.sum() < limit[0], lambda c: c + lax.psum(c, "x"), a)

    f = jax.shard_map(body, mesh=mesh, in_specs=(P("x"), P()), out_specs=P("x"), check_vma=False)
    ones = np.ones((8, 2), np.float32)
    want = ones.copy()
    while want[0].sum() < 50.0:
        want = want + want.sum(0)
    np.testing.assert_allclose(np.asarray(f(ones, np.float32([50.0]))), want)
    with pytest.raises(ValueError, match="got different predicates on different devices"):
        f(A, np.float32([1.0]))


def test_vmap_of_while_with_collectives_keeps_finished_lanes():
    mesh = _mesh((8, 1))

    def body(a, limits):
        def one(limit):
            return lax.while_loop(lambda c: lax.psum(c, "x") < limit, lambda c: c + 1.0, jnp.float32(0.0))
        return jax.vmap(one)(limits)

    f = jax.shard_map(body, mesh=mesh, in_specs=(P("x"), P()), out_specs=P(), check_vma=False)
    got = np.asarray(f(A, np.float32([8.0, 20.0, 1.0])))
    np.testing.assert_allclose(got, [1.0, 3.0, 1.0])
