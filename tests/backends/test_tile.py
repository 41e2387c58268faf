"""Tiled regions (backends/numpy/parallel/tile.py): runs of equations over a shared
leading axis compiled into one block-by-block call, bitwise the same as
the equation-by-equation program, and only where every equation keeps the
leading axis."""

import math
import threading
import time

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.backends.numpy.parallel import tile as tile_lib
from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr
from pyjax._src.backends.numpy.impls import IMPLS


@pytest.fixture
def tiling(monkeypatch):
    """Two workers and small regions tiled, with blocks of a few rows."""
    monkeypatch.setitem(split_lib._state, "workers", 2)
    monkeypatch.setattr(tile_lib, "MIN_ELEMENTS", 64)
    monkeypatch.setattr(tile_lib, "BLOCK_BYTES", 256)
    monkeypatch.setattr(tile_lib, "PRODUCT_BLOCK_BYTES", 256)


def _compile(fn, *args):
    closed = pyjax.make_jaxpr(fn)(*args)
    return compile_jaxpr(closed, IMPLS), closed


def _untiled(fn, *args):
    # The reference: the same jaxpr compiled with tiling off.
    closed = pyjax.make_jaxpr(fn)(*args)
    before = tile_lib.MIN_ELEMENTS
    tile_lib.MIN_ELEMENTS = 1 << 62
    try:
        return compile_jaxpr(closed, IMPLS)(*[np.asarray(a) for a in args])
    finally:
        tile_lib.MIN_ELEMENTS = before


def _assert_bitwise(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        a, e = np.asarray(a), np.asarray(e)
        assert a.dtype == e.dtype and a.shape == e.shape
        assert a.tobytes() == e.tobytes()


def _attention(q, k, v):
    def head(q, k, v):
        s = (q @ k.T) / math.sqrt(q.shape[-1])
        s = s - jnp.max(s, axis=-1, keepdims=True)
        e = jnp.exp(s)
        return (e / jnp.sum(e, axis=-1, keepdims=True)) @ v

    return pyjax.vmap(head)(q, k, v)


def test_attention_is_one_region_and_bitwise_the_same(tiling):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((5, 16, 8)).astype(np.float32) for _ in range(3))
    compiled, _ = _compile(_attention, q, k, v)
    body = [line.strip() for line in compiled.source.splitlines()[1:]]
    assert body[0].startswith("d, = _tiled_region_"), compiled.source
    assert not any("dot_general" in line or "exp" in line for line in body)
    _assert_bitwise(compiled(q, k, v), _untiled(_attention, q, k, v))
    # and through jit, against the reference computation in NumPy
    out = pyjax.jit(_attention)(q, k, v)
    s = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(8))
    e = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(out, (e / e.sum(-1, keepdims=True)) @ v, rtol=1e-5, atol=1e-6)


def _newton(a):
    def body(c):
        i, y, _ = c
        yn = 0.5 * (y + a / y)
        return i + 1, yn, jnp.max(jnp.abs(yn - y) / yn)

    return lax.while_loop(lambda c: (c[0] < 50) & (c[2] > 1e-6), body, (jnp.int32(0), a, jnp.float32(np.inf)))


def test_while_body_tiles_with_a_partial_max_and_hoists_the_counter(tiling):
    a = np.random.default_rng(1).uniform(0.5, 100.0, 1000).astype(np.float32)
    compiled, _ = _compile(_newton, a)
    lines = [line.strip() for line in compiled.source.splitlines()]
    region = [line for line in lines if "_tiled_region_" in line]
    assert len(region) == 1 and region[0].count(",") >= 2, compiled.source  # yn and the max come out of it
    counter = next(i for i, line in enumerate(lines) if "_np_add_" in line and "_lit" in line)
    assert counter < lines.index(region[0])  # the scalar `i + 1` runs before the region
    result = compiled(a)
    _assert_bitwise(result, _untiled(_newton, a))
    assert int(result[0]) > 3


def test_a_partial_max_propagates_nan_from_any_block(tiling):
    def f(x):
        return jnp.max(jnp.abs(x * 2.0 - 1.0))

    for where in (0, 500, 999):
        x = np.linspace(-1, 1, 1000, dtype=np.float32)
        x[where] = np.nan
        compiled, _ = _compile(f, x)
        assert "_tiled_region_" in compiled.source
        assert np.isnan(compiled(x)[0])


def test_a_sum_over_the_leading_axis_is_not_tiled(tiling):
    # Summation order would change; only the elementwise part is tiled.
    def f(x):
        return jnp.sum(jnp.tanh(x) * 3.0, axis=0)

    x = np.random.default_rng(2).standard_normal((64, 8)).astype(np.float32)
    compiled, _ = _compile(f, x)
    lines = [line.strip() for line in compiled.source.splitlines()]
    region = next(i for i, line in enumerate(lines) if "_tiled_region_" in line)
    reduce_sum = next(i for i, line in enumerate(lines) if "_reduce_sum_" in line)
    assert reduce_sum > region
    _assert_bitwise(compiled(x), _untiled(f, x))


def test_an_operand_of_leading_size_one_is_broadcast_to_every_block(tiling):
    def f(x, row):
        return lax.sub(x, row) * 2.0  # row: (1, 8), lax broadcasts its size-1 axis

    x = np.random.default_rng(3).standard_normal((40, 8)).astype(np.float32)
    row = np.arange(8, dtype=np.float32)[None]
    compiled, _ = _compile(f, x, row)
    assert "_tiled_region_" in compiled.source
    _assert_bitwise(compiled(x, row), _untiled(f, x, row))


