"""Typed control flow in sharded jit runs per device (issue 22 item 3):
`scan`, `while`, `cond`/`switch`, `fori_loop` and calls over Explicit-sharded
values are partitioned with their bodies (lax/spmd_control_rules.py), carries
keeping their placement and a while's predicate reduced as its type says.
Every test watches the runtime's per-device buffers (spmd.watch_buffers):
computed on the assembled value, a jitted call makes none, and none may have
a global array's shape."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import spmd_jit
from pyjax._src.backends.numpy.impls import spmd
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESHES = [(2, 4), (4, 2), (8, 1)]
GOLDEN = Path(__file__).resolve().parent / "golden"
T, M, N = 3, 16, 32  # scan length and the operands' global shape


@pytest.fixture(autouse=True)
def strict():
    # A partitioning failure raises here rather than falling back to the global path.
    spmd_jit.STRICT[0] = True
    yield
    spmd_jit.STRICT[0] = False


def _mesh(shape):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(AxisType.Explicit,) * 2)


def _per_device(f, *args, forbidden=((M, N), (T, M, N), (N, N))):
    """f(*args), checking that it ran per device and that no device made a
    buffer of a global operand's shape."""
    seen: list = []
    with spmd.watch_buffers(lambda device, buffer: seen.append(np.shape(buffer))):
        out = f(*args)
    assert seen, "the jitted call did not run per device"
    assert not set(seen) & set(forbidden), sorted(set(seen) & set(forbidden))
    return out


def _programs(ns):
    """name -> f(a, xs, w): a is (M, N) split ('x', 'y'), xs (T, M, N) split
    (None, 'x', 'y'), w (N, N) split ('y', None). `ns(*spec)` is the sharding
    to name (None when run unsharded)."""

    def dot(p, q, *out):
        return lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=ns(*out))

    def scan_ys(a, xs, w):
        return lax.scan(lambda c, x: (c * 0.9 + x, (c * x).sum(axis=1)), a, xs)

    def scan_scalar_carry(a, xs, w):
        return lax.scan(lambda c, x: (c + x.sum(), x * c), jnp.float32(0), xs)

    def rnn(a, xs, w):
        return lax.scan(lambda h, x: (jnp.tanh(dot(h, w, "x", "y") + x), jnp.max(h, axis=0)), a, xs)

    def while_sum(a, xs, w):
        return lax.while_loop(lambda c: c[1].sum() < 600.0, lambda c: (c[0] + 1, c[1] * 1.5 + 0.25), (0, a))

    def while_max(a, xs, w):
        return lax.while_loop(lambda v: jnp.max(v) < 10.0, lambda v: v * 1.25 + dot(v, w, "x", "y") * 0.1 + 0.5, a)

    def cond_both(a, xs, w):
        f = lambda v: lax.cond(v.sum() > 0, lambda u: u * 2, lambda u: jnp.sin(u) - 1, v)  # noqa: E731
        return f(a), f(a - 5.0)

    def switch3(a, xs, w):
        branches = [lambda v: v * 3.0, lambda v: dot(v, w, "x", "y"), lambda v: jnp.cos(v) - 1.0]
        return [lax.switch(i, branches, a) for i in (0, 1, 2, 7)]

    def fori(a, xs, w):
        return lax.fori_loop(0, 3, lambda i, v: jnp.sin(v) + i, a)

    def fori_traced(a, xs, w):
        return lax.fori_loop(0, jnp.int32(4), lambda i, v: v * 0.5 + v.sum(axis=0), a)

    def cond_in_scan(a, xs, w):
        body = lambda c, x: (lax.cond(x.sum() > 0, lambda u: u + x, lambda u: u * 0.5, c), None)  # noqa: E731
        return lax.scan(body, a, xs)[0]

    def calls_in_loop(a, xs, w):
        inner = jax.jit(lambda v: jnp.cos(v) * 2.0)
        return lax.scan(lambda c, x: (inner(c) + x, None), a, xs)[0]

    def grad_scan(a, xs, w):
        def loss(k):
            h, hs = lax.scan(lambda c, x: (jnp.tanh(c * k + x), (c * k).sum(axis=1)), a, xs)
            return (h * h).sum() + hs.sum()

        return jax.grad(loss)(a * 0.5)

    return {f.__name__: f for f in (scan_ys, scan_scalar_carry, rnn, while_sum, while_max, cond_both, switch3,
                                    fori, fori_traced, cond_in_scan, calls_in_loop, grad_scan)}


NAMES = sorted(_programs(lambda *s: None))


def _inputs():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((M, N)).astype(np.float32) * 0.5,
            rng.standard_normal((T, M, N)).astype(np.float32) * 0.25,
            rng.standard_normal((N, N)).astype(np.float32) / np.sqrt(N))


