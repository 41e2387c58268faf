"""Large matmuls and elementwise ops split across the machine's cores.

The backend keeps BLAS single-threaded (blas.py): OpenBLAS's own workers
spin between calls and collapse on a busy machine. Instead, a matmul big
enough to pay for it is cut into row blocks (or batch blocks) that run at
once on a small pool of Python threads, each a single-threaded BLAS call
writing its block of one preallocated output (NumPy releases the GIL inside
BLAS). A waiting thread blocks rather than spins, so on a busy machine the
split costs about one thread hand-off, and on an idle one it uses every
core. Each output element comes from the same BLAS kernel over the same
contraction as without the split, so float32 and complex results are
bitwise the same (checked in tests/backends/test_split.py), provided no
block is small enough for OpenBLAS's small-matrix kernels (another order of
summation; `_SMALL_MNK`). Float64 is not: OpenBLAS's dgemm computes the
first panel of each block in another order, and a split changed the last
bit of a few rows in most random products, wherever the cut (docs/performance.md).

Large elementwise ufunc calls in compiled code are split the same way, by
blocks of the output's leading axis (`SplitUfunc`): XLA runs such loops on
every core, NumPy on one.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import math
import os
import threading

import numpy as np

from pyjax._src.backends.numpy import fpenv

# Below this many flops (2*M*K*N), handing blocks to threads costs more than
# it saves (~50 us per hand-off, measured; a 128x512x512 float32 product is
# ~0.7 ms serial and ~0.4 ms split in two).
MIN_FLOPS = 16_000_000
_MIN_ROWS = 16  # rows per block at the least
# An elementwise op on fewer elements than this runs whole: an exp over
# 512K float32 values takes ~0.3 ms, so a hand-off of ~50 us is worth it.
MIN_ELEMENTS = 1 << 19

_state: dict = {"workers": 1, "pool": None}
# Set on a thread running one block of a tiled region (tile.py): its calls
# run whole (the region already shares the cores; a pool thread waiting on
# the pool could deadlock).
_local = threading.local()


def num_workers() -> int:
    """How many blocks a split makes now: the cores, or 1 inside a tiled region's block."""
    return 1 if getattr(_local, "unsplit", False) else _state["workers"]


@contextlib.contextmanager
def unsplit():
    """Within this context, on this thread, nothing is split."""
    before = getattr(_local, "unsplit", False)
    _local.unsplit = True
    try:
        yield
    finally:
        _local.unsplit = before


