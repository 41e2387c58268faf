"""Large matmuls split across cores (backends/numpy/parallel/split.py): bitwise the
same as one np.matmul, used by the impl and by compiled code, and only for
products large enough."""

import functools

import numpy as np
import pytest
import threadpoolctl

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.parallel import split as split_lib


@pytest.fixture(autouse=True)
def pool_only(monkeypatch):
    # These check the pool's blocks; native/threads.py's runtime, which
    # calls NumPy's matmul loop on the same blocks, is checked against
    # them in test_native_threads.py.
    monkeypatch.setattr(split_lib, "_native_matmul", lambda *args: False)


@pytest.fixture
def two_workers(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    calls = []
    real = np.matmul

    def counting(*args, **kwargs):
        calls.append(kwargs.get("out") is not None)
        return real(*args, **kwargs)

    monkeypatch.setattr(split_lib.np, "matmul", counting)
    return calls


@pytest.mark.parametrize("shape_a,shape_b,transpose_b", [
    ((257, 300), (300, 129), False),   # odd row count: uneven blocks
    ((128, 784), (512, 784), True),    # a transposed operand (a view)
    ((3, 100, 400), (3, 400, 120), False),  # batch split
    ((1, 300, 300), (1, 300, 300), False),  # batch of one: rows split
    ((128, 784), (784, 512), False),   # more columns than rows: columns split
    ((128, 512), (513, 512), True),    # columns split, transposed operand, uneven blocks
    ((1, 64, 400), (1, 400, 400), False),  # batch of one, columns split
])
def test_split_is_bitwise_np_matmul(two_workers, shape_a, shape_b, transpose_b):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape_a).astype(np.float32)
    b = rng.standard_normal(shape_b).astype(np.float32)
    if transpose_b:
        b = b.T
    expected = np.matmul(a, b)
    two_workers.clear()
    out = split_lib.matmul(a, b)
    assert two_workers == [True, True]  # two blocks, each written into the output
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.complex128])
def test_split_of_random_products_is_bitwise_np_matmul(monkeypatch, dtype):
    # (Not float64: OpenBLAS's dgemm computes each block's first panel in
    # another order, and most of these products differ in a few last bits.)
    monkeypatch.setitem(split_lib._state, "workers", 2)
    rng = np.random.default_rng(7)
    differ = []
    with threadpoolctl.threadpool_limits(1, user_api="blas"):  # as inside pyjax's computations (blas.py)
        for _ in range(12):
            m, k, n = (int(v) for v in rng.integers([200, 1, 200], [520, 700, 1300]))
            a, b = rng.standard_normal((m, k)), rng.standard_normal((n, k) if rng.random() < 0.5 else (k, n))
            a, b = a.astype(dtype), (b.T if b.shape[0] == n else b).astype(dtype)
            if not np.array_equal(split_lib.matmul(a, b), np.matmul(a, b)):
                differ.append((m, k, n))
    assert differ == []


@pytest.mark.parametrize("shape_a,shape_b,blocks", [
    ((128, 784), (784, 512), [((128, 784), (784, 256))] * 2),  # the MLP's forward product: columns
    ((512, 128), (128, 512), [((256, 128), (128, 512))] * 2),  # square output: rows
    ((784, 128), (128, 512), [((392, 128), (128, 512))] * 2),  # more rows: rows
])
def test_split_cuts_the_wider_side(monkeypatch, shape_a, shape_b, blocks):
    # Each block copies the operand it does not cut whole: that must be the smaller one.
    monkeypatch.setitem(split_lib._state, "workers", 2)
    seen = []
    real = np.matmul

    def recording(x, y, **kwargs):
        seen.append((x.shape, y.shape))
        return real(x, y, **kwargs)

    monkeypatch.setattr(split_lib.np, "matmul", recording)
    a = np.ones(shape_a, np.float32)
    split_lib.matmul(a, np.ones(shape_b, np.float32))
    assert seen == blocks


@pytest.mark.parametrize("workers", [2, 3])
def test_no_block_falls_to_the_small_matrix_kernels(monkeypatch, workers):
    # OpenBLAS sums products of at most 1M multiply-adds in another order:
    # a block that small, of a product that is not, would change bits.
    monkeypatch.setitem(split_lib._state, "workers", workers)
    monkeypatch.setattr(split_lib, "MIN_FLOPS", 1)
    rng = np.random.default_rng(3)
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        for rows, k, cols in [(64, 100, 200), (96, 120, 100), (200, 40, 160), (40, 64, 500), (300, 30, 130)]:
            a = rng.standard_normal((rows, k)).astype(np.float32)
            b = rng.standard_normal((k, cols)).astype(np.float32)
            np.testing.assert_array_equal(split_lib.matmul(a, b), np.matmul(a, b), err_msg=str((rows, k, cols)))
    assert split_lib._blocks(64, 100 * 200, 2) == 1 and split_lib._blocks(600, 30 * 130, 3) == 2
    assert split_lib._blocks(10, 10, 3) == 3  # the whole is small: so are its blocks


