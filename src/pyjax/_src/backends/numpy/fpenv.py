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
back in force after each call.

`run(fn, *args)` is `fn(*args)` in that mode. Two ways to set it:
native_call.c's `flushed_call`, a C function that saves, sets and restores
the control register around the call (tens of nanoseconds), bound once the
native tier has built native_call.c; until then, and without a C compiler,
`fegetenv`/`fesetenv` through ctypes (about half a microsecond a call).
Threads pyjax owns (the split pool's workers) are put in the mode once, when
they start. On a platform where neither way is known, nothing is flushed
(docs/differences.md).
"""

from __future__ import annotations

import ctypes
import platform
import sys

import numpy as np

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


def _run_ctypes(fn, *args):
    get, set_, size, flushed = _ENV
    saved = _free.pop() if _free else ctypes.create_string_buffer(size)
    get(saved)
    set_(flushed)
    try:
        with _quiet():
            return fn(*args)
    finally:
        set_(saved)
        _free.append(saved)


def _run_plain(fn, *args):
    with _quiet():
        return fn(*args)


run = _run_ctypes if _ENV is not None else _run_plain
supported = _ENV is not None


def use_c(module) -> None:
    """Binds native_call.c's `flushed_call` as `run` (the faster way)."""
    global run, supported
    if platform.machine() in _LAYOUTS and _QUIET is not None:
        module.set_quiet_state(*_QUIET)
        run = module.flushed_call
        supported = True


def flush_this_thread() -> None:
    """Puts the calling thread in the flushed mode for good: for threads
    pyjax owns and that run only pyjax's computations."""
    if _ENV is not None:
        _ENV[1](_ENV[3])


def flushed(fn):
    """`fn`, run in the flushed mode (for a callable kept and called later)."""
    return lambda *args: run(fn, *args)
