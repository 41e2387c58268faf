"""XLA CPU's float32 approximations of log, log1p and erf_inv, bit for bit.

XLA on the CPU does not call libm for these: `log` is a Cephes-style
polynomial on the mantissa (the one Eigen's `plog` uses), `log1p` is Cephes'
rational approximation below |x| = sqrt(2) - 1 and `log(1 + x)` above, and
`erf_inv` (CHLO's float32 expansion) is Giles' single-precision polynomials
in w = -log1p(-x * x). LLVM then contracts most `a * b + c` into fused
multiply-adds. The functions here evaluate the same formulas in the same
order, each contracted pair as one fused multiply-add, so that the results
equal XLA's on every float32 input (checked exhaustively on the grid the
normal sampler draws from and on millions of random inputs).

NumPy has no fused multiply-add: `_fma` evaluates ``a * b + c`` in float64
(the product of two float32 values is exact there) and rounds once to
float32. Two roundings (to float64, then float32) differ from one only when
the float64 sum lands exactly on a float32 tie it did not start on, about
one operation in 2**29.

Inputs below float32's smallest normal count as zero, as on XLA's CPU
(denormals are flushed).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.numpy import split

__all__ = ["erf_inv_f32", "log1p_f32", "log_f32"]

_F32, _F64, _U32 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.uint32)
# Elements per block: the float64 temporaries of a block stay in L2.
_BLOCK = 1 << 14


def _bits(*words: int) -> list[np.float32]:
    return [np.array(w, _U32).view(_F32)[()] for w in words]


def _fma(a, b, c):
    return (np.asarray(a, _F64) * b + np.asarray(c, _F64)).astype(_F32)


def _horner(acc64: np.ndarray, x64: np.ndarray, coeffs, acc32: np.ndarray) -> None:
    # acc = fma(acc, x, c) for each coefficient, rounded to float32 after
    # each step; the float64 buffers are updated in place.
    for c in coeffs:
        np.multiply(acc64, x64, out=acc64)
        np.add(acc64, c, out=acc64)
        np.copyto(acc32, acc64, casting="unsafe")
        np.copyto(acc64, acc32)


# ---------------------------------------------------------------------------
# log

_MIN_NORMAL, _SQRT_HALF = _bits(0x00800000, 0x3F3504F3)
# The polynomial in three interleaved Horner chains (p0..p8) and the two
# halves of log(2) (the second one short, so e * it is exact).
_LOG_P = _bits(0x3D9021BB, 0xBDEBD1B8, 0x3DEF251A, 0xBDFE5D4F, 0x3E11E9BF, 0xBE2AAE50,
               0x3E4CCEAC, 0xBE7FFFFC, 0x3EAAAAAA)
_LOG_Q1, _LOG_Q2 = _bits(0xB95E8083, 0x3F318000)


def log_f32(v: np.ndarray) -> np.ndarray:
    """XLA CPU's float32 natural logarithm."""
    v = np.asarray(v, _F32)
    x = np.maximum(v, _MIN_NORMAL)
    words = x.view(_U32)
    # x = m * 2**e with m in [0.5, 1); below sqrt(1/2) take 2m and e - 1.
    e = ((words >> 23).astype(np.int32) - 127).astype(_F32) + np.float32(1)
    m = ((words & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F32)
    low = m < _SQRT_HALF
    e = e - low.astype(_F32)
    x = (m - np.float32(1)) + np.where(low, m, np.float32(0))
    x2 = x * x
    x3 = x2 * x
    p = _LOG_P
    y0 = _fma(_fma(x, p[0], p[1]), x, p[2])
    y1 = _fma(_fma(x, p[3], p[4]), x, p[5])
    y2 = _fma(_fma(x, p[6], p[7]), x, p[8])
    y = _fma(_fma(y0, x3, y1), x3, y2)
    y = _fma(y, x3, e * _LOG_Q1)
    out = ((x - x2 * np.float32(0.5)) + y) + e * _LOG_Q2
    # Edges as XLA's: -inf at zero (denormals count as zero), inf at inf,
    # NaN (all bits set) below zero and for NaN.
    out = np.where(v > 0, out, _NAN)
    out = np.where(np.abs(v) < _MIN_NORMAL, np.float32(-np.inf), out)
    return np.where(v == np.inf, v, out)


# ---------------------------------------------------------------------------
# log1p


def _flush_denormals(x: np.ndarray) -> np.ndarray:
    # XLA's CPU code runs with denormals flushed to (signed) zero.
    return np.where(np.abs(x) < _MIN_NORMAL, x * np.float32(0), x)

_NAN = np.array(0xFFFFFFFF, _U32).view(_F32)[()]
_LOG1P_CUT = _bits(0x3ED413CD)[0]  # sqrt(2) - 1
_LOG1P_NUM = [np.float64(c) for c in _bits(0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76, 0x426473AD,
                                             0x41A05101)]
_LOG1P_NUM0 = np.float64(np.float32(4.527e-05))
_LOG1P_DEN0, *_rest = _bits(0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3, 0x43586D8A, 0x42707982)
_LOG1P_DEN = [np.float64(c) for c in _rest]


def _log1p_small(x: np.ndarray) -> np.ndarray:
    # Cephes' rational approximation: x - x**2 / 2 + x**3 * N(x) / D(x).
    x64 = x.astype(_F64)
    acc32 = np.empty_like(x)
    den32 = x + _LOG1P_DEN0  # fma(1, x, d0)
    den = den32.astype(_F64)
    _horner(den, x64, _LOG1P_DEN, den32)
    num = np.full(x.shape, _LOG1P_NUM0)
    _horner(num, x64, _LOG1P_NUM, acc32)
    x2 = x * x
    # XLA contracts x2 * -0.5 (exact) with the sum, not the product (x * x2) * ratio.
    return x + ((x * x2) * (acc32 / den32) + x2 * np.float32(-0.5))


def log1p_f32(x: np.ndarray) -> np.ndarray:
    """XLA CPU's float32 log(1 + x)."""
    x = _flush_denormals(np.asarray(x, _F32))
    with np.errstate(all="ignore"):
        small = np.abs(x) < _LOG1P_CUT
        out = log_f32(x + np.float32(1))
        if small.any():
            out = np.where(small, _log1p_small(np.where(small, x, np.float32(0))), out)
    return out


# ---------------------------------------------------------------------------
# erf_inv

# Giles' coefficients, for w = -log1p(-x*x) < 5 (in w - 2.5) and above (in sqrt(w) - 3).
_ERF_INV_SMALL = [np.float64(c) for c in _bits(0x32F16588, 0x34B84B36, 0xB66C7357, 0xB6935AC1, 0x396532DB,
                                                0xBAA45408, 0xBB88E4EF, 0x3E7C8F63, 0x3FC02E2F)]
_ERF_INV_LARGE = [np.float64(c) for c in _bits(0xB951F09B, 0x38D3B56B, 0x3AB0DC72, 0xBB70BDE7, 0x3BBC127B,
                                                0xBBF9C5D7, 0x3C1AA57E, 0x3F8036DB, 0x40354F7E)]


def _giles(t: np.ndarray, coeffs) -> np.ndarray:
    acc = np.full(t.shape, coeffs[0])
    acc32 = np.empty(t.shape, _F32)
    _horner(acc, t.astype(_F64), coeffs[1:], acc32)
    return acc32


def _erf_inv_block(u: np.ndarray, out: np.ndarray) -> None:
    u = _flush_denormals(u)
    log1p = log1p_f32(u * -u)  # -w
    small = log1p > np.float32(-5)
    p = _giles(np.float32(-2.5) - log1p, _ERF_INV_SMALL)
    large = np.flatnonzero(~small)
    if large.size:
        p[large] = _giles(np.sqrt(-log1p[large]) - np.float32(3), _ERF_INV_LARGE)
    p[np.abs(u) == 1] = np.inf  # erf_inv(+-1) = +-inf
    np.multiply(u, p, out=out)


def _erf_inv_exact(u: np.ndarray) -> np.ndarray:
    flat = u.reshape(-1)
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _BLOCK):
            _erf_inv_block(flat[start:start + _BLOCK], out[start:start + _BLOCK])
    return out.reshape(u.shape)


