"""Max pooling over non-overlapping windows, and its gradient, in C.

impls/windowed.py reduces a window tap by tap with NumPy's strided loops;
on NHWC activations of 8 or 16 features those run a few elements at a time
(docs/performance.md: the small CNN's 2x2 pooling and its gradient took
more than a convolution each). For float32 4-d operands whose window spans
only the two middle axes, with strides equal to the window, no padding and
no dilation, these loops make the same elements: the maximum as
`reduce_window_max` computes it (a NaN met first wins, +0 over -0) and the
scatter of `select_and_scatter_add` with `ge` (the first tap the select
keeps; 0 + source there, +0 elsewhere). The build compares both with the
NumPy impls on random data with NaNs, infinities and signed zeros; a live
kernel is re-checked against them on calls 2, 4, 8, ... Built in the
background at the first such pooling (synchronously when
PYJAX_NATIVE_LOOPS_AFTER=0).
"""

from __future__ import annotations

import ctypes

import numpy as np

from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.build import _build, available
from pyjax._src.backends.numpy.native.tiering import COLD, Rechecks, Tiering

__all__ = ["NativePooling", "pooling", "takes"]

_SOURCE = r"""#include <stdint.h>
#include <string.h>
/* p: N, H, W, C, window rows a, window columns b; outputs (N, H / a, W / b, C).
   Branch-free selects over the features (the loops NumPy ran a few elements
   at a time): XLA's max keeps a NaN met first, then one met later, then the
   larger value, +0 over -0; the select `ge` moves on where !(best >= v). */
static inline float xla_max(float m, float v) {
    int32_t mb, vb;
    memcpy(&mb, &m, 4);
    memcpy(&vb, &v, 4);
    int take = (m == m) & ((v != v) | (v > m) | ((v == m) & (mb < 0) & (vb >= 0)));
    return take ? v : m;
}
/* The same over 8 features at once (GCC's vector types; a cast between
   them keeps the bits): every comparison and select as xla_max's. */
typedef float f8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));
static inline f8 load8(const float *p) { f8 v; memcpy(&v, p, sizeof v); return v; }
static inline void store8(float *p, f8 v) { memcpy(p, &v, sizeof v); }
static inline f8 blend8(i8 take, f8 v, f8 m) { return (f8)(((i8)v & take) | ((i8)m & ~take)); }
static inline f8 xla_max8(f8 m, f8 v) {
    i8 take = (m == m) & ((v != v) | (v > m) | ((v == m) & ((i8)m < 0) & ((i8)v >= 0)));
    return blend8(take, v, m);
}
void pyjax_max_pool(const float *restrict x, float *restrict out, const int64_t *p) {
    int64_t N = p[0], H = p[1], W = p[2], C = p[3], a = p[4], b = p[5], OH = H / a, OW = W / b;
    int64_t vec = C - C % 8;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++, out += C) {
                const float *w0 = x + ((n * H + oh * a) * W + ow * b) * C;
                for (int64_t c = 0; c < vec; c += 8) {
                    f8 m = load8(w0 + c);
                    for (int64_t i = 0; i < a; i++)
                        for (int64_t j = (i == 0); j < b; j++) m = xla_max8(m, load8(w0 + (i * W + j) * C + c));
                    store8(out + c, m);
                }
                for (int64_t c = vec; c < C; c++) out[c] = w0[c];
                for (int64_t i = 0; i < a; i++)
                    for (int64_t j = (i == 0); j < b; j++) {
                        const float *t = w0 + (i * W + j) * C;
                        for (int64_t c = vec; c < C; c++) out[c] = xla_max(out[c], t[c]);
                    }
            }
}
/* Window sums (reduce_window_sum): out (N, OH, OW, C) with windows a x b
   every sh rows and sw columns (they may overlap), each element the first
   tap plus the others in row-major order, as the NumPy impl adds them. */
void pyjax_window_sum(const float *restrict x, float *restrict out, const int64_t *p) {
    int64_t N = p[0], H = p[1], W = p[2], C = p[3], a = p[4], b = p[5], sh = p[6], sw = p[7];
    int64_t OH = (H - a) / sh + 1, OW = (W - b) / sw + 1, taps = a * b;
    int64_t off[taps];  /* (each tap's offset from the window's first element, row-major) */
    for (int64_t t = 0; t < taps; t++) off[t] = ((t / b) * W + t % b) * C;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++, out += C) {
                const float *w0 = x + ((n * H + oh * sh) * W + ow * sw) * C;
                int64_t c = 0;
                for (; c + 8 <= C; c += 8) {  /* (8 features at a time, the sum in a register) */
                    f8 acc, t;
                    __builtin_memcpy(&acc, w0 + c, sizeof acc);
                    for (int64_t k = 1; k < taps; k++) {
                        __builtin_memcpy(&t, w0 + off[k] + c, sizeof t);
                        acc += t;
                    }
                    __builtin_memcpy(out + c, &acc, sizeof acc);
                }
                for (; c < C; c++) {
                    float acc = w0[c];
                    for (int64_t k = 1; k < taps; k++) acc += w0[off[k] + c];
                    out[c] = acc;
                }
            }
}
/* grad (N, H, W, C): 0 + s at the tap the select keeps, +0 everywhere else. */
void pyjax_max_pool_grad(const float *restrict x, const float *restrict s, float *restrict grad, const int64_t *p) {
    int64_t N = p[0], H = p[1], W = p[2], C = p[3], a = p[4], b = p[5], OH = H / a, OW = W / b;
    memset(grad, 0, (size_t)(N * H * W * C) * sizeof(float));
    int64_t vec = C - C % 8;
    float best[64];
    int32_t at[64];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++, s += C) {
                int64_t first = ((n * H + oh * a) * W + ow * b) * C;
                for (int64_t c = 0; c < vec; c += 8) {  /* (8 features at once, as the loops below) */
                    const float *w0 = x + first + c;
                    f8 m = load8(w0);
                    i8 k8 = {0};
                    for (int64_t i = 0; i < a; i++)
                        for (int64_t j = (i == 0); j < b; j++) {
                            f8 v = load8(w0 + (i * W + j) * C);
                            i8 move = ~(m >= v);
                            m = blend8(move, v, m);
                            k8 = (move & (int32_t)(i * b + j)) | (k8 & ~move);
                        }
                    f8 z = (f8){0} + load8(s + c);
                    for (int64_t i = 0; i < a; i++)
                        for (int64_t j = 0; j < b; j++)
                            store8(grad + first + c + (i * W + j) * C, (f8)((i8)z & (k8 == (int32_t)(i * b + j))));
                }
                for (int64_t c0 = vec; c0 < C; c0 += 64) {
                    int64_t cn = C - c0 < 64 ? C - c0 : 64;
                    const float *w0 = x + first + c0;
                    for (int64_t c = 0; c < cn; c++) { best[c] = w0[c]; at[c] = 0; }
                    for (int64_t i = 0; i < a; i++)
                        for (int64_t j = (i == 0); j < b; j++) {
                            const float *t = w0 + (i * W + j) * C;
                            int32_t k = (int32_t)(i * b + j);
                            for (int64_t c = 0; c < cn; c++) {
                                int move = !(best[c] >= t[c]);
                                best[c] = move ? t[c] : best[c];
                                at[c] = move ? k : at[c];
                            }
                        }
                    for (int64_t i = 0; i < a; i++)
                        for (int64_t j = 0; j < b; j++) {
                            float *gt = grad + first + c0 + (i * W + j) * C;
                            int32_t k = (int32_t)(i * b + j);
                            for (int64_t c = 0; c < cn; c++) gt[c] = at[c] == k ? 0.0f + s[c0 + c] : 0.0f;
                        }
                }
            }
}
"""


