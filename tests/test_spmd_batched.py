"""Vmapped control flow over Explicit-sharded batches in jit runs per device
(issue 22): a `while_loop` whose predicate is batched keeps the devices in
lockstep (each ORs its own lanes, a `pmax` ORs the devices) while each
device masks its own lanes; a vmapped `cond` is a select of both branches,
per device. Every test watches the runtime's per-device buffers
(spmd.watch_buffers): computed on the assembled value, a jitted call makes
none, and none may have a global operand's shape."""

from __future__ import annotations

import json
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

GOLDEN = Path(__file__).resolve().parent / "golden"
M, N = 16, 32


@pytest.fixture(autouse=True)
def strict():
    # A partitioning failure raises here rather than falling back to the global path.
    spmd_jit.STRICT[0] = True
    yield
    spmd_jit.STRICT[0] = False


def _per_device(f, *args, forbidden):
    seen: list = []
    with spmd.watch_buffers(lambda device, buffer: seen.append(np.shape(buffer))):
        out = f(*args)
    assert seen, "the jitted call did not run per device"
    assert not set(seen) & set(forbidden), sorted(set(seen) & set(forbidden))
    return out


def _grow(v):
    return lax.while_loop(lambda c: c.sum() < 40.0, lambda c: c * 1.5 + 0.25, v)


def _lane_counter(v):
    return lax.while_loop(lambda c: c[1].sum() < 40.0, lambda c: (c[0] + 1.0, c[1] * 1.5 + 0.25), (v.sum() * 0, v))


def _inputs():
    rng = np.random.default_rng(1)
    # Rows scaled apart so that the lanes stop after different numbers of steps.
    rows = np.abs(rng.standard_normal((M, N))).astype(np.float32) / 8
    return rows * np.geomspace(0.05, 4.0, M, dtype=np.float32)[:, None]


CASES = [  # (mesh shape, spec of the (M, N) batch, function)
    ((4, 2), ("x", "y"), _grow), ((2, 4), ("x", None), _grow), ((4, 2), ("y", "x"), _grow),
    ((8, 1), ("x", "y"), _lane_counter), ((2, 4), ("y", "x"), _lane_counter), ((4, 2), (("x", "y"), None), _grow),
]


@pytest.mark.parametrize("shape,spec,fn", CASES, ids=[f"{s}-{p}-{f.__name__}" for s, p, f in CASES])
def test_a_vmapped_while_runs_per_device_and_equals_the_unsharded_loop(shape, spec, fn):
    mesh = jax.make_mesh(shape, ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    rows = _inputs()
    want = jax.jit(jax.vmap(fn))(rows)
    counts = jax.jit(jax.vmap(lambda v: _lane_counter(v)[0]))(rows)
    assert len(set(np.asarray(counts).tolist())) > 2  # (the lanes finish apart: the masking is exercised)
    a = jax.device_put(rows, NamedSharding(mesh, P(*spec)))
    got = _per_device(jax.jit(jax.vmap(fn)), a, forbidden=((M, N), (M,)))
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    assert jax.typeof(jax.tree.leaves(got)[-1]).sharding.spec == a.sharding.spec


def test_lanes_split_over_the_devices_with_a_contraction_in_the_body():
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    rows = _inputs()
    w = (np.random.default_rng(2).standard_normal((N, N)) / N).astype(np.float32)

    def f(out):
        return lambda v, wm: lax.while_loop(lambda c: jnp.abs(c).sum() < 30.0,
                                            lambda c: c * 1.25 + jnp.dot(c, wm, out_sharding=out) * 0.1 + 0.1, v)

    want = jax.jit(jax.vmap(f(None), in_axes=(0, None)))(rows, w)
    ws = jax.device_put(w, NamedSharding(mesh, P("y", None)))
    a = jax.device_put(rows, NamedSharding(mesh, P("x", "y")))
    got = _per_device(jax.jit(jax.vmap(f(NamedSharding(mesh, P("y"))), in_axes=(0, None))), a, ws,
                      forbidden=((M, N), (N, N)))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    assert str(jax.typeof(got)) == "float32[16@x,32@y]"


def test_the_per_device_loop_votes_with_a_pmax_and_masks_its_lanes():
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    a = jax.device_put(_inputs(), NamedSharding(mesh, P("x", "y")))
    text = jax.jit(jax.vmap(_grow)).lower(a).compile().as_text()
    cond_part = text[text.index("cond_jaxpr="):]
    body_part = text[text.index("body_jaxpr="):text.index("cond_jaxpr=")]
    # The predicate: this device's rows summed (a psum over 'y'), its lanes
    # ORed, then the devices' votes ORed with a pmax over 'x': one scalar.
    assert "reduce_or" in cond_part and "pmax[axes=('x',)" in cond_part, text
    assert "select_n" in body_part, text


def _golden(kind):
    data = json.loads((GOLDEN / "spmd_batched.json").read_text())["programs"]
    return sorted(name for name, p in data.items() if p["kind"] == kind)


def _run_golden(name):
    sys.path.insert(0, str(GOLDEN))
    try:
        import programs_core
        import programs_spmd_batched
    finally:
        sys.path.remove(str(GOLDEN))
    program = next(p for p in programs_spmd_batched.PROGRAMS if p.name == name)
    expected = json.loads((GOLDEN / "spmd_batched.json").read_text())["programs"][name]
    # (An unbatched counter broadcast by vmap outside the loop is replicated
    # in JAX too: every device holds its (8,).)
    rows = () if "unbatched_counter" in name else ((8,),)
    actual = _per_device(lambda: programs_core.run_program(program, jax, jnp, lax),
                         forbidden=((8, 16), (2, 4, 16), (16, 16), (8, 4)) + rows)
    return actual, expected


@pytest.mark.parametrize("name", _golden("value"))
def test_golden_vmapped_control_flow_runs_per_device_and_equals_jax(name):
    actual, expected = _run_golden(name)
    assert actual["kind"] == "value", actual
    assert (actual["shape"], actual["dtype"], actual["weak_type"]) == (expected["shape"], expected["dtype"],
                                                                        expected["weak_type"])
    np.testing.assert_allclose(np.asarray(actual["value"], np.float64), np.asarray(expected["value"], np.float64),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", _golden("text"))
def test_golden_vmapped_control_flow_types_and_shards_equal_jax(name):
    actual, expected = _run_golden(name)
    assert actual.get("text") == expected["text"], (actual, expected["text"])
