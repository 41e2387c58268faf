"""A convolution's patch matrix (im2col) in C: the copy impls/convolution.py makes.

The NumPy way pads the NHWC input into a new array (zeros around it), views
every window of it and copies the view into the patch matrix: rows (n, oh,
ow), columns (kh, kw, c). The copy runs in NumPy's strided loop, a run of
KW * C elements at a time, and the padded array is one more pass. This
kernel reads the unpadded input and writes each row's runs with `memcpy`
(zeros where a window hangs over the border), rows [r0, r1) at a time so
that a block of the matrix stays in the cache for its matmul. It only
moves bytes, so its matrix is the NumPy one by construction; the build
still compares the two on test geometries (padding, strides, dilation,
one and several channels) before any use, and a live kernel is re-checked
against NumPy on calls 2, 4, 8, ... It is built in the background at the
first large convolution (synchronously when PYJAX_NATIVE_LOOPS_AFTER=0);
NumPy's copy serves until then, or for good without a C compiler or with
PYJAX_NATIVE_LOOPS=0.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numpy.lib.stride_tricks import as_strided

from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.build import _build, available
from pyjax._src.backends.numpy.native.tiering import COLD, Rechecks, Tiering

__all__ = ["NativeIm2col", "im2col", "numpy_im2col"]

_SOURCE = r"""#include <stdint.h>
#include <string.h>
void pyjax_im2col(const char *restrict x, char *restrict out, int64_t r0, int64_t r1, const int64_t *g) {
    int64_t H = g[0], W = g[1], cb = g[2], KH = g[3], KW = g[4], OH = g[5], OW = g[6];
    int64_t sh = g[7], sw = g[8], dh = g[9], dw = g[10], ph = g[11], pw = g[12];
    int64_t run = KW * cb;
    for (int64_t r = r0; r < r1; r++) {
        int64_t ow = r % OW, t = r / OW, oh = t % OH, n = t / OH;
        char *o = out + (r - r0) * KH * run;
        const char *xn = x + n * H * W * cb;
        int64_t iw0 = ow * sw - pw;
        int whole = dw == 1 && iw0 >= 0 && iw0 + KW <= W;
        for (int64_t kh = 0; kh < KH; kh++, o += run) {
            int64_t ih = oh * sh - ph + kh * dh;
            if (ih < 0 || ih >= H) { memset(o, 0, run); continue; }
            const char *xr = xn + ih * W * cb;
            if (whole) { memcpy(o, xr + iw0 * cb, run); continue; }
            for (int64_t kw = 0; kw < KW; kw++) {
                int64_t iw = iw0 + kw * dw;
                if (iw < 0 || iw >= W) memset(o + kw * cb, 0, cb); else memcpy(o + kw * cb, xr + iw * cb, cb);
            }
        }
    }
}
"""

# Smaller patch matrices (bytes): NumPy's copy costs less than the call.
MIN_BYTES = 1 << 16


def numpy_im2col(x: np.ndarray, kernel: tuple, out_space: tuple, strides: tuple, dilation: tuple,
                 padding: tuple) -> np.ndarray:
    """The patch matrix the NumPy way: (N * OH * OW, KH * KW * C)."""
    n, h, w, c = x.shape
    (ph, _), (pw, _) = padding
    kh, kw = kernel
    oh, ow = out_space
    # Padded enough for every window the output reads (the high side may be cropped).
    high_h = max(0, (oh - 1) * strides[0] + (kh - 1) * dilation[0] + 1 - ph - h)
    high_w = max(0, (ow - 1) * strides[1] + (kw - 1) * dilation[1] + 1 - pw - w)
    padded = np.zeros((n, h + ph + high_h, w + pw + high_w, c), x.dtype)
    padded[:, ph:ph + h, pw:pw + w] = x
    s = padded.strides
    view = as_strided(padded, (n, oh, ow, kh, kw, c),
                      (s[0], s[1] * strides[0], s[2] * strides[1], s[1] * dilation[0], s[2] * dilation[1], s[3]))
    return view.reshape(n * oh * ow, kh * kw * c)


class NativeIm2col(Tiering):
    """`kernel(x, out, r0, r1, geometry)`: rows [r0, r1) of the patch
    matrix of the C-contiguous NHWC `x` into `out` (C-contiguous, at least
    r1 - r0 rows of KH * KW * C elements of x's dtype); True when done,
    False when the NumPy copy must make them. `geometry`: (kernel, out_space,
    strides, dilation, padding), each per spatial axis (padding (low, high))."""

    verified_by_build = True
    thread_name = "pyjax-native-im2col"

    def __init__(self):
        super().__init__("im2col")
        self.fn = None
        self._rechecks = Rechecks(calls=0)

    def ready(self, nbytes: int) -> bool:
        """Whether the kernel serves a patch matrix of `nbytes` now (starting its build at the first one)."""
        if nbytes < MIN_BYTES:
            return False
        if self.fn is None and self.state == COLD:
            self.start(wait=settings.AFTER_STEPS == 0)
        return self.fn is not None

    def __call__(self, x: np.ndarray, out: np.ndarray, r0: int, r1: int, geometry: tuple) -> bool:
        fn = self.fn
        if fn is None:
            return False
        g = _geometry(x, geometry)
        _call(fn, x, out, r0, r1, g)
        if self._rechecks.due():
            rows = min(r1 - r0, 64)
            want = numpy_im2col(x, *geometry)[r0:r0 + rows]
            if want.tobytes() != out[:rows].tobytes():
                self.drop("its patches differed from NumPy's on a re-check")
                return False
        return True

    def prepare(self) -> str | None:
        return None if available() else "native code is off or there is no C compiler"

    def build(self) -> None:
        fn = _build(_SOURCE, opt="-O2").pyjax_im2col
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
        fn.restype = None
        if not _same_patches(fn):
            raise RuntimeError("its patches differ from NumPy's")
        self.fn = fn

    def dropped(self) -> None:
        self.fn = None


def _geometry(x: np.ndarray, geometry: tuple) -> np.ndarray:
    kernel, out_space, strides, dilation, padding = geometry
    _, h, w, c = x.shape
    return np.array([h, w, c * x.itemsize, *kernel, *out_space, *strides, *dilation, padding[0][0], padding[1][0]],
                    np.int64)


def _call(fn, x: np.ndarray, out: np.ndarray, r0: int, r1: int, g: np.ndarray) -> None:
    fn(x.ctypes.data, out.ctypes.data, r0, r1, g.ctypes.data)


_TEST_GEOMETRIES = [  # (input shape, kernel, strides, dilation, padding)
    ((2, 7, 6, 3), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1))),
    ((1, 9, 8, 1), (3, 2), (2, 1), (1, 2), ((2, 0), (0, 3))),
    ((3, 5, 5, 4), (2, 2), (2, 2), (1, 1), ((0, 0), (0, 0))),
    ((1, 6, 7, 2), (4, 3), (1, 3), (2, 1), ((3, 2), (1, 1))),
]


def _same_patches(fn) -> bool:
    rng = np.random.default_rng(0)
    for shape, kernel, strides, dilation, padding in _TEST_GEOMETRIES:
        x = rng.standard_normal(shape).astype(np.float32)
        out_space = tuple((d + lo + hi - (k - 1) * r - 1) // s + 1 for d, k, r, s, (lo, hi)
                          in zip(shape[1:3], kernel, dilation, strides, padding))
        geometry = (kernel, out_space, strides, dilation, padding)
        want = numpy_im2col(x, *geometry)
        got = np.full_like(want, np.nan)
        _call(fn, x, got, 0, want.shape[0], _geometry(x, geometry))
        part = np.full_like(want[2:5], np.nan)
        _call(fn, x, part, 2, 5, _geometry(x, geometry))
        if want.tobytes() != got.tobytes() or want[2:5].tobytes() != part.tobytes():
            return False
    return True


im2col = NativeIm2col()
