"""A parallel for-loop for native code: the machine's other cores take
chunks of one native call's independent work.

XLA:CPU runs a large fused loop on every core. A native row loop (rows.py)
or a direct convolution (directconv.py) is one C call, which ran on the
calling thread alone; a large float32 product (parallel/split.py) had its
blocks run by a Python thread pool, whose thread must wake and take the
GIL before it starts, while the caller waits for it. This runtime gives
such calls the other cores: a
small pool of worker threads (one fewer than split.py's blocks, so the
calling thread is the other one) that sleep on a condition variable. A
call hands the pool a job (a function of a chunk `[lo, hi)` and of the
thread's slot), and every thread, the caller included, claims chunks from
one atomic counter until none is left. A worker that wakes late (a busy
machine, or a core idle long enough for the hypervisor to halt it: ~150 us
to wake here) takes fewer chunks or none, and the caller waits only for
chunks a worker has claimed, never for a worker still asleep. Nothing
spins (workers kept awake between jobs burned CPU for no measured gain).

Each chunk computes what the whole call computes on its part (rows,
output positions, output features), through the same kernels in the same
order, so results are the same bits with any number of threads and any
cut. A worker computes in the caller's floating-point mode (the job
carries the caller's `fenv_t`: pyjax's flushed denormals, fpenv.py).

One job at a time: a call made while another thread's job runs (or from
inside a job) runs its chunks on its own thread. With split.py's blocks at
1 (BLAS left multi-threaded, or one core) the runtime is never built and
callers run whole.
"""

from __future__ import annotations

import ctypes
import threading

from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.build import _build, available
from pyjax._src.backends.numpy.native.tiering import log
from pyjax._src.backends.numpy.parallel import split as split_lib

__all__ = ["CHUNKS_PER_THREAD", "PARALLEL_FOR_TYPEDEF", "address", "chunk", "matmul_runner", "prepare", "slots",
           "worker_chunks"]

_SOURCE = r"""#include <fenv.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef void (*pyjax_task_t)(void *ctx, int64_t lo, int64_t hi, int slot);

struct job {
    pyjax_task_t fn;
    void *ctx;
    int64_t n, chunk;
    _Atomic int64_t next;
    fenv_t env;
};

static pthread_mutex_t caller = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
static struct job *current;   /* the job workers may join (under lock) */
static uint64_t generation;   /* jobs posted so far (under lock) */
static int busy;              /* workers inside the current job (under lock) */
static int threads = 1;       /* the caller included */

static _Atomic int64_t worker_chunks; /* chunks the workers ran, for tests and diagnostics */

int64_t pyjax_parallel_worker_chunks(void) { return atomic_load(&worker_chunks); }

static int64_t run_chunks(struct job *j, int slot) {
    int64_t ran = 0;
    for (;; ran++) {
        int64_t lo = atomic_fetch_add_explicit(&j->next, j->chunk, memory_order_relaxed);
        if (lo >= j->n)
            return ran;
        j->fn(j->ctx, lo, lo + j->chunk < j->n ? lo + j->chunk : j->n, slot);
    }
}

static void *worker(void *arg) {
    int slot = (int)(intptr_t)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (current == NULL || generation == seen)
            pthread_cond_wait(&wake, &lock);
        seen = generation;
        struct job *j = current;
        busy++;
        pthread_mutex_unlock(&lock);
        fesetenv(&j->env);
        atomic_fetch_add_explicit(&worker_chunks, run_chunks(j, slot), memory_order_relaxed);
        pthread_mutex_lock(&lock);
        if (--busy == 0)
            pthread_cond_signal(&idle);
    }
    return NULL;
}

/* A forked child has no workers: its calls run on the caller. */
static void after_fork_child(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cfresh = PTHREAD_COND_INITIALIZER;
    caller = fresh;
    lock = fresh;
    wake = cfresh;
    idle = cfresh;
    current = NULL;
    busy = 0;
    threads = 1;
}

/* Starts `n - 1` workers (once); returns the threads jobs run on. */
int pyjax_parallel_start(int n) {
    pthread_mutex_lock(&lock);
    if (threads == 1 && n > 1) {
        pthread_atfork(NULL, NULL, after_fork_child);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int started = 1;
        for (int slot = 1; slot < n; slot++) {
            pthread_t t;
            if (pthread_create(&t, &attr, worker, (void *)(intptr_t)slot) != 0)
                break;
            started++;
        }
        pthread_attr_destroy(&attr);
        threads = started;
    }
    int out = threads;
    pthread_mutex_unlock(&lock);
    return out;
}

/* fn(ctx, lo, hi, slot) over chunks of [0, n) of `chunk` each, on every
   thread that is free; `slot` (0 for the caller, < the threads started)
   names the thread, for its scratch. */
void pyjax_parallel_for(pyjax_task_t fn, void *ctx, int64_t n, int64_t chunk) {
    if (chunk < 1)
        chunk = 1;
    if (threads < 2 || n <= chunk || pthread_mutex_trylock(&caller) != 0) {
        fn(ctx, 0, n, 0);
        return;
    }
    struct job j;
    j.fn = fn;
    j.ctx = ctx;
    j.n = n;
    j.chunk = chunk;
    atomic_init(&j.next, 0);
    fegetenv(&j.env);
    pthread_mutex_lock(&lock);
    current = &j;
    generation++;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    run_chunks(&j, 0);
    pthread_mutex_lock(&lock);
    current = NULL; /* (a worker waking now leaves the job alone) */
    while (busy > 0)
        pthread_cond_wait(&idle, &lock);
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&caller);
}

/* A product by NumPy's matmul inner loop `loop` (a gufunc loop: dimensions
   {outer, m, k, n}, steps {3 outer, a's 2, b's 2, out's 2}) with its
   outer entries (axis 0), rows (1) or columns (3) cut into chunks: each
   chunk is the loop's call on that part, as np.matmul on slices makes it. */
typedef void (*gufunc_loop_t)(char **, const intptr_t *, const intptr_t *, void *);
struct cut_job {
    gufunc_loop_t loop;
    void *data;
    char *args[3];
    intptr_t dims[4], steps[9];
    int axis;
};

static void cut_chunk(void *c, int64_t lo, int64_t hi, int slot) {
    struct cut_job *j = c;
    (void)slot;
    char *args[3] = {j->args[0], j->args[1], j->args[2]};
    intptr_t dims[4] = {j->dims[0], j->dims[1], j->dims[2], j->dims[3]};
    if (j->axis == 0) {
        for (int i = 0; i < 3; i++)
            args[i] += lo * j->steps[i];
        dims[0] = hi - lo;
    } else if (j->axis == 1) {
        args[0] += lo * j->steps[3];
        args[2] += lo * j->steps[7];
        dims[1] = hi - lo;
    } else {
        args[1] += lo * j->steps[6];
        args[2] += lo * j->steps[8];
        dims[3] = hi - lo;
    }
    j->loop(args, dims, j->steps, j->data);
}

void pyjax_parallel_matmul(void *loop, void *data, char *a, char *b, char *out, const int64_t *dims_steps,
                           int axis, int64_t chunk) {
    struct cut_job j;
    j.loop = (gufunc_loop_t)loop;
    j.data = data;
    j.args[0] = a;
    j.args[1] = b;
    j.args[2] = out;
    for (int i = 0; i < 4; i++)
        j.dims[i] = (intptr_t)dims_steps[i];
    for (int i = 0; i < 9; i++)
        j.steps[i] = (intptr_t)dims_steps[4 + i];
    j.axis = axis;
    pyjax_parallel_for(cut_chunk, &j, j.dims[axis], chunk);
}
"""

