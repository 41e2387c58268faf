"""A float32 convolution computed in C straight from the NHWC input: no
patch matrix, the same bits as impls/convolution.py's patches @ weights.

OpenBLAS's sgemm sums each element of a product whose contraction fits
in one of its K blocks as one chain of fused multiply-adds from +0, in
the order of the contraction (its small-matrix kernels do the same for
the shapes `eligible` lets through; a product past its K block is summed
in blocks, and a matrix-vector product another way). This kernel makes
that chain for every output element, (kh, kw, c) in the patch matrix's
column order, reading the input in place (zeros over the borders), with
AVX-512 registers holding 12 x 32 or 16 x 16 outputs (docs/performance.md:
the patch copy and sgemm's narrow-product rate were most of a ResNet
block's step). So it gives the patch path's bits by construction; the
build checks that against NumPy on random geometries and products (a BLAS
that sums otherwise leaves the tier dead), and a live kernel is re-checked
against the patch path on calls 2, 4, 8, ... Built in the background at
the first eligible convolution (synchronously when
PYJAX_NATIVE_LOOPS_AFTER=0); without AVX-512 or a C compiler, or with
PYJAX_NATIVE_LOOPS=0, the patch path serves.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from pyjax._src.backends.numpy.native import settings, threads
from pyjax._src.backends.numpy.native.build import _build, available
from pyjax._src.backends.numpy.native.im2col import numpy_im2col
from pyjax._src.backends.numpy.native.tiering import COLD, Rechecks, Tiering

__all__ = ["NativeDirectConv", "direct_conv", "eligible"]

# The longest contraction (KH * KW * C) the kernel takes: within OpenBLAS's
# single K block, where sgemm's sum is one chain (the build checks it).
MAX_K = 384
# A call of at least this many multiply-adds shares its output rows among
# the cores (threads.py): about 0.1 ms of one core's work, several hand-offs.
SHARE_MACS = 1 << 22
# Products of at most this many multiply-adds go to OpenBLAS's small-matrix
# kernels, which sum as one chain only for some shapes (`eligible`).
SMALL_MACS = 1_000_000

_SOURCE = r"""#include <stdint.h>
#include <string.h>
#if defined(__AVX512F__)
#include <immintrin.h>
int pyjax_conv_width(void) { return 16; }
static const float zeros[384];

/* One column of the patches (values `a(i)` of the MR rows) times a row of w. */
#define STEP(MR, NV, a_i) {                                                                       \
    __m512 b[NV];                                                                                 \
    _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) b[v] = _mm512_maskz_loadu_ps(mk[v], wk + 16 * v); \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) {                                        \
        __m512 a = _mm512_set1_ps(a_i);                                                           \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]); \
    }                                                                                             \
}
/* Output rows r .. r + m (m <= MR), columns ob .. ob + 16 * NV (masked past
   O): each element a fused multiply-add chain from +0 over the patch's
   columns (kh, kw, c) in order; taps over the border read zeros. */
