"""The parallel for-loop of native code (backends/numpy/native/threads.py):
chunks of one call shared among the calling thread and the runtime's
workers, each chunk once, in the caller's floating-point mode; row loops
(rows.py) share their rows outside tiled blocks and give the Python
code's bits."""

from __future__ import annotations

import ctypes
import gc
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy import fpenv, native
from pyjax._src.backends.numpy.native import rows as rows_lib
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import threads

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

_TASK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int)
_FOR = ctypes.CFUNCTYPE(None, _TASK, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


def runtime():
    address = threads.address()
    if not address:
        pytest.skip("one core here: native calls run on one thread")
    return _FOR(address)


def test_every_chunk_runs_once_and_workers_take_chunks_in_the_callers_fp_mode():
    parallel_for = runtime()
    seen, flushed = [], []
    lock = threading.Lock()
    worker_ran = threading.Event()

    def task(ctx, lo, hi, slot):
        # A denormal product flushes to zero only in the caller's (fpenv's) mode.
        product = np.multiply(np.float32(1e-30), np.float32(1e-10))
        with lock:
            seen.append((lo, hi, slot))
            flushed.append(product == 0)
        if slot:
            worker_ran.set()
        else:
            worker_ran.wait(0.5)  # (the caller leaves the worker time to wake)

    callback = _TASK(task)
    for _ in range(10):
        fpenv.run(parallel_for, callback, None, 1000, 7)
        if worker_ran.is_set():
            break
    assert worker_ran.is_set(), "no worker ran a chunk in ten jobs"
    last = [s for s in seen if s[0] == 0][-1]
    job = seen[seen.index(last):]
    assert sorted((lo, hi) for lo, hi, _ in job) == [(lo, min(lo + 7, 1000)) for lo in range(0, 1000, 7)]
    assert {slot for *_, slot in job} <= set(range(threads.slots()))
    assert all(flushed)
    assert threads.worker_chunks() > 0


def test_a_call_from_inside_a_job_runs_on_its_own_thread():
    parallel_for = runtime()
    inner = []

    def inner_task(ctx, lo, hi, slot):
        inner.append((lo, hi, slot, threading.get_ident()))

    inner_callback = _TASK(inner_task)
    outer_threads = []

    def outer_task(ctx, lo, hi, slot):
        outer_threads.append(threading.get_ident())
        parallel_for(inner_callback, None, 10, 1)

    parallel_for(_TASK(outer_task), None, 3, 1)
    # Each inner job ran whole, in one call, on the thread that called it, as slot 0.
    assert [(lo, hi, slot) for lo, hi, slot, _ in inner] == [(0, 10, 0)] * 3
    assert {t for *_, t in inner} <= set(outer_threads)


@pytest.fixture
def eager_tier(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)  # build at the first call; it is the checked one


def _row_loops():
    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop) and o.kind == "row loop"]


@pytest.mark.parametrize("shape", [(4, 64, 512), (1001, 96), (3, 75, 300)])
def test_row_loops_share_their_rows_with_the_python_codes_bits(shape, eager_tier, monkeypatch):
    runtime()
    held = _row_loops()
    before = {id(o) for o in held}
    x = jnp.asarray(np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32) * 3)
    f = pyjax.jit(lambda x: (pyjax.nn.softmax(x, axis=-1), pyjax.nn.log_softmax(x * 0.5, axis=-1)))
    chunks = threads.worker_chunks()
    outs = [f(x) for _ in range(40)]
    made = [o for o in _row_loops() if id(o) not in before]
    assert made and all(o.live for o in made)
    assert all("pyjax_parallel_for_t" in o.source for o in made)
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(lambda x: (pyjax.nn.softmax(x, axis=-1), pyjax.nn.log_softmax(x * 0.5, axis=-1)))(x)
    for out in outs:
        for a, b in zip(out, reference, strict=True):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    same = lambda: all(np.asarray(a).tobytes() == np.asarray(b).tobytes() for a, b in zip(f(x), reference))
    assert _until_a_worker_runs(chunks, same), "the workers ran none of the rows"


def _until_a_worker_runs(chunks: int, call_matches, seconds: float = 20.0) -> bool:
    # A worker asleep when a job is posted may wake after the caller has run
    # every chunk (the caller never waits for it): on a loaded machine it can
    # miss many calls. More calls, each checked, until one takes a chunk.
    deadline = time.monotonic() + seconds
    while threads.worker_chunks() <= chunks and time.monotonic() < deadline:
        assert call_matches()
    return threads.worker_chunks() > chunks