def takes_sum(x: np.ndarray, window_dimensions, window_strides, padding, *dilations) -> bool:
    """Whether `window_sum` computes this reduce_window_sum: float32 4-d
    C-contiguous, a window over axes 1 and 2 only (any strides there), no
    padding, no dilation."""
    return (x.dtype == np.float32 and x.ndim == 4 and x.size > 0 and x.flags.c_contiguous
            and window_dimensions[0] == window_dimensions[3] == 1 and window_strides[0] == window_strides[3] == 1
            and all(lo == 0 and hi == 0 for lo, hi in padding) and all(d == 1 for ds in dilations for d in ds)
            and x.shape[1] >= window_dimensions[1] and x.shape[2] >= window_dimensions[2])


def takes(x: np.ndarray, window_dimensions, window_strides, padding, *dilations) -> bool:
    """Whether the kernels compute this max pooling: float32 NHWC-like 4-d,
    a window over axes 1 and 2 only, strides equal to it, no padding, no
    dilation."""
    return (x.dtype == np.float32 and x.ndim == 4 and x.size > 0
            and tuple(window_dimensions) == tuple(window_strides) and window_dimensions[0] == window_dimensions[3] == 1
            and all(lo == 0 and hi == 0 for lo, hi in padding) and all(d == 1 for ds in dilations for d in ds)
            and x.shape[1] >= window_dimensions[1] and x.shape[2] >= window_dimensions[2])


