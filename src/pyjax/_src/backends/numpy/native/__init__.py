"""Native code: a hot `scan` or `while` of small steps, or a long
straight-line jitted program on small values, run as C that calls NumPy's
own kernels.

A scan body of a few small equations costs what its NumPy calls cost in
dispatch, ~0.3-0.5 us each, however little they compute: the seed's RNN
step `tanh(W @ h + x)` on 32 floats is 1.2 us in the compiled Python loop,
where XLA's loop takes 0.19 us. This module writes such a body as a C
loop over the same kernels the Python loop reaches through NumPy:

- an elementwise equation calls the ufunc's inner loop for its dtypes (the
  function pointer NumPy's ufunc object publishes in its C struct): over
  the whole value when its operands are contiguous or single elements,
  else along the last axis with the operands' strides (0 where broadcast),
  as NumPy's own iterator calls it;
- `dot_general` calls the BLAS `gemv` or `gemm` that `ndarray.dot` calls,
  chosen as NumPy chooses it from the operands' layouts (transposed
  operands included), with the same arguments;
- a reduction calls the ufunc's loop as `ufunc.reduce` does: from the
  identity (or the first element) over each row in reduce form, or over
  every element, or row by row along the leading axis;
- broadcasts, reshapes, transposes, slices and splits are views (a pointer,
  a shape and byte strides), as in NumPy; a `where` is a choice of bytes,
  a conversion what the impl does (XLA's saturating float-to-int, `!= 0`
  to bool, else the C cast NumPy's astype is), the rewrite's fused
  multiply-add C's `fmaf` (float32) or the impl's float64 emulation, `max`,
  `min` and `clamp` NumPy's loop then XLA's order of signed zeros (as the
  impl does), a `cond` an `if` on its index; ys rows
  and carries are copies.

A jitted program of at least `MIN_PROGRAM_EQNS` such equations (a chain of
1000 elementwise ops on 16 floats: 0.7 ms of NumPy dispatch, 27 us native),
or a single reduction, is written the same way, without the loop; so is an
eager jax.numpy call's small program (numpy/eager.py). A run of row-wise
equations over a large array (a softmax) is written as a scan over its
rows (`native_rows`, found by rows.py).

Native code is called through native_call.c's `NativeCall`, a CPython
callable built once per process against this Python's and this NumPy's
headers: it checks the inputs, allocates the outputs and calls the C
function in ~0.2 us. Without those headers it is called through ctypes
(~5 us), and only programs of `MIN_CTYPES_PROGRAM_EQNS` get a tier.

So the native code computes bit for bit what the Python code computes:
every operation is the kernel NumPy runs, or (fma, conversions, XLA's
zeros) the impl's own arithmetic, operation for operation. That is checked
rather than assumed: the native code is used only after one call on which
both ran and every output agreed bitwise; on any difference it is dropped
for good and the Python code stays.

Tiering, as a JIT does it: a loop runs as Python until it has executed
`AFTER_STEPS` iterations (summed over calls; a program counts its
equations); then its C source is written and compiled on a background
thread with the system C compiler (`$CC`, else `cc`) while calls go on in
Python, and the next call after the build is the checked one. First calls
never wait for a compiler; without one (or with `PYJAX_NATIVE_LOOPS=0`)
nothing changes. `PYJAX_NATIVE_LOOPS_AFTER` sets the threshold (0: build at
the first call, and wait for it).

Supported: elementwise equations whose compiled code is one ufunc call
(and `logistic`, SciPy's `expit` for floats; `integer_pow`, NumPy's power),
matrix-vector, vector-matrix and matrix-matrix products of float32/float64
(no dimension of 1), sums, products, maxima and minima over the last axis,
the leading axis or every axis, the views above (and `rev`),
`dynamic_slice`, `dynamic_update_slice`, `concatenate`, the one-row scatter
of `x.at[i].set(v)`, `select_n` with a boolean predicate, conversions,
`sign`, `max`, `min`, `clamp` and `fma`, `cond`/`switch` over such
branches, and jit/remat/custom_jvp/custom_vjp calls of these, written in
line: an RNN, LSTM or GRU cell, an ODE step, a small network's whole
training step. Anything else (gathers, general scatters, sorts, random
bits, callbacks, values over 64 KB) keeps the Python code, as does a call
whose inputs do not have the expected dtypes and shapes.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import itertools
import logging
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import ClassVar

import numpy as np


from pyjax._src.jaxpr import DropVar, Jaxpr, Literal
from pyjax._src.backends.numpy import fpenv
from pyjax._src.backends.numpy.codegen import kernels

__all__ = ["AFTER_STEPS", "NativeLoop", "native_program", "native_scan", "native_while"]

logger = logging.getLogger(__name__)


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
ENABLED = os.environ.get("PYJAX_NATIVE_LOOPS", "1").strip().lower() not in ("0", "off", "false", "no")

# A body value larger than this (in bytes) is not worth a native loop: its
# NumPy calls cost more than their dispatch.
_MAX_VALUE_BYTES = 1 << 16
# Every value of a native program has its own scratch: at most this much.
_MAX_SCRATCH_BYTES = 1 << 24
# A straight-line program shorter than this stays Python. Called through
# native_call.c, a native program costs ~0.2 us a call, less than two
# NumPy calls; through ctypes, about what a dozen NumPy calls do.
MIN_PROGRAM_EQNS = 2
MIN_CTYPES_PROGRAM_EQNS = 16

# ---------------------------------------------------------------------------
# NumPy's kernels, as C function pointers


class _UfuncHead(ctypes.Structure):
    # The public prefix of NumPy's PyUFuncObject (numpy/ufuncobject.h), after
    # the object header (whose size `object.__basicsize__` gives).
    _fields_ = [
        ("header", ctypes.c_byte * object.__basicsize__),
        ("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nargs", ctypes.c_int), ("identity", ctypes.c_int),
        ("functions", ctypes.POINTER(ctypes.c_void_p)), ("data", ctypes.POINTER(ctypes.c_void_p)),
        ("ntypes", ctypes.c_int), ("reserved1", ctypes.c_int),
        ("name", ctypes.c_char_p), ("types", ctypes.POINTER(ctypes.c_char)),
    ]


_loops: dict = {}


def ufunc_loop(ufunc: np.ufunc, dtypes: tuple) -> tuple[int, int] | None:
    """(inner loop, its data) that `ufunc` runs for operand and result
    `dtypes` (no casts), or None."""
    key = (ufunc, dtypes)
    if key not in _loops:
        _loops[key] = _find_loop(ufunc, dtypes)
    return _loops[key]


def _find_loop(ufunc, dtypes):
    if type(ufunc) is not np.ufunc or ufunc.nout != 1 or len(dtypes) != ufunc.nargs:
        return None
    head = _UfuncHead.from_address(id(ufunc))
    if ((head.nin, head.nout, head.nargs, head.ntypes) != (ufunc.nin, ufunc.nout, ufunc.nargs, ufunc.ntypes)
            or head.name != ufunc.__name__.encode()):
        return None  # not the layout this reads
    nums = [np.dtype(d).num for d in dtypes]
    if any(num >= 256 for num in nums):
        return None  # a user dtype (bfloat16, float8): its loops are not in this table
    wanted = bytes(nums)
    n = head.nargs
    for i in range(head.ntypes):
        if bytes(head.types[i * n + j][0] for j in range(n)) == wanted:
            fn = head.functions[i]
            return (fn, head.data[i] or 0) if fn else None
    return None


class _Blas:
    # NumPy's BLAS (the library its `ndarray.dot` calls): the addresses of
    # its gemv and gemm, and whether its integers are 64-bit.
    fns: ClassVar[dict] = {}  # "sgemv" -> its address, and so on
    int64 = False
    found = None

    @classmethod
    def find(cls) -> bool:
        if cls.found is None:
            cls.found = cls._find()
        return cls.found

    @classmethod
    def _find(cls) -> bool:
        # Only an OpenBLAS that NumPy's build config names: its symbol names
        # and integer width are then known (a wrong width would not give
        # wrong bits but a crash, which no check after the fact can catch).
        try:
            config = np.__config__.CONFIG["Build Dependencies"]["blas"]
            name, build = config["name"].lower(), config.get("openblas configuration", "")
        except (AttributeError, KeyError, TypeError):
            return False
        if "openblas" not in name:
            return False
        int64 = "USE64BITINT" in build
        prefix, suffix = ("scipy_" if name.startswith("scipy") else ""), ("64_" if int64 else "")
        names = {f: f"{prefix}cblas_{f}{suffix}" for f in ("sgemv", "dgemv", "sgemm", "dgemm")}
        try:
            with open("/proc/self/maps") as maps:
                paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line}
        except OSError:
            return False
        # NumPy's wheels bundle their BLAS beside the package (numpy.libs);
        # SciPy loads another copy, which must not be the one picked.
        for path in sorted(paths, key=lambda p: ("numpy" not in p, p)):
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            if all(hasattr(lib, n) for n in names.values()):
                cls.fns = {f: ctypes.cast(getattr(lib, n), ctypes.c_void_p).value for f, n in names.items()}
                cls.int64 = int64
                return True
        return False


# ---------------------------------------------------------------------------
# The C source: values as views, equations as kernel calls


_C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
# C types of the values an exact cast reads or writes (compile.py's `_direct_convert` set).
_C_SCALARS = {np.dtype(np.bool_): "unsigned char", np.dtype(np.int8): "int8_t", np.dtype(np.int16): "int16_t",
              np.dtype(np.int32): "int32_t", np.dtype(np.int64): "int64_t", np.dtype(np.uint8): "uint8_t",
              np.dtype(np.uint16): "uint16_t", np.dtype(np.uint32): "uint32_t", np.dtype(np.uint64): "uint64_t",
              **_C_TYPES}
# Primitives whose default impl, for these dtype kinds, is exactly this
# ufunc's call although compiled code calls the impl (it has other cases).
_IMPL_UFUNCS = kernels.C_IMPL_UFUNCS  # (logistic: SciPy's expit for floats)


class _Unsupported(Exception):
    pass


class _Source:
    """The C source being written: its static literals, scratch storage and
    table of kernel pointers (passed in `k` at run time)."""

    def __init__(self):
        self.kernels: list[int] = []  # pointers passed in `k`
        self.statics: list[str] = []
        self.scratch = 0  # bytes
        self.helpers: dict[str, str] = {}  # name -> C definition (vector paths)
        self._loop_vars = itertools.count()

    def kernel(self, pointer: int) -> str:
        self.kernels.append(pointer)
        return f"k[{len(self.kernels) - 1}]"

    def literal(self, value, dtype) -> str:
        data = np.asarray(value, dtype).tobytes()
        name = f"lit{len(self.statics)}"
        body = ", ".join(str(b) for b in data) or "0"
        self.statics.append(f"static const unsigned char {name}[{max(len(data), 1)}] "
                            f"__attribute__((aligned(16))) = {{{body}}};")
        return f"(char *){name}"

    def temp(self, aval) -> _View:
        offset = self.scratch
        self.scratch += -(-max(_nbytes(aval), 1) // 64) * 64
        if self.scratch > _MAX_SCRATCH_BYTES:
            raise _Unsupported("more scratch than a native program may take")
        return _View(f"(s + {offset})", aval.shape, _c_strides(aval.shape, aval.dtype.itemsize), aval.dtype)

    def index(self) -> str:
        return f"i{next(self._loop_vars)}"


def _nbytes(aval) -> int:
    return aval.size * aval.dtype.itemsize


def _c_strides(shape, itemsize) -> tuple:
    strides, step = [], itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


class _View:
    """A value in the C loop: the address of its first element, its shape
    and its byte strides (NumPy's view model: broadcasts, slices and
    transposes cost nothing)."""

    __slots__ = ("dtype", "ptr", "shape", "strides")

    def __init__(self, ptr: str, shape: tuple, strides: tuple, dtype):
        self.ptr, self.shape, self.strides, self.dtype = ptr, tuple(shape), tuple(strides), np.dtype(dtype)

    @property
    def contiguous(self) -> bool:
        return all(st == c for st, c, d in zip(self.strides, _c_strides(self.shape, self.dtype.itemsize), self.shape)
                   if d != 1)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def aligned(self, shape) -> tuple:
        """Byte strides broadcasting this view to `shape`."""
        pad = len(shape) - len(self.shape)
        if pad < 0:
            raise _Unsupported("broadcast to fewer dimensions")
        out = [0] * pad
        for d, st, target in zip(self.shape, self.strides, shape[pad:]):
            if d == target:
                out.append(st if d != 1 else 0)
            elif d == 1:
                out.append(0)
            else:
                raise _Unsupported(f"broadcast of {self.shape} to {shape}")
        return tuple(out)


def _nest(src: _Source, shape, views, inner) -> list[str]:
    """Loops over `shape` but its last axis; `inner(ptrs)` gives the lines run
    with each view's address at the current outer index."""
    outer = shape[:-1]
    idx = [src.index() for _ in outer]
    ptrs = []
    for v in views:
        strides = v.aligned(shape)
        terms = [f"{i} * {st}" for i, st in zip(idx, strides[:-1]) if st]
        ptrs.append(f"({v.ptr}{''.join(' + ' + t for t in terms)})")
    lines = inner(ptrs)
    for i, d in reversed(list(zip(idx, outer))):
        lines = [f"for (intptr_t {i} = 0; {i} < {d}; {i}++) {{", *("    " + line for line in lines), "}"]
    return lines


