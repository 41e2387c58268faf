"""The C of `cholesky` and `triangular_solve`: SciPy's LAPACK and BLAS
routines, called as the impls (impls/linalg.py) call them.

The impls go through SciPy's f2py wrappers, which hand Fortran its
matrices column-major (a copy, unless an input already is one and the
routine does not write it) and return the result column-major; the impl
then makes it C-ordered. Each f2py wrapper calls the routine SciPy's
`cython_lapack`/`cython_blas` modules publish as a function pointer (their
`__pyx_capi__` capsules): the same routine of the same library. Here the
matrices get the same column-major copies, the routine is called through
its pointer with the arguments f2py passes (`potrf(uplo, n, a, n, info)`,
`trsm(side, uplo, transa, diag, m, n, 1.0, a, lda, b, m)`), one matrix of
the batch at a time, and the result is copied back to C order: the same
bits, with no Python between the calls. A program with linear algebra (a
Gaussian process's likelihood and its gradient) then runs as one native
call. Real float32/float64 only (the native tier writes no complex
arithmetic); other dtypes keep the Python code.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.impls import lazy_scipy
from pyjax._src.backends.numpy.native.csource import _C_TYPES, _Source, _Unsupported, _View, _copy_lines

__all__ = ["LAPACK_OPS", "routine"]

_cython_lapack = lazy_scipy.LazyModule("scipy.linalg.cython_lapack")
_cython_blas = lazy_scipy.LazyModule("scipy.linalg.cython_blas")

# Each routine's C signature, as the capsule names it (its Cython type
# names stripped); a capsule of another signature is not called.
_SIGNATURES = {"potrf": ("void (char *, int *, {t} *, int *, int *)",
                         "typedef void (*{p}potrf_t)(const char *, const int *, {c} *, const int *, int *);"),
               "trsm": ("void (char *, char *, char *, char *, int *, int *, {t} *, {t} *, int *, {t} *, int *)",
                        "typedef void (*{p}trsm_t)(const char *, const char *, const char *, const char *, "
                        "const int *, const int *, const {c} *, const {c} *, const int *, {c} *, const int *);")}
_routines: dict = {}


def routine(name: str, dtype) -> tuple[int, str] | None:
    """(address, C typedef) of SciPy's `name` (potrf, trsm) for a real
    float `dtype`, or None where SciPy does not publish it as expected."""
    dtype = np.dtype(dtype)
    key = (name, dtype)
    if key not in _routines:
        _routines[key] = _find(name, dtype)
    return _routines[key]


def _find(name: str, dtype: np.dtype) -> tuple[int, str] | None:
    if dtype not in _C_TYPES:
        return None
    prefix = "s" if dtype == np.float32 else "d"
    try:
        module = _cython_lapack if name == "potrf" else _cython_blas
        capsule = module.__pyx_capi__[prefix + name]
    except (ImportError, AttributeError, KeyError):
        return None
    # (private prototypes: the shared ctypes.pythonapi attributes keep theirs)
    get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
    get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi))
    signature = get_name(capsule)
    expected, typedef = _SIGNATURES[name]
    kind = "lapack" if name == "potrf" else "blas"
    cython_type = f"__pyx_t_5scipy_6linalg_{len('cython_' + kind)}cython_{kind}_{prefix}"
    if signature is None or signature.decode() != expected.format(t=cython_type):
        return None
    address = get_pointer(capsule, signature)
    return (address, typedef.format(p=prefix, c=_C_TYPES[dtype])) if address else None


def _use(src: _Source, name: str, dtype) -> str:
    found = routine(name, dtype)
    if found is None:
        raise _Unsupported(f"SciPy's {name} for {dtype}")
    address, typedef = found
    if typedef not in src.statics:
        src.statics.append(typedef)
    prefix = "s" if dtype == np.float32 else "d"
    return f"(({prefix}{name}_t){src.kernel(address)})"


def _fortran(src: _Source, shape: tuple, dtype) -> _View:
    """Scratch for a batch of matrices, each column-major (f2py's copies),
    the batch in C order."""
    temp = src.temp(ShapedArray(shape, dtype))
    return _View(temp.ptr, shape, _fortran_strides(shape, np.dtype(dtype).itemsize), dtype)


def _fortran_strides(shape: tuple, itemsize: int) -> tuple:
    rows, cols = shape[-2:]
    step, batch = rows * cols * itemsize, []
    for d in reversed(shape[:-2]):
        batch.append(step)
        step *= d
    return (*reversed(batch), itemsize, rows * itemsize)


def _c_order(src: _Source, v: _View, step: list) -> _View:
    # The impl's result is C-ordered (np.ascontiguousarray / the batch's
    # output); a column-major matrix with a dimension of 1 already is.
    if v.contiguous:
        return v
    out = src.temp(ShapedArray(v.shape, v.dtype))
    step += _copy_lines(src, out, v)
    return out


def _check(ins: list, out_avals: list) -> np.dtype:
    dtype = ins[0].dtype
    if dtype not in _C_TYPES or any(v.dtype != dtype for v in ins) or out_avals[0].dtype != dtype:
        raise _Unsupported("linalg operands of another dtype than float32/float64")
    if any(d == 0 for v in ins for d in v.shape):
        raise _Unsupported("an empty matrix")
    return dtype


def _cholesky_lines(src: _Source, eqn, ins: list, out_avals: list, step: list) -> list:
    # The impl: potrf(matrix, lower=1, clean=0) on a column-major copy; a
    # matrix whose `info` is not 0 comes back all NaN.
    dtype = _check(ins, out_avals)
    (x,) = ins
    n = x.shape[-1]
    potrf = _use(src, "potrf", dtype)
    work = _fortran(src, x.shape, dtype)
    step += _copy_lines(src, work, x)
    count, b, j = math.prod(x.shape[:-2]), src.index(), src.index()
    c = _C_TYPES[dtype]
    step.append(f"for (intptr_t {b} = 0; {b} < {count}; {b}++) {{ "
                f"{c} *m = ({c} *)({work.ptr} + {b} * {n * n * dtype.itemsize}); "
                f"const int n = {n}; int info = 0; {potrf}(\"L\", &n, m, &n, &info); "
                f"if (info != 0) for (intptr_t {j} = 0; {j} < {n * n}; {j}++) m[{j}] = ({c})NAN; }}")
    return [_c_order(src, work, step)]


def _triangular_solve_lines(src: _Source, eqn, ins: list, out_avals: list, step: list) -> list:
    # The impl: trsm(1.0, a, b, side, lower, trans_a, diag) per matrix, b a
    # column-major copy, a as it is when column-major (f2py copies it
    # otherwise: the same values, the same leading dimension).
    dtype = _check(ins, out_avals)
    p = eqn.params
    a, b = ins
    if a.shape[:-2] != b.shape[:-2] or len(a.shape) < 2 or len(b.shape) < 2:
        raise _Unsupported("triangular_solve of unlike batches")
    m, n = b.shape[-2:]
    k = a.shape[-1]
    trsm = _use(src, "trsm", dtype)
    if a.strides != _fortran_strides(a.shape, dtype.itemsize):
        work_a = _fortran(src, a.shape, dtype)
        step += _copy_lines(src, work_a, a)
        a = work_a
    work = _fortran(src, b.shape, dtype)
    step += _copy_lines(src, work, b)
    # (a real matrix's conjugate is itself; `C` is what f2py passes for trans_a=2)
    trans = ("C" if p["conjugate_a"] else "T") if p["transpose_a"] else "N"
    codes = ("R" if not p["left_side"] else "L", "L" if p["lower"] else "U", trans,
             "U" if p["unit_diagonal"] else "N")
    count, i = math.prod(a.shape[:-2]), src.index()
    c = _C_TYPES[dtype]
    step.append(f"for (intptr_t {i} = 0; {i} < {count}; {i}++) {{ "
                f"const int m = {m}, n = {n}, lda = {k}; const {c} one = 1; "
                f"{trsm}(\"{codes[0]}\", \"{codes[1]}\", \"{codes[2]}\", \"{codes[3]}\", &m, &n, &one, "
                f"({c} *)({a.ptr} + {i} * {k * k * dtype.itemsize}), &lda, "
                f"({c} *)({work.ptr} + {i} * {m * n * dtype.itemsize}), &m); }}")
    return [_c_order(src, work, step)]


# name -> (src, eqn, ins, out_avals, step) -> the outputs' views
LAPACK_OPS = {"cholesky": _cholesky_lines, "triangular_solve": _triangular_solve_lines}