def test_effects_and_leading_axis_changes_end_a_region(tiling):
    def f(x):
        y = jnp.sin(x) + 1.0
        pyjax.debug.print("{}", y[0, 0])
        return jnp.cos(y).T * 2.0  # a transpose moving the leading axis

    x = np.random.default_rng(4).standard_normal((32, 6)).astype(np.float32)
    closed = pyjax.make_jaxpr(f)(x)
    items = tile_lib.plan(closed.jaxpr)
    assert items is not None
    for item in items:
        if isinstance(item, tile_lib.Region):
            names = [e.primitive.name for e in item.eqns]
            assert "debug_callback" not in names and "transpose" not in names


def test_one_core_compiles_no_region(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 1)
    monkeypatch.setattr(tile_lib, "MIN_ELEMENTS", 1)
    x = np.ones((32, 4), np.float32)
    compiled, _ = _compile(lambda x: jnp.exp(x) * 2.0 + 1.0, x)
    assert "_tiled_region_" not in compiled.source


def test_small_programs_are_left_alone(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    x = np.ones((32, 4), np.float32)  # far below MIN_ELEMENTS
    compiled, _ = _compile(lambda x: jnp.exp(x) * 2.0 + 1.0, x)
    assert "_tiled_region_" not in compiled.source


def test_blocks_never_split_again(tiling, monkeypatch):
    # Inside a block the split helpers see one worker (a pool thread waiting
    # on the pool would deadlock); outside, two.
    seen, handoffs = [], []
    real_compile, real_run_all = tile_lib.compile_region, split_lib.run_all

    def spy_compile(*args):
        runner = real_compile(*args)
        for n, (program, written) in runner.programs.items():
            runner.programs[n] = (lambda *a, program=program: seen.append(split_lib.num_workers()) or program(*a),
                                  written)
        return runner

    monkeypatch.setattr(tile_lib, "compile_region", spy_compile)
    monkeypatch.setattr(split_lib, "run_all", lambda calls: handoffs.append(len(calls)) or real_run_all(calls))
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((4, 16, 8)).astype(np.float32) for _ in range(3))
    compiled, _ = _compile(_attention, q, k, v)
    compiled(q, k, v)
    assert len(seen) == 4 and set(seen) == {1}  # (one block a head)
    assert handoffs == [2]  # the region's own: its blocks hand nothing off again
    assert split_lib.num_workers() == 2


def _regions(monkeypatch):
    # The runners compile_region makes, as they are made.
    made = []
    real = tile_lib.compile_region
    monkeypatch.setattr(tile_lib, "compile_region", lambda *args: made.append(real(*args)) or made[-1])
    return made


def test_a_region_with_products_has_smaller_blocks(tiling, monkeypatch):
    # Attention's blocks are one head (its 16x16 scores: 1 KB) under
    # PRODUCT_BLOCK_BYTES; an elementwise region with rows as large keeps
    # BLOCK_BYTES's blocks of four.
    monkeypatch.setattr(tile_lib, "PRODUCT_BLOCK_BYTES", 1024)
    monkeypatch.setattr(tile_lib, "BLOCK_BYTES", 4096)
    made = _regions(monkeypatch)
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal((8, 16, 8)).astype(np.float32) for _ in range(3))
    compiled, _ = _compile(_attention, q, k, v)
    x = rng.standard_normal((8, 16, 16)).astype(np.float32)
    elementwise, _ = _compile(lambda x: jnp.exp(x * 2.0) + x, x)
    assert [r.blocks for r in made] == [[(i, i + 1) for i in range(8)], [(0, 4), (4, 8)]]
    # the last product writes each head straight into the result (no copy)
    assert made[0].programs[1][1] == {0}
    _assert_bitwise(compiled(q, k, v), _untiled(_attention, q, k, v))
    _assert_bitwise(elementwise(x), _untiled(lambda x: jnp.exp(x * 2.0) + x, x))


def test_a_core_left_waiting_takes_the_blocks_the_other_has_not_reached(tiling, monkeypatch):
    # Blocks are claimed one at a time: while the pool's thread is held up
    # (here: each of its blocks sleeps), the calling thread runs the rest,
    # where a fixed half each would leave it waiting for four blocks.
    made = _regions(monkeypatch)
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((8, 16, 8)).astype(np.float32) for _ in range(3))
    compiled, _ = _compile(_attention, q, k, v)
    (runner,) = made
    assert len(runner.blocks) == 8
    caller, ran, pool_started = threading.get_ident(), [], threading.Event()

    def slow_on_the_pool(program):
        def run(*args):
            ran.append(threading.get_ident() == caller)
            if ran[-1]:
                pool_started.wait(5)  # (the pool has a block in hand before the caller goes on)
            else:
                pool_started.set()
                time.sleep(0.2)
            return program(*args)
        return run

    runner.programs = {n: (slow_on_the_pool(p), w) for n, (p, w) in runner.programs.items()}
    got = compiled(q, k, v)
    assert len(ran) == 8 and sum(ran) >= 7
    _assert_bitwise(got, _untiled(_attention, q, k, v))


def test_looking_for_regions_is_linear_in_the_program(monkeypatch):
    # A long run too small to tile is scanned once, not from every start
    # (a 1500-equation chain took 13 s to compile when it was).
    monkeypatch.setitem(split_lib._state, "workers", 2)
    calls = []
    real = tile_lib._roles
    monkeypatch.setattr(tile_lib, "_roles", lambda *a: calls.append(1) or real(*a))

    def f(big, x):
        y = big * 2.0 + 1.0
        for _ in range(300):
            x = jnp.sin(x) * 1.01
        return y, x

    closed = pyjax.make_jaxpr(f)(np.ones(1 << 20, np.float32), np.ones((8, 10), np.float32))
    assert tile_lib.plan(closed.jaxpr) is not None  # the big product and sum are a region
    assert len(calls) < 3 * len(closed.jaxpr.eqns), len(calls)