def _ufunc_lines(src: _Source, fn: int, data: int, ins: list, out: _View) -> list[str]:
    # One call over everything when every operand is contiguous or a single
    # element; else per row of the last axis, with the operands' strides.
    call = f"((loop_t){src.kernel(fn)})(args, n, st, {src.kernel(data)});"
    if all(v.size == 1 or (v.shape == out.shape and v.contiguous) for v in ins):
        steps = ", ".join(str(v.dtype.itemsize if v.size > 1 or out.size == 1 else 0) for v in ins)
        args = ", ".join([v.ptr for v in ins] + [out.ptr])
        return [(f"{{ char *args[] = {{{args}}}; static const intptr_t n[] = {{{out.size}}}; "
                f"static const intptr_t st[] = {{{steps}, {out.dtype.itemsize}}}; {call} }}")]
    if not out.shape:
        raise _Unsupported("a 0-d result of broadcast operands")
    last = [v.aligned(out.shape)[-1] for v in ins]

    def inner(ptrs):
        steps = ", ".join(map(str, [*last, out.strides[-1]]))
        return [(f"{{ char *args[] = {{{', '.join(ptrs)}}}; static const intptr_t n[] = {{{out.shape[-1]}}}; "
                f"static const intptr_t st[] = {{{steps}}}; {call} }}")]

    return _nest(src, out.shape, [*ins, out], inner)


def _element_lines(src: _Source, shape, views: list, expr) -> list[str]:
    """Per element: `expr(refs)` is a C statement over `refs[k]`, the k-th
    view's element as an lvalue of its C type (the last view is written)."""
    if not shape:
        refs = [f"(*({_C_SCALARS[v.dtype]} *){v.ptr})" for v in views]
        return [expr(refs)]
    j = src.index()

    def inner(ptrs):
        refs = [f"(*({_C_SCALARS[v.dtype]} *)({p} + {j} * {v.aligned(shape)[-1]}))" for v, p in zip(views, ptrs)]
        return [f"for (intptr_t {j} = 0; {j} < {shape[-1]}; {j}++) {expr(refs)}"]

    return _nest(src, shape, views, inner)


def _copy_lines(src: _Source, dst: _View, value: _View) -> list[str]:
    """`dst` = `value`, broadcast to dst's shape: memcpy where both are
    contiguous, else element by element."""
    if value.shape == dst.shape and value.contiguous and dst.contiguous:
        return [f"memcpy({dst.ptr}, {value.ptr}, {dst.size * dst.dtype.itemsize});"]
    if value.dtype not in _C_SCALARS:
        raise _Unsupported(f"a strided copy of {value.dtype}")
    return _element_lines(src, dst.shape, [value, dst], lambda r: f"{r[1]} = {r[0]};")


def _contiguous_view(ptr: str, aval) -> _View:
    return _View(ptr, aval.shape, _c_strides(aval.shape, aval.dtype.itemsize), aval.dtype)


def _check_values(jaxprs) -> None:
    # Inputs only lend their addresses; the values computed (each its own
    # scratch) must be small.
    for jaxpr in jaxprs:
        for v in jaxpr.invars:
            if not isinstance(v.aval.dtype, np.dtype):
                raise _Unsupported(f"value {v.aval}")
        for v in (*jaxpr.outvars, *(w for e in jaxpr.eqns for w in e.outvars)):
            if not isinstance(v.aval.dtype, np.dtype) or _nbytes(v.aval) > _MAX_VALUE_BYTES:
                raise _Unsupported(f"value {v.aval}")


def _body(src: _Source, jaxpr: Jaxpr, in_views: list, impls: dict,
          last_into: _View | None = None) -> tuple[list[str], list]:
    """C lines computing `jaxpr` from `in_views`; the views of its outputs.
    `last_into`: where the last equation may write its result, when it is
    an elementwise NumPy call (which reads each element before writing it,
    so the place may even be one of its operands)."""
    views = dict(zip(jaxpr.invars, in_views, strict=True))

    def view(v) -> _View:
        if type(v) is Literal:
            return _View(src.literal(v.val, v.aval.dtype), (), (), v.aval.dtype)
        return views[v]

    lines: list[str] = []
    eqns = jaxpr.eqns
    last = eqns[-1] if eqns else None
    done: set = set()  # equations emitted early (by index)
    readers = _first_readers(eqns)
    for k, eqn in enumerate(eqns):
        if k in done:
            continue
        # An op whose result's first reader takes its max or min: both in
        # one pass, now (the reduction's operand is ready, and it is pure).
        reader = readers.get(eqn.outvars[0]) if len(eqn.outvars) == 1 else None
        if reader is not None:
            fused = _fused_extremum(src, eqn, eqns[reader], [view(v) for v in eqn.invars], impls, lines)
            if fused is not None:
                views[eqn.outvars[0]], views[eqns[reader].outvars[0]] = fused
                done.add(reader)
                continue
        outs = _emit(src, eqn, [view(v) for v in eqn.invars], impls, lines, last_into if eqn is last else None)
        for v, out in zip(eqn.outvars, outs, strict=True):
            if type(v) is not DropVar:
                views[v] = out
    return lines, [view(v) for v in jaxpr.outvars]


def _next_carries(src: _Source, outs: list) -> list[str]:
    # Double-buffered: a carry may be another's old value.
    lines = []
    for j, v in enumerate(outs):
        dst = _View(f"nxt[{j}]", v.shape, _c_strides(v.shape, v.dtype.itemsize), v.dtype)
        lines += _copy_lines(src, dst, v)
    if outs:
        lines.append("for (int j = 0; j < NC; j++) { char *held = cur[j]; cur[j] = nxt[j]; nxt[j] = held; }")
    return lines


def _program(src: _Source, carry_avals: list, init_at: int, out_at: int, loop: list[str]) -> str:
    """The C function: carries copied in from `a[init_at:]`, `loop`, and
    copied out to `a[out_at:]`."""
    blas = "int64_t" if _Blas.int64 else "int"
    lines = ["#include <math.h>", "#include <stdint.h>", "#include <string.h>",
             "typedef void (*loop_t)(char **, const intptr_t *, const intptr_t *, void *);",
             f"typedef {blas} blasint;",
             *(f"typedef void (*{p}gemv_t)(int, int, blasint, blasint, {t}, const void *, blasint, "
               f"const void *, blasint, {t}, void *, blasint);" for p, t in (("s", "float"), ("d", "double"))),
             *(f"typedef void (*{p}gemm_t)(int, int, int, blasint, blasint, blasint, {t}, const void *, "
               f"blasint, const void *, blasint, {t}, void *, blasint);" for p, t in (("s", "float"), ("d", "double"))),
             *src.statics,
             *((_VECTOR_PRELUDE, *src.helpers.values()) if src.helpers else ()),
             f"#define NC {max(len(carry_avals), 1)}",
             "void pyjax_loop(char **a, void **k, char *s) {"]
    # Two banks for the carries, in scratch after the temporaries.
    banks = [(src.temp(aval).ptr, src.temp(aval).ptr) for aval in carry_avals]
    lines.append(f"    char *cur[NC] = {{{', '.join(b[0] for b in banks) or '0'}}};")
    lines.append(f"    char *nxt[NC] = {{{', '.join(b[1] for b in banks) or '0'}}};")
    for j, aval in enumerate(carry_avals):
        lines.append(f"    memcpy(cur[{j}], a[{init_at + j}], {_nbytes(aval)});")
    lines += ["    " + line for line in loop]
    for j, aval in enumerate(carry_avals):
        lines.append(f"    memcpy(a[{out_at + j}], cur[{j}], {_nbytes(aval)});")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _scan_source(body: Jaxpr, consts_n: int, carry_n: int, length: int, reverse: bool, impls: dict):
    """(C source, kernel pointers, scratch bytes) of the scan of `body`;
    raises _Unsupported. Arguments `a`: consts, initial carries, xs, final
    carries, ys."""
    src = _Source()
    _check_values([body])
    invars, outvars = body.invars, body.outvars
    xs_n = len(invars) - consts_n - carry_n
    in_views = ([_contiguous_view(f"a[{j}]", v.aval) for j, v in enumerate(invars[:consts_n])]
                + [_contiguous_view(f"cur[{j}]", v.aval) for j, v in enumerate(invars[consts_n:consts_n + carry_n])]
                + [_contiguous_view(f"x{j}", v.aval) for j, v in enumerate(invars[consts_n + carry_n:])])
    rows = [_contiguous_view(f"(a[{consts_n + 2 * carry_n + xs_n + j}] + r * {_nbytes(v.aval)})", v.aval)
            for j, v in enumerate(outvars[carry_n:])]
    # The body's last equation may write its y row in place (a row loop's
    # softmax: its final multiply), when that y is not also a carry.
    last = body.eqns[-1].outvars if body.eqns else []
    into = next((row for v, row in zip(outvars[carry_n:], rows) if len(last) == 1 and v is last[0]
                 and v not in outvars[:carry_n]), None)
    step, outs = _body(src, body, in_views, impls, into)
    # ys rows first: a y may be a carry's old value.
    for row, y in zip(rows, outs[carry_n:], strict=True):
        if y is not row:
            step += _copy_lines(src, row, y)
    step += _next_carries(src, outs[:carry_n])
    loop = [f"for (int64_t t = 0; t < {length}; t++) {{",
            f"    int64_t r = {f'{length - 1} - t' if reverse else 't'};",
            *(f"    char *x{j} = a[{consts_n + carry_n + j}] + r * {_nbytes(v.aval)};"
              for j, v in enumerate(invars[consts_n + carry_n:])),
            *("    " + line for line in step),
            "}"]
    carry_avals = [v.aval for v in invars[consts_n:consts_n + carry_n]]
    source = _program(src, carry_avals, consts_n, consts_n + carry_n + xs_n, loop)
    return source, src.kernels, src.scratch