#define TILE(MR, NV)                                                                              \
static void tile_##MR##_##NV(const float *restrict x, const float *restrict w, float *restrict out,   \
                             int64_t *pos, int64_t m, int64_t ob, const int64_t *g) {             \
    int64_t H = g[0], W = g[1], C = g[2], KH = g[3], KW = g[4], OH = g[5], OW = g[6];             \
    int64_t sh = g[7], sw = g[8], dh = g[9], dw = g[10], ph = g[11], pw = g[12], O = g[13];       \
    int64_t ih0[MR], iw0[MR]; const float *base[MR];                                              \
    int64_t n = pos[0], oh = pos[1], ow = pos[2];  /* (the tile's first row; advanced past it) */ \
    int inside = 1;                                                                               \
    for (int i = 0; i < MR; i++) {                                                                \
        if (i < m) {                                                                              \
            ih0[i] = oh * sh - ph; iw0[i] = ow * sw - pw;                                         \
            base[i] = x + ((n * H + ih0[i]) * W + iw0[i]) * C;                                    \
            inside &= ih0[i] >= 0 && ih0[i] + (KH - 1) * dh < H && iw0[i] >= 0                    \
                      && iw0[i] + (KW - 1) * dw < W;                                              \
            if (++ow == OW) { ow = 0; if (++oh == OH) { oh = 0; n++; } }                          \
        } else { ih0[i] = ih0[0]; iw0[i] = iw0[0]; base[i] = base[0]; }  /* (not stored) */        \
    }                                                                                             \
    pos[0] = n; pos[1] = oh; pos[2] = ow;                                                         \
    __mmask16 mk[NV];                                                                             \
    for (int v = 0; v < NV; v++) {                                                                \
        int64_t left = O - ob - 16 * v;                                                           \
        mk[v] = left >= 16 ? (__mmask16)0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);   \
    }                                                                                             \
    __m512 acc[MR][NV];                                                                           \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                          \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();     \
    const float *wk = w + ob;                                                                     \
    for (int64_t kh = 0; kh < KH; kh++) {                                                         \
        for (int64_t kw = 0; kw < KW; kw++) {                                                     \
            int64_t off = (kh * dh * W + kw * dw) * C;                                            \
            if (inside) {  /* (every row's pointer plus one offset: no array of pointers) */      \
                for (int64_t c = off; c < off + C; c++, wk += O)                                  \
                    STEP(MR, NV, base[i][c])                                                      \
            } else {                                                                              \
                const float *p[MR];                                                               \
                _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) {                            \
                    int64_t ih = ih0[i] + kh * dh, iw = iw0[i] + kw * dw;                         \
                    p[i] = (ih >= 0 && ih < H && iw >= 0 && iw < W) ? base[i] + off : zeros;      \
                }                                                                                 \
                for (int64_t c = 0; c < C; c++, wk += O)                                          \
                    STEP(MR, NV, p[i][c])                                                         \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) {                                        \
        if (i >= m) break;                                                                        \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) {                                    \
            /* (past the small-matrix kernels sgemm adds the sum to a zeroed C: -0 becomes +0) */ \
            __m512 sum = g[14] ? _mm512_add_ps(_mm512_setzero_ps(), acc[i][v]) : acc[i][v];        \
            _mm512_mask_storeu_ps(out + i * O + ob + 16 * v, mk[v], sum);                         \
        }                                                                                         \
    }                                                                                             \
}
TILE(12, 2)
TILE(16, 1)

/* Rows [r0, r1) of the (N * OH * OW, O) output into out (its first row r0). */
void pyjax_direct_conv(const float *restrict x, const float *restrict w, float *restrict out,
                       int64_t r0, int64_t r1, const int64_t *g) {
    int64_t O = g[13], OH = g[5], OW = g[6];
    for (int64_t ob = 0; ob < O; ob += 32) {
        int64_t pos[3] = {r0 / OW / OH, r0 / OW % OH, r0 % OW};
        if (O - ob > 16) {
            for (int64_t r = r0; r < r1; r += 12)
                tile_12_2(x, w, out + (r - r0) * O, pos, r1 - r < 12 ? r1 - r : 12, ob, g);
        } else {
            for (int64_t r = r0; r < r1; r += 16)
                tile_16_1(x, w, out + (r - r0) * O, pos, r1 - r < 16 ? r1 - r : 16, ob, g);
        }
    }
}

/* The kernel's gradient, rows k0 .. k0 + m (m <= MK) of out (KH * KW * C, O),
   columns ob .. ob + 16 * NV: out[k, o] sums, over the output positions r,
   x[position r's window, tap and feature of k] * cot[r, o], x padded (every
   window inside). The sum over r runs in the blocks [b[j], b[j + 1]) (sgemm's
   K blocks), each a chain from +0, added in order to +0 when g[14] (sgemm
   past its small-matrix kernels adds to a zeroed C); else one chain. */
