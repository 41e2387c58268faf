"""How many threads the NumPy backend's BLAS may use.

pyjax's NumPy backend calls BLAS once per matmul, from Python, one equation
at a time. OpenBLAS's worker threads spin-wait between such calls, and on a
machine whose cores are busy (or small) they fight the interpreter thread
for the CPU: measured on a 2-core machine under load, a 512x512 float32
matmul took 24 ms with OpenBLAS's default 2 threads and 3.2 ms with one, and
`mlp_train_step` went from 3.4x JAX to 1.06x. So the backend limits BLAS to
one thread when pyjax is imported.

`PYJAX_BLAS_THREADS` overrides it: a number of threads, or `default` to
leave NumPy's BLAS as it is (a large idle machine doing big matmuls may be
faster with more threads). The limit needs `threadpoolctl` (a dependency);
without it nothing changes. With one BLAS thread, large matmuls are split
across the cores by the backend itself (split.py).
"""

from __future__ import annotations

import os


def limit_blas_threads() -> int | None:
    """Applies `PYJAX_BLAS_THREADS` (default 1) to NumPy's BLAS; returns the
    limit set, or None when BLAS is left as it is."""
    setting = os.environ.get("PYJAX_BLAS_THREADS", "1").strip().lower()
    if setting in ("default", ""):
        return None
    try:
        threads = int(setting)
    except ValueError:
        raise ValueError(f"PYJAX_BLAS_THREADS must be a number of threads or 'default', got {setting!r}") from None
    if threads < 1:
        raise ValueError(f"PYJAX_BLAS_THREADS must be at least 1, got {threads}")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    threadpool_limits(threads, user_api="blas")
    return threads