def _while_source(cond: Jaxpr, body: Jaxpr, cond_n: int, body_n: int, impls: dict):
    """(C source, kernel pointers, scratch bytes) of a while loop; raises
    _Unsupported. Arguments `a`: cond consts, body consts, initial carries,
    final carries."""
    src = _Source()
    _check_values([cond, body])
    carry_avals = [v.aval for v in body.invars[body_n:]]
    carries = [_contiguous_view(f"cur[{j}]", a) for j, a in enumerate(carry_avals)]
    cond_lines, (pred,) = _body(src, cond, [_contiguous_view(f"a[{j}]", v.aval)
                                            for j, v in enumerate(cond.invars[:cond_n])] + carries, impls)
    body_lines, outs = _body(src, body, [_contiguous_view(f"a[{cond_n + j}]", v.aval)
                                         for j, v in enumerate(body.invars[:body_n])] + carries, impls)
    if pred.dtype != np.bool_ or pred.shape:
        raise _Unsupported("a predicate that is not a boolean scalar")
    loop = ["for (;;) {",
            *("    " + line for line in cond_lines),
            f"    if (!*(unsigned char *){pred.ptr}) break;",
            *("    " + line for line in body_lines + _next_carries(src, outs)),
            "}"]
    start = cond_n + body_n
    source = _program(src, carry_avals, start, start + len(carry_avals), loop)
    return source, src.kernels, src.scratch


def _program_source(jaxpr: Jaxpr, impls: dict):
    """(C source, kernel pointers, scratch bytes) of a straight-line
    program; raises _Unsupported. Arguments `a`: inputs, then outputs."""
    src = _Source()
    _check_values([jaxpr])
    n = len(jaxpr.invars)
    lines, outs = _body(src, jaxpr, [_contiguous_view(f"a[{j}]", v.aval) for j, v in enumerate(jaxpr.invars)], impls)
    for j, (v, out) in enumerate(zip(jaxpr.outvars, outs, strict=True)):
        lines += _copy_lines(src, _contiguous_view(f"a[{n + j}]", v.aval), out)
    return _program(src, [], 0, 0, lines), src.kernels, src.scratch


def _emit(src: _Source, eqn, ins: list, impls: dict, step: list, into: _View | None = None) -> list:
    """Appends `eqn`'s C lines to `step`; returns its outputs' views (`into`,
    when given and the equation is one elementwise NumPy call)."""
    name, params = eqn.primitive.name, eqn.params
    if eqn.effects:
        raise _Unsupported(f"{name} with effects")
    out_avals = [v.aval for v in eqn.outvars]
    impl = kernels.backend_impl(impls, eqn.primitive)
    if impl is None:
        raise _Unsupported(f"{name}: not the default impl")
    # Views: no code.
    if name in _VIEWS:
        return _VIEWS[name](ins, params, out_avals)
    if name == "cond":
        return _cond_lines(src, params["branches"], ins, out_avals, impls, step)
    inner = _inner_jaxpr(eqn)
    if inner is not None:
        # jit, remat and custom_jvp/vjp calls run their jaxpr's equations
        # with the same impls (impls.py `_jit_impl`): written in line.
        lines, outs = _body(src, inner, ins, impls)
        step += lines
        return outs
    if name == "convert_element_type" and ins[0].dtype == out_avals[0].dtype:
        return [ins[0]]  # only the weak type changes: the same values
    if eqn.primitive.multiple_results:
        raise _Unsupported(name)
    out_aval = out_avals[0]
    ufunc = kernels.c_ufunc_of(eqn, impl)
    elementwise = ufunc is not None and all(v.size == 1 or (v.shape == out_aval.shape and v.contiguous) for v in ins)
    if (into is not None and elementwise and into.contiguous and into.shape == out_aval.shape
            and into.dtype == out_aval.dtype):
        out = into
    else:
        out = src.temp(out_aval)
    if ufunc is not None:
        loop = ufunc_loop(ufunc, tuple(v.dtype for v in ins) + (out_aval.dtype,))
        if loop is None:
            raise _Unsupported(f"no {ufunc.__name__} loop for {[str(v.dtype) for v in ins]}")
        # Written in place (`into`), an operand may be the very row written: a
        # vector pass that stored its results before finding a NaN would
        # leave NumPy's kernel a clobbered operand. Then only operands of this
        # program's own scratch or literals allow it.
        fast = _vector_binary(src, ufunc, ins, out) if out is not into or all(map(_private, ins)) else None
        step += _or_kernel(fast, _ufunc_lines(src, *loop, ins, out))
    elif name == "dot_general":
        step += _dot_lines(src, eqn, ins, out)
    elif name == "fma":
        step += _fma_lines(src, eqn, ins, out)
    elif name == "row_dot":
        step += _row_dot_lines(src, eqn, ins, out)
    elif name in ("max", "min") and out.dtype in _C_SCALARS and all(v.dtype == out.dtype for v in ins):
        step += _minmax_lines(src, name, ins[0], ins[1], out)
    elif name == "clamp" and out.dtype in _C_SCALARS and all(v.dtype == out.dtype for v in ins):
        # The impl (special.py): min(max(x, lo), hi) with max's and min's rules.
        # The max goes to its own scratch for floats: the min's zero fix-up
        # reads its operands after NumPy's min wrote the result.
        lo, x, hi = ins
        low = src.temp(out_aval) if out.dtype.kind == "f" else out
        step += _minmax_lines(src, "max", x, lo, low)
        step += _minmax_lines(src, "min", low, hi, out)
    elif name == "sign" and out.dtype.kind in "fiu" and ufunc_loop(np.sign, (out.dtype,) * 2) is not None:
        # The impl: np.sign, then for floats np.copysign(that, x) (XLA keeps -0.0).
        step += _ufunc_lines(src, *ufunc_loop(np.sign, (out.dtype,) * 2), ins, out)
        if out.dtype.kind == "f":
            step += _ufunc_lines(src, *ufunc_loop(np.copysign, (out.dtype,) * 3), [out, ins[0]], out)
    elif name == "dynamic_slice":
        # The impl: starts clamped so the window fits (XLA's rule), a view.
        x, starts = ins[0], ins[1:]
        ptr = _window(src, x, starts, params["slice_sizes"], step)
        return [_View(ptr, out_aval.shape, x.strides, x.dtype)]
    elif name == "dynamic_update_slice":
        # The impl: a copy of the operand, the update written at clamped starts.
        x, update, starts = ins[0], ins[1], ins[2:]
        step += _copy_lines(src, out, x)
        ptr = _window(src, out, starts, update.shape, step)
        step += _copy_lines(src, _View(ptr, update.shape, out.strides, out.dtype), update)
    elif name == "scatter" and _single_row_scatter(params, ins):
        # x.at[i].set(v): one index into the leading axis, a whole row. The
        # impl (slicing.py): a copy of the operand; the row written when the
        # index is in bounds (CLIP clamps it, the other modes drop it).
        x, index, update = ins
        step += _copy_lines(src, out, x)
        rows = x.shape[0]
        i = f"w{src.index()}"
        step.append(f"intptr_t {i} = {_index(index, rows)};")
        if str(params["mode"]).endswith("CLIP"):
            step.append(f"if ({i} < 0) {i} = 0; if ({i} > {rows - 1}) {i} = {rows - 1};")
        row = _View(f"({out.ptr} + {i} * {out.strides[0]})", update.shape, out.strides[1:], out.dtype)
        step.append(f"if ({i} >= 0 && {i} < {rows}) {{")
        step += ["    " + line for line in _copy_lines(src, row, update)]
        step.append("}")
    elif name == "concatenate":
        axis, offset = params["dimension"], 0
        for v in ins:
            part = _View(f"({out.ptr} + {offset * out.strides[axis]})", v.shape, out.strides, out.dtype)
            step += _copy_lines(src, part, v)
            offset += v.shape[axis]
    elif getattr(impl, "reduce_ufunc", None) is not None:  # the impl is `ufunc.reduce` (impls.py)
        step += _reduce_lines(src, impl.reduce_ufunc, ins[0], tuple(params["axes"]), out)
    elif name == "integer_pow" and params["y"] != 0 and ufunc_loop(np.power, (out.dtype,) * 3) is not None:
        # The impl: np.power(x, |y|, dtype=x.dtype) (|y| cast to the dtype,
        # as a broadcast scalar), then np.reciprocal for y < 0.
        y = params["y"]
        power = _View(src.literal(abs(y), out.dtype), (), (), out.dtype)
        step += _ufunc_lines(src, *ufunc_loop(np.power, (out.dtype,) * 3), [ins[0], power], out)
        if y < 0:
            loop = ufunc_loop(np.reciprocal, (out.dtype,) * 2)
            if loop is None:
                raise _Unsupported("reciprocal loop")
            step += _ufunc_lines(src, *loop, [out], out)
    elif name == "select_n" and len(ins) == 3 and ins[0].dtype == np.bool_ and out.dtype in _C_SCALARS:
        # np.where(which, cases[1], cases[0]): a choice of bytes.
        step += _element_lines(src, out.shape, [*ins, out], lambda r: f"{r[3]} = {r[0]} ? {r[2]} : {r[1]};")
    elif name == "convert_element_type" and ins[0].dtype in _C_SCALARS and out.dtype in _C_SCALARS:
        step += _element_lines(src, out.shape, [ins[0], out], _conversion(ins[0].dtype, out.dtype))
    else:
        raise _Unsupported(name)
    return [out]


def _single_row_scatter(params, ins) -> bool:
    # scatter (replace) of one whole row at one index into the leading axis.
    x, index, update = ins
    dn = params["dimension_numbers"]
    return (params.get("update_jaxpr") is None and index.size == 1 and index.dtype.kind in "iu"
            and len(index.shape) == 1 and update.shape == x.shape[1:] and x.shape and x.shape[0] > 0
            and tuple(dn.update_window_dims) == tuple(range(len(update.shape)))
            and tuple(dn.inserted_window_dims) == (0,) and tuple(dn.scatter_dims_to_operand_dims) == (0,)
            and not tuple(dn.operand_batching_dims) and not tuple(dn.scatter_indices_batching_dims))


def _index(v: _View, limit: int) -> str:
    """C expression of the integer scalar `v` as an intptr_t; an unsigned
    value above `limit` reads as `limit + 1` (past it, as its true value is,
    where a cast could wrap it negative)."""
    value = f"(*({_C_SCALARS[v.dtype]} *){v.ptr})"
    if v.dtype.kind == "u":
        return f"({value} > {limit}u ? (intptr_t){limit + 1} : (intptr_t){value})"
    return f"(intptr_t){value}"


def _window(src: _Source, x: _View, starts: list, sizes, step: list) -> str:
    """A C variable holding the address of `x`'s window of `sizes` at the
    runtime `starts` (0-d integer views), each clamped into [0, dim - size]."""
    name = f"w{src.index()}"
    terms = []
    for k, (start, dim, size, stride) in enumerate(zip(starts, x.shape, sizes, x.strides, strict=True)):
        if start.shape or start.dtype.kind not in "iu":
            raise _Unsupported("a start index that is not an integer scalar")
        clamped = f"{name}_{k}"
        step.append(f"intptr_t {clamped} = {_index(start, dim - size)}; if ({clamped} < 0) {clamped} = 0; "
                    f"if ({clamped} > {dim - size}) {clamped} = {dim - size};")
        terms.append(f" + {clamped} * {stride}")
    step.append(f"char *{name} = {x.ptr}{''.join(terms)};")
    return name