#define GRAD_TILE(MK, NV)                                                                         \
static void grad_##MK##_##NV(const float *restrict x, const float *restrict cot, float *restrict out, \
                             int64_t k0, int64_t m, int64_t ob, const int64_t *g, const int64_t *b,  \
                             int64_t blocks) {                                                    \
    int64_t H = g[0], W = g[1], C = g[2], KW = g[4], OH = g[5], OW = g[6];                        \
    int64_t sh = g[7], sw = g[8], dh = g[9], dw = g[10], O = g[13];                               \
    int64_t off[MK];                                                                              \
    for (int j = 0; j < MK; j++) {                                                                \
        int64_t k = k0 + (j < m ? j : 0), tap = k / C;                                            \
        off[j] = ((tap / KW) * dh * W + (tap % KW) * dw) * C + k % C;                             \
    }                                                                                             \
    __mmask16 mk[NV];                                                                             \
    for (int v = 0; v < NV; v++) {                                                                \
        int64_t left = O - ob - 16 * v;                                                           \
        mk[v] = left >= 16 ? (__mmask16)0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);   \
    }                                                                                             \
    __m512 total[MK][NV];                                                                         \
    for (int64_t blk = 0; blk < blocks; blk++) {                                                  \
        __m512 acc[MK][NV];                                                                       \
        _Pragma("GCC unroll 32") for (int j = 0; j < MK; j++)                                      \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[j][v] = _mm512_setzero_ps(); \
        int64_t r = b[blk], ow = r % OW, oh = r / OW % OH, n = r / OW / OH;                       \
        const float *row = x + ((n * H + oh * sh) * W + ow * sw) * C;                             \
        for (; r < b[blk + 1]; r++) {                                                             \
            __m512 c[NV];                                                                         \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                  \
                c[v] = _mm512_maskz_loadu_ps(mk[v], cot + r * O + ob + 16 * v);                   \
            _Pragma("GCC unroll 32") for (int j = 0; j < MK; j++) {                                \
                __m512 a = _mm512_set1_ps(row[off[j]]);                                           \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                              \
                    acc[j][v] = _mm512_fmadd_ps(a, c[v], acc[j][v]);                              \
            }                                                                                     \
            row += sw * C;                                                                        \
            if (++ow == OW) {                                                                     \
                ow = 0;                                                                           \
                if (++oh == OH) { oh = 0; n++; }                                                  \
                row = x + ((n * H + oh * sh) * W) * C;                                            \
            }                                                                                     \
        }                                                                                         \
        _Pragma("GCC unroll 32") for (int j = 0; j < MK; j++)                                      \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                  \
                total[j][v] = !g[14] ? acc[j][v]                                                  \
                    : _mm512_add_ps(blk ? total[j][v] : _mm512_setzero_ps(), acc[j][v]);          \
    }                                                                                             \
    for (int j = 0; j < m; j++)                                                                   \
        for (int v = 0; v < NV; v++) _mm512_mask_storeu_ps(out + (k0 + j) * O + ob + 16 * v, mk[v], total[j][v]); \
}
GRAD_TILE(12, 2)
GRAD_TILE(16, 1)

/* The kernel's gradient, (KH * KW * C, O), from the padded x and the
   cotangent (N * OH * OW, O); `b`: the bounds of the sum's blocks. */
void pyjax_direct_grad(const float *restrict x, const float *restrict cot, float *restrict out,
                       const int64_t *g, const int64_t *b, int64_t blocks) {
    int64_t O = g[13], K = g[3] * g[4] * g[2];
    for (int64_t ob = 0; ob < O; ob += 32) {
        if (O - ob > 16) {
            for (int64_t k = 0; k < K; k += 12) grad_12_2(x, cot, out, k, K - k < 12 ? K - k : 12, ob, g, b, blocks);
        } else {
            for (int64_t k = 0; k < K; k += 16) grad_16_1(x, cot, out, k, K - k < 16 ? K - k : 16, ob, g, b, blocks);
        }
    }
}

/* The same two, their rows shared among the cores by threads.py's runtime
   `run` (chunks of `chunk` output rows, or of `chunk` rows of the kernel's
   gradient): every element is computed as above, whichever thread takes it. */
typedef void (*pyjax_parallel_for_t)(void (*)(void *, int64_t, int64_t, int), void *, int64_t, int64_t);
struct shared { const float *x, *w; float *out; int64_t r0; const int64_t *g, *b; int64_t blocks; };

static void conv_chunk(void *c, int64_t lo, int64_t hi, int slot) {
    struct shared *j = c;
    (void)slot;
    pyjax_direct_conv(j->x, j->w, j->out + lo * j->g[13], j->r0 + lo, j->r0 + hi, j->g);
}

void pyjax_direct_conv_shared(void *run, const float *x, const float *w, float *out, int64_t r0, int64_t r1,
                              const int64_t *g, int64_t chunk) {
    struct shared j = {x, w, out, r0, g, 0, 0};
    ((pyjax_parallel_for_t)run)(conv_chunk, &j, r1 - r0, chunk);
}