@pytest.mark.parametrize("shape", MESHES)
@pytest.mark.parametrize("name", NAMES)
def test_control_flow_runs_per_device_and_equals_the_unsharded_computation(name, shape):
    mesh = _mesh(shape)
    A, XS, W = _inputs()
    want = jax.jit(_programs(lambda *s: None)[name])(A, XS, W)
    put = lambda v, *spec: jax.device_put(v, NamedSharding(mesh, P(*spec)))  # noqa: E731
    f = jax.jit(_programs(lambda *spec: NamedSharding(mesh, P(*spec)))[name])
    # (grad_scan's transposed scan carries a cotangent typed replicated,
    # f32[16,32], as JAX types it too: every device holds that one whole.)
    forbidden = ((T, M, N), (N, N)) if name == "grad_scan" else ((M, N), (T, M, N), (N, N))
    got = _per_device(f, put(A, "x", "y"), put(XS, None, "x", "y"), put(W, "y", None), forbidden=forbidden)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_a_carry_keeps_its_placement_and_ys_follow_the_body():
    mesh = _mesh((4, 2))
    A, XS, W = _inputs()
    put = lambda v, *spec: jax.device_put(v, NamedSharding(mesh, P(*spec)))  # noqa: E731
    f = jax.jit(_programs(lambda *spec: NamedSharding(mesh, P(*spec)))["scan_ys"])
    c, ys = _per_device(f, put(A, "x", "y"), put(XS, None, "x", "y"), put(W, "y", None))
    assert str(jax.typeof(c)) == "float32[16@x,32@y]" and str(jax.typeof(ys)) == "float32[3,16@x]"
    assert {s.data.shape for s in c.addressable_shards} == {(4, 16)}
    assert {s.data.shape for s in ys.addressable_shards} == {(3, 4)}


def test_the_per_device_program_holds_partitioned_bodies():
    mesh = _mesh((4, 2))
    A, XS, W = _inputs()
    put = lambda v, *spec: jax.device_put(v, NamedSharding(mesh, P(*spec)))  # noqa: E731
    programs = _programs(lambda *spec: NamedSharding(mesh, P(*spec)))
    args = (put(A, "x", "y"), put(XS, None, "x", "y"), put(W, "y", None))
    text = jax.jit(programs["scan_ys"]).lower(*args).compile().as_text()
    # The scan steps through the device's (3, 4, 16) block one (4, 16) slice at a time.
    assert re.search(r"lambda ; \w+:f32\[4,16\] \w+:f32\[3,4,16\] \w+:f32\[16,32\]\. let", text), text
    assert re.search(r"jaxpr=\{ lambda ; \w+:f32\[4,16\] \w+:f32\[4,16\]\. let", text), text
    assert "psum[axes=('y',)" in text
    text = jax.jit(programs["while_sum"]).lower(*args).compile().as_text()
    # The predicate's sum over the split carry is psum'ed inside cond_jaxpr: every device agrees.
    cond_part = text[text.index("cond_jaxpr="):]
    assert re.search(r"psum\[axes=\('x', 'y'\)", cond_part), text
    text = jax.jit(programs["cond_both"]).lower(*args).compile().as_text()
    assert re.search(r"lambda ; \w+:f32\[4,16\]\. let", text) and "cond[" in text, text


def _golden(kind):
    data = json.loads((GOLDEN / "spmd_control.json").read_text())["programs"]
    return sorted(name for name, p in data.items() if p["kind"] == kind)


def _run_golden(name):
    sys.path.insert(0, str(GOLDEN))
    try:
        import programs_core
        import programs_spmd_control
    finally:
        sys.path.remove(str(GOLDEN))
    program = next(p for p in programs_spmd_control.PROGRAMS if p.name == name)
    expected = json.loads((GOLDEN / "spmd_control.json").read_text())["programs"][name]
    # (A gradient's transposed scan carries a cotangent typed replicated, as
    # JAX types it too: every device holds that one whole.)
    forbidden = ((3, 8, 16), (16, 16)) + (() if name.startswith("grad") else ((8, 16),))
    actual = _per_device(lambda: programs_core.run_program(program, jax, jnp, lax), forbidden=forbidden)
    return actual, expected


@pytest.mark.parametrize("name", _golden("value"))
def test_golden_control_flow_runs_per_device_and_equals_jax(name):
    actual, expected = _run_golden(name)
    assert actual["kind"] == "value", actual
    assert (actual["shape"], actual["dtype"], actual["weak_type"]) == (expected["shape"], expected["dtype"],
                                                                        expected["weak_type"])
    np.testing.assert_allclose(np.asarray(actual["value"], np.float64), np.asarray(expected["value"], np.float64),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", _golden("text"))
def test_golden_control_flow_types_and_shards_equal_jax(name):
    actual, expected = _run_golden(name)
    assert actual == {k: v for k, v in expected.items() if k != "source"} | {"kind": "text"} or \
        actual.get("text") == expected["text"], (actual, expected["text"])