def _reduce_lines(src: _Source, ufunc, x: _View, axes: tuple, out: _View, vector: bool = True) -> list[str]:
    # NumPy's calls of the ufunc's loop for `ufunc.reduce` on a C-contiguous
    # array, as measured bitwise (signed zeros and NaNs included): the
    # accumulator starts at the identity when the ufunc has one (add: +0.0,
    # so -0.0 sums to +0.0) and takes every element, else it starts at the
    # first element and takes the rest. Reducing the last axis, or every
    # axis, is one call in reduce form (stride 0 on the accumulator) per
    # result: the loop's own pairwise sum over the row. Reducing the leading
    # axis is one elementwise call per row, in row order.
    if not x.contiguous or x.size == 0 or out.dtype != x.dtype or not x.shape:
        raise _Unsupported("a reduction of this layout")
    loop = ufunc_loop(ufunc, (x.dtype,) * 3)
    if loop is None:
        raise _Unsupported(f"no {ufunc.__name__} loop for {x.dtype}")
    call = f"((loop_t){src.kernel(loop[0])})(args, n, st, {src.kernel(loop[1])});"
    # The impl (impls.py `_zero_extremum`) orders a float max/min's zeros as
    # XLA does (-0.0 below +0.0); NumPy's kernel keeps the first zero it met.
    zero_order = None
    if ufunc in (np.maximum, np.minimum) and x.dtype.kind in "fV":
        if x.dtype not in _C_TYPES:
            raise _Unsupported(f"a {ufunc.__name__} reduction of {x.dtype}")
        zero_order = ((lambda a, v: f"{a} + {v}") if ufunc is np.maximum
                      else (lambda a, v: f"-((-{a}) + (-{v}))"))
    isz, ndim = x.dtype.itemsize, len(x.shape)
    identity = src.literal(ufunc.identity, x.dtype) if ufunc.identity is not None else None
    if axes == tuple(range(ndim)) or axes == (ndim - 1,):
        rows, n = (1, x.size) if len(axes) == ndim else (out.size, x.shape[-1])
        first = (f"memcpy(acc, {identity}, {isz});", n, 0) if identity else (f"memcpy(acc, row, {isz});", n - 1, isz)
        kernel = (f"{first[0]} char *args[] = {{acc, row + {first[2]}, acc}}; static const intptr_t n[] = "
                  f"{{{first[1]}}}; static const intptr_t st[] = {{0, {isz}, 0}}; {call}")
        fast = _vector_reduction(src, ufunc, x.dtype) if vector else None
        if fast is not None:
            prepare = f"memcpy(acc, {identity}, {isz}); " if identity else ""
            kernel = f"{prepare}if ({fast}(row, {n}, acc)) {{ {kernel} }}"
        if zero_order:  # a zero result: fold the row's zeros in XLA's order
            ctype = _C_TYPES[x.dtype]
            kernel += (f" if (*({ctype} *)acc == 0) {{ const {ctype} *v = (const {ctype} *)row; for (intptr_t k = 0; "
                       f"k < {n}; k++) if (v[k] == 0) {{ {ctype} *pj_m = ({ctype} *)acc; *pj_m = {zero_order('*pj_m', 'v[k]')}; }} }}")
        return [(f"for (intptr_t r = 0; r < {rows}; r++) {{ char *acc = {out.ptr} + r * {isz}, *row = {x.ptr} + r * "
                 f"{n * isz}; {kernel} }}")]
    if axes == (0,) and ndim >= 2:
        rows, width = x.shape[0], x.size // x.shape[0]
        nbytes = width * isz
        if identity:
            init = [f"for (intptr_t j = 0; j < {width}; j++) memcpy({out.ptr} + j * {isz}, {identity}, {isz});"]
            start = 0
        else:
            init, start = [f"memcpy({out.ptr}, {x.ptr}, {nbytes});"], 1
        lines = init + [(f"for (intptr_t r = {start}; r < {rows}; r++) {{ char *args[] = {{{out.ptr}, {x.ptr} + r * "
                        f"{nbytes}, {out.ptr}}}; static const intptr_t n[] = {{{width}}}; static const intptr_t "
                        f"st[] = {{{isz}, {isz}, {isz}}}; {call} }}")]
        if zero_order:
            ctype = _C_TYPES[x.dtype]
            # (`pj_m`: the arguments' array is `a`.)
            lines.append(f"for (intptr_t j = 0; j < {width}; j++) {{ {ctype} *pj_m = ({ctype} *){out.ptr} + j; if "
                         f"(*pj_m == 0) for (intptr_t r = 0; r < {rows}; r++) {{ {ctype} v = (({ctype} *){x.ptr})"
                         f"[r * {width} + j]; if (v == 0) *pj_m = {zero_order('*pj_m', 'v')}; }} }}")
        return lines
    raise _Unsupported(f"a reduction over axes {axes}")


def _conversion(source, dest):
    """The C statement of the impl's conversion (impls.py
    `_convert_element_type`): `!= 0` to bool; float to integer as XLA does
    it (truncated, saturated at the bounds compared in float64, NaN to 0);
    every other cast a C cast, which is what NumPy's astype does."""
    ctype = _C_SCALARS[dest]
    if dest == np.bool_:
        return lambda r: f"{r[1]} = ({r[0]} != 0);"
    if source.kind == "f" and dest.kind in "iu":
        info = np.iinfo(dest)
        big = repr(2.0 ** (info.bits - (1 if info.min < 0 else 0)))
        small = repr(float(info.min) - 1.0)
        lo = f"({ctype})({info.min + 1}LL - 1)" if info.min < 0 else "0"  # INT64_MIN has no literal
        hi = f"({ctype})({info.max}ULL)"
        return lambda r: (f"{{ double d = (double){r[0]}; {r[1]} = d >= {big} ? {hi} : d <= {small} ? {lo} : "
                          f"d != d ? 0 : ({ctype})trunc(d); }}")
    return lambda r: f"{r[1]} = ({ctype}){r[0]};"


def _minmax_lines(src: _Source, name: str, a: _View, b: _View, out: _View) -> list[str]:
    # The impl (impls.py `_minmax`): NumPy's maximum/minimum, then XLA's
    # order of zeros (-0.0 below +0.0) where both operands are zeros.
    ufunc = np.maximum if name == "max" else np.minimum
    lines = _ufunc_lines(src, *ufunc_loop(ufunc, (out.dtype,) * 3), [a, b], out)
    if out.dtype.kind == "f":
        zero = "{0} + {1}" if name == "max" else "-((-{0}) + (-{1}))"
        lines += _element_lines(src, out.shape, [a, b, out], lambda r: (
            f"if ({r[0]} == 0 && {r[1]} == 0) {r[2]} = {zero.format(r[0], r[1])};"))
    return lines


def _cond_lines(src: _Source, branches, ins: list, out_avals: list, impls: dict, step: list) -> list:
    # As compiled code runs a cond (control_flow.py): the branch the index
    # names, the last one for an index out of range; each branch writes its
    # results into the cond's own storage.
    index, operands = ins[0], ins[1:]
    if index.shape or index.dtype.kind not in "iu" or any(b.consts for b in branches):
        raise _Unsupported("cond")
    outs = [src.temp(a) for a in out_avals]
    k = f"w{src.index()}"
    n = len(branches)
    step.append(f"intptr_t {k} = (intptr_t)(*({_C_SCALARS[index.dtype]} *){index.ptr}); "
                f"if ({k} < 0 || {k} >= {n}) {k} = {n - 1};")
    for i, branch in enumerate(branches):
        lines, results = _body(src, branch.jaxpr, operands, impls)
        for out, result in zip(outs, results, strict=True):
            lines += _copy_lines(src, out, result)
        step.append(("if" if i == 0 else "else if") + f" ({k} == {i}) {{")
        step += ["    " + line for line in lines]
        step.append("}")
    return outs


# Equations whose impl runs a jaxpr of theirs (call primitives: jit, remat,
# custom_jvp/vjp calls) declare the param holding it: `primitive.call_body`.


def _inner_jaxpr(eqn) -> Jaxpr | None:
    key = eqn.primitive.call_body
    if key is None:
        return None
    closed = eqn.params[key]
    if closed.consts:
        raise _Unsupported(f"{eqn.primitive.name} with constants")
    return closed.jaxpr


def _identity(ins, params, out_avals):
    return list(ins)


def _reshape(ins, params, out_avals):
    # reshape (without its transposing `dimensions`), squeeze, expand_dims:
    # the same bytes, when they are in order.
    (x,), (aval,) = ins, out_avals
    if not x.contiguous:
        raise _Unsupported("reshape of a strided view")
    return [_View(x.ptr, aval.shape, _c_strides(aval.shape, aval.dtype.itemsize), aval.dtype)]


def _reshape_only(ins, params, out_avals):
    if params.get("dimensions") is not None:
        raise _Unsupported("reshape with a transpose")
    return _reshape(ins, params, out_avals)