static void grad_chunk(void *c, int64_t lo, int64_t hi, int slot) {
    struct shared *j = c;
    (void)slot;
    int64_t O = j->g[13];
    for (int64_t ob = 0; ob < O; ob += 32) {
        if (O - ob > 16) {
            for (int64_t k = lo; k < hi; k += 12)
                grad_12_2(j->x, j->w, j->out, k, hi - k < 12 ? hi - k : 12, ob, j->g, j->b, j->blocks);
        } else {
            for (int64_t k = lo; k < hi; k += 16)
                grad_16_1(j->x, j->w, j->out, k, hi - k < 16 ? hi - k : 16, ob, j->g, j->b, j->blocks);
        }
    }
}

void pyjax_direct_grad_shared(void *run, const float *x, const float *cot, float *out, const int64_t *g,
                              const int64_t *b, int64_t blocks, int64_t chunk) {
    struct shared j = {x, cot, out, 0, g, b, blocks};
    ((pyjax_parallel_for_t)run)(grad_chunk, &j, g[3] * g[4] * g[2], chunk);
}
#else
int pyjax_conv_width(void) { return 0; }
void pyjax_direct_conv(const float *x, const float *w, float *out, int64_t r0, int64_t r1, const int64_t *g) {}
void pyjax_direct_grad(const float *x, const float *cot, float *out, const int64_t *g, const int64_t *b,
                       int64_t blocks) {}
void pyjax_direct_conv_shared(void *run, const float *x, const float *w, float *out, int64_t r0, int64_t r1,
                              const int64_t *g, int64_t chunk) {}
void pyjax_direct_grad_shared(void *run, const float *x, const float *cot, float *out, const int64_t *g,
                              const int64_t *b, int64_t blocks, int64_t chunk) {}
#endif