def test_row_loops_in_a_tiled_block_stay_on_its_thread():
    x = jnp.ones((256, 512), jnp.float32)
    jaxpr = pyjax.make_jaxpr(lambda x: pyjax.nn.softmax(x, axis=-1))(x).jaxpr
    from pyjax._src.backends.numpy.impls import IMPLS
    sources = {}
    for in_block in (False, True):
        (region,) = rows_lib.plan(jaxpr, IMPLS, in_block).values()
        sources[in_block] = region.native._make()[0]
    assert "pyjax_parallel_for_t" in sources[False]
    assert "pyjax_parallel_for_t" not in sources[True]


def test_one_native_thread_when_asked():
    code = textwrap.dedent("""
        import numpy as np, pyjax, pyjax.numpy as jnp
        from pyjax._src.backends.numpy.native import threads
        x = jnp.asarray(np.linspace(-3, 3, 64 * 512, dtype=np.float32).reshape(64, 512))
        f = pyjax.jit(lambda x: pyjax.nn.softmax(x, axis=-1))
        for _ in range(5):
            y = f(x)
        print(threads.slots(), threads.address(), float(np.asarray(y).sum()))
    """)
    env = {"PYJAX_NATIVE_THREADS": "1", "PYJAX_NATIVE_LOOPS_AFTER": "0"}
    import os
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, **env})
    assert out.returncode == 0, out.stderr
    slots, address, total = out.stdout.split()
    assert (slots, address) == ("1", "0")
    assert abs(float(total) - 64.0) < 1e-3


@pytest.mark.parametrize("a_shape, b_shape", [
    ((512, 128), (128, 512)),        # rows
    ((128, 512), (512, 600)),        # columns (more than rows)
    ((1000, 300), (300, 77)),
    ((3, 600, 70), (3, 70, 90)),     # fewer batch entries than pieces: rows of each
    ((16, 128, 32), (16, 32, 128)),  # batch entries
])
@pytest.mark.parametrize("transposed", [False, True])
def test_products_share_their_blocks_with_the_pools_bits(a_shape, b_shape, transposed, monkeypatch):
    from pyjax._src.backends.numpy.parallel import split as split_lib
    runtime()
    for _ in range(500):  # (the runtime's product is bound once its build, started by a first product, is done)
        if threads.matmul_runner() is not None:
            break
        threads.prepare()
        time.sleep(0.01)
    rng = np.random.default_rng(sum(a_shape) + transposed)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    if transposed:  # (BLAS reads a transposed operand in place)
        a = np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)
    rows, contract, cols = a_shape[-2], a_shape[-1], b_shape[-1]
    assert split_lib.worth_splitting(rows, contract, cols, a_shape[0] if len(a_shape) == 3 else 1)
    calls = []
    real = threads.matmul_runner()
    monkeypatch.setitem(threads._state, "matmul", lambda *args: calls.append(args) or real(*args))
    shared = [fpenv.run(split_lib.matmul, a, b) for _ in range(20)]
    assert len(calls) == 20
    monkeypatch.setitem(threads._state, "matmul", None)
    pool = fpenv.run(split_lib.matmul, a, b)
    whole = fpenv.run(np.matmul, a, b)
    for out in shared:
        assert out.tobytes() == pool.tobytes() == whole.tobytes()
    # Cut into chunks for the threads (which thread runs one is the host's
    # timing: test_workers_take_chunks_of_a_large_product).
    *_, axis, chunk = calls[0]
    assert ((a_shape[0] if len(a_shape) == 3 else 1), rows, contract, cols)[axis] > chunk


def test_workers_take_chunks_of_a_large_product():
    # Chunks of milliseconds: a worker asleep when the job is posted wakes
    # in time for some, even on a loaded machine.
    from pyjax._src.backends.numpy.parallel import split as split_lib
    runtime()
    for _ in range(500):
        if threads.matmul_runner() is not None:
            break
        threads.prepare()
        time.sleep(0.01)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((1024, 512)).astype(np.float32)
    b = rng.standard_normal((512, 1024)).astype(np.float32)
    whole = fpenv.run(np.matmul, a, b)
    assert _until_a_worker_runs(threads.worker_chunks(),
                                lambda: fpenv.run(split_lib.matmul, a, b).tobytes() == whole.tobytes())


def test_chunks_of_a_product_stay_past_openblass_small_matrix_kernels():
    from pyjax._src.backends.numpy.parallel import split as split_lib
    small = split_lib._SMALL_MNK
    for size, per_line, pieces in [(512, 65536, 4), (600, 6300, 4), (77, 300 * 1000, 4), (100, 12000, 4)]:
        chunk = split_lib._chunk(size, per_line, pieces)
        cuts = [min(chunk, size - lo) for lo in range(0, size, chunk)]
        assert len(cuts) <= pieces and sum(cuts) == size
        assert all(c * per_line > small for c in cuts) or size * per_line <= small