def test_small_products_are_not_split(two_workers):
    a = np.ones((16, 16), np.float32)
    split_lib.matmul(a, a)
    assert two_workers == [False]


def test_no_split_when_blas_is_multithreaded(monkeypatch):
    split_lib.configure(None)
    try:
        assert not split_lib.worth_splitting(4096, 4096, 4096)
    finally:
        split_lib.configure(1)


def test_jit_and_eager_use_the_split(two_workers):
    rng = np.random.default_rng(1)
    a = jnp.asarray(rng.standard_normal((256, 512)).astype(np.float32))
    b = jnp.asarray(rng.standard_normal((512, 256)).astype(np.float32))
    expected = np.asarray(a) @ np.asarray(b)
    f = pyjax.jit(lambda a, b: a @ b)
    assert "split_matmul" in f.lower(a, b).as_text("python")
    np.testing.assert_array_equal(np.asarray(f(a, b)), expected)
    two_workers.clear()
    np.testing.assert_array_equal(np.asarray(lax.dot(a, b)), expected)
    assert two_workers == [True, True]


@pytest.mark.parametrize("ufunc,shapes", [
    (np.add, [(1024, 600), (1024, 600)]),
    (np.subtract, [(1024, 600), (1024, 1)]),     # a broadcast column
    (np.multiply, [(1024, 600), (600,)]),        # a broadcast row of lower rank
    (np.greater, [(1024, 600), ()]),             # a scalar; bool output
    (np.exp, [(2048, 300)]),
])
def test_split_ufunc_is_bitwise_the_ufunc(monkeypatch, ufunc, shapes):
    monkeypatch.setitem(split_lib._state, "workers", 3)  # uneven blocks
    rng = np.random.default_rng(2)
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    expected = ufunc(*args)
    split = split_lib.SplitUfunc(ufunc, expected.shape, expected.dtype)
    np.testing.assert_array_equal(split(*args), expected)
    if expected.dtype == args[0].dtype:  # in place, as compiled code reuses a dead buffer
        buffer = args[0].copy()
        np.testing.assert_array_equal(split(buffer, *args[1:], buffer), expected)


