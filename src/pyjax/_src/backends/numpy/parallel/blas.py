"""How many threads BLAS may use inside pyjax's own computations.

pyjax's NumPy backend calls BLAS once per matmul, from Python, one equation
at a time. OpenBLAS's worker threads spin-wait between such calls, and on a
machine whose cores are busy (or small) they fight the interpreter thread
for the CPU: measured on a 2-core machine under load, a 512x512 float32
matmul took 24 ms with OpenBLAS's default 2 threads and 3.2 ms with one, and
`mlp_train_step` went from 3.4x JAX to 1.06x. So pyjax runs BLAS with one
thread, but only inside its own computations: fpenv.py sets the limit when
an eager operation or a compiled program starts and restores the caller's
thread count when it returns, as it does the FPU's denormal mode. The
user's own NumPy and SciPy, between pyjax calls, keep the threads they had.

`PYJAX_BLAS_THREADS` sets the limit: a number of threads, or `default` to
leave BLAS as it is (a large idle machine doing big matmuls may be faster
with more threads). The limit applies to the OpenBLAS libraries loaded when
pyjax is imported (NumPy's and SciPy's wheels ship one each), found with
`threadpoolctl`, and to SciPy's when pyjax first uses SciPy's LAPACK or BLAS
(SciPy is imported then, not with pyjax): that one is limited at once, since
the call that loads it must run its LAPACK with the threads later calls use
(OpenBLAS's sums depend on them), and it keeps the limit between calls
(there was no caller's count to restore). Another BLAS (MKL, BLIS,
Accelerate) is left as it is. With
one BLAS thread, large matmuls are split across the cores by the backend
itself (split.py).
"""

from __future__ import annotations

import ctypes
import os

_AFFIXES = [(prefix, suffix) for prefix in ("", "scipy_") for suffix in ("", "64_", "_64")]


def configured_limit() -> int | None:
    """`PYJAX_BLAS_THREADS` (default 1) as a number of threads, or None
    when BLAS is left as it is."""
    setting = os.environ.get("PYJAX_BLAS_THREADS", "1").strip().lower()
    if setting in ("default", ""):
        return None
    try:
        threads = int(setting)
    except ValueError:
        raise ValueError(f"PYJAX_BLAS_THREADS must be a number of threads or 'default', got {setting!r}") from None
    if threads < 1:
        raise ValueError(f"PYJAX_BLAS_THREADS must be at least 1, got {threads}")
    return threads


def thread_controls() -> list[tuple[ctypes._CFuncPtr, ctypes._CFuncPtr]]:
    """(get, set) of the thread count of each OpenBLAS loaded in this process
    (`openblas_get_num_threads`/`openblas_set_num_threads`, under the symbol
    names the library was built with)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return []
    controls = []
    for info in threadpool_info():
        if info.get("internal_api") != "openblas" or info.get("threading_layer") == "openmp":
            continue  # (OpenMP's pools are per thread: its own knobs, not OpenBLAS's, would be needed)
        try:
            lib = ctypes.CDLL(info["filepath"])
        except OSError:
            continue
        for prefix, suffix in _AFFIXES:
            get = getattr(lib, f"{prefix}openblas_get_num_threads{suffix}", None)
            set_ = getattr(lib, f"{prefix}openblas_set_num_threads{suffix}", None)
            if get is not None and set_ is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                set_.restype, set_.argtypes = None, [ctypes.c_int]
                controls.append((get, set_))
                break
    return controls


def address(fn: ctypes._CFuncPtr) -> int:
    """The C address of a ctypes function (for native_call.c)."""
    return ctypes.cast(fn, ctypes.c_void_p).value
