"""Sums over the leading axes of a C-contiguous float array, in C.

Batch norm's statistics over N, H and W of an NHWC activation (and their
gradients) are sums of every row of a (rows, features) matrix. The impl
(impls/standard.py) computes them with `np.einsum("ij->j")`, which adds the
rows in order onto +0 (each feature's running sum rounded after every
row), but calls its inner loop once per row of 8 to 64 features. This
kernel makes the same sums, one chain per feature from +0 in the rows'
order, with a block of features' running sums held in registers: the same
adds in the same order, so the same bits. The build compares it with
einsum on data with NaNs, infinities, signed zeros and subnormals; a live
kernel is re-checked on calls 2, 4, 8, ... Built in the background at the
first such sum (synchronously when PYJAX_NATIVE_LOOPS_AFTER=0).
"""

from __future__ import annotations

import ctypes

import numpy as np

from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.build import _build, available
from pyjax._src.backends.numpy.native.tiering import COLD, Rechecks, Tiering

__all__ = ["NativeColumnSums", "column_sums"]

_SOURCE = r"""#include <stdint.h>
/* out[j] = ((0 + x[0][j]) + x[1][j]) + ... : a chain of adds in the rows'
   order for each column j of the (rows, cols) matrix x. A block of NV
   vectors of L columns keeps its running sums in registers (GCC's vector
   types: the lanes are the columns, never summed across). */
#define BLOCK(T, V, L, NV)                                                                  \
static void block_##T##_##NV(const T *restrict x, T *restrict out, int64_t rows, int64_t cols) { \
    V acc[NV];                                                                              \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) acc[v] = (V){0};                   \
    for (int64_t i = 0; i < rows; i++, x += cols)                                           \
        _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) {                              \
            V row;                                                                          \
            __builtin_memcpy(&row, x + L * v, sizeof row);                                  \
            acc[v] += row;                                                                  \
        }                                                                                   \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) __builtin_memcpy(out + L * v, &acc[v], sizeof acc[v]); \
}
#define SUMS(T, V, L)                                                                       \
typedef T V __attribute__((vector_size(L * sizeof(T))));                                    \
BLOCK(T, V, L, 8) BLOCK(T, V, L, 4) BLOCK(T, V, L, 2) BLOCK(T, V, L, 1)                     \
void pyjax_column_sums_##T(const T *restrict x, T *restrict out, int64_t rows, int64_t cols) { \
    int64_t j = 0;                                                                          \
    for (; cols - j >= 8 * L; j += 8 * L) block_##T##_8(x + j, out + j, rows, cols);        \
    if (cols - j >= 4 * L) { block_##T##_4(x + j, out + j, rows, cols); j += 4 * L; }       \
    if (cols - j >= 2 * L) { block_##T##_2(x + j, out + j, rows, cols); j += 2 * L; }       \
    if (cols - j >= L) { block_##T##_1(x + j, out + j, rows, cols); j += L; }               \
    for (; j < cols; j++) {  /* (the last few columns: one scalar chain each) */            \
        T acc = 0;                                                                          \
        for (int64_t i = 0; i < rows; i++) acc += x[i * cols + j];                          \
        out[j] = acc;                                                                       \
    }                                                                                       \
}
SUMS(float, vfloat, 8)
SUMS(double, vdouble, 4)
"""

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


class NativeColumnSums(Tiering):
    """`sums(x)`: the column sums of the C-contiguous float32/float64
    matrix `x` (rows, cols), as `np.einsum("ij->j", x)` makes them (cols of
    at least 2: with one column einsum sums another way); None when not
    built."""

    verified_by_build = True
    thread_name = "pyjax-native-colsums"

    def __init__(self):
        super().__init__("column sums")
        self.fns = None
        self._rechecks = Rechecks(calls=0)

    def sums(self, x: np.ndarray) -> np.ndarray | None:
        fns = self.fns
        if fns is None:
            if self.state == COLD:
                self.start(wait=settings.AFTER_STEPS == 0)
                fns = self.fns
            if fns is None:
                return None
        rows, cols = x.shape
        out = np.empty(cols, x.dtype)
        fns[x.dtype.itemsize == 8](x.ctypes.data, out.ctypes.data, rows, cols)
        if self._rechecks.due() and not _same(np.einsum("ij->j", x), out):
            self.drop("its column sums differed from einsum's on a re-check")
            return None
        return out

    def prepare(self) -> str | None:
        return None if available() else "native code is off or there is no C compiler"

    def build(self) -> None:
        lib = _build(_SOURCE)  # (-O2 with the dynamic vector cost model: the blocks vectorised)
        fns = (lib.pyjax_column_sums_float, lib.pyjax_column_sums_double)
        for fn in fns:
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]
            fn.restype = None
        why = _differs(fns)
        if why:
            raise RuntimeError(why)
        self.fns = fns

    def dropped(self) -> None:
        self.fns = None


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    # Bitwise, where any NaN matches any NaN (a payload is the hardware's choice).
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    ints = np.uint32 if a.dtype.itemsize == 4 else np.uint64
    differ = a.view(ints) != b.view(ints)
    return not np.any(differ & ~(np.isnan(a) & np.isnan(b)))


def _differs(fns) -> str | None:
    rng = np.random.default_rng(3)
    for dtype in _DTYPES:
        tiny = np.finfo(dtype).smallest_subnormal
        for rows, cols in [(1, 2), (3, 5), (100, 8), (257, 32), (64, 77), (1000, 16), (9, 130), (50, 64)]:
            x = (rng.standard_normal((rows, cols)) * 10.0 ** rng.integers(-3, 4, cols)).astype(dtype)
            flat = x.reshape(-1)
            picks = rng.integers(0, flat.size, (5, max(1, flat.size // 15)))
            flat[picks[0]], flat[picks[1]], flat[picks[2]] = -0.0, tiny, np.nan
            flat[picks[3]], flat[picks[4]] = np.inf, -np.inf
            x[:, 1] = -0.0  # (a column of -0: einsum's sum from +0 is +0)
            out = np.empty(cols, dtype)
            fns[dtype.itemsize == 8](x.ctypes.data, out.ctypes.data, rows, cols)
            with np.errstate(all="ignore"):
                if not _same(np.einsum("ij->j", x), out):
                    return f"its column sums of a {dtype} ({rows}, {cols}) matrix differ from einsum's"
    return None


column_sums = NativeColumnSums()
