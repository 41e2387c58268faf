"""The C source builder native code is written with: `_Source` collects the
kernel pointers, literals and scratch a function uses; `_View` is a value
as NumPy sees it (a pointer, a shape, byte strides, a dtype); the helpers
write loop nests over views and calls of a ufunc's inner loop.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.native.settings import _MAX_SCRATCH_BYTES

# ---------------------------------------------------------------------------
# The C source: values as views, equations as kernel calls


_C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
# C types of the values an exact cast reads or writes (compile.py's `_direct_convert` set).
_C_SCALARS = {np.dtype(np.bool_): "unsigned char", np.dtype(np.int8): "int8_t", np.dtype(np.int16): "int16_t",
              np.dtype(np.int32): "int32_t", np.dtype(np.int64): "int64_t", np.dtype(np.uint8): "uint8_t",
              np.dtype(np.uint16): "uint16_t", np.dtype(np.uint32): "uint32_t", np.dtype(np.uint64): "uint64_t",
              **_C_TYPES}

# The impl's max and min of two zeros (impls.py `_zero_extremum`): XLA's
# order, -0.0 below +0.0, as C on the operands {0} and {1}.
ZERO_EXTREMUM = {"max": "({0} + {1})", "min": "(-((-{0}) + (-{1})))"}


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


def _element_lines(src: _Source, shape, views: list, expr, writes: int = 1) -> list[str]:
    """Per element: `expr(refs)` is a C statement over `refs[k]`; the last
    `writes` views are written, and their refs are lvalues of their C type.
    The views before them are read once per element, before the statement,
    into locals (their refs): no element is read only on some path of the
    statement. GCC 12 at -O3 turned a select's conditional reads
    (`c[j] ? x[j] : y[j]`) into masked vector loads that reused the first
    vector's mask for every later one (the native fuzzer's outputs differed);
    reads made unconditional become plain loads and a blend."""
    reads = len(views) - writes

    def statement(refs):
        locals_ = [f"pj_e{k}" for k in range(reads)]
        loads = "".join(f"const {_C_SCALARS[v.dtype]} {name} = {ref}; "
                        for v, name, ref in zip(views, locals_, refs))
        body = expr(locals_ + refs[reads:])
        return f"{{ {loads}{body} }}" if loads else body

    if not shape:
        return [statement([f"(*({_C_SCALARS[v.dtype]} *){v.ptr})" for v in views])]
    j = src.index()

    def inner(ptrs):
        refs = [f"(*({_C_SCALARS[v.dtype]} *)({p} + {j} * {v.aligned(shape)[-1]}))" for v, p in zip(views, ptrs)]
        return [f"for (intptr_t {j} = 0; {j} < {shape[-1]}; {j}++) {statement(refs)}"]

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


def _contiguous(src: _Source, v: _View, force: bool = False) -> tuple[_View, list[str]]:
    if v.contiguous and not force:
        return v, []
    dst = src.temp(ShapedArray(v.shape, v.dtype))
    return dst, _copy_lines(src, dst, v)