def test_split_ufunc_runs_whole_when_an_input_is_a_view_of_out(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    x = np.arange(1024 * 1024, dtype=np.float32).reshape(1024, 1024)
    expected = x + x.T
    buffer = x.copy()
    split = split_lib.SplitUfunc(np.add, x.shape, x.dtype)
    np.testing.assert_array_equal(split(buffer, buffer.T, buffer), expected)  # NumPy's own overlap handling


def test_compiled_code_splits_large_elementwise_ops(monkeypatch):
    # Op by op: with tiled regions on, this whole function is one region (tile.py).
    from pyjax._src.backends.numpy.parallel import tile as tile_lib

    monkeypatch.setitem(split_lib._state, "workers", 2)
    monkeypatch.setattr(tile_lib, "MIN_ELEMENTS", 1 << 62)
    x = jnp.asarray(np.random.default_rng(3).standard_normal((1024, 1024)).astype(np.float32))
    f = pyjax.jit(lambda x: jnp.exp(x - jnp.max(x, axis=1, keepdims=True)) + x)
    assert "split_exp" in f.lower(x).as_text("python")
    xn = np.asarray(x)
    np.testing.assert_array_equal(np.asarray(f(x)), np.exp(xn - xn.max(1, keepdims=True)) + xn)
    assert "split_add" not in f.lower(x).as_text("python")  # memory-bound: runs whole
    small = pyjax.jit(lambda x: jnp.exp(x) + x).lower(x[:8]).as_text("python")
    assert "split_" not in small


def test_threefry_split_across_threads_gives_the_same_bits(monkeypatch):
    from pyjax._src.random import threefry

    counters = np.arange(3 * split_lib.MIN_RANGE + 7, dtype=np.uint32)
    monkeypatch.setitem(split_lib._state, "workers", 1)
    whole = threefry.threefry2x32_numpy(np.uint32(3), np.uint32(9), counters, counters[::-1])
    ranges = []
    real = split_lib.run_ranges

    def recording(fn, size):
        ranges.append(size)
        return real(fn, size)

    monkeypatch.setitem(split_lib._state, "workers", 3)
    monkeypatch.setattr(threefry, "_run_ranges", [recording])
    split = threefry.threefry2x32_numpy(np.uint32(3), np.uint32(9), counters, counters[::-1])
    assert ranges == [counters.size]
    for a, b in zip(whole, split, strict=True):
        np.testing.assert_array_equal(a, b)


def test_fresh_product_splits_large_outer_products(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((256, 128, 1)).astype(np.float32)
    b = rng.standard_normal((256, 1, 64)).astype(np.float32)
    calls = []
    real = split_lib._run_blocks
    monkeypatch.setattr(split_lib, "_run_blocks", lambda fn, blocks: calls.append(len(blocks)) or real(fn, blocks))
    np.testing.assert_array_equal(split_lib.fresh_product(a, b), a * b)
    assert calls == [2]
    np.testing.assert_array_equal(split_lib.fresh_product(a[:4], b[:4]), a[:4] * b[:4])
    assert calls == [2]  # small: one call


def test_a_forked_child_gets_its_own_pool():
    import os

    a = np.ones((512, 512), np.float32)
    split_lib._state["workers"] = max(split_lib._state["workers"], 2)
    try:
        split_lib.matmul(a, a)  # the parent's pool exists now
        pid = os.fork()
        if pid == 0:  # the child: a split matmul must finish (the inherited pool has no threads)
            try:
                ok = np.array_equal(split_lib.matmul(a, a), a @ a)
            finally:
                os._exit(0 if ok else 1)
        import time

        deadline = time.monotonic() + 60
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if done[0] == 0:  # hung on the inherited pool
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise AssertionError("the forked child's split matmul never finished")
        assert os.waitstatus_to_exitcode(done[1]) == 0
    finally:
        split_lib.configure(1)


@pytest.mark.parametrize("ufunc,axes,dtype", [
    (np.add, (2,), None), (np.maximum, (1, 2), None), (np.add, (1,), np.float32), (np.minimum, (2,), None),
])
def test_split_reduce_is_bitwise_the_reduction(monkeypatch, ufunc, axes, dtype):
    monkeypatch.setitem(split_lib._state, "workers", 3)
    x = np.random.default_rng(6).standard_normal((9, 512, 512)).astype(np.float32)
    np.testing.assert_array_equal(split_lib.reduce(ufunc, x, axes, dtype), ufunc.reduce(x, axis=axes, dtype=dtype))
    # The leading axis reduced, or a small array: one call.
    np.testing.assert_array_equal(split_lib.reduce(ufunc, x, (0,), dtype), ufunc.reduce(x, axis=(0,), dtype=dtype))


def test_memory_bound_ufuncs_split_only_when_large(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    assert split_lib.elementwise_worth_splitting(np.exp, (1024, 512))       # compute-bound, 512K elements
    assert not split_lib.elementwise_worth_splitting(np.add, (1024, 512))   # memory-bound: not yet
    assert split_lib.elementwise_worth_splitting(np.add, (2048, 1024))      # memory-bound, 2M elements


def test_a_call_the_pool_has_not_started_runs_on_the_calling_thread(monkeypatch):
    # On a busy machine the pool's thread may not get a core for a long time:
    # the calling thread, once free, takes the calls not yet started.
    import threading
    import time

    monkeypatch.setitem(split_lib._state, "workers", 2)
    monkeypatch.setitem(split_lib._state, "pool", None)  # a fresh pool of one thread
    pool = split_lib._pool()
    release = threading.Event()
    pool.submit(release.wait, 5.0)  # the pool's one thread is busy
    ran_on = {}
    start = time.perf_counter()
    try:
        split_lib.run_all([lambda: ran_on.setdefault("first", threading.get_ident()),
                           lambda: ran_on.setdefault("second", threading.get_ident())])
    finally:
        release.set()
        pool.shutdown(wait=True)
    assert ran_on == {"first": threading.get_ident(), "second": threading.get_ident()}
    assert time.perf_counter() - start < 4.0


def test_errors_of_calls_run_either_way_are_raised(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)

    def fail():
        raise ZeroDivisionError("block")

    for calls in ([lambda: None, fail], [fail, lambda: None]):
        with pytest.raises(ZeroDivisionError, match="block"):
            split_lib.run_all(calls)


def test_a_call_taken_back_from_the_pool_leaves_nothing_alive_there(monkeypatch):
    # The cancelled work item waits in the pool's queue until a worker is
    # free; it must not keep the block's arrays alive until then.
    import gc
    import threading
    import weakref

    monkeypatch.setitem(split_lib._state, "workers", 2)
    monkeypatch.setitem(split_lib._state, "pool", None)
    pool = split_lib._pool()
    release = threading.Event()
    pool.submit(release.wait, 5.0)
    block = np.ones(1000, np.float32)
    alive = weakref.ref(block)
    try:
        calls = [lambda: None, functools.partial(np.sin, block, out=block)]
        del block
        split_lib.run_all(calls)
        del calls
        gc.collect()
        assert alive() is None
    finally:
        release.set()
        pool.shutdown(wait=True)