def _broadcast(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    strides = [0] * len(aval.shape)
    for axis, d, st in zip(params["broadcast_dimensions"], x.shape, x.strides):
        strides[axis] = st if d == aval.shape[axis] and d != 1 else 0
    return [_View(x.ptr, aval.shape, strides, aval.dtype)]


def _transpose(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    perm = params["permutation"]
    return [_View(x.ptr, aval.shape, [x.strides[p] for p in perm], aval.dtype)]


def _slice(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    steps = params.get("strides") or (1,) * len(x.shape)
    offset = sum(b * st for b, st in zip(params["start_indices"], x.strides))
    return [_View(f"({x.ptr} + {offset})", aval.shape, [st * k for st, k in zip(x.strides, steps)], aval.dtype)]


def _split(ins, params, out_avals):
    (x,) = ins
    axis, start, outs = params["axis"], 0, []
    for size, aval in zip(params["sizes"], out_avals, strict=True):
        outs.append(_View(f"({x.ptr} + {start * x.strides[axis]})", aval.shape, x.strides, aval.dtype))
        start += int(size)
    return outs


def _rev(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    dims = params["dimensions"]
    offset = sum((d - 1) * st for k, (d, st) in enumerate(zip(x.shape, x.strides)) if k in dims)
    strides = [-st if k in dims else st for k, st in enumerate(x.strides)]
    return [_View(f"({x.ptr} + {offset})", aval.shape, strides, aval.dtype)]


_VIEWS = {"rev": _rev, "stop_gradient": _identity, "copy": _identity, "name": _identity,
          "reshape": _reshape_only, "squeeze": _reshape, "broadcast_in_dim": _broadcast,
          "transpose": _transpose, "slice": _slice, "split": _split}


def _contiguous(src: _Source, v: _View, force: bool = False) -> tuple[_View, list[str]]:
    if v.contiguous and not force:
        return v, []
    from pyjax._src.avals import ShapedArray

    dst = src.temp(ShapedArray(v.shape, v.dtype))
    return dst, _copy_lines(src, dst, v)


def _fma_lines(src: _Source, eqn, ins: list, out: _View) -> list[str]:
    # rewrite.py's fused multiply-add, `(±a) * b + (±c)` rounded once: C's
    # fmaf is that operation, correctly rounded, as is the impl's float32
    # path (fma.py); float64 follows the impl's emulation (see `value`).
    if out.dtype not in _C_TYPES or any(v.dtype != out.dtype for v in ins):
        raise _Unsupported("fma operands")
    fn = "fmaf"
    neg_a = "-" if eqn.params.get("negate_product") else ""
    neg_c = "-" if eqn.params.get("negate_addend") else ""
    # A NaN result: its sign and payload are those of the impl's NaN, which
    # NumPy's float64 multiply then add kernels give (fma.py), operands in
    # the impl's order (its large float32 path puts a single `a` second);
    # a hardware fma picks among NaN operands in another order.
    f64 = np.dtype(np.float64)
    mul, add = ufunc_loop(np.multiply, (f64,) * 3), ufunc_loop(np.add, (f64,) * 3)
    if mul is None or add is None:
        raise _Unsupported("fma without NumPy's float64 multiply and add loops")
    km, kmd, ka, kad = (src.kernel(p) for p in (*mul, *add))
    from pyjax._src.backends.numpy.xla import fma as fma_impl
    from pyjax._src.backends.numpy.xla import xla_math

    splitter = repr(float(xla_math._SPLITTER))

    swap = out.dtype == np.float32 and out.size > fma_impl._SMALL and ins[0].size == 1

    def value(a, b, c):
        if out.dtype == np.float32:
            return f"{fn}({a}, {b}, {c})"
        # float64: the impl's own error-free emulation (xla_math.fma_f64),
        # operation for operation (IEEE: the same bits), not C's fma, which
        # differs from it near ties and where a product underflows.
        return (f"({{ double pj_a = {a}, pj_b = {b}, pj_c = {c}, pj_p = pj_a * pj_b, pj_q = {splitter} * pj_a, "
                f"pj_r = {splitter} * pj_b, pj_ah = pj_q - (pj_q - pj_a), pj_bh = pj_r - (pj_r - pj_b), "
                "pj_al = pj_a - pj_ah, pj_bl = pj_b - pj_bh, "
                "pj_pe = (((pj_ah * pj_bh - pj_p) + pj_ah * pj_bl) + pj_al * pj_bh) + pj_al * pj_bl, "
                "pj_t = pj_p + pj_c, pj_cp = pj_t - pj_p, pj_se = (pj_p - (pj_t - pj_cp)) + (pj_c - pj_cp), "
                "pj_o = pj_t + (pj_se + pj_pe); (isfinite(pj_o) && (pj_o != 0 || pj_t != 0)) ? pj_o : pj_t; })")

    def statement(r):
        a, b, c = f"{neg_a}{r[0]}", r[1], f"{neg_c}{r[2]}"
        x, y = (b, a) if swap else (a, b)
        return (f"{{ {r[3]} = {value(a, b, c)}; if ({r[3]} != {r[3]}) {{ "
                f"double pj_x = (double)({x}), pj_y = (double)({y}), pj_z = (double)({c}), pj_p, pj_t; "
                "static const intptr_t pj_n[] = {1}, pj_st[] = {0, 0, 0}; "
                "char *pj_m[] = {(char *)&pj_x, (char *)&pj_y, (char *)&pj_p}; "
                f"((loop_t){km})(pj_m, pj_n, pj_st, {kmd}); "
                "char *pj_s[] = {(char *)&pj_p, (char *)&pj_z, (char *)&pj_t}; "
                f"((loop_t){ka})(pj_s, pj_n, pj_st, {kad}); {r[3]} = ({_C_TYPES[out.dtype]})pj_t; }} }}")

    return _element_lines(src, out.shape, [*ins, out], statement)


def _row_dot_lines(src: _Source, eqn, ins: list, out: _View) -> list[str]:
    # rewrite.py's short row sum of products (fma.py `row_dot`), as its impl:
    # from +0, one fused multiply-add per element of the row, in order (the
    # first two swapped for a square).
    a, b = ins
    if out.dtype not in _C_TYPES or a.dtype != out.dtype or b.dtype != out.dtype:
        raise _Unsupported("row_dot operands")
    shape = np.broadcast_shapes(a.shape, b.shape)
    order = list(range(shape[-1]))
    if eqn.params["square"] and len(order) >= 2:
        order[0], order[1] = 1, 0
    fn = "fmaf"
    steps = [(a, a.aligned(shape)), (b, b.aligned(shape))]
    lines = _element_lines(src, out.shape, [out], lambda r: f"{r[0]} = 0;")
    for k in order:
        a_k, b_k = (_View(f"({v.ptr} + {k * st[-1]})", shape[:-1], st[:-1], v.dtype) for v, st in steps)
        lines += _element_lines(src, out.shape, [a_k, b_k, out], lambda r: f"{r[2]} = {fn}({r[0]}, {r[1]}, {r[2]});")
    return lines


def _dot_lines(src: _Source, eqn, ins: list, out: _View) -> list[str]:
    # Compiled code calls `ndarray.dot` (compile.py `_direct_dot`), on
    # transposed views where the contracting axes ask for them; NumPy then
    # picks the BLAS call from the operands' layouts. The same choice is made
    # here on the operands' views: gemv for a matrix and a vector (row-major
    # if the matrix is C-contiguous, column-major if Fortran-contiguous; the
    # transposed form for a vector times a matrix), gemm for two matrices
    # (each transposed if Fortran-contiguous), a copy first for any other
    # layout. Shapes that take NumPy to its level-1 paths (a dimension of 1)
    # and its syrk case (a matrix times its own transpose) are left out.
    (lc, rc), (lb, _) = eqn.params["dimension_numbers"]
    lhs, rhs = ins
    dtype = out.dtype
    if (lb or not lhs.dtype == rhs.dtype == dtype or dtype not in _C_TYPES or not _Blas.find()
            or eqn.params.get("preferred_element_type") not in (None, dtype)
            or len(lc) != 1 or len(lhs.shape) not in (1, 2) or len(rhs.shape) not in (1, 2)):
        raise _Unsupported("dot_general")
    if any(d < 2 for d in (*lhs.shape, *rhs.shape)):
        raise _Unsupported("dot_general with a dimension of 1")
    a = _transposed(lhs) if lc[0] != len(lhs.shape) - 1 else lhs
    b = _transposed(rhs) if rc[0] != 0 else rhs
    lines: list[str] = []
    t = "s" if dtype == np.float32 else "d"
    isz = dtype.itemsize

    def usable(v, matrix: bool):
        # NumPy copies an operand with a zero stride; a matrix it cannot hand
        # to BLAS as one segment, too.
        if any(st == 0 for st in v.strides) or (matrix and _layout(v) is None):
            copy, more = _contiguous(src, _View(v.ptr, v.shape, v.strides, v.dtype), force=True)
            lines.extend(more)
            return copy
        return v

    def gemv(matrix, vector, trans: int) -> list[str]:
        matrix, vector = usable(matrix, True), usable(vector, False)
        order, ld = (101, matrix.shape[1]) if _layout(matrix) == "C" else (102, matrix.shape[0])
        fn = src.kernel(_Blas.fns[t + "gemv"])
        return lines + [(f"(({t}gemv_t){fn})({order}, {trans}, {matrix.shape[0]}, {matrix.shape[1]}, 1.0, "
                         f"{matrix.ptr}, {ld}, {vector.ptr}, {vector.strides[0] // isz}, 0.0, {out.ptr}, 1);")]

    if len(a.shape) == 2 and len(b.shape) == 1:
        return gemv(a, b, 111)  # matrix times vector
    if len(a.shape) == 1 and len(b.shape) == 2:
        return gemv(b, a, 112)  # vector times matrix: the matrix transposed
    if len(a.shape) == 2 and len(b.shape) == 2:
        a, b = usable(a, True), usable(b, True)
        if a.ptr == b.ptr and a.shape == b.shape[::-1] and a.strides == b.strides[::-1]:
            raise _Unsupported("a matrix times its own transpose (NumPy's syrk)")
        (m, k), n = a.shape, b.shape[1]
        trans_a, lda = (111, k) if _layout(a) == "C" else (112, m)
        trans_b, ldb = (111, n) if _layout(b) == "C" else (112, k)
        fn = src.kernel(_Blas.fns[t + "gemm"])
        return lines + [(f"(({t}gemm_t){fn})(101, {trans_a}, {trans_b}, {m}, {n}, {k}, 1.0, {a.ptr}, {lda}, "
                        f"{b.ptr}, {ldb}, 0.0, {out.ptr}, {n});")]
    raise _Unsupported("dot_general of two vectors")


def _transposed(v: _View) -> _View:
    if len(v.shape) != 2:
        raise _Unsupported("dot_general contracting a middle axis")
    return _View(v.ptr, v.shape[::-1], v.strides[::-1], v.dtype)


def _layout(v: _View) -> str | None:
    """'C' or 'F' for a matrix BLAS can read in place, else None."""
    isz = v.dtype.itemsize
    if v.strides == (v.shape[1] * isz, isz):
        return "C"
    if v.strides == (isz, v.shape[0] * isz):
        return "F"
    return None


# ---------------------------------------------------------------------------
# Vector paths
#
# A NumPy kernel called on one short row spends much of its time in its own
# prologue (a softmax row of 512 floats: ~40 ns a call). A few operations
# have every result bit fixed by IEEE arithmetic, so the C source computes
# them in line, on GCC vector types as wide as the build machine's widest
# registers: float add, subtract, multiply and divide; a float max or min
# over a row; a float sum over a row in NumPy's own pairwise order (NumPy's
# loops_utils.h: eight accumulators, halves cut at multiples of eight;
# checked against NumPy's kernel once per process, see `_enable_sums`).
# What IEEE leaves open goes to NumPy's kernel on the spot, so the bits are
# NumPy's in every case: a NaN anywhere in a result (its sign and payload
# follow the operand order a compiler picks) and a max or min of zero
# (which zero depends on the order of comparisons). So does everything when
# the build has no wide vectors (x86-64 without -march=native has only
# SSE2; NumPy's kernels pick AVX2 or AVX-512 at run time, and win) or is
# not optimized (a long straight-line program built at -O0).

_VECTOR_OPS = {np.add: ("+", "add"), np.subtract: ("-", "sub"), np.multiply: ("*", "mul"),
               np.true_divide: ("/", "div")}
# dtype -> (C type, name suffix)
_VECTOR_TYPES = {np.dtype(np.float32): ("float", "f32"), np.dtype(np.float64): ("double", "f64")}

_VECTOR_PRELUDE = """\
#if defined(__GNUC__) && defined(__OPTIMIZE__) && (defined(__AVX2__) || defined(__ARM_NEON))
#define PJ_VEC 1
#if defined(__AVX512F__)
#define PJ_BYTES 64
#elif defined(__AVX2__)
#define PJ_BYTES 32
#else
#define PJ_BYTES 16
#endif
typedef float pj_f32v __attribute__((vector_size(PJ_BYTES)));
typedef int32_t pj_f32m __attribute__((vector_size(PJ_BYTES)));
typedef double pj_f64v __attribute__((vector_size(PJ_BYTES)));
typedef int64_t pj_f64m __attribute__((vector_size(PJ_BYTES)));
typedef float pj_f32p __attribute__((vector_size(32)));
typedef double pj_f64p __attribute__((vector_size(64)));
#define PJ_f32_LANES (PJ_BYTES / 4)
#define PJ_f64_LANES (PJ_BYTES / 8)
#endif"""


_PRIVATE = re.compile(r"[\s()+\-\d]*(?:s|\(char \*\)lit\d+)[\s()+\-\d]*")


def _private(v: _View) -> bool:
    # Whether the view lies in the program's scratch (`s`) or its static
    # literals: memory no argument can share.
    return _PRIVATE.fullmatch(v.ptr) is not None


def _or_kernel(fast: str | None, kernel: list[str]) -> list[str]:
    # `kernel` alone, or run only when the vector path's call `fast` says so.
    if fast is None:
        return kernel
    return [f"if ({fast}) {{", *("    " + line for line in kernel), "}"]


def _vector_binary(src: _Source, ufunc, ins: list, out: _View) -> str | None:
    """The C call computing `out = ufunc(*ins)` in line (nonzero when NumPy's
    kernel must then compute it), or None when this op has no vector path:
    float operands of the result's dtype, each contiguous with the result's
    shape or a single element, none of them the result itself."""
    layout = _vector_layout(ufunc, ins, out)
    if layout is None:
        return None
    name = f"pj_{_VECTOR_OPS[ufunc][1]}_{_VECTOR_TYPES[out.dtype][1]}_{layout}"
    if name not in src.helpers:
        src.helpers[name] = _binary_source(name, _VECTOR_OPS[ufunc][0], layout, out.dtype)
    return f"{name}({out.ptr}, {ins[0].ptr}, {ins[1].ptr}, {out.size})"


def _vector_layout(ufunc, ins: list, out: _View) -> str | None:
    # "v" (a row) or "s" (a single value) per operand, where the op has a
    # vector path (see `_vector_binary`); else None.
    if (ufunc not in _VECTOR_OPS or out.dtype not in _VECTOR_TYPES or len(ins) != 2 or not out.contiguous
            or any(v.dtype != out.dtype or v.ptr == out.ptr or not (v.size == 1 or (v.shape == out.shape
                                                                                   and v.contiguous))
                   for v in ins)):
        return None
    return "".join("s" if v.size == 1 else "v" for v in ins)


def _binary_source(name: str, op: str, layout: str, dtype, cmp: str | None = None) -> str:
    # `z = x0 op x1` over n elements, each operand a row ("v") or a scalar
    # ("s"): 1 when a result is NaN (then NumPy's kernel must compute it).
    # With `cmp` (">" for a max, "<" a min) the pass also keeps the extreme
    # result and writes it to *acc: 3 when a result is NaN (the kernel then
    # computes both), 2 when only the extreme is (a zero).
    ctype, suffix = _VECTOR_TYPES[dtype]
    lanes = f"PJ_{suffix}_LANES"

    def operand(k, vector):
        return f"y{k}" if layout[k] == "s" else f"u{k}" if vector else f"x{k}[i]"

    decls = "; ".join(f"const {ctype} y{k} = *(const {ctype} *)p{k}" if c == "s" else
                      f"const {ctype} *x{k} = (const {ctype} *)p{k}" for k, c in enumerate(layout))
    loads = " ".join(f"pj_{suffix}v u{k}; memcpy(&u{k}, x{k} + i, sizeof u{k});" for k, c in enumerate(layout)
                     if c == "v")
    vector_r = f"{loads} pj_{suffix}v r = {operand(0, True)} {op} {operand(1, True)};"
    scalar_r = f"{ctype} r = {operand(0, False)} {op} {operand(1, False)};"
    if cmp is None:
        if layout == "ss":  # two scalars: plain C beats a kernel call on any machine
            vector = ""
        else:
            vector = f"""
#ifndef PJ_VEC
    return 1;
#else
    pj_{suffix}m bad = {{0}};
    for (; i + {lanes} <= n; i += {lanes}) {{
        {vector_r}
        bad |= r != r; memcpy(z + i, &r, sizeof r);
    }}
    for (int j = 0; j < {lanes}; j++) nan |= bad[j] != 0;
#endif"""
        return f"""\
static int {name}(char *o, const char *p0, const char *p1, intptr_t n) {{
    {ctype} *z = ({ctype} *)o; {decls};
    intptr_t i = 0; int nan = 0;{vector}
    for (; i < n; i++) {{ {scalar_r} nan |= r != r; z[i] = r; }}
    return nan;
}}"""
    return f"""\
static int {name}(char *o, const char *p0, const char *p1, intptr_t n, char *acc) {{
#ifndef PJ_VEC
    return 3;
#else
    {ctype} *z = ({ctype} *)o; {decls};
    intptr_t i = 0; int nan = 0;
    if (n < {lanes}) return 3;
    pj_{suffix}m bad = {{0}}, take; pj_{suffix}v best;
    {{ {vector_r} best = r; }}
    for (; i + {lanes} <= n; i += {lanes}) {{
        {vector_r}
        bad |= r != r; memcpy(z + i, &r, sizeof r);
        take = r {cmp} best;
        best = (pj_{suffix}v)((take & (pj_{suffix}m)r) | (~take & (pj_{suffix}m)best));
    }}
    {ctype} m = best[0];
    for (int j = 0; j < {lanes}; j++) {{ nan |= bad[j] != 0; m = best[j] {cmp} m ? best[j] : m; }}
    for (; i < n; i++) {{ {scalar_r} nan |= r != r; z[i] = r; m = r {cmp} m ? r : m; }}
    if (nan) return 3;
    if (m == 0) return 2;
    *({ctype} *)acc = m;
    return 0;
#endif
}}"""


def _vector_reduction(src: _Source, ufunc, dtype) -> str | None:
    """A C expression `f(row, n, acc)` reducing a contiguous row into `*acc`
    in line (the sum starting from `*acc`), nonzero when NumPy's kernel must
    then do it; or None."""
    types = _VECTOR_TYPES.get(dtype)
    if types is None:
        return None
    ctype, suffix = types
    lanes = f"PJ_{suffix}_LANES"
    if ufunc in (np.maximum, np.minimum):
        word, cmp = ("max", ">") if ufunc is np.maximum else ("min", "<")
        name = f"pj_{word}_{suffix}"
        src.helpers.setdefault(name, f"""\
static int {name}(const char *p, intptr_t n, char *acc) {{
#ifndef PJ_VEC
    return 1;
#else
    const {ctype} *x = (const {ctype} *)p;
    {ctype} m = x[0]; int bad = m != m; intptr_t i = 1;
    if (n >= 2 * {lanes}) {{
        pj_{suffix}v best, v; pj_{suffix}m nan;
        memcpy(&best, x, sizeof best); nan = best != best;
        for (i = {lanes}; i + {lanes} <= n; i += {lanes}) {{
            memcpy(&v, x + i, sizeof v); nan |= v != v;
            pj_{suffix}m take = v {cmp} best;
            best = (pj_{suffix}v)((take & (pj_{suffix}m)v) | (~take & (pj_{suffix}m)best));
        }}
        for (int j = 0; j < {lanes}; j++) {{ bad |= nan[j] != 0; m = best[j] {cmp} m ? best[j] : m; }}
    }}
    for (; i < n; i++) {{ {ctype} v = x[i]; bad |= v != v; m = v {cmp} m ? v : m; }}
    if (bad || m == 0) return 1;
    *({ctype} *)acc = m;
    return 0;
#endif
}}""")
        return name
    if ufunc is np.add:
        src.helpers.setdefault(f"pj_sum_{suffix}", _pairwise_source(dtype))
        return f"pj_sum_{suffix}"
    return None


def _first_readers(eqns: list) -> dict:
    # Each variable -> the index of the first equation reading it.
    first: dict = {}
    for j, eqn in enumerate(eqns):
        for v in eqn.invars:
            if type(v) is not Literal and v not in first:
                first[v] = j
    return first


def _fused_extremum(src: _Source, eqn, nxt, ins: list, impls: dict, step: list) -> tuple | None:
    """`eqn`, a vector-path op, and `nxt`, the max or min of its whole result
    (a row), in one pass: (the op's view, the extremum's view), or None."""
    impl, reducer_impl = kernels.backend_impl(impls, eqn.primitive), kernels.backend_impl(impls, nxt.primitive)
    if (eqn.effects or nxt.effects or impl is None or reducer_impl is None
            or len(eqn.outvars) != 1 or nxt.invars[0] is not eqn.outvars[0]):
        return None
    reducer = getattr(reducer_impl, "reduce_ufunc", None)
    ufunc = kernels.ufunc_of(eqn, impl, True)
    t_aval, m_aval = eqn.outvars[0].aval, nxt.outvars[0].aval
    ndim, axes = len(t_aval.shape), tuple(nxt.params.get("axes", ()))
    if (reducer not in (np.maximum, np.minimum) or ufunc not in _VECTOR_OPS or m_aval.dtype != t_aval.dtype
            or m_aval.size != 1 or t_aval.size < 2 or not (axes == tuple(range(ndim)) or axes == (ndim - 1,))):
        return None
    loop = ufunc_loop(ufunc, tuple(v.dtype for v in ins) + (t_aval.dtype,))
    out = src.temp(t_aval)
    layout = _vector_layout(ufunc, ins, out)
    if loop is None or layout is None:
        return None
    extremum = src.temp(m_aval)
    word, cmp = ("max", ">") if reducer is np.maximum else ("min", "<")
    (op, op_word), suffix = _VECTOR_OPS[ufunc], _VECTOR_TYPES[t_aval.dtype][1]
    name = f"pj_{op_word}_{suffix}_{layout}_{word}"
    if name not in src.helpers:
        src.helpers[name] = _binary_source(name, op, layout, t_aval.dtype, cmp)
    step.append(f"{{ int fused = {name}({out.ptr}, {ins[0].ptr}, {ins[1].ptr}, {out.size}, {extremum.ptr});")
    step += ["    if (fused & 1) {", *("        " + line for line in _ufunc_lines(src, *loop, ins, out)), "    }"]
    step += ["    if (fused) {", *("        " + line for line in _reduce_lines(src, reducer, out, axes, extremum,
                                                                             vector=False)), "    }", "}"]
    return out, extremum


def _pairwise_source(dtype) -> str:
    # NumPy's pairwise sum of a contiguous row. pj_sum_* adds it to *acc once
    # `pyjax_sums_*(1)` said it is NumPy's (`_enable_sums`, after
    # `pyjax_sums_agree_*` compared it with NumPy's kernel).
    ctype, suffix = _VECTOR_TYPES[dtype]
    return f"""\
static {ctype} pj_psum_{suffix}(const {ctype} *x, intptr_t n) {{
    if (n < 8) {{ {ctype} res = 0; for (intptr_t i = 0; i < n; i++) res += x[i]; return res; }}
    if (n <= 128) {{
        intptr_t i, end = n - n % 8;
#ifdef PJ_VEC
        pj_{suffix}p r, u; memcpy(&r, x, sizeof r);
        for (i = 8; i < end; i += 8) {{ memcpy(&u, x + i, sizeof u); r += u; }}
#else
        {ctype} r[8]; for (int j = 0; j < 8; j++) r[j] = x[j];
        for (i = 8; i < end; i += 8) for (int j = 0; j < 8; j++) r[j] += x[i + j];
#endif
        {ctype} res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += x[i];
        return res;
    }}
    intptr_t half = n / 2; half -= half % 8;
    return pj_psum_{suffix}(x, half) + pj_psum_{suffix}(x + half, n - half);
}}
static int pj_sums_{suffix};
void pyjax_sums_{suffix}(int on) {{ pj_sums_{suffix} = on; }}
static int pj_sum_{suffix}(const char *p, intptr_t n, char *acc) {{
#ifndef PJ_VEC
    return 1;
#else
    if (!pj_sums_{suffix}) return 1;
    {ctype} r = *({ctype} *)acc + pj_psum_{suffix}((const {ctype} *)p, n);
    if (r != r) return 1;
    *({ctype} *)acc = r;
    return 0;
#endif
}}
int pyjax_sums_agree_{suffix}(void *kernel, void *data, const char *values) {{
    /* pj_psum against NumPy's add kernel called as the code calls it: the
       accumulator at +0.0 (stride 0), then the row. */
    static const intptr_t lengths[] = {{{_CHECK_LENGTHS}}};
    for (size_t j = 0; j < sizeof lengths / sizeof lengths[0]; j++) {{
        intptr_t n = lengths[j], st[] = {{0, sizeof({ctype}), 0}};
        {ctype} mine = ({ctype})0 + pj_psum_{suffix}((const {ctype} *)values, n), theirs = 0;
        char *args[] = {{(char *)&theirs, (char *)values, (char *)&theirs}};
        ((void (*)(char **, const intptr_t *, const intptr_t *, void *))kernel)(args, &n, st, data);
        if (memcmp(&mine, &theirs, sizeof mine)) return 0;
    }}
    return 1;
}}"""


_pairwise_checked: dict = {}  # dtype -> whether pj_psum is NumPy's sum


def _enable_sums(lib: ctypes.CDLL, source: str) -> None:
    """Turns on the in-line sums of a built library whose pairwise sum is
    NumPy's own, bit for bit, on this NumPy (tried once per process and
    dtype, on rows of many lengths, against NumPy's add kernel)."""
    for dtype, (_, suffix) in _VECTOR_TYPES.items():
        if f"void pyjax_sums_{suffix}(" not in source:
            continue
        if dtype not in _pairwise_checked:
            try:
                _pairwise_checked[dtype] = _same_sums(getattr(lib, f"pyjax_sums_agree_{suffix}"), dtype)
            except Exception as e:  # noqa: BLE001  (then sums call NumPy's kernel)
                _log(f"Native sums call NumPy's kernel: {e}", False)
                _pairwise_checked[dtype] = False
        getattr(lib, f"pyjax_sums_{suffix}")(ctypes.c_int(int(_pairwise_checked[dtype])))


def _same_sums(agree, dtype) -> bool:
    loop = ufunc_loop(np.add, (dtype,) * 3)
    if loop is None:
        return False
    # Values over eight decades, of both signs: the order of additions shows.
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(_CHECK_VALUES) * 10.0 ** rng.uniform(-4, 4, _CHECK_VALUES)).astype(dtype)
    agree.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    agree.restype = ctypes.c_int
    return bool(agree(loop[0], loop[1], values.ctypes.data))


# The row lengths the in-line sum is checked on: every short one, and
# around NumPy's blocks of 8 and 128 and its halvings.
_CHECK_VALUES = 4099
_CHECK_LENGTHS = ", ".join(map(str, (*range(1, 40), 63, 64, 65, 127, 128, 129, 130, 136, 255, 256, 257, 383, 511,
                                     512, 513, 1000, 1024, 1031, _CHECK_VALUES)))


# ---------------------------------------------------------------------------
# Building

_built: dict = {}  # source digest -> the loaded library
# Code built in this process runs only on this machine: its vector paths
# may use every instruction it has (AVX-512 on a recent x86). IEEE results
# do not change with the instructions (no contraction, no fast math), only
# their speed. A compiler that refuses the flag builds for its default
# target (then the vector paths defer to NumPy's kernels).
_ARCH_FLAGS = ("-march=native",)
_arch_refused: set = set()  # compilers that refused it
_O2_MAX_LINES = 1500
# A compiler running longer than this is killed with its whole process
# group, and the tier stays Python.
_BUILD_TIMEOUT_S = 120
# With PYJAX_NATIVE_LOOPS_AFTER=0 a first call waits for its build at most
# this long, then runs in Python while the build goes on.
_FIRST_CALL_WAIT_S = 5.0
_build_lock = threading.Lock()
_build_locks: dict = {}  # source digest -> the lock its build holds


def compiler() -> str | None:
    """The C compiler native code is built with (its executable), or None."""
    command = compiler_command()
    return command[0] if command else None


def compiler_command() -> list[str] | None:
    """The command native code is built with: `$CC` (else `cc`) split as a
    shell splits it (``CC="gcc -O3"``, as make uses it), its program found
    on `$PATH`; or None."""
    command = _command(os.environ.get("CC", "cc"), os.environ.get("PATH", ""))
    return list(command) if command else None


@functools.lru_cache(maxsize=8)
def _command(cc: str, path: str) -> tuple | None:
    # Asked at every compile of a loop or long program: worked out once per
    # ($CC, $PATH).
    try:
        words = shlex.split(cc)
    except ValueError:
        return None
    if not words:
        words = ["cc"]
    program = shutil.which(words[0], path=path or None)
    return (program, *words[1:]) if program else None


# Compilers running now (each the leader of its own process group): killed
# with their children when a build times out, and at exit.
_running: set = set()
_running_lock = threading.Lock()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _run_compiler(cmd: list[str]) -> tuple[int, str]:
    """Runs `cmd` in a session of its own; (exit status, stderr). Killed
    with all its children after `_BUILD_TIMEOUT_S` (RuntimeError)."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    with _running_lock:
        _running.add(proc)
    try:
        try:
            _, err = proc.communicate(timeout=_BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:  # a child that left the group keeps the pipes: let them be
                pass
            raise RuntimeError(f"{cmd[0]} ran longer than {_BUILD_TIMEOUT_S} s and was killed") from None
    finally:
        # A child the compiler left behind (the group outlives its leader) goes too.
        _kill_group(proc)
        with _running_lock:
            _running.discard(proc)
    return proc.returncode, err


@atexit.register
def _kill_running_builds() -> None:
    # Build threads are daemons: at exit, their compilers must not live on.
    with _running_lock:
        procs = list(_running)
    for proc in procs:
        _kill_group(proc)


@functools.lru_cache(maxsize=1)
def _headers() -> list[str] | None:
    """The include directories native_call.c builds with (this Python's and
    this NumPy's), or None when either is missing."""
    import sysconfig

    dirs = [sysconfig.get_paths()["include"], np.get_include()]
    if not (os.path.exists(os.path.join(dirs[0], "Python.h"))
            and os.path.exists(os.path.join(dirs[1], "numpy", "arrayobject.h"))):
        return None
    return dirs


_caller_state: list = []  # [] until tried, then [the NativeCall type or None]
_caller_lock = threading.Lock()


def _prepare_native_call() -> None:
    # Builds native_call.c on a thread of its own, beside the first native
    # build (which needs it to be bound): the two compiles overlap.
    if not _caller_state and not _caller_lock.locked():
        threading.Thread(target=_native_call_type, name="pyjax-native-call", daemon=True).start()


def _warm_fpenv() -> None:
    # fpenv's faster way is native_call.c's flushed_call.
    if available() and _headers() is not None:
        _prepare_native_call()


fpenv.on_warm = _warm_fpenv


def _native_call_type():
    """native_call.c's `NativeCall` type, built on first use (on a build
    thread), or None: then native code is called through ctypes."""
    with _caller_lock:
        if not _caller_state:
            try:
                _caller_state.append(_build_native_call())
            except Exception as e:  # noqa: BLE001  (ctypes calls stay)
                _log(f"Native calls go through ctypes: {e}", False)
                _caller_state.append(None)
    return _caller_state[0]


def _build_native_call():
    import importlib.machinery
    import importlib.util

    dirs, cc = _headers(), compiler_command()
    if dirs is None or cc is None:
        raise RuntimeError("no Python or NumPy headers" if cc else "no C compiler")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native_call.c")
    name = "_pyjax_native_call"
    with tempfile.TemporaryDirectory(prefix="pyjax-native-") as tmp:
        so_path = os.path.join(tmp, name + ".so")
        # (A Python extension on macOS leaves the interpreter's symbols to
        # the loader, as distutils' LDSHARED does there.)
        platform_flags = ["-undefined", "dynamic_lookup"] if sys.platform == "darwin" else []
        cmd = [*cc, "-O2", "-shared", "-fPIC", *platform_flags, *(f"-I{d}" for d in dirs), "-o", so_path, source]
        code, err = _run_compiler(cmd)
        if code:
            raise RuntimeError(f"{' '.join(cmd)} failed: {err.strip()[:500]}")
        loader = importlib.machinery.ExtensionFileLoader(name, so_path)
        module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    fpenv.use_c(module)
    return module.NativeCall


_MAX_CALL_ARGS = 256  # native_call.c's MAX_ARGS


def _build(source: str, straight_line: bool = False, opt: str | None = None) -> ctypes.CDLL:
    """The library built from `source` (once per process and source), at
    `opt` (else by its length: see below)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    with _build_lock:  # one build per source; builds of other sources go on beside it
        lock = _build_locks.setdefault(digest, threading.Lock())
    with lock:
        lib = _built.get(digest)
        if lib is not None:
            return lib
        cc = compiler_command()
        if cc is None:
            raise RuntimeError("no C compiler")
        name = " ".join(cc)
        with tempfile.TemporaryDirectory(prefix="pyjax-native-") as tmp:
            c_path, so_path = os.path.join(tmp, "loop.c"), os.path.join(tmp, f"loop_{digest}.so")
            with open(c_path, "w") as f:
                f.write(source)
            # No contraction or fast-math: the source's own arithmetic (casts,
            # choices, fma, signed zeros) must stay exactly as written. A long
            # source is mostly kernel calls: -O1 builds it in half the time,
            # and -O0 a straight-line program (run once a call, not once a
            # step) in half that again, for ~6% more time a call (an unrolled
            # 1000-step RNN: 1.7 s to build at -O1, 0.75 s at -O0). (Flags in
            # $CC come first: ours, after them, win.)
            opt = opt or ("-O2" if source.count("\n") < _O2_MAX_LINES else "-O0" if straight_line else "-O1")
            base = [*cc, opt, "-shared", "-fPIC", "-ffp-contract=off", "-o", so_path, c_path, "-lm"]
            done = None
            if name not in _arch_refused:
                cmd = [*cc, opt, *_ARCH_FLAGS, *base[len(cc) + 1:]]
                done = (cmd, *_run_compiler(cmd))
                if done[1] and "march" in done[2]:
                    _arch_refused.add(name)
                    done = None
            if done is None:
                done = (base, *_run_compiler(base))
            if done[1]:
                raise RuntimeError(f"{' '.join(done[0])} failed: {done[2].strip()[:500]}")
            lib = ctypes.CDLL(so_path)  # stays mapped after the file goes
        _enable_sums(lib, source)
        _built[digest] = lib
        return lib


# ---------------------------------------------------------------------------
# The runtime object compiled code calls

def _log(message: str, loud: bool | None = None) -> None:
    # As jit's stage timers: a warning under jax_log_compiles (read on the
    # calling thread when `loud` is None), else debug.
    from pyjax._src import config

    level = logging.WARNING if (config.log_compiles.value if loud is None else loud) else logging.DEBUG
    if logger.isEnabledFor(level):
        logger.log(level, message)


_COLD, _BUILDING, _BUILT, _LIVE, _DEAD = range(5)
_start_lock = threading.Lock()

# Re-checks of a live tier: calls 2, 4, 8, ... (the checked call is call 1),
# and the first call whose float inputs hold a NaN, +inf, -inf, +0, -0 or a
# subnormal (native_call.c's class bits), once per class.
_FIRST_RECHECK = 2
_ALL_CLASSES = 0x3F


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


class NativeLoop:
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
                 kind: str = "loop"):
        # `make()` writes the C source (source, kernel pointers, scratch
        # bytes): on the build thread, so a loop that never gets hot costs
        # no code generation.
        self._make, self.kind = make, kind
        self.source, self.kernels, self.scratch = None, None, 0
        self.in_specs = [(a.shape, a.dtype) for a in in_avals]
        self.out_specs = [(a.shape, a.dtype) for a in out_avals]
        self.state, self.steps, self.failure = _COLD, 0, None
        self.steps_per_call = 0  # a program's equations
        self.python = None  # a program's compiled function (compile.py sets it): call1's re-checks run it
        self.rechecks = 0  # re-checks of the live tier that agreed
        self._fn = None  # the ctypes function
        self._call = None  # or the NativeCall (native_call.c), which never re-checks
        self._live = None  # the NativeCall `run` becomes: it hands re-checked calls to `_sample`
        self.call1 = None
        self.run = self._tiering
        self._thread = None
        self._local = threading.local()  # .pending: the native outputs of this thread's checked call
        self._calls, self._next_check, self._watch = 1, _FIRST_RECHECK, _ALL_CLASSES  # (through ctypes)

    @property
    def live(self) -> bool:
        return self.state == _LIVE

    @property
    def dead(self) -> bool:
        return self.state == _DEAD

    def _tiering(self, *inputs):
        # (Output buffers after the inputs are for live native code only: the
        # checked call's outputs must not overwrite what the Python code reads.)
        inputs = inputs[:len(self.in_specs)]
        state = self.state
        if state == _LIVE:  # (through ctypes: a NativeCall re-checks in C)
            return self._sample(*inputs) if self._due(inputs) else self._run(inputs)
        if state == _COLD and AFTER_STEPS == 0:  # build now, and check on this call
            self._start()
            # (A build that takes longer goes on behind Python calls.)
            self._thread.join(_FIRST_CALL_WAIT_S)
            state = self.state
        if state == _BUILT:
            self._local.pending = self._checked_run(inputs)
        return None

    def _due(self, inputs) -> bool:
        # Whether this live call through ctypes is re-checked (as native_call.c decides).
        self._calls += 1
        due = self._calls >= self._next_check
        if due:
            self._next_check *= 2
        if self._watch:
            seen = _value_classes(inputs, self._watch)
            if seen:
                self._watch &= ~seen
                due = True
        return due

    def _checked_run(self, inputs) -> list | None:
        # The native outputs computed from copies of `inputs` (the Python code
        # reads the originals), or None: inputs of other dtypes or shapes, or
        # a tier that wrote into a copy, dropped.
        copies = [np.array(x, copy=True) for x in inputs]
        outs = self._run(copies)
        if outs is None:
            return None
        for i, (x, copy) in enumerate(zip(inputs, copies, strict=True)):
            if np.asarray(x).tobytes() != copy.tobytes():
                self._drop(f"it wrote into its input {i}")
                return None
        return outs

    def _sample(self, *args):
        # A re-checked live call: the native code on copies now, compared with
        # the Python code's outputs in `check`; the Python code's are returned.
        if self.state == _LIVE:
            pending = self._checked_run(args[:len(self.in_specs)])
            if pending is not None:
                self._local.pending = pending
        return None

    def _sample1(self, *args):
        # `call1`'s re-checked call (and every call once the tier is dropped):
        # the Python program computes the output returned.
        inputs = args[:len(self.in_specs)]
        pending = self._checked_run(inputs) if self.state == _LIVE else None
        self.run = _no_outputs  # the program's own hook: the Python code alone
        try:
            out = self.python(*inputs)[0]
        finally:
            self.run = self._live_run()
        if pending is not None:
            self._compare(pending, [out])
        return out

    def _live_run(self):
        if self.state != _LIVE:
            return _no_outputs
        return self._live if self._live is not None else self._tiering

    def _compare(self, pending: list, outputs) -> None:
        if not _same_bits(pending, outputs):
            self._drop("its outputs differ from the Python code's" if self.state == _BUILT else
                       "its outputs differed from the Python code's on a re-checked call")
        elif self.state == _BUILT:
            self.state = _LIVE
            self.run = self._live_run()
            _log(f"Native {self.kind} live: its outputs matched the Python code's bitwise")
        else:
            self.rechecks += 1

    def check(self, steps: int, *outputs) -> None:
        """After the Python loop ran `steps` iterations: if the native loop
        ran too, keep it when every output agrees bitwise, else drop it;
        start the build once the loop has run `AFTER_STEPS` iterations."""
        pending = getattr(self._local, "pending", None)
        if pending is not None:
            self._local.pending = None
            if self.state in (_BUILT, _LIVE):
                self._compare(pending, outputs)
        elif self.state == _COLD:
            self.steps += steps
            if self.steps >= AFTER_STEPS:
                self._start()

    def _start(self):
        with _start_lock:  # two threads may reach the threshold together: one build
            if self.state != _COLD:
                return
            self.state = _BUILDING
            _prepare_native_call()
            from pyjax._src import config

            loud = config.log_compiles.value  # the build thread does not see this thread's config
            self._thread = threading.Thread(target=self._compile, args=(loud,), name="pyjax-native", daemon=True)
            self._thread.start()

    def _compile(self, loud: bool = False):
        start = time.perf_counter()
        try:
            make, self._make = self._make, None  # the jaxprs it holds are not needed after this
            self.source, kernels, self.scratch = make()
            self.kernels = (ctypes.c_void_p * max(len(kernels), 1))(*kernels)
            self._fn = _build(self.source, straight_line=self.kind == "program").pyjax_loop
            self._fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            self._fn.restype = None
            self._bind()
        except Exception as e:  # noqa: BLE001  (the Python loop stays; the reason is kept)
            self._drop(str(e), loud)
            return
        if self.state == _BUILDING:
            self.state = _BUILT
        _log(f"Finished native build of a {self.kind} ({self.source.count(chr(10))} lines of C) in "
             f"{time.perf_counter() - start:.9f} sec", loud)

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
        self._call = native_call(*args, False, keep)
        self._live = self._sampled(native_call(*args, False, keep), self._sample)
        if len(outs) == 1 and self.python is not None:
            self.call1 = self._sampled(native_call(*args, True, keep), self._sample1)

    @staticmethod
    def _sampled(call, sampler):
        call.calls, call.next_check, call.watch = 1, _FIRST_RECHECK, _ALL_CLASSES
        call.sampler = sampler
        return call

    def _drop(self, why: str, loud: bool | None = None):
        self.state, self.failure = _DEAD, why
        # Compiled code keeps calling the tier: from now on, for nothing. A
        # holder of `call1` (an eager program) gets the Python code's output.
        self.run, self.check = _no_outputs, _no_check
        for call in (self._live, self.call1):
            if call is not None:
                call.next_check, call.watch = 0, 0
        _log(f"Native {self.kind} dropped: {why}", loud)

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
        ptrs = (ctypes.c_void_p * (len(arrays) + len(outs)))(
            *[a.__array_interface__["data"][0] for a in (*arrays, *outs)])
        base = scratch.__array_interface__["data"][0]
        self._fn(ptrs, self.kernels, base + (-base % 64))
        return outs


def native_scan(eqn, impls: dict) -> NativeLoop | None:
    """The native tier for a `scan` equation, or None (the Python loop only)."""
    p = eqn.params
    consts, carry, _ = p["ft_in"].unpack()
    body = p["jaxpr"]
    if not available() or body.consts or not _plausible([body.jaxpr], impls):
        return None
    return NativeLoop(lambda: _scan_source(body.jaxpr, len(consts), len(carry), p["length"], p["reverse"], impls),
                      [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars], "scan")


def native_while(eqn, impls: dict) -> NativeLoop | None:
    """The native tier for a `while` equation with a scalar predicate, or None."""
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    if not available() or cond.consts or body.consts or not _plausible([cond.jaxpr, body.jaxpr], impls):
        return None
    return NativeLoop(lambda: _while_source(cond.jaxpr, body.jaxpr, p["cond_nconsts"], p["body_nconsts"], impls),
                      [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars], "while")


def native_loop(eqn, impls: dict) -> NativeLoop | None:
    """The loop tier (tiers.py): the native tier of a `scan` or `while`
    equation, or None."""
    if eqn.primitive.name == "scan":
        return native_scan(eqn, impls)
    if eqn.primitive.name == "while":
        return native_while(eqn, impls)
    return None


def native_program(jaxpr: Jaxpr, impls: dict) -> NativeLoop | None:
    """The native tier of a straight-line jitted program of at least
    `MIN_PROGRAM_EQNS` equations on small values, or None. Its steps are
    its equations: it tiers up after `AFTER_STEPS` equations run."""
    # (Whether native_call.c builds is known after the first native build.)
    fast_calls = _headers() is not None and _caller_state != [None]
    shortest = MIN_PROGRAM_EQNS if fast_calls else MIN_CTYPES_PROGRAM_EQNS
    if shortest == MIN_PROGRAM_EQNS and len(jaxpr.eqns) == 1 and _costly_alone(jaxpr.eqns[0], impls):
        shortest = 1
    if jaxpr.constvars or not available():
        return None
    eqns = _inlined_eqns(jaxpr)  # (a jitted jax.numpy function is one `jit` equation)
    if eqns < shortest or not _plausible([jaxpr], impls):
        return None
    native = NativeLoop(lambda: _program_source(jaxpr, impls), [v.aval for v in jaxpr.invars],
                        [v.aval for v in jaxpr.outvars], "program")
    native.steps_per_call = eqns
    return native


def _costly_alone(eqn, impls: dict) -> bool:
    # Equations whose impl alone costs more than a native call: a reduction
    # (`ufunc.reduce`, ~1 us) and XLA's saturating float-to-int conversion
    # (range checks around the cast, ~3 us).
    if getattr(impls.get(eqn.primitive), "reduce_ufunc", None) is not None:
        return True
    if eqn.primitive.name == "convert_element_type":
        src, dst = eqn.invars[0].aval.dtype, eqn.outvars[0].aval.dtype
        return src.kind == "f" and dst.kind in "iu"
    return False


def _inlined_eqns(jaxpr: Jaxpr) -> int:
    # Equations once jit, remat and custom_jvp/vjp calls are written in line.
    n = 0
    for eqn in jaxpr.eqns:
        key = eqn.primitive.call_body
        n += _inlined_eqns(eqn.params[key].jaxpr) if key is not None else 1
    return n


def available() -> bool:
    """Whether native code can be built here (enabled, and a C compiler)."""
    return ENABLED and compiler() is not None


def native_rows(body: Jaxpr, consts_n: int, rows: int, region: Jaxpr, impls: dict) -> NativeLoop | None:
    """The native tier of a row region (rows.py): `region` run as a loop of
    `body` over its `rows` rows (its first `consts_n` inputs are scalars,
    the others and its outputs are read and written a row at a time), or
    None. Its steps are rows."""
    if not available() or not _plausible([body], impls):
        return None
    return NativeLoop(lambda: _scan_source(body, consts_n, 0, rows, False, impls), [v.aval for v in region.invars],
                      [v.aval for v in region.outvars], "row loop")


# Equations the C code may be written for (`_emit` decides for sure, on the
# build thread); anything else keeps the Python code without a tier.
_NATIVE_NAMES = frozenset({"dot_general", "fma", "row_dot", "max", "min", "clamp", "select_n", "integer_pow", "convert_element_type", "sign",
                           "dynamic_slice", "dynamic_update_slice", "concatenate", "scatter",
                           *_VIEWS, *_IMPL_UFUNCS})


def _plausible(jaxprs: list, impls: dict) -> bool:
    try:
        _check_values(jaxprs)
    except _Unsupported:
        return False
    return all(plausible_eqn(eqn, impls) for jaxpr in jaxprs for eqn in jaxpr.eqns)


def plausible_eqn(eqn, impls: dict) -> bool:
    """Whether native code may be written for `eqn` (`_emit` decides for
    sure, on the build thread)."""
    impl = kernels.backend_impl(impls, eqn.primitive)
    if eqn.effects or impl is None:
        return False
    key = eqn.primitive.call_body
    if eqn.primitive.name == "cond":
        return _plausible([b.jaxpr for b in eqn.params["branches"]], impls)
    if key is not None:
        return _plausible([eqn.params[key].jaxpr], impls)
    return (eqn.primitive.name in _NATIVE_NAMES or getattr(impl, "reduce_ufunc", None) is not None
            or (not eqn.primitive.multiple_results and kernels.ufunc_of(eqn, impl, True) is not None))


if sys.platform == "win32" or sys.implementation.name != "cpython":
    # No /proc or cc; or object ids that are not addresses (the ufunc tables
    # are read at id(ufunc)).
    ENABLED = False