/* x (N, H, W, C) into out (N, H + t + b, W + l + r, C), zeros around it; cb: bytes a position. */
void pyjax_pad_nhwc(const char *restrict x, char *restrict out, const int64_t *p) {
    int64_t N = p[0], H = p[1], W = p[2], cb = p[3], t = p[4], b = p[5], l = p[6], r = p[7];
    int64_t row = (W + l + r) * cb;
    for (int64_t n = 0; n < N; n++) {
        memset(out, 0, t * row);
        out += t * row;
        for (int64_t h = 0; h < H; h++, out += row, x += W * cb) {
            memset(out, 0, l * cb);
            memcpy(out + l * cb, x, W * cb);
            memset(out + (l + W) * cb, 0, r * cb);
        }
        memset(out, 0, b * row);
        out += b * row;
    }
}
"""


def eligible(rows: int, k: int, o: int) -> bool:
    """Whether the patch path's product (rows, k) @ (k, o) is summed by
    OpenBLAS as the kernel sums it: one K block, not a matrix-vector
    product, and past the small-matrix kernels unless those sum it as a
    chain too (found by trying: 16 or 32 columns, or a short contraction)."""
    return (rows >= 8 and 2 <= o and k <= MAX_K
            and (rows * k * o > SMALL_MACS or o % 16 == 0 or k <= 32))


# OpenBLAS's K blocking of sgemm on this machine's kernels (GEMM_Q, and the
# unroll its halved last blocks round to; found by trying, checked at build).
GEMM_Q, GEMM_UNROLL = 448, 16


def sum_blocks(k: int, rows: int, o: int) -> list:
    """The bounds of the blocks sgemm sums a product with a contraction of
    `rows` in (one block in its small-matrix kernels)."""
    if k * rows * o <= SMALL_MACS:
        return [0, rows]
    bounds = [0]
    while bounds[-1] < rows:
        size = rows - bounds[-1]
        if size >= 2 * GEMM_Q:
            size = GEMM_Q
        elif size > GEMM_Q:
            size = -(-(size // 2) // GEMM_UNROLL) * GEMM_UNROLL
        bounds.append(bounds[-1] + size)
    return bounds


def grad_eligible(k: int, rows: int, o: int, transposed: bool) -> bool:
    """Whether the patch path's kernel gradient, patches^T (k, rows) @
    cotangent (rows, o), is summed as `sum_blocks` says: BLAS's transposed
    operand (the patches as they are) always; a contiguous copy of
    patches^T (the path's choice for one or two features) only past the
    small-matrix kernels, which sum that one otherwise (found by trying)."""
    return k >= 2 and o >= 2 and rows >= 1 and (transposed or k * rows * o > SMALL_MACS)


class NativeDirectConv(Tiering):
    """`kernel(x, weights, out, r0, r1, geometry)`: rows [r0, r1) of the
    convolution of the C-contiguous float32 NHWC `x` with `weights` (the
    patch path's (KH * KW * C, O) matrix, C-contiguous float32) into `out`
    (C-contiguous, r1 - r0 rows of O); True when done, False when the patch
    path must compute them. `geometry`: (kernel, out_space, strides,
    dilation, padding), each per spatial axis (padding (low, high))."""

    verified_by_build = True
    thread_name = "pyjax-native-conv"

    def __init__(self):
        super().__init__("direct convolution")
        self.fn = self.pad_fn = self.grad_fn = None
        self.conv_shared = self.grad_shared = None
        self.run_shared = 0  # threads.py's runtime, or 0: calls run on one thread
        self._rechecks, self._grad_rechecks = Rechecks(calls=0), Rechecks(calls=0)

    def ready(self, rows: int, k: int, o: int) -> bool:
        """Whether the kernel serves this product now (starting its build at the first one)."""
        if not eligible(rows, k, o):
            return False
        if self.fn is None and self.state == COLD:
            self.start(wait=settings.AFTER_STEPS == 0)
        return self.fn is not None

    def shares(self, macs: int) -> bool:
        """Whether a call of this many multiply-adds shares its rows among the cores."""
        return self.run_shared != 0 and macs >= SHARE_MACS

    def __call__(self, x: np.ndarray, weights: np.ndarray, out: np.ndarray, r0: int, r1: int,
                 geometry: tuple) -> bool:
        fn = self.fn
        if fn is None:
            return False
        g = _geometry(x.shape, weights.shape[1], geometry)
        if self.shares((r1 - r0) * weights.size):
            chunk = threads.chunk(r1 - r0, unit=48)  # (whole tiles of 12 and 16 rows)
            self.conv_shared(self.run_shared, x.ctypes.data, weights.ctypes.data, out.ctypes.data, r0, r1, g, chunk)
        else:
            fn(x.ctypes.data, weights.ctypes.data, out.ctypes.data, r0, r1, g)
        if self._rechecks.due():
            want = np.matmul(numpy_im2col(x, *geometry), weights)[r0:r1]
            if not same_bits(want, out[:r1 - r0]):
                self.drop("its outputs differed from the patch path's on a re-check")
                return False
        return True

    def grad_ready(self, k: int, rows: int, o: int, transposed: bool) -> bool:
        """Whether `grad` serves this kernel gradient now (`grad_eligible`; starts the build)."""
        if not grad_eligible(k, rows, o, transposed):
            return False
        if self.grad_fn is None and self.state == COLD:
            self.start(wait=settings.AFTER_STEPS == 0)
        return self.grad_fn is not None

    def grad(self, x: np.ndarray, cot: np.ndarray, geometry: tuple) -> np.ndarray | None:
        """The kernel's gradient (KH * KW * C, O) of the convolution with
        `geometry` of the C-contiguous float32 NHWC `x`, its output's
        cotangent `cot` (N * OH * OW, O) C-contiguous float32: the patch
        path's patches^T @ cot, bit for bit; None when not built."""
        fn = self.grad_fn
        if fn is None:
            return None
        xp, inside = _padded(self.pad_fn, x, geometry)
        rows, o = cot.shape
        k = geometry[0][0] * geometry[0][1] * x.shape[-1]
        bounds = np.array(sum_blocks(k, rows, o), np.int64)
        out = np.empty((k, o), np.float32)
        g = _geometry(xp.shape, o, inside)
        if self.shares(k * rows * o):
            self.grad_shared(self.run_shared, xp.ctypes.data, cot.ctypes.data, out.ctypes.data, g,
                             bounds.ctypes.data, len(bounds) - 1, threads.chunk(k, unit=48))
        else:
            fn(xp.ctypes.data, cot.ctypes.data, out.ctypes.data, g, bounds.ctypes.data, len(bounds) - 1)
        if self._grad_rechecks.due() and not same_bits(np.matmul(numpy_im2col(x, *geometry).T, cot), out):
            self.drop("its kernel gradient differed from the patch path's on a re-check")
            return None
        return out

    def padded(self, x: np.ndarray, geometry: tuple) -> tuple:
        """`x` padded (zeros) so that every window lies inside, and the
        geometry without padding: few features a position make the border
        checks of each tap cost more than this copy (docs/performance.md)."""
        return _padded(self.pad_fn, x, geometry)

    def prepare(self) -> str | None:
        return None if available() else "native code is off or there is no C compiler"

    def build(self) -> None:
        lib = _build(_SOURCE, opt="-O2")
        if lib.pyjax_conv_width() != 16:
            raise RuntimeError("the compiler does not target AVX-512 here")
        fn, pad, grad = lib.pyjax_direct_conv, lib.pyjax_pad_nhwc, lib.pyjax_direct_grad
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                       ctypes.c_void_p]
        pad.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        grad.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int64]
        fn.restype = pad.restype = grad.restype = None
        conv_shared, grad_shared = lib.pyjax_direct_conv_shared, lib.pyjax_direct_grad_shared
        conv_shared.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64]
        grad_shared.argtypes = [ctypes.c_void_p] * 6 + [ctypes.c_int64, ctypes.c_int64]
        conv_shared.restype = grad_shared.restype = None
        run = threads.address()
        why = _differs(fn, pad) or _grad_differs(grad, pad)
        if not why and run:
            # (the shared calls cut the rows into chunks of 12 rows: the same elements, checked too)
            why = (_differs(_shared_conv(conv_shared, run), pad)
                   or _grad_differs(_shared_grad(grad_shared, run), pad))
        if why:
            raise RuntimeError(f"its outputs differ from the patch path's ({why})")
        self.conv_shared, self.grad_shared = conv_shared, grad_shared
        self.fn, self.pad_fn, self.grad_fn, self.run_shared = fn, pad, grad, run

    def dropped(self) -> None:
        self.fn = self.grad_fn = None
        self.run_shared = 0