# How generated sources call it (the address comes in their kernel table).
PARALLEL_FOR_TYPEDEF = ("typedef void (*pyjax_parallel_for_t)(void (*)(void *, int64_t, int64_t, int), "
                        "void *, int64_t, int64_t);")

_lock = threading.Lock()
_state: dict = {}


def slots() -> int:
    """The threads a parallel call may run on (the scratch slots it needs):
    `PYJAX_NATIVE_THREADS`, else split.py's blocks; fixed at the first call."""
    with _lock:
        if "slots" not in _state:
            _state["slots"] = settings.THREADS or max(1, split_lib.workers())
        return _state["slots"]


def prepare() -> None:
    """Starts building the runtime on a background thread, once (a product
    to share calls this; until it is built, products run as before)."""
    with _lock:
        if "address" in _state or _state.get("preparing"):
            return
        _state["preparing"] = True
    threading.Thread(target=address, name="pyjax-native-threads", daemon=True).start()


def matmul_runner():
    """`pyjax_parallel_matmul` once the runtime is built and running on
    more than one thread, else None."""
    return _state.get("matmul")


# About this many chunks a thread: a worker that wakes late still gets a share.
CHUNKS_PER_THREAD = 4


def chunk(size: int, least: int = 1, unit: int = 1) -> int:
    """The length of a job's chunks over `size` items: about
    `CHUNKS_PER_THREAD` a thread, at least `least` items, whole `unit`s."""
    per = max(least, -(-size // (slots() * CHUNKS_PER_THREAD)), 1)
    return -(-per // unit) * unit


def worker_chunks() -> int:
    """How many chunks the runtime's workers have run in this process (0
    without the runtime)."""
    lib = _state.get("lib")
    return 0 if lib is None else lib.pyjax_parallel_worker_chunks()


def address() -> int:
    """The address of `pyjax_parallel_for`, the runtime built and its
    workers started at the first call (on a build thread); 0 when calls
    run on one thread (one slot, no compiler, or a failed build)."""
    with _lock:
        if "address" in _state:
            return _state["address"]
    n = slots()
    fn = 0
    if n > 1 and available():
        try:
            lib = _build(_SOURCE)
            start = lib.pyjax_parallel_start
            start.argtypes, start.restype = [ctypes.c_int], ctypes.c_int
            if start(n) > 1:
                fn = ctypes.cast(lib.pyjax_parallel_for, ctypes.c_void_p).value
                matmul = lib.pyjax_parallel_matmul
                matmul.argtypes = [ctypes.c_void_p] * 6 + [ctypes.c_int, ctypes.c_int64]
                matmul.restype = None
                lib.pyjax_parallel_worker_chunks.restype = ctypes.c_int64
                _state["lib"], _state["matmul"] = lib, matmul
        except Exception as e:  # noqa: BLE001  (then native calls run on one thread)
            log(f"Native calls run on one thread: {e}", False)
    with _lock:
        return _state.setdefault("address", fn)
