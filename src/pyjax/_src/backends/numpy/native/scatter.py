"""A scatter-add's accumulation in C: the kernel impls/slicing.py calls.

`np.add.at` applies each update in order, out[i] = out[i] + update, which is
what XLA's scatter does; it costs ~10-25 ns an element (an embedding's
gradient, 16384 rows of 64 floats, ~10-20 ms). The same loop in C, a row of
updates at a time, runs at memory speed. It computes the same additions in
the same order (one IEEE add per element and update, the operands in
`np.add.at`'s order, no contraction), so its bits are NumPy's by
construction; still, the build compares it with `np.add.at` on test
updates before any use (tiering.py: BUILDING goes straight to LIVE), and a
live kernel is re-checked on calls 2, 4, 8, ... against `np.add.at` on the
call's own first updates. It is built in the background at the first
large scatter-add (synchronously when PYJAX_NATIVE_LOOPS_AFTER=0);
`np.add.at` serves until then, or for good without a C compiler or with
PYJAX_NATIVE_LOOPS=0. install() registers it with impls/slicing.py.
"""

from __future__ import annotations

import ctypes

import numpy as np

from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.build import _build, available
from pyjax._src.backends.numpy.native.tiering import COLD, Rechecks, Tiering

__all__ = ["NativeRowsAdd", "rows_add"]

# dtype -> (the C function, the element type it adds as, elements per
# value): complex adds its real and imaginary parts (NumPy's complex add);
# integers add as unsigned words, which wrap as NumPy's integer add does.
_KINDS = {np.dtype(np.float32): ("pyjax_rows_add_f32", np.float32, 1),
          np.dtype(np.float64): ("pyjax_rows_add_f64", np.float64, 1),
          np.dtype(np.complex64): ("pyjax_rows_add_f32", np.float32, 2),
          np.dtype(np.complex128): ("pyjax_rows_add_f64", np.float64, 2),
          np.dtype(np.int32): ("pyjax_rows_add_u32", np.uint32, 1),
          np.dtype(np.uint32): ("pyjax_rows_add_u32", np.uint32, 1),
          np.dtype(np.int64): ("pyjax_rows_add_u64", np.uint64, 1),
          np.dtype(np.uint64): ("pyjax_rows_add_u64", np.uint64, 1)}

_SOURCE = r"""#include <stdint.h>
#define PJ_ROWS_ADD(name, T) \
void name(T *out, const int64_t *restrict index, const T *restrict rows, intptr_t n, intptr_t width) { \
    for (intptr_t i = 0; i < n; i++) { \
        T *o = out + index[i] * width; \
        const T *r = rows + i * width; \
        for (intptr_t j = 0; j < width; j++) o[j] = o[j] + r[j]; \
    } \
}
PJ_ROWS_ADD(pyjax_rows_add_f32, float)
PJ_ROWS_ADD(pyjax_rows_add_f64, double)
PJ_ROWS_ADD(pyjax_rows_add_u32, uint32_t)
PJ_ROWS_ADD(pyjax_rows_add_u64, uint64_t)
"""

# Fewer elements than this: np.add.at costs less than the kernel's call.
MIN_ELEMENTS = 1024
# Updates of a call re-checked on calls 2, 4, 8, ...
_RECHECK_ROWS = 64


class NativeRowsAdd(Tiering):
    """`kernel(out, index, rows)`: for each i in order, out[index[i]] +=
    rows[i] (out a C-contiguous (n, width) array, index int64 in range,
    rows (len(index), width) of out's dtype); True when done, False when
    `np.add.at` must do it."""

    verified_by_build = True
    thread_name = "pyjax-native-scatter"

    def __init__(self):
        super().__init__("scatter-add")
        self.lib = None
        self._rechecks = Rechecks(calls=0)

    def __call__(self, out: np.ndarray, index: np.ndarray, rows: np.ndarray) -> bool:
        kind = _KINDS.get(out.dtype)
        if kind is None or rows.size < MIN_ELEMENTS or out.ndim != 2 or rows.ndim != 2 \
                or rows.dtype != out.dtype or not out.flags.c_contiguous or not out.flags.writeable:
            return False
        lib = self.lib
        if lib is None:
            if self.state == COLD:
                self.start(wait=settings.AFTER_STEPS == 0)
                lib = self.lib
            if lib is None:
                return False
        index = np.ascontiguousarray(index, np.int64)
        rows = np.ascontiguousarray(rows)
        if self._rechecks.due() and not _agrees(lib, out[index[:_RECHECK_ROWS]], index[:_RECHECK_ROWS],
                                                rows[:_RECHECK_ROWS]):
            self.drop("its sums differed from np.add.at's on a re-check")
            return False
        _call(lib, out, index, rows)
        return True

    def prepare(self) -> str | None:
        return None if available() else "native code is off or there is no C compiler"

    def build(self) -> None:
        lib = _build(_SOURCE, opt="-O3")
        for name, _, _ in _KINDS.values():
            fn = getattr(lib, name)
            fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_ssize_t] * 2
            fn.restype = None
        if not _same_sums(lib):
            raise RuntimeError("its sums differ from np.add.at's")
        self.lib = lib

    def dropped(self) -> None:
        self.lib = None


def _call(lib, out: np.ndarray, index: np.ndarray, rows: np.ndarray) -> None:
    name, _, parts = _KINDS[out.dtype]
    getattr(lib, name)(out.ctypes.data, index.ctypes.data, rows.ctypes.data, len(index), out.shape[1] * parts)


def _agrees(lib, base: np.ndarray, index: np.ndarray, rows: np.ndarray) -> bool:
    # The kernel against np.add.at on a compact copy: the rows `index` names
    # (`base`, one per update, in order), renumbered by first appearance.
    _, first, inverse = np.unique(index, return_index=True, return_inverse=True)
    start = np.ascontiguousarray(base[first])
    want, got = start.copy(), start.copy()
    np.add.at(want, inverse.reshape(-1), rows)
    _call(lib, got, np.ascontiguousarray(inverse.reshape(-1), np.int64), rows)
    return want.tobytes() == got.tobytes()


def _same_sums(lib) -> bool:
    # Every dtype against np.add.at, with repeated rows, signed zeros, NaNs,
    # infinities, wrapping integers and subnormals (flushed or not, both
    # read the same FPU mode).
    rng = np.random.default_rng(0)
    index = rng.integers(0, 7, 300).astype(np.int64)
    with np.errstate(all="ignore"):
        return all(_same_sums_of(lib, dtype, rng, index) for dtype in _KINDS)


def _same_sums_of(lib, dtype: np.dtype, rng, index: np.ndarray) -> bool:
    if dtype.kind in "fc":
        parts = rng.standard_normal((len(index), 10)).astype(np.finfo(dtype).dtype)
        parts.reshape(-1)[:8] = [0.0, -0.0, np.nan, -np.inf, np.inf, 1e-310, -1e-40, 3e38]
        rows = parts.view(dtype)
    else:
        info = np.iinfo(dtype)
        rows = rng.integers(info.min, info.max, (len(index), 5), dtype=dtype, endpoint=True)
    return _agrees(lib, rows[::-1].copy(), index, rows)


rows_add = NativeRowsAdd()