def _shared_conv(conv_shared, run):
    # The shared forward kernel as `pyjax_direct_conv` is called, in chunks of 12 rows.
    def call(x, w, out, r0, r1, g):
        conv_shared(run, x, w, out, r0, r1, g, 12)
    return call


def _shared_grad(grad_shared, run):
    def call(x, cot, out, g, b, blocks):
        grad_shared(run, x, cot, out, g, b, blocks, 12)
    return call


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bitwise equal, where a NaN matches any NaN (the payload BLAS keeps
    among several NaN operands is its own)."""
    if a.shape != b.shape:
        return False
    differ = a.view(np.uint32) != b.view(np.uint32)
    return not np.any(differ & ~(np.isnan(a) & np.isnan(b)))


def _padded(pad_fn, x: np.ndarray, geometry: tuple) -> tuple:
    kernel, out_space, strides, dilation, padding = geometry
    n, h, w, c = x.shape
    # (the high side as far as the last window reaches: more is never read, less crops)
    high = [max(0, (o - 1) * s + (k - 1) * r + 1 - lo - d)
            for o, s, k, r, (lo, _), d in zip(out_space, strides, kernel, dilation, padding, (h, w))]
    (top, _), (left, _) = padding
    out = np.empty((n, h + top + high[0], w + left + high[1], c), x.dtype)
    sizes = np.array([n, h, w, c * x.itemsize, top, high[0], left, high[1]], np.int64)
    pad_fn(x.ctypes.data, out.ctypes.data, sizes.ctypes.data)
    return out, (kernel, out_space, strides, dilation, ((0, 0), (0, 0)))


def _geometry(shape: tuple, o: int, geometry: tuple) -> int:
    """The address of the kernel's int64 geometry array (cached: an array a call would make)."""
    return _geometry_array(shape, o, geometry)[1]


@functools.lru_cache(maxsize=256)
def _geometry_array(shape: tuple, o: int, geometry: tuple) -> tuple:
    kernel, out_space, strides, dilation, padding = geometry
    n, h, w, c = shape
    big = n * out_space[0] * out_space[1] * kernel[0] * kernel[1] * c * o > SMALL_MACS
    g = np.array([h, w, c, *kernel, *out_space, *strides, *dilation, padding[0][0], padding[1][0], o, big], np.int64)
    return g, g.ctypes.data  # (the array stays alive with its address)


# (input shape, kernel, strides, dilation, padding, output features): borders,
# strides, dilation, one and many channels, 16-wide tiles and 32-wide ones
# with masked columns, the contraction's longest.
_TEST_GEOMETRIES = [
    ((2, 7, 6, 3), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 40),
    ((1, 9, 8, 1), (3, 2), (2, 1), (1, 2), ((2, 0), (0, 3)), 8),
    ((3, 5, 5, 4), (2, 2), (2, 2), (1, 1), ((0, 0), (0, 0)), 16),
    ((1, 6, 7, 2), (4, 3), (1, 3), (2, 1), ((3, 2), (1, 1)), 3),
    ((2, 16, 16, 32), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 32),
    ((4, 9, 9, 42), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 64),
    ((8, 14, 14, 16), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 8),
    ((8, 12, 12, 1), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 5),
]


