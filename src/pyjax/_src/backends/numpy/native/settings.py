"""The native tier's knobs and limits, read at call time (tests and the
fuzzer change them): `ENABLED` (PYJAX_NATIVE_LOOPS), `AFTER_STEPS`
(PYJAX_NATIVE_LOOPS_AFTER) and `AFTER_SECONDS`, how long a first call waits for its build, the
size limits of the values native code handles.
"""

from __future__ import annotations

import math
import os
import sys

_DEFAULT_AFTER_STEPS = 20000


def _after_steps(value: str | None = None) -> int:
    """`PYJAX_NATIVE_LOOPS_AFTER` as a number of steps: any non-negative
    number (``1e3`` is 1000 steps; a fraction rounds up). A value that is
    not one warns and gives the default: a bad knob must not break import."""
    if value is None:
        value = os.environ.get("PYJAX_NATIVE_LOOPS_AFTER")
    if value is None or not value.strip():
        return _DEFAULT_AFTER_STEPS
    try:
        steps = float(value.strip())
    except ValueError:
        steps = math.nan
    if not (steps >= 0) or math.isinf(steps):  # (NaN fails the comparison)
        import warnings

        warnings.warn(f"PYJAX_NATIVE_LOOPS_AFTER must be a non-negative number of loop steps, got {value!r}; "
                      f"using {_DEFAULT_AFTER_STEPS}", RuntimeWarning, stacklevel=2)
        return _DEFAULT_AFTER_STEPS
    return math.ceil(steps)


AFTER_STEPS = _after_steps()
# ... or once its Python runs have taken this long in all, whichever comes
# first: a build costs ~80 ms of a background thread, and a loop of costly
# steps (a 50-equation ODE step: ~0.15 ms) would otherwise run 20,000 of
# them in Python first. Setting PYJAX_NATIVE_LOOPS_AFTER leaves the steps alone.
AFTER_SECONDS = math.inf if (os.environ.get("PYJAX_NATIVE_LOOPS_AFTER") or "").strip() else 0.25
ENABLED = os.environ.get("PYJAX_NATIVE_LOOPS", "1").strip().lower() not in ("0", "off", "false", "no")



def _threads() -> int:
    # PYJAX_NATIVE_THREADS: the threads a native call may share its work
    # among (threads.py); unset or 0: as many as split.py's blocks.
    value = (os.environ.get("PYJAX_NATIVE_THREADS") or "0").strip()
    try:
        threads = int(value)
    except ValueError:
        threads = -1
    if threads < 0:
        import warnings
        warnings.warn(f"PYJAX_NATIVE_THREADS must be a non-negative number of threads, got {value!r}; "
                      "using the cores", RuntimeWarning, stacklevel=2)
        return 0
    return threads


THREADS = _threads()

# A body value larger than this (in bytes) is not worth a native loop: its
# NumPy calls cost more than their dispatch.
_MAX_VALUE_BYTES = 1 << 16
# Every value of a native program has its own scratch: at most this much.
_MAX_SCRATCH_BYTES = 1 << 24
# A straight-line program shorter than this stays Python. Called through
# native_call.c, a native program costs ~0.2 us a call, less than two
# NumPy calls; through ctypes, about what a dozen NumPy calls do.
MIN_PROGRAM_EQNS = 2
# A program's constants and iotas are written into its C source as their
# values: past this many bytes each, the source grows more than the program gains.
MAX_CONST_BYTES = 1 << 12
MIN_CTYPES_PROGRAM_EQNS = 16
# With PYJAX_NATIVE_LOOPS_AFTER=0 a first call waits for its build at most
# this long, then runs in Python while the build goes on.
_FIRST_CALL_WAIT_S = 5.0


if sys.platform == "win32" or sys.implementation.name != "cpython":
    # No /proc or cc; or object ids that are not addresses (the ufunc tables
    # are read at id(ufunc)).
    ENABLED = False