class NativePooling(Tiering):
    """`max_pool(x, window)` and `max_pool_grad(x, source, window)` for the
    poolings `takes` accepts (window: the (a, b) of axes 1 and 2); None
    when not built. `reference`: the NumPy impls (set by impls/windowed.py)
    for the build's check and the re-checks."""

    verified_by_build = True
    thread_name = "pyjax-native-pooling"
    # (max pool, its gradient, window sums): (x[, s], window[, strides]) -> array
    reference: list = [None, None, None]

    def __init__(self):
        super().__init__("max pooling")
        self.fns = None
        self._rechecks = Rechecks(calls=0)

    @staticmethod
    def takes(*args) -> bool:
        return takes(*args)

    @staticmethod
    def takes_sum(*args) -> bool:
        return takes_sum(*args)

    def ready(self) -> bool:
        if self.fns is None and self.state == COLD:
            self.start(wait=settings.AFTER_STEPS == 0)
        return self.fns is not None

    def max_pool(self, x: np.ndarray, window: tuple) -> np.ndarray | None:
        fns = self.fns
        if fns is None:
            return None
        x = np.ascontiguousarray(x)
        out = _max_pool(fns[0], x, window)
        if self._rechecks.due() and not _same(self.reference[0](x, window), out):
            self.drop("its max pooling differed from NumPy's on a re-check")
            return None
        return out

    def window_sum(self, x: np.ndarray, window: tuple, strides: tuple) -> np.ndarray | None:
        fns = self.fns
        if fns is None:
            return None
        out = _window_sum(fns[2], x, window, strides)
        if self._rechecks.due() and not _same(self.reference[2](x, window, strides), out):
            self.drop("its window sums differed from NumPy's on a re-check")
            return None
        return out

    def max_pool_grad(self, x: np.ndarray, s: np.ndarray, window: tuple) -> np.ndarray | None:
        fns = self.fns
        if fns is None:
            return None
        x, s = np.ascontiguousarray(x), np.ascontiguousarray(s, dtype=np.float32)
        out = _max_pool_grad(fns[1], x, s, window)
        if self._rechecks.due() and not _same(self.reference[1](x, s, window), out):
            self.drop("its max pooling gradient differed from NumPy's on a re-check")
            return None
        return out

    def prepare(self) -> str | None:
        if None in self.reference:
            return "no NumPy reference to check against"
        return None if available() else "native code is off or there is no C compiler"

    def build(self) -> None:
        lib = _build(_SOURCE)  # (-O2 with the dynamic vector cost model: the feature loops vectorised)
        fns = (lib.pyjax_max_pool, lib.pyjax_max_pool_grad, lib.pyjax_window_sum)
        fns[0].argtypes = fns[2].argtypes = [ctypes.c_void_p] * 3
        fns[1].argtypes = [ctypes.c_void_p] * 4
        fns[0].restype = fns[1].restype = fns[2].restype = None
        why = _differs(fns, self.reference)
        if why:
            raise RuntimeError(why)
        self.fns = fns

    def dropped(self) -> None:
        self.fns = None