def _differs(fn, pad_fn) -> str | None:
    """Why the kernel's outputs differ from NumPy's patches @ weights on the
    test geometries, from the input and from its padded copy (None when
    they are all the same bits)."""
    rng = np.random.default_rng(0)
    for shape, kernel, strides, dilation, padding, o in _TEST_GEOMETRIES:
        x = rng.standard_normal(shape).astype(np.float32)
        x[0, 0] = 0.0  # (zero rows, and sums of -0 below: the chain's signed zeros)
        out_space = tuple((d + lo + hi - (k - 1) * r - 1) // s + 1 for d, k, r, s, (lo, hi)
                          in zip(shape[1:3], kernel, dilation, strides, padding))
        geometry = (kernel, out_space, strides, dilation, padding)
        patches = numpy_im2col(x, *geometry)
        weights = rng.standard_normal((patches.shape[1], o)).astype(np.float32)
        x[-1], weights[:, 0] = 1e-30, -1e-30  # (products underflow to -0: the last image's sums are -0 in the chain)
        patches = numpy_im2col(x, *geometry)
        if not eligible(patches.shape[0], patches.shape[1], o):
            continue
        want = np.matmul(patches, weights)
        got = np.full_like(want, np.nan)
        fn(x.ctypes.data, weights.ctypes.data, got.ctypes.data, 0, want.shape[0], _geometry(shape, o, geometry))
        part = np.full_like(want[3:9], np.nan)
        fn(x.ctypes.data, weights.ctypes.data, part.ctypes.data, 3, 9, _geometry(shape, o, geometry))
        xp, inside = _padded(pad_fn, x, geometry)
        whole = np.full_like(want, np.nan)
        fn(xp.ctypes.data, weights.ctypes.data, whole.ctypes.data, 0, want.shape[0], _geometry(xp.shape, o, inside))
        if not (same_bits(want, got) and same_bits(want[3:9], part) and same_bits(want, whole)):
            return f"input {shape}, kernel {kernel}, {o} features"
    return None


direct_conv = NativeDirectConv()


# (input shape, kernel, strides, dilation, padding, output features) of the
# gradient's check: one block and several (halved last blocks), sums of -0.
_GRAD_GEOMETRIES = [
    ((2, 7, 6, 3), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 40),
    ((8, 16, 16, 4), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 32),
    ((4, 16, 16, 8), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 16),
    ((2, 16, 16, 32), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 32),
    ((3, 11, 13, 5), (3, 2), (2, 1), (1, 2), ((2, 0), (0, 3)), 10),
    ((8, 28, 28, 1), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), 8),
]


def _grad_differs(grad_fn, pad_fn) -> str | None:
    """Why the kernel's gradients differ from NumPy's patches^T @ cotangent
    on the test geometries (None when they are all the same bits)."""
    rng = np.random.default_rng(1)
    for shape, kernel, strides, dilation, padding, o in _GRAD_GEOMETRIES:
        x = rng.standard_normal(shape).astype(np.float32)
        out_space = tuple((d + lo + hi - (k - 1) * r - 1) // s + 1 for d, k, r, s, (lo, hi)
                          in zip(shape[1:3], kernel, dilation, strides, padding))
        geometry = (kernel, out_space, strides, dilation, padding)
        cot = rng.standard_normal((shape[0] * out_space[0] * out_space[1], o)).astype(np.float32)
        x[..., 0], cot[:, 0] = 1e-30, -1e-30  # (products underflow to -0: sums of -0 in the chain)
        patches = numpy_im2col(x, *geometry)
        if not grad_eligible(patches.shape[1], patches.shape[0], o, x.shape[-1] * x.itemsize > 8):
            continue
        want = np.matmul(patches.T, cot)
        xp, inside = _padded(pad_fn, x, geometry)
        bounds = np.array(sum_blocks(patches.shape[1], patches.shape[0], o), np.int64)
        got = np.full_like(want, np.nan)
        grad_fn(xp.ctypes.data, cot.ctypes.data, got.ctypes.data, _geometry(xp.shape, o, inside), bounds.ctypes.data,
                len(bounds) - 1)
        if not same_bits(want, got):
            return f"the kernel gradient of input {shape}, kernel {kernel}, {o} features"
    return None