def configure(blas_threads: int | None) -> None:
    """Enables splitting when BLAS itself runs one thread (blas.py): one block
    per available core. With BLAS left multi-threaded there is no split."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    _state["workers"] = cores if blas_threads == 1 else 1


def workers() -> int:
    """The blocks a split makes outside a tiled region's block: the cores,
    or 1 with BLAS left multi-threaded."""
    return _state["workers"]


def worth_splitting(rows: int, contract: int, cols: int, batch: int = 1) -> bool:
    """Whether `matmul` would split a (batch, rows, contract) @ (batch, contract, cols) product."""
    workers = num_workers()
    return (workers > 1 and 2 * batch * rows * contract * cols >= MIN_FLOPS
            and (batch >= workers or rows >= workers * _MIN_ROWS))


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`np.matmul(a, b)` for 2-D operands, or N-d ones with equal batch
    axes, split across the pool when large enough: by entries of the first
    batch axis, else by rows, or by columns when those outnumber the rows."""
    batched = a.ndim > 2
    if a.ndim != b.ndim or a.ndim < 2 or a.shape[:-2] != b.shape[:-2]:
        return np.matmul(a, b)  # broadcast batches and vectors: one call
    batch = math.prod(a.shape[:-2])
    rows, contract = a.shape[-2], a.shape[-1]
    if not worth_splitting(rows, contract, b.shape[-1], batch):
        return np.matmul(a, b)
    workers = num_workers()
    cols = b.shape[-1]
    if batched and a.shape[0] >= workers:  # (whole products: any cut is exact)
        cut = ranges(a.shape[0])
    else:
        # Every block packs the whole operand it does not cut (OpenBLAS copies
        # its panels before the kernel): cut the wider side, so that the copy
        # each block repeats is the smaller operand's.
        size = max(rows, cols)
        cut = _ranges(size, _blocks(size, rows * cols * contract // size, workers))
        if len(cut) < 2:
            return np.matmul(a, b)
    out = np.empty(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (rows, cols), np.result_type(a, b))
    if _native_matmul(a, b, out, workers):
        return out
    if batched and a.shape[0] >= workers:
        blocks = [(a[i:j], b[i:j], out[i:j]) for i, j in cut]
    elif rows >= cols:
        blocks = [(a[..., i:j, :], b, out[..., i:j, :]) for i, j in cut]
    else:
        blocks = [(a, b[..., i:j], out[..., i:j]) for i, j in cut]
    _run_blocks(np.matmul, blocks)
    return out


def _native_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray, workers: int) -> bool:
    """Whether the product went to native/threads.py's runtime, which calls
    NumPy's own matmul loop on blocks as `matmul` cuts them (each block an
    sgemm call past OpenBLAS's small-matrix kernels, so the same bits),
    its threads claiming chunks: the pool's thread must wake and take the
    GIL before it starts its block, and the calling thread then waited for
    it; a chunk a late worker has not claimed is the caller's.
    float32, 2-D or 3-D operands; until the runtime is built (on a
    background thread, started here), the pool serves."""
    if a.dtype != np.float32 or b.dtype != np.float32 or a.ndim > 3 or not (a.flags.aligned and b.flags.aligned):
        return False
    native_threads = _native_threads()
    run = native_threads.matmul_runner()
    if run is None:
        native_threads.prepare()
        return False
    loop = _matmul_loop()
    if loop is None:
        return False
    batch, rows, contract, cols = (a.shape[0] if a.ndim == 3 else 1), a.shape[-2], a.shape[-1], b.shape[-1]
    if a.ndim == 3 and batch >= workers:
        axis, chunk = 0, -(-batch // (workers * _CHUNKS_PER_WORKER))  # (whole products: any cut is exact)
    else:
        axis = 1 if rows >= cols else 3
        size = rows if axis == 1 else cols
        chunk = _chunk(size, rows * cols * contract // size, workers * _CHUNKS_PER_WORKER)
    outer = (a.strides[0], b.strides[0], out.strides[0]) if a.ndim == 3 else (0, 0, 0)
    dims_steps = np.array([batch, rows, contract, cols, *outer, *a.strides[-2:], *b.strides[-2:], *out.strides[-2:]],
                          np.int64)
    run(loop[0], loop[1], a.ctypes.data, b.ctypes.data, out.ctypes.data, dims_steps.ctypes.data, axis, chunk)
    return True


# Chunks a worker's share is cut into. Each chunk packs the operand it does
# not cut again: one a worker (a late worker's chunk is the caller's once
# it is done with its own). Two a worker measured 3% slower on
# mlp_train_step, in interleaved runs inside pyjax's calls (docs/performance.md).
_CHUNKS_PER_WORKER = 1


@functools.cache
def _native_threads():
    from pyjax._src.backends.numpy.native import threads  # (not at import: native/ imports this module)
    return threads


@functools.cache
def _matmul_loop():
    from pyjax._src.backends.numpy.native.discovery import ufunc_loop
    return ufunc_loop(np.matmul, (np.dtype(np.float32),) * 3)


def _chunk(size: int, per_line: int, pieces: int) -> int:
    # Lines a chunk of `size` lines of `per_line` multiply-adds, in at most
    # `pieces` chunks: every chunk, the last too, past _SMALL_MNK when the
    # whole product is (else their kernels would sum in another order).
    least = 1 if size * per_line <= _SMALL_MNK else _SMALL_MNK // per_line + 1
    for count in range(min(pieces, size // least), 1, -1):
        chunk = -(-size // count)
        if size - (-(-size // chunk) - 1) * chunk >= least:
            return chunk
    return size


# OpenBLAS (SkylakeX) multiplies products of at most this many multiply-adds
# (M*N*K) with its small-matrix kernels, which sum in another order.
_SMALL_MNK = 1_000_000
SMALL_MNK = _SMALL_MNK  # (read by the dot_general impl: transposed operands' bits)


def _blocks(size: int, per_line: int, workers: int) -> int:
    # How many blocks to cut `size` lines of `per_line` multiply-adds each
    # into: at most `workers`, each above _SMALL_MNK when the whole product is.
    if size * per_line <= _SMALL_MNK:
        return workers  # (small whole: its blocks take the same kernels)
    count = workers
    while count > 1 and size // count * per_line <= _SMALL_MNK:
        count -= 1
    return count


def run_all(calls: list) -> None:
    # Every call at once: the first on the calling thread, the others on the
    # pool; returns when all are done (re-raising the first error). A call
    # the pool has not started when the calling thread is free runs there:
    # on a busy machine the pool's thread may wait long for a core, and
    # waiting for it cost more than the split saved. (A call's bits do not
    # depend on its thread: both compute in the flushed mode, fpenv.py.)
    pool = _pool()
    claims = [_Claim(call) for call in calls[1:]]
    pending = [pool.submit(claim) for claim in claims]
    calls[0]()
    for claim, future in zip(claims, pending, strict=True):
        if future.cancel():
            claim()  # (the pool's queue keeps the emptied claim, not the call's buffers)
        else:
            future.result()


class _Claim:
    # A call that runs once, on whichever thread claims it first, and then
    # holds nothing: a cancelled work item stays in the pool's queue until a
    # worker takes it, and must not keep its block's arrays alive meanwhile.
    __slots__ = ("call",)

    def __init__(self, call):
        self.call = call

    def __call__(self):
        call, self.call = self.call, None
        call()


def _run_blocks(fn, blocks: list) -> None:
    # `fn(*block[:-1], out=block[-1])` for every block, at once.
    run_all([functools.partial(fn, *block[:-1], out=block[-1]) for block in blocks])


def ranges(size: int) -> list:
    # [0, size) cut into one contiguous range per worker.
    return _ranges(int(size), _state["workers"])


@functools.lru_cache(maxsize=256)
def _ranges(size: int, workers: int) -> list:
    # (~30 us through np.linspace: a split matmul asks once a call.)
    bounds = [size * k // workers for k in range(workers + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


# Only ufuncs that compute enough per element are split: add, multiply and
# the like are bound by memory bandwidth, which a second core does not add
# to (measured: a 1M-element while loop of them got slower split).
COMPUTE_BOUND = frozenset({
    np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p, np.sin, np.cos, np.tan,
    np.arcsin, np.arccos, np.arctan, np.arctan2, np.sinh, np.cosh, np.tanh, np.arcsinh,
    np.arccosh, np.arctanh, np.power, np.cbrt,
})


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    # A forked child inherits the pool object but not its threads (work
    # submitted there would never run): each process makes its own pool.
    pool = _state["pool"]
    if pool is None or _state.get("pid") != os.getpid():
        pool = _state["pool"] = concurrent.futures.ThreadPoolExecutor(
            _state["workers"] - 1, thread_name_prefix="pyjax-split",
            initializer=fpenv.flush_this_thread)  # (its blocks compute as the calling thread does)
        _state["pid"] = os.getpid()
    return pool


# Memory-bound ufuncs gain from a second core only on arrays well past the
# caches (measured on 8 MB float32 operands: subtract in place 0.37 -> 0.28
# ms; on 4 MB an add got slower, 0.10 -> 0.13 ms).
MIN_ELEMENTS_MEMORY_BOUND = 1 << 21


def elementwise_worth_splitting(ufunc: np.ufunc, shape: tuple) -> bool:
    """Whether compiled code should call a `SplitUfunc` for `ufunc` with an output of this shape."""
    workers = num_workers()
    if workers < 2 or not shape or shape[0] < workers:
        return False
    size = math.prod(shape)
    return size >= (MIN_ELEMENTS if ufunc in COMPUTE_BOUND else MIN_ELEMENTS_MEMORY_BOUND)


def reduce(ufunc: np.ufunc, x: np.ndarray, axes: tuple, dtype=None):
    """`ufunc.reduce(x, axis=axes, dtype=dtype)`, by blocks of the leading
    axis when it is kept and `x` is large (each block reduces its own rows:
    the same operations, so the same bits)."""
    workers = num_workers()
    if workers < 2 or x.ndim == 0 or 0 in axes or x.shape[0] < workers or x.size < MIN_ELEMENTS_MEMORY_BOUND:
        return ufunc.reduce(x, axis=axes, dtype=dtype)
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    out = np.empty(shape, dtype or x.dtype)

    def reduce_rows(start: int, stop: int) -> None:
        ufunc.reduce(x[start:stop], axis=axes, dtype=dtype, out=out[start:stop])

    run_all([functools.partial(reduce_rows, i, j) for i, j in ranges(x.shape[0])])
    return out


class SplitUfunc:
    """A ufunc whose calls are split by blocks of the output's leading axis.

    Called as compiled code calls a ufunc: `f(*inputs)` or `f(*inputs, out)`
    with the output buffer last. Inputs with the output's leading axis are
    sliced with it; the others broadcast whole. An input that may share
    memory with `out` without being `out` itself (a view of it) could be
    read by one block after another wrote it, so such calls run whole."""

    __slots__ = ("ufunc", "shape", "dtype", "__name__")

    def __init__(self, ufunc: np.ufunc, shape: tuple, dtype):
        self.ufunc, self.shape, self.dtype = ufunc, tuple(shape), np.dtype(dtype)
        self.__name__ = ufunc.__name__

    def __call__(self, *args):
        nin = self.ufunc.nin
        inputs, out = args[:nin], (args[nin] if len(args) > nin else None)
        for x in inputs:
            if out is not None and x is not out and np.may_share_memory(x, out):
                return self.ufunc(*inputs, out)
        if out is None:
            out = np.empty(self.shape, self.dtype)
        rows, ndim = self.shape[0], len(self.shape)
        blocks = []
        for i, j in ranges(rows):
            block = [x[i:j] if getattr(x, "ndim", 0) == ndim and x.shape[0] == rows else x for x in inputs]
            blocks.append((*block, out[i:j]))
        _run_blocks(self.ufunc, blocks)
        return out


# Below this many elements an index range runs whole (threefry hashes ~60M
# words a second on one core: 256K words take ~4 ms, far above a hand-off).
MIN_RANGE = 1 << 18


def run_ranges(fn, size: int) -> None:
    """`fn(start, stop)` over [0, size), split into one range per core when
    large enough (the caller guarantees the ranges are independent)."""
    workers = num_workers()
    if workers < 2 or size < MIN_RANGE:
        fn(0, size)
        return
    run_all([functools.partial(fn, i, j) for i, j in ranges(size)])


def fresh_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`np.multiply(a, b)` into a new array, by blocks when large: writing a
    fresh output is dominated by first touching its pages, which cores do
    in parallel (a 256x128x64 float32 outer product: 0.91 ms whole, 0.47 ms
    in two blocks)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    workers = num_workers()
    if workers < 2 or not shape or shape[0] < workers or math.prod(shape) < MIN_ELEMENTS:
        return np.multiply(a, b)
    return SplitUfunc(np.multiply, shape, np.result_type(a, b))(a, b)


class SplitTier:
    """The split tier (tiers.py): the calls compiled code makes across the cores."""

    def ufunc(self, ufunc: np.ufunc, shape: tuple, dtype):
        """A `SplitUfunc` for a large elementwise call, or None: the ufunc runs whole."""
        return SplitUfunc(ufunc, shape, dtype) if elementwise_worth_splitting(ufunc, shape) else None

    def matmul(self, rows: int, contract: int, cols: int, batch: int = 1):
        """`matmul` for a product large enough to split, or None: one BLAS call."""
        return matmul if worth_splitting(rows, contract, cols, batch) else None