def _sizes(x: np.ndarray, window: tuple) -> np.ndarray:
    return np.array([*x.shape, *window], np.int64)


def _max_pool(fn, x: np.ndarray, window: tuple) -> np.ndarray:
    n, h, w, c = x.shape
    out = np.empty((n, h // window[0], w // window[1], c), np.float32)
    sizes = _sizes(x, window)  # (held while the kernel reads it: a temporary's memory is reused at once)
    fn(x.ctypes.data, out.ctypes.data, sizes.ctypes.data)
    return out


def _window_sum(fn, x: np.ndarray, window: tuple, strides: tuple) -> np.ndarray:
    n, h, w, c = x.shape
    out = np.empty((n, (h - window[0]) // strides[0] + 1, (w - window[1]) // strides[1] + 1, c), np.float32)
    sizes = np.array([*x.shape, *window, *strides], np.int64)
    fn(x.ctypes.data, out.ctypes.data, sizes.ctypes.data)
    return out


def _max_pool_grad(fn, x: np.ndarray, s: np.ndarray, window: tuple) -> np.ndarray:
    out = np.empty(x.shape, np.float32)
    sizes = _sizes(x, window)
    fn(x.ctypes.data, s.ctypes.data, out.ctypes.data, sizes.ctypes.data)
    return out


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    # Bitwise, where any NaN matches any NaN (a payload is NumPy's choice).
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    differ = a.view(np.uint32) != b.view(np.uint32)
    return not np.any(differ & ~(np.isnan(a) & np.isnan(b)))


def _differs(fns, reference) -> str | None:
    rng = np.random.default_rng(2)
    for shape, window in [((2, 8, 8, 3), (2, 2)), ((3, 9, 7, 8), (2, 3)), ((1, 6, 6, 16), (3, 1)), ((2, 5, 4, 1), (1, 1))]:
        x = rng.standard_normal(shape).astype(np.float32)
        # ties, signed zeros, infinities and NaNs in some windows
        flat = x.reshape(-1)
        picks = rng.integers(0, flat.size, (6, max(1, flat.size // 10)))
        flat[picks[0]], flat[picks[1]], flat[picks[2]] = 0.0, -0.0, np.nan
        flat[picks[3]], flat[picks[4]], flat[picks[5]] = np.inf, -np.inf, flat[picks[5] // 2]
        oh, ow = shape[1] // window[0], shape[2] // window[1]
        s = rng.standard_normal((shape[0], oh, ow, shape[3])).astype(np.float32)
        s.reshape(-1)[::7] = -0.0
        with np.errstate(all="ignore"):
            if not _same(reference[0](x, window), _max_pool(fns[0], x, window)):
                return f"its max pooling of {shape} by {window} differs from NumPy's"
            if not _same(reference[1](x, s, window), _max_pool_grad(fns[1], x, s, window)):
                return f"its max pooling gradient of {shape} by {window} differs from NumPy's"
            for strides in (window, (1, 1), (2, 1)):
                if not _same(reference[2](x, window, strides), _window_sum(fns[2], x, window, strides)):
                    return f"its window sums of {shape} by {window} every {strides} differ from NumPy's"
    return None


pooling = NativePooling()