# The float32 normal sampler computes erf_inv(u) with u = lo + k * 2**-22,
# lo = -1 + 2**-24 and k < 2**23 (the mantissa bits of a uniform draw); every
# such u is exact in float32. For large draws on that grid, erf_inv is read
# from a table of all 2**23 values (32 MB, computed once with the code above):
# a gather instead of ~25 emulated fused multiply-adds per element.
_GRID_LO = np.nextafter(np.float32(-1), np.float32(0))
_GRID_SCALE = np.float32(2.0 ** 22)
_GRID_SIZE = 1 << 23
_GRID_MIN_DRAW = 1 << 20  # smaller draws compute directly (cheaper than the table)
_grid_table: np.ndarray | None = None


def _from_grid_table(u: np.ndarray) -> np.ndarray | None:
    # erf_inv(u) read from the table, or None when some u is off the grid.
    # Index ranges are independent, so large draws run on every core.
    flat = u.reshape(-1)
    out = np.empty_like(flat)
    table = _table()
    off_grid: list = []

    def lookup(start: int, stop: int) -> None:
        block = min(stop - start, 1 << 16)
        scaled, back = np.empty(block, _F32), np.empty(block, _F32)
        k = np.empty(block, np.intp)
        for lo in range(start, stop, block):
            ub = flat[lo:min(lo + block, stop)]
            n = ub.size
            sb, bb, kb = scaled[:n], back[:n], k[:n]
            np.subtract(ub, _GRID_LO, out=sb)  # exact for grid values
            np.multiply(sb, _GRID_SCALE, out=sb)
            np.copyto(kb, sb, casting="unsafe")
            np.clip(kb, 0, _GRID_SIZE - 1, out=kb)
            # On the grid iff k is exact: a fraction, NaN or out-of-range u fails.
            np.copyto(bb, kb, casting="unsafe")
            if off_grid or not np.array_equal(bb, sb):
                off_grid.append(True)
                return
            np.take(table, kb, out=out[lo:lo + n], mode="clip")

    split.run_ranges(lookup, flat.size)
    return None if off_grid else out.reshape(u.shape)


def _table() -> np.ndarray:
    global _grid_table
    if _grid_table is None:  # built on the first large draw found on the grid
        grid = _GRID_LO + np.arange(_GRID_SIZE, dtype=_F32) / _GRID_SCALE
        _grid_table = _erf_inv_exact(grid)
    return _grid_table


def erf_inv_f32(u: np.ndarray) -> np.ndarray:
    """XLA CPU's float32 inverse error function."""
    u = np.ascontiguousarray(u, _F32)
    if u.size >= _GRID_MIN_DRAW:
        out = _from_grid_table(u)
        if out is not None:
            return out
    return _erf_inv_exact(u)
