"""Native loops: a hot `scan` of small steps run as one C loop that calls
NumPy's own kernels.

A scan body of a few small equations costs what its NumPy calls cost in
dispatch, ~0.3-0.5 us each, however little they compute: the seed's RNN
step `tanh(W @ h + x)` on 32 floats is 1.2 us in the compiled Python loop,
where XLA's loop takes 0.19 us. This module writes such a body as a C
loop over the same kernels the Python loop reaches through NumPy:

- an elementwise equation calls the ufunc's inner loop for its dtypes (the
  function pointer NumPy's ufunc object publishes in its C struct), with a
  stride of 0 for a scalar operand, as NumPy's own broadcasting does;
- a matrix-vector `dot_general` calls the BLAS `gemv` NumPy's `ndarray.dot`
  calls, with the same arguments;
- reshapes are the same bytes; ys rows and carries are copies.

So the native loop computes bit for bit what the Python loop computes
(there is no arithmetic of its own to round differently), and that is
checked rather than assumed: the loop is used only after one call on which
both ran and every output agreed bitwise; on any difference it is dropped
for good and the Python loop stays.

Tiering, as a JIT does it: a scan runs as Python until it has executed
`AFTER_STEPS` iterations (summed over calls), then its C source is compiled
on a background thread with the system C compiler (`$CC`, else `cc`), while
calls go on in Python; the next call after the build is the checked one.
First calls never wait for a compiler; without one (or with
`PYJAX_NATIVE_LOOPS=0`) nothing changes. `PYJAX_NATIVE_LOOPS_AFTER` sets the
threshold (0: build at the first call, and wait for it).

Supported bodies: float (and integer and bool) elementwise equations whose
compiled code is one ufunc call with operands of the output's shape or 0-d,
matrix-vector and vector-matrix products of float32/float64 (no dimension
of 1), reshapes, squeezes and expand_dims. Anything else keeps the Python
loop, as does a scan whose inputs are not contiguous at call time.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable

import numpy as np

from pyjax._src.jaxpr import Jaxpr, Literal

__all__ = ["AFTER_STEPS", "NativeScan", "native_scan"]

logger = logging.getLogger(__name__)


def _after_steps() -> int:
    value = os.environ.get("PYJAX_NATIVE_LOOPS_AFTER", "20000").strip()
    try:
        return max(0, int(value))
    except ValueError:
        raise ValueError(f"PYJAX_NATIVE_LOOPS_AFTER must be a number of loop steps, got {value!r}") from None


AFTER_STEPS = _after_steps()
ENABLED = os.environ.get("PYJAX_NATIVE_LOOPS", "1").strip().lower() not in ("0", "off", "false", "no")

# A body value larger than this (in bytes) is not worth a native loop: its
# NumPy calls cost more than their dispatch.
_MAX_VALUE_BYTES = 1 << 16

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
    wanted = bytes(np.dtype(d).num for d in dtypes)
    n = head.nargs
    for i in range(head.ntypes):
        if bytes(head.types[i * n + j][0] for j in range(n)) == wanted:
            fn = head.functions[i]
            return (fn, head.data[i] or 0) if fn else None
    return None


class _Blas:
    # NumPy's BLAS (the library its `ndarray.dot` calls): gemv by name, and
    # whether its integers are 64-bit.
    gemv: dict = {}
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
        names = {t: f"{'scipy_' if name.startswith('scipy') else ''}cblas_{t}gemv{'64_' if int64 else ''}"
                 for t in "sd"}
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
                cls.gemv = {np.dtype(np.float32): ctypes.cast(getattr(lib, names["s"]), ctypes.c_void_p).value,
                            np.dtype(np.float64): ctypes.cast(getattr(lib, names["d"]), ctypes.c_void_p).value}
                cls.int64 = int64
                return True
        return False


# ---------------------------------------------------------------------------
# The C source of a scan


_C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
_ALIASES = frozenset({"reshape", "squeeze", "expand_dims"})


class _Unsupported(Exception):
    pass


class _Source:
    """C source for one scan: the loop, its storage and its kernel table."""

    def __init__(self):
        self.kernels: list[int] = []  # pointers passed in `k`
        self.statics: list[str] = []
        self.lines: list[str] = []
        self.scratch = 0  # bytes

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

    def temp(self, nbytes: int) -> str:
        offset = self.scratch
        self.scratch += -(-max(nbytes, 1) // 64) * 64
        return f"(s + {offset})"


def _nbytes(aval) -> int:
    return aval.size * aval.dtype.itemsize


def _scan_source(body: Jaxpr, consts_n: int, carry_n: int, length: int, reverse: bool, impls: dict):
    """(C source, kernel pointers, scratch bytes) of the scan of `body`;
    raises _Unsupported."""
    from pyjax._src.backends.numpy.compile import DEFAULT_IMPLS, ufunc_of

    src = _Source()
    invars, outvars = body.invars, body.outvars
    xs_n = len(invars) - consts_n - carry_n
    ys_avals = [v.aval for v in outvars[carry_n:]]
    for v in (*invars, *outvars):
        if not isinstance(v.aval.dtype, np.dtype) or _nbytes(v.aval) > _MAX_VALUE_BYTES:
            raise _Unsupported(f"value {v.aval}")
    # Argument layout of `void loop(char **a, void **k, char *s)`: consts,
    # initial carries, xs, final carries, ys.
    where: dict = {}  # Var -> C expression of its bytes
    for j, v in enumerate(invars[:consts_n]):
        where[v] = f"a[{j}]"
    cur = [f"cur[{j}]" for j in range(carry_n)]
    for j, v in enumerate(invars[consts_n:consts_n + carry_n]):
        where[v] = cur[j]
    for j, v in enumerate(invars[consts_n + carry_n:]):
        where[v] = f"x{j}"

    def operand(v):
        if type(v) is Literal:
            return src.literal(v.val, v.aval.dtype)
        return where[v]

    step: list[str] = []
    for eqn in body.eqns:
        name = eqn.primitive.name
        if eqn.effects or eqn.primitive.multiple_results:
            raise _Unsupported(name)
        out = eqn.outvars[0]
        if (name in _ALIASES and type(eqn.invars[0]) is not Literal
                and eqn.params.get("dimensions") is None):  # a reshape that transposes first moves bytes
            where[out] = where[eqn.invars[0]]
            continue
        impl = impls.get(eqn.primitive)
        is_default = impl is DEFAULT_IMPLS.get(eqn.primitive)
        ufunc = ufunc_of(eqn, impl, is_default) if impl is not None else None
        if ufunc is not None:
            step += _ufunc_call(src, eqn, ufunc, operand, where)
        elif name == "dot_general" and is_default:
            step += _gemv_call(src, eqn, operand, where)
        elif name == "fma" and is_default:
            step += _fma_loop(src, eqn, operand, where)
        else:
            raise _Unsupported(name)

    # ys rows, then the next carries (double-buffered: a carry may be
    # another's old value).
    for j, (v, aval) in enumerate(zip(outvars[carry_n:], ys_avals, strict=True)):
        step.append(f"memcpy(a[{consts_n + 2 * carry_n + xs_n + j}] + r * {_nbytes(aval)}, "
                    f"{operand(v)}, {_nbytes(aval)});")
    for j, v in enumerate(outvars[:carry_n]):
        step.append(f"memcpy(nxt[{j}], {operand(v)}, {_nbytes(v.aval)});")
    if carry_n:
        step.append("for (int j = 0; j < NC; j++) { char *held = cur[j]; cur[j] = nxt[j]; nxt[j] = held; }")

    carry_avals = [v.aval for v in invars[consts_n:consts_n + carry_n]]
    lines = ["#include <math.h>", "#include <stdint.h>", "#include <string.h>",
             "typedef void (*loop_t)(char **, const intptr_t *, const intptr_t *, void *);",
             f"typedef {'int64_t' if _Blas.int64 else 'int'} blasint;",
             "typedef void (*sgemv_t)(int, int, blasint, blasint, float, const void *, blasint, const void *, "
             "blasint, float, void *, blasint);",
             "typedef void (*dgemv_t)(int, int, blasint, blasint, double, const void *, blasint, const void *, "
             "blasint, double, void *, blasint);",
             *src.statics,
             f"#define NC {max(carry_n, 1)}",
             "void pyjax_loop(char **a, void **k, char *s) {"]
    # Two banks for the carries, in scratch after the temporaries.
    banks = []
    for aval in carry_avals:
        banks.append((src.temp(_nbytes(aval)), src.temp(_nbytes(aval))))
    lines.append(f"    char *cur[NC] = {{{', '.join(b[0] for b in banks) or '0'}}};")
    lines.append(f"    char *nxt[NC] = {{{', '.join(b[1] for b in banks) or '0'}}};")
    for j, aval in enumerate(carry_avals):
        lines.append(f"    memcpy(cur[{j}], a[{consts_n + j}], {_nbytes(aval)});")
    lines.append(f"    for (int64_t t = 0; t < {length}; t++) {{")
    lines.append(f"        int64_t r = {f'{length - 1} - t' if reverse else 't'};")
    for j, v in enumerate(invars[consts_n + carry_n:]):
        lines.append(f"        char *x{j} = a[{consts_n + carry_n + j}] + r * {_nbytes(v.aval)};")
    lines += ["        " + line for line in step]
    lines.append("    }")
    for j, aval in enumerate(carry_avals):
        lines.append(f"    memcpy(a[{consts_n + carry_n + xs_n + j}], cur[{j}], {_nbytes(aval)});")
    lines.append("}")
    return "\n".join(lines) + "\n", src.kernels, src.scratch


def _ufunc_call(src: _Source, eqn, ufunc, operand, where) -> list[str]:
    out = eqn.outvars[0]
    shape = out.aval.shape
    ins = eqn.invars
    if any(v.aval.shape not in (shape, ()) for v in ins):
        raise _Unsupported(f"{eqn.primitive.name} broadcasting")
    loop = ufunc_loop(ufunc, tuple(v.aval.dtype for v in (*ins, out)))
    if loop is None:
        raise _Unsupported(f"{ufunc.__name__} loop for {[str(v.aval.dtype) for v in (*ins, out)]}")
    fn, data = loop
    where[out] = dst = src.temp(_nbytes(out.aval))
    args = ", ".join([operand(v) for v in ins] + [dst])
    steps = ", ".join(str(v.aval.dtype.itemsize if v.aval.shape else 0) for v in ins)
    steps += f", {out.aval.dtype.itemsize}"
    return [f"{{ char *args[] = {{{args}}}; static const intptr_t n[] = {{{out.aval.size}}}; "
            f"static const intptr_t st[] = {{{steps}}}; ((loop_t){src.kernel(fn)})(args, n, st, "
            f"{src.kernel(data)}); }}"]


def _fma_loop(src: _Source, eqn, operand, where) -> list[str]:
    # rewrite.py's fused multiply-add, `(±a) * b + (±c)` rounded once: C's
    # fma/fmaf are that operation, correctly rounded, as is the impl (fma.py).
    out = eqn.outvars[0]
    dtype, shape = out.aval.dtype, out.aval.shape
    if dtype not in _C_TYPES or any(v.aval.shape not in (shape, ()) or v.aval.dtype != dtype for v in eqn.invars):
        raise _Unsupported("fma operands")
    ctype = _C_TYPES[dtype]
    fn = "fmaf" if dtype == np.float32 else "fma"
    where[out] = dst = src.temp(_nbytes(out.aval))
    a, b, c = (f"(({ctype} *){operand(v)})[{'i' if v.aval.shape else '0'}]" for v in eqn.invars)
    if eqn.params.get("negate_product"):
        a = f"-{a}"
    if eqn.params.get("negate_addend"):
        c = f"-{c}"
    return [f"for (intptr_t i = 0; i < {out.aval.size}; i++) (({ctype} *){dst})[i] = {fn}({a}, {b}, {c});"]


def _gemv_call(src: _Source, eqn, operand, where) -> list[str]:
    # `ndarray.dot` of a C-contiguous matrix and a vector: NumPy calls
    # gemv(RowMajor, NoTrans, m, n, 1, A, n, x, 1, 0, y, 1); of a vector and
    # a matrix, gemv(RowMajor, Trans, ...) on the matrix.
    (lc, rc), (lb, _) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    out = eqn.outvars[0]
    dtype = out.aval.dtype
    if lb or not lhs.aval.dtype == rhs.aval.dtype == dtype or dtype not in _C_TYPES or not _Blas.find():
        raise _Unsupported("dot_general")
    if lhs.aval.ndim == 2 and rhs.aval.ndim == 1 and tuple(lc) == (1,) and tuple(rc) == (0,):
        matrix, vector, trans = lhs, rhs, 111
    elif lhs.aval.ndim == 1 and rhs.aval.ndim == 2 and tuple(lc) == (0,) and tuple(rc) == (0,):
        matrix, vector, trans = rhs, lhs, 112
    else:
        raise _Unsupported("dot_general shape")
    m, n = matrix.aval.shape
    if m < 2 or n < 2:
        raise _Unsupported("dot_general with a dimension of 1")  # NumPy takes another BLAS call
    where[out] = dst = src.temp(_nbytes(out.aval))
    gemv = src.kernel(_Blas.gemv[dtype])
    return [f"(({'s' if dtype == np.float32 else 'd'}gemv_t){gemv})(101, {trans}, {m}, {n}, 1.0, {operand(matrix)}, {n}, "
            f"{operand(vector)}, 1, 0.0, {dst}, 1);"]


# ---------------------------------------------------------------------------
# Building

_built: dict = {}  # source digest -> the loaded function
_build_lock = threading.Lock()


def compiler() -> str | None:
    """The C compiler native loops use, or None."""
    return shutil.which(os.environ.get("CC", "cc"))


def _build(source: str) -> Callable:
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    with _build_lock:
        fn = _built.get(digest)
        if fn is not None:
            return fn
        cc = compiler()
        if cc is None:
            raise RuntimeError("no C compiler")
        with tempfile.TemporaryDirectory(prefix="pyjax-native-") as tmp:
            c_path, so_path = os.path.join(tmp, "loop.c"), os.path.join(tmp, f"loop_{digest}.so")
            with open(c_path, "w") as f:
                f.write(source)
            # No contraction or fast-math: the source does no arithmetic of its
            # own, and must not start.
            cmd = [cc, "-O2", "-shared", "-fPIC", "-ffp-contract=off", "-o", so_path, c_path, "-lm"]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode:
                raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.strip()[:500]}")
            lib = ctypes.CDLL(so_path)  # stays mapped after the file goes
        fn = lib.pyjax_loop
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = None
        _built[digest] = fn
        return fn


# ---------------------------------------------------------------------------
# The runtime object compiled code calls

_COLD, _BUILDING, _BUILT, _LIVE, _DEAD = range(5)


class NativeScan:
    """The native tier of one compiled scan.

    Compiled code calls `native(*inputs)` first: a list of outputs when the
    native loop ran, else None, and then the Python loop runs and calls
    `native.check(*outputs)`."""

    def __init__(self, source: str, kernels: list[int], scratch: int, length: int,
                 in_avals: list, out_avals: list):
        self.source, self.length = source, length
        self.kernels = (ctypes.c_void_p * max(len(kernels), 1))(*kernels)
        self.scratch = scratch
        self.in_specs = [(a.shape, a.dtype) for a in in_avals]
        self.out_specs = [(a.shape, a.dtype) for a in out_avals]
        self.state, self.steps, self.failure = _COLD, 0, None
        self._fn = None
        self._pending = None  # the native outputs of the call being checked

    def __call__(self, *inputs):
        state = self.state
        if state == _LIVE:
            return self._run(inputs)
        if state == _COLD:
            self.steps += self.length
            if self.steps >= AFTER_STEPS:
                self._start()
                if AFTER_STEPS == 0:
                    self._thread.join()
                    state = self.state
        if state == _BUILT:
            self._pending = self._run(inputs)
        return None

    def check(self, *outputs) -> None:
        """After the Python loop ran: if the native loop ran too, keep it
        when every output agrees bitwise, else drop it."""
        pending, self._pending = self._pending, None
        if pending is None or self.state != _BUILT:
            return
        for mine, theirs in zip(pending, outputs, strict=True):
            theirs = np.asarray(theirs)
            if mine.dtype != theirs.dtype or mine.shape != theirs.shape or mine.tobytes() != theirs.tobytes():
                self._drop("its outputs differ from the Python loop's")
                return
        self.state = _LIVE

    def _start(self):
        self.state = _BUILDING
        self._thread = threading.Thread(target=self._compile, name="pyjax-native-loop", daemon=True)
        self._thread.start()

    def _compile(self):
        try:
            self._fn = _build(self.source)
        except Exception as e:  # noqa: BLE001  (the Python loop stays; the reason is kept)
            self._drop(str(e))
            return
        self.state = _BUILT

    def _drop(self, why: str):
        self.state, self.failure = _DEAD, why
        logger.debug("native loop dropped: %s", why)

    def _run(self, inputs):
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


def native_scan(eqn, impls: dict) -> NativeScan | None:
    """The native tier for a `scan` equation, or None (the Python loop only)."""
    if not ENABLED or compiler() is None:
        return None
    p = eqn.params
    consts, carry, _ = p["ft_in"].unpack()
    body = p["jaxpr"]
    if body.consts:
        return None
    try:
        source, kernels, scratch = _scan_source(body.jaxpr, len(consts), len(carry), p["length"], p["reverse"], impls)
    except _Unsupported as e:
        logger.debug("scan stays a Python loop: %s", e)
        return None
    return NativeScan(source, kernels, scratch, p["length"], [v.aval for v in eqn.invars],
                      [v.aval for v in eqn.outvars])


if sys.platform == "win32":  # /proc and cc are not there
    ENABLED = False
