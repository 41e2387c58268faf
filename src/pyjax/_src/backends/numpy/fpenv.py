"""XLA:CPU's denormal mode around pyjax's own computations.

XLA:CPU computes with flush-to-zero and denormals-are-zero: a float32,
bfloat16 or float64 denormal reads as a zero of its sign to arithmetic,
comparisons and conversions, and a denormal result becomes one. Data
movement (copies, `abs`, `neg`, select) keeps the bits, and float16 is
computed in float32, where its denormals are normal numbers. NumPy keeps
IEEE denormals; the FPU's control register decides, so pyjax sets it
(flush-to-zero, denormals-are-zero, round to nearest, exceptions masked:
the mode XLA computes in) for the duration of each eager operation and each
call of a compiled program, and restores the caller's mode afterwards. The
user's own NumPy code, between pyjax calls, runs in the mode the user chose.
The same goes for NumPy's floating-point error state: XLA never warns about
a division by zero or an overflow, so pyjax's computations run with NumPy's
errors ignored (`np.errstate(all="ignore")`), and the user's own state is
back in force after each call. And so for BLAS's thread count (blas.py):
pyjax's computations run BLAS single-threaded, the caller's count restored.

`run(fn, *args)` is `fn(*args)` in that mode. Two ways to set it:
native_call.c's `flushed_call`, a C function that saves, sets and restores
the control register (and NumPy's error state and BLAS's thread count)
around the call, bound once the native tier has built native_call.c (at its
first build, or after `WARM_CALLS` calls the slower way); until then, and
without a C compiler, `fegetenv`/`fesetenv` and the thread counts through
ctypes, a few ctypes calls each time.
Threads pyjax owns (the split pool's workers) are put in the mode once, when
they start. On a platform where neither way is known, nothing is flushed
(docs/differences.md).
"""

from __future__ import annotations

import ctypes
import platform
import sys

import numpy as np

from pyjax._src.backends.numpy.parallel.blas import address

# glibc's fenv_t: x86-64 keeps MXCSR at byte 28 of 32; aarch64 is
# {fpcr, fpsr}. The flushed MXCSR is 0x1f80 (all exceptions masked, round to
# nearest) | FTZ (0x8000) | DAZ (0x0040); aarch64's FPCR has FZ at bit 24.
_LAYOUTS = {"x86_64": (32, 28, 0x9FC0), "AMD64": (32, 28, 0x9FC0), "aarch64": (8, 0, 1 << 24)}


def _libc_env():
    """(fegetenv, fesetenv, env size, the flushed env) for this platform, or None."""
    layout = _LAYOUTS.get(platform.machine())
    if layout is None or not sys.platform.startswith("linux"):
        return None
    try:
        libm = ctypes.CDLL(None)
        get, set_ = libm.fegetenv, libm.fesetenv
    except (OSError, AttributeError):
        return None
    size, at, mode = layout
    flushed = ctypes.create_string_buffer(size)
    if get(flushed):
        return None
    raw = bytearray(flushed.raw)
    raw[at:at + 4] = mode.to_bytes(4, "little")
    if platform.machine() != "aarch64":
        raw[4:6] = b"\0\0"  # the x87 status word: no exception pending
    flushed = ctypes.create_string_buffer(bytes(raw), size)
    return get, set_, size, flushed


_ENV = _libc_env()
_free: list = []  # saved-mode buffers, reused (list pop/append are atomic)


def _quiet_state():
    """(NumPy's error-state context variable, its "all ignore" value), or None
    where this NumPy keeps it elsewhere (then `np.errstate` is used)."""
    try:
        from numpy._core import _ufunc_config
        var = _ufunc_config._extobj_contextvar
    except (ImportError, AttributeError):
        return None
    with np.errstate(all="ignore"):
        return var, var.get()


_QUIET = _quiet_state()


def _quiet():
    if _QUIET is None:
        return np.errstate(all="ignore")
    return _QuietToken()


class _QuietToken:
    __slots__ = ("token",)

    def __enter__(self):
        self.token = _QUIET[0].set(_QUIET[1])

    def __exit__(self, *exc):
        _QUIET[0].reset(self.token)


_BLAS: tuple[int, list] | None = None  # (the thread limit, blas.thread_controls())


def _blas_enter() -> list | None:
    # The caller's BLAS thread counts; the limit set where they differ.
    if _BLAS is None:
        return None
    limit, controls = _BLAS
    saved = [get() for get, _ in controls]
    for (_, set_), was in zip(controls, saved):
        if was != limit:
            set_(limit)
    return saved


def _blas_exit(saved: list | None) -> None:
    if saved is not None:
        limit, controls = _BLAS
        for (_, set_), was in zip(controls, saved):
            if was != limit:
                set_(was)


# The C way is built by the native tier (native.py sets `on_warm`): at its
# first build, or after this many calls the slower way, whichever is first.
WARM_CALLS = 1000
on_warm = None
_calls = [0]


def _warming() -> None:
    _calls[0] += 1
    if _calls[0] == WARM_CALLS and on_warm is not None:
        on_warm()


def _run_ctypes(fn, *args):
    _warming()
    get, set_, size, flushed = _ENV
    saved = _free.pop() if _free else ctypes.create_string_buffer(size)
    get(saved)
    set_(flushed)
    threads = _blas_enter()
    try:
        with _quiet():
            return fn(*args)
    finally:
        _blas_exit(threads)
        set_(saved)
        _free.append(saved)


def _run_plain(fn, *args):
    _warming()
    threads = _blas_enter()
    try:
        with _quiet():
            return fn(*args)
    finally:
        _blas_exit(threads)


run = _run_ctypes if _ENV is not None else _run_plain
supported = _ENV is not None


_C = []  # native_call.c's module, once bound


def use_c(module) -> None:
    """Binds native_call.c's `flushed_call` as `run` (the faster way)."""
    global run, supported
    if platform.machine() in _LAYOUTS and _QUIET is not None:
        module.set_quiet_state(*_QUIET)
        _C.append(module)
        _bind_blas()
        run = module.flushed_call
        supported = True


def use_blas(limit: int | None, controls: list) -> None:
    """Runs pyjax's computations with BLAS limited to `limit` threads
    (None: BLAS as the caller has it), through `controls` (blas.py)."""
    global _BLAS
    _BLAS = (limit, list(controls)) if limit is not None and controls else None
    _bind_blas()


def _bind_blas() -> None:
    if _C:
        limit, controls = _BLAS if _BLAS is not None else (0, [])
        _C[0].set_blas_threads(limit, tuple((address(get), address(set_)) for get, set_ in controls))


def flush_this_thread() -> None:
    """Puts the calling thread in the flushed mode, NumPy's floating-point
    errors ignored, for good: for threads pyjax owns and that run only
    pyjax's computations (a block on the pool warns no more than the calling
    thread, which runs under `run`: JAX is silent)."""
    if _ENV is not None:
        _ENV[1](_ENV[3])
    if _QUIET is not None:
        _QUIET[0].set(_QUIET[1])  # (the worker's own context: it stays set)
    else:
        np.seterr(all="ignore")


def flushed(fn):
    """`fn`, run in the flushed mode (for a callable kept and called later)."""
    return lambda *args: run(fn, *args)
