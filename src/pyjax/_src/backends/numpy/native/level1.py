"""The C of the products `ndarray.dot` computes with NumPy's paths for
vectors (cblasfuncs.c `cblas_matrixproduct`), where ops.py's gemv/gemm
emitter stops: the dot of two vectors and the outer product of a column
and a row (a Gaussian process's `y @ alpha`, a triangular solve's
gradient). Same BLAS routine, same arguments, as NumPy passes them.

- Two vectors (both longer than 1): NumPy's `dotfunc` (FLOAT_dot,
  DOUBLE_dot): `double sum = 0; sum += cblas_?dot(n, x, incx, y, incy);`
  stored as the dtype; strides that are not positive multiples of the item
  size were copied first (`_bad_strides`).
- A column (m, 1) times a row (1, n), m, n > 1: NumPy's level-3 branch, both
  operands contiguous (a copy otherwise), both counted Fortran-contiguous
  (a dimension of 1): `cblas_?gemm(RowMajor, Trans, Trans, m, n, 1, 1, a,
  m, b, 1, 0, out, n)`.

Other shapes with a dimension of 1 keep the Python code. A product without
contracting or batch axes is the impl's `np.multiply.outer` (`outer_lines`).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.numpy.native.csource import _C_TYPES, _Source, _Unsupported, _View, _contiguous, _ufunc_lines
from pyjax._src.backends.numpy.native.discovery import _Blas, ufunc_loop

__all__ = ["outer_lines", "rank_one_dot_lines"]


def rank_one_dot_lines(src: _Source, a: _View, b: _View, out: _View) -> list[str]:
    """The lines of `a.dot(b)` (`a`, `b` the operands as NumPy gets them)
    for two vectors or a column times a row; raises _Unsupported else."""
    dtype = out.dtype
    if dtype not in _C_TYPES or not a.dtype == b.dtype == dtype or not _Blas.find():
        raise _Unsupported("dot_general")
    t = "s" if dtype.itemsize == 4 else "d"
    c, isz = _C_TYPES[dtype], dtype.itemsize
    lines: list[str] = []

    def packed(v: _View) -> _View:
        if _unit(v):
            return v
        copy, more = _contiguous(src, v, force=True)
        lines.extend(more)
        return copy

    if len(a.shape) == 1 and len(b.shape) == 1 and a.shape[0] > 1 and a.shape == b.shape:
        if t + "dot" not in _Blas.fns:
            raise _Unsupported("no BLAS dot")
        x, y = (_strided(src, v, lines) for v in (a, b))
        fn = src.kernel(_Blas.fns[t + "dot"])
        return lines + [f"{{ double sum = 0.; sum += (({c} (*)(blasint, const void *, blasint, const void *, "
                        f"blasint)){fn})({a.shape[0]}, {x.ptr}, {x.strides[0] // isz}, {y.ptr}, "
                        f"{y.strides[0] // isz}); *({c} *){out.ptr} = ({c})sum; }}"]
    if (len(a.shape) == 2 and len(b.shape) == 2 and a.shape[1] == 1 and b.shape[0] == 1
            and a.shape[0] > 1 and b.shape[1] > 1 and out.contiguous):
        m, n = a.shape[0], b.shape[1]
        a, b = packed(a), packed(b)
        fn = src.kernel(_Blas.fns[t + "gemm"])
        return lines + [f"(({t}gemm_t){fn})(101, 112, 112, {m}, {n}, 1, 1.0, {a.ptr}, {m}, {b.ptr}, 1, 0.0, "
                        f"{out.ptr}, {n});"]
    raise _Unsupported("dot_general with a dimension of 1")


def _unit(v: _View) -> bool:
    # Contiguous along its one long axis (NumPy's C and F flags both set).
    return all(st == v.dtype.itemsize for st, d in zip(v.strides, v.shape) if d > 1)


def _strided(src: _Source, v: _View, lines: list) -> _View:
    # NumPy's `_bad_strides`: a negative, zero or misaligned stride is copied.
    st = v.strides[0]
    if st > 0 and st % v.dtype.itemsize == 0:
        return v
    copy, more = _contiguous(src, v, force=True)
    lines.extend(more)
    return copy


def outer_lines(src: _Source, lhs: _View, rhs: _View, out: _View) -> list[str]:
    """The impl's product without contracting or batch axes of operands of
    rank <= 2 (impls/standard.py `_dot_general`): `np.multiply.outer`, NumPy's
    multiply loop over the left operand broadcast along the right's axes."""
    loop = ufunc_loop(np.multiply, (out.dtype,) * 3)
    if loop is None or not lhs.dtype == rhs.dtype == out.dtype:
        raise _Unsupported("dot_general without contracting axes")
    pad = len(rhs.shape)
    a = _View(lhs.ptr, (*lhs.shape, *(1,) * pad), (*lhs.strides, *(0,) * pad), lhs.dtype)
    return _ufunc_lines(src, *loop, [a, rhs], out)
