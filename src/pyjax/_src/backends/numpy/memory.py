"""The NumPy backend's allocation check for compiled programs.

XLA fails a program that would allocate a buffer the machine cannot hold
when it runs; NumPy would instead hand out zero-stride views of such shapes
(a broadcast of a scalar to 10**12 elements) and spin for minutes in the
first reduction over one. So a jaxpr is checked once, when it is compiled
(a jit's first call, an eager program's build): any value of a type whose
element count overflows int64 or whose bytes exceed the machine's memory
raises XLA's error. Tracing such shapes (make_jaxpr, eval_shape, `.trace()`)
stays fine, as in JAX.

`keep_freed_memory()` (install() calls it) sets glibc's malloc thresholds
to the values its own dynamic rule reaches at most: blocks up to 32 MiB from
the heap, not `mmap`, and up to 64 MiB of freed heap kept for reuse. glibc
starts at 128 KiB for both, so the arrays of a program's every step (an
activation of 8x16x16x32 float32 is 256 KiB) went back to the kernel when
freed and came back as fresh pages, a page fault each 4 KiB: about a third
of a ResNet block's or a transformer gradient's CPU time
(docs/performance.md). XLA keeps its buffers too. `PYJAX_MALLOC_THRESHOLDS=0`
leaves glibc's defaults alone.
"""

from __future__ import annotations

import ctypes
import os
import sys

from pyjax._src.avals import allocation_error
from pyjax._src.jaxpr import Jaxpr, subjaxprs


def check_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Returns `jaxpr` if every value it computes can be allocated, else
    raises XLA's error for the first that cannot."""
    _check(jaxpr, set())
    return jaxpr


def _check(jaxpr: Jaxpr, seen: set) -> None:
    if id(jaxpr) in seen:
        return
    seen.add(id(jaxpr))
    for v in (*jaxpr.constvars, *jaxpr.outvars):
        if getattr(v.aval, "too_big", False):
            raise allocation_error(v.aval)
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if getattr(v.aval, "too_big", False):
                raise allocation_error(v.aval)
        if eqn.params:
            for sub in subjaxprs(eqn.params):
                _check(sub, seen)


MMAP_THRESHOLD = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
TRIM_THRESHOLD = 64 << 20  # twice it, as glibc's dynamic rule sets it
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # malloc.h's parameter numbers


def keep_freed_memory() -> bool:
    """Sets glibc's mmap and trim thresholds (see the module docstring);
    True when they were set. Elsewhere (another C library, the setting
    off) it changes nothing."""
    setting = (os.environ.get("PYJAX_MALLOC_THRESHOLDS") or "1").strip().lower()
    if setting in ("0", "off", "false", "no") or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (glibc's alone: musl's mallopt differs)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
