"""NativeLoop: the native tier of one compiled loop (scan, while), row loop
or straight-line program, as compiled code calls it (`run`, `check`), on
tiering.py's state machine.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable

import numpy as np

from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.build import _MAX_CALL_ARGS, _build, _native_call_type, _prepare_native_call
from pyjax._src.backends.numpy.native.settings import MIN_CTYPES_PROGRAM_EQNS
from pyjax._src.backends.numpy.native.tiering import BUILT, COLD, FIRST_RECHECK, LIVE, Rechecks, Tiering, log

# Live re-checks also watch for the first call whose float inputs hold a
# NaN, +inf, -inf, +0, -0 or a subnormal (native_call.c's class bits), once
# per class.
_ALL_CLASSES = 0x3F
# native_call.c's `Watch` wanting no classes (two unsigned ints, three
# pointers), for scans and row loops called through ctypes.
_NO_WATCH = np.zeros(4, np.uint64)


def _no_outputs(*inputs) -> None:
    return None


def _no_check(steps: int, *outputs) -> None:
    return None


def _value_classes(values, want: int) -> int:
    # native_call.c's input_classes, for calls through ctypes.
    seen = 0
    for x in values:
        x = np.asarray(x)
        if x.dtype.kind != "f" or x.dtype.itemsize not in (2, 4, 8):
            continue
        neg = np.signbit(x)
        nan, inf, zero = np.isnan(x), np.isinf(x), x == 0
        sub = ~zero & (np.abs(x) < np.finfo(x.dtype).smallest_normal) & ~nan
        for bit, hit in ((1, nan), (2, inf & ~neg), (4, inf & neg), (8, zero & ~neg), (16, zero & neg), (32, sub)):
            if want & bit and hit.any():
                seen |= bit
    return seen & want


def _same_bits(mine: list, theirs) -> bool:
    for a, b in zip(mine, theirs, strict=True):
        b = np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
            return False
    return True


class NativeLoop(Tiering):
    """The native tier of one compiled loop (a scan or a while) or
    straight-line program.

    Compiled code calls `native.run(*inputs)` first: a list of outputs
    when the native code is live, else None; then the Python code runs and
    calls `native.check(steps, *outputs)` with the steps it made (a loop's
    iterations, a program's equations). Once the tier is live and called
    through native_call.c, `run` is that C callable itself, and `call1`
    (a program of one output whose compiled function is `python`) the one
    returning that output alone; `run` then also takes an array (or None)
    per output after the inputs, to compute that output into.

    The checked call runs the native code on copies of the inputs (a tier
    that writes into an input is dropped), and so do re-checks of the live
    tier: calls 2, 4, 8, ... and the first call whose float inputs hold
    each class of IEEE special value. A re-checked call returns the Python
    code's outputs; on any difference the tier is dropped for good."""

    def __init__(self, make: Callable[[], tuple[str, list[int], int]], in_avals: list, out_avals: list,
                 kind: str = "loop", reports: bool = False):
        # `make()` writes the C source (source, kernel pointers, scratch
        # bytes): on the build thread, so a loop that never gets hot costs
        # no code generation. `reports`: a scan's or row loop's function
        # (which takes native_call.c's `Watch` after its arguments) reports
        # its inputs' classes of value itself, instead of native_call.c
        # scanning them before the call (emit.py `_watch_lines`).
        super().__init__(kind)
        self._make = make
        self.reports = reports
        self.source, self.kernels, self.scratch = None, None, 0
        self.in_specs = [(a.shape, a.dtype) for a in in_avals]
        self.out_specs = [(a.shape, a.dtype) for a in out_avals]
        self.steps = 0
        self.seconds = 0.0  # the Python runs' time while cold
        self.steps_per_call = 0  # a program's equations
        self.python = None  # a program's compiled function (compile.py sets it): call1's re-checks run it
        self.rechecks = 0  # re-checks of the live tier that agreed
        self._fn = None  # the ctypes function
        self._call = None  # or the NativeCall (native_call.c), which never re-checks
        self._live = None  # the NativeCall `run` becomes: it hands re-checked calls to `_sample`
        self.call1 = None
        self.run = self._tiering
        self._local = threading.local()  # .pending: the native outputs of this thread's checked call
        self._rechecks, self._watch = Rechecks(), _ALL_CLASSES  # (through ctypes)

    def _tiering(self, *args):
        # (Output buffers after the inputs are for live native code only: the
        # checked call writes into copies, `_checked_run`.)
        inputs, buffers = args[:len(self.in_specs)], args[len(self.in_specs):]
        state = self.state
        if state == LIVE:  # (through ctypes: a NativeCall re-checks in C)
            return self._sample(*args) if self._due(inputs) else self._run(inputs)
        if state == COLD and settings.AFTER_STEPS == 0:  # build now, and check on this call
            self.start(wait=True)  # (a build that takes longer goes on behind Python calls)
            state = self.state
        if state == BUILT:
            self._local.pending = self._checked_run(inputs, buffers)
        elif state == COLD:
            self._local.started = time.perf_counter()  # (`check` adds the Python run's time)
        return None

    def _due(self, inputs) -> bool:
        # Whether this live call through ctypes is re-checked (as native_call.c decides).
        due = self._rechecks.due()
        if self._watch:
            seen = _value_classes(inputs, self._watch)
            if seen:
                self._watch &= ~seen
                due = True
        return due

    def _checked_run(self, inputs, buffers=()) -> list | None:
        # The native outputs computed from copies of `inputs` (the Python code
        # reads the originals), or None: inputs of other dtypes or shapes, or
        # a tier that wrote into a copy, dropped. An output the live call
        # writes into a dead input (`buffers`, after the inputs) goes into
        # that input's copy here, so that a loop reading an input after
        # writing an output over it computes here what it computes live.
        copies = [np.array(x, copy=True) for x in inputs]
        given = [next((c for x, c in zip(inputs, copies) if x is b), None) if b is not None else None
                 for b in buffers]
        written = {id(c) for c in given if c is not None}
        outs = self._call(*copies, *given) if written and self._call is not None else self._run(copies)
        if outs is None:
            return None
        for i, (x, copy) in enumerate(zip(inputs, copies, strict=True)):
            if id(copy) not in written and np.asarray(x).tobytes() != copy.tobytes():
                self.drop(f"it wrote into its input {i}")
                return None
        return outs

    def _sample(self, *args):
        # A re-checked live call: the native code on copies now, compared with
        # the Python code's outputs in `check`; the Python code's are returned.
        if self.state == LIVE:
            pending = self._checked_run(args[:len(self.in_specs)], args[len(self.in_specs):])
            if pending is not None:
                self._local.pending = pending
        return None

    def _sample1(self, *args):
        # `call1`'s re-checked call (and every call once the tier is dropped):
        # the Python program computes the output returned.
        inputs = args[:len(self.in_specs)]
        pending = self._checked_run(inputs) if self.state == LIVE else None
        self.run = _no_outputs  # the program's own hook: the Python code alone
        try:
            out = self.python(*inputs)[0]
        finally:
            self.run = self._live_run()
        if pending is not None:
            self._compare(pending, [out])
        return out

    def _live_run(self):
        if self.state != LIVE:
            return _no_outputs
        return self._live if self._live is not None else self._tiering

    def _compare(self, pending: list, outputs) -> None:
        if not _same_bits(pending, outputs):
            self.drop("its outputs differ from the Python code's" if self.state == BUILT else
                      "its outputs differed from the Python code's on a re-checked call")
        elif self.state == BUILT:
            self.go_live()
            self.run = self._live_run()
        else:
            self.rechecks += 1

    def check(self, steps: int, *outputs) -> None:
        """After the Python loop ran `steps` iterations: if the native loop
        ran too, keep it when every output agrees bitwise, else drop it;
        start the build once the loop has run `settings.AFTER_STEPS` iterations
        or its Python runs `settings.AFTER_SECONDS` in all."""
        pending = getattr(self._local, "pending", None)
        if pending is not None:
            self._local.pending = None
            if self.state in (BUILT, LIVE):
                self._compare(pending, outputs)
        elif self.state == COLD:
            self.steps += steps
            started, self._local.started = getattr(self._local, "started", None), None
            if started is not None:
                self.seconds += time.perf_counter() - started
            if self.steps >= settings.AFTER_STEPS or self.seconds >= settings.AFTER_SECONDS:
                self.start()

    def prepare(self) -> None:
        _prepare_native_call()  # (native_call.c builds beside the first native build)

    def build(self) -> None:
        # On the build thread (tiering.py): the C source, then the library.
        make, self._make = self._make, None  # the jaxprs it holds are not needed after this
        self.source, kernels, self.scratch = make()
        self.kernels = (ctypes.c_void_p * max(len(kernels), 1))(*kernels)
        self._fn = _build(self.source, straight_line=self.kind == "program").pyjax_loop
        self._fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self._fn.restype = None
        self._bind()

    def built(self, seconds: float, loud: bool) -> None:
        log(f"Finished native build of a {self.kind} ({self.source.count(chr(10))} lines of C) in "
            f"{seconds:.9f} sec", loud)

    def _bind(self):
        # The C callables of native_call.c over the built function, when
        # there is one; a short program through ctypes would be slower
        # than its Python code.
        native_call = _native_call_type() if len(self.in_specs) + len(self.out_specs) <= _MAX_CALL_ARGS else None
        if native_call is None:
            if self.kind == "program" and self.steps_per_call < MIN_CTYPES_PROGRAM_EQNS:
                raise RuntimeError("a short program is slower through ctypes than in Python")
            return
        ins = tuple((dtype, shape) for shape, dtype in self.in_specs)
        outs = tuple((dtype, shape) for shape, dtype in self.out_specs)
        args = (ctypes.cast(self._fn, ctypes.c_void_p).value, ctypes.addressof(self.kernels), ins, outs,
                self.scratch, self.kind != "program")  # a loop runs without the GIL, as through ctypes
        keep = (self._fn, self.kernels)
        self._call = native_call(*args, False, keep, self.reports)
        self._live = self._sampled(native_call(*args, False, keep, self.reports), self._sample)
        if len(outs) == 1 and self.python is not None:
            self.call1 = self._sampled(native_call(*args, True, keep, self.reports), self._sample1)

    @staticmethod
    def _sampled(call, sampler):
        call.calls, call.next_check, call.watch = 1, FIRST_RECHECK, _ALL_CLASSES
        call.sampler = sampler
        return call

    def dropped(self) -> None:
        # Compiled code keeps calling the tier: from now on, for nothing. A
        # holder of `call1` (an eager program) gets the Python code's output.
        self.run, self.check = _no_outputs, _no_check
        for call in (self._live, self.call1):
            if call is not None:
                call.next_check, call.watch = 0, 0

    def _run(self, inputs):
        if self._call is not None:
            return self._call(*inputs)
        arrays = []
        for x, (shape, dtype) in zip(inputs, self.in_specs, strict=True):
            x = np.asarray(x)
            if x.dtype != dtype or x.shape != shape:
                return None
            if not x.flags.c_contiguous:
                x = np.ascontiguousarray(x)
            arrays.append(x)
        outs = [np.empty(shape, dtype) for shape, dtype in self.out_specs]
        scratch = np.empty(self.scratch + 64, np.uint8)
        # After the buffers, as native_call.c passes it, a Watch wanting
        # nothing (a scan's or row loop's function reads it; through ctypes,
        # `_due` scans the inputs before the call).
        ptrs = (ctypes.c_void_p * (len(arrays) + len(outs) + 1))(
            *[a.__array_interface__["data"][0] for a in (*arrays, *outs)], _NO_WATCH.ctypes.data)
        base = scratch.__array_interface__["data"][0]
        self._fn(ptrs, self.kernels, base + (-base % 64))
        return outs
