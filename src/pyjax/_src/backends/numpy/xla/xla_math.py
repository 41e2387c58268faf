"""XLA CPU's approximations of log, log1p, erf_inv, erf, rsqrt (float32) and
exp (float64), bit for bit.

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

`erf` (float32) is a rational function of x**2 in fused multiply-adds;
`rsqrt` (float32) refines the CPU's own 12-bit estimate with one Newton
step (the estimate comes from a table dumped on the recording CPU).

Float64 (the end of the file): XLA calls the C library's `log` and `pow`
(NumPy's SIMD loops differ from it in the last bit about once in 10**4),
evaluates `log1p` with the same Cephes rational in double precision, and
`erf_inv` with Giles' double-precision polynomials, again contracting each
Horner step into a fused multiply-add; `fma_f64` emulates that one rounding
with error-free transformations. `exp` is XLA's own Cephes Pade form,
not libm's.
"""

from __future__ import annotations

import base64
import math
import zlib

import numpy as np

from pyjax._src.backends.numpy.parallel import split

__all__ = ["erf_f32", "erf_inv_f32", "erf_inv_f64", "fma_f64", "log1p_f32", "log1p_f64", "log_f32", "log_f64",
           "exp_f64", "pow_f64", "rsqrt_estimate_f32", "rsqrt_f32"]

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
        np.add(acc64, c, out=acc32, casting="unsafe")  # the float64 sum, rounded once on output
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
    return np.where(np.abs(x) < _MIN_NORMAL, np.copysign(np.float32(0), x), x)  # (x * 0 would warn at inf)

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
            with np.errstate(invalid="ignore"):  # (NaN casts: off the grid, found below)
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
    # (Not ascontiguousarray: it makes a 0-d input 1-d, and the result must
    # keep the input's shape; reshape(-1) below copies what is not contiguous.)
    u = np.asarray(u, _F32)
    if u.size >= _GRID_MIN_DRAW:
        out = _from_grid_table(u)
        if out is not None:
            return out
    return _erf_inv_exact(u)


# ---------------------------------------------------------------------------
# erf

# XLA's float32 erf: x * P(x**2) / Q(x**2) (odd P of degree 9, even Q of
# degree 12, each a Horner chain of fused multiply-adds in x**2), and
# sign(x) from |x| >= 3.8325 on, where the ratio rounds to +-1 anyway.
_ERF_BIG = _bits(0x407547CB)[0]
_ERF_P = [np.float64(c) for c in _bits(0x39702D51, 0x3B5F5DA2, 0x3D50B6EB, 0x3E3DA740, 0x3F906EBA)]
_ERF_Q = [np.float64(c) for c in _bits(0xB3FD3906, 0x37C588DF, 0x3A856D28, 0x3C6687D4, 0x3DE34C21, 0x3EFEB44A)]
_ERF_Q += [np.float64(1)]


def erf_f32(x: np.ndarray) -> np.ndarray:
    """XLA CPU's float32 error function."""
    x = _flush_denormals(np.asarray(x, _F32))
    x2 = x * x
    with np.errstate(all="ignore"):
        numerator = x * _giles(x2, _ERF_P)
        ratio = numerator / _giles(x2, _ERF_Q)
    return np.where(np.abs(x) >= _ERF_BIG, np.copysign(np.float32(1), x), ratio)


# ---------------------------------------------------------------------------
# rsqrt

# XLA's float32 rsqrt (and a / sqrt(b), which its algebraic simplifier turns
# into a * rsqrt(b)) takes the CPU's estimate (`rsqrtss`/`rsqrtps`, 12 bits)
# and refines it with one Newton-Raphson step,
#     y = y0 + (-y0 / 2) * (x * y0 * y0 - 1)
# evaluated as r = x * y0 (rounded), h = fma(r, y0, -1), y = fma(-y0 / 2, h, y0).
# The estimate is not fixed by the ISA, but on the CPU the goldens were
# recorded on it is a table indexed by the exponent's parity and the 12
# leading mantissa bits, scaled by 2**-(exponent // 2) (checked on every
# positive normal float by tools/rsqrt_estimate_table.py, which also writes
# the blob below: the first entry's mantissa in two bytes, then the steps
# down from each entry to the next, zlib-compressed).
_RSQRT_ESTIMATE = (
    "eNrdlmsOwjAMg91cgPufFn4w2PoMJmlaYEyp58+pqCaR+y09PziqKDoZ+WTkrRoN//pMBuwn/uoK3se5RqVF8WdrOPNtPzuZTIvi"
    "z9Zw5ktfTnX9djXLr9bQ+JNs1tk+JufVeqzz8/lew5n39hs8qjLQQvLRGiyf8ispGpv5Zh7/deHbXHEepdHzWT7aV3km3NDJmF+t"
    "37I8jo4GyXv38+aRPXm9H6eO9lfwZMSko/fTde5Z62791Dw5WYviw3mShzPf+smoln0tJM9qTM73/FcRcvaUjWdhTmd/iVdzqOHs"
    "R/P4s3kWrK9MElbfynvnK714DkVwfsA35sH5fjRf5x2HlR+oQP3i54PhWIPk2TyC+2Gzflae7ufY+xd16WHy3gjOe/PR/bz9mj/W"
    "nVvzo/nd8rvvp90PvIMRDg==")
_rsqrt_table: np.ndarray | None = None


def _rsqrt_estimates() -> np.ndarray:
    # The 8192 estimates' bit patterns (all in [0.5, 1): biased exponent 126).
    global _rsqrt_table
    if _rsqrt_table is None:
        raw = np.frombuffer(zlib.decompress(base64.b64decode("".join(_RSQRT_ESTIMATE))), np.uint8)
        first = (int(raw[0]) << 4) | int(raw[1])
        mantissas = first - np.concatenate([[0], np.cumsum(raw[2:], dtype=np.int64)])
        _rsqrt_table = (np.uint32(126 << 23) | (mantissas.astype(np.uint32) << np.uint32(11))).astype(_U32)
    return _rsqrt_table


def rsqrt_estimate_f32(x: np.ndarray) -> np.ndarray:
    """The CPU's 12-bit ``rsqrtps`` estimate of ``1 / sqrt(x)`` for float32 ``x``.

    Zeros and denormals give infinities of their sign, +inf gives 0,
    negative numbers the default NaN, NaN itself (quieted).
    """
    x = np.asarray(x, _F32)
    words = x.view(_U32)
    biased = (words >> np.uint32(23)) & np.uint32(0xFF)
    exponent = biased.astype(np.int32) - 127
    parity = exponent & 1
    index = (parity << 12) | ((words >> np.uint32(11)) & np.uint32(0xFFF)).astype(np.int32)
    scale = ((exponent - parity) >> 1) << 23
    out = (_rsqrt_estimates()[index].astype(np.int32) - scale).view(_F32)
    negative = (words >> np.uint32(31)).astype(bool)
    tiny = biased == 0
    special = tiny | (biased == 0xFF) | negative
    if special.any():
        with np.errstate(all="ignore"):
            edge = np.where(tiny, np.copysign(np.float32(np.inf), x), _DEFAULT_NAN)
            edge = np.where(x == np.inf, np.float32(0), edge)
            quiet = (words | np.uint32(0x00400000)).view(_F32)  # NaN in, the same NaN quieted out
            edge = np.where(np.isnan(x), quiet, edge)
        out = np.where(special, edge, out)
    return out


_DEFAULT_NAN = np.array(0xFFC00000, _U32).view(_F32)[()]


def rsqrt_f32(x: np.ndarray) -> np.ndarray:
    """XLA CPU's float32 ``1 / sqrt(x)``: the hardware estimate and one Newton step."""
    x = np.asarray(x, _F32)
    y0 = rsqrt_estimate_f32(x)
    with np.errstate(all="ignore"):
        # x * y0 * y0 is near 1: the float64 product less 1 is exact, and so
        # is (-y0 / 2) * h + y0 (a 12-bit y0 over a 36-bit product), so each
        # float64 expression rounds once to float32, as the fused op does.
        h = (np.multiply(x, y0).astype(_F64) * y0 - 1.0).astype(_F32)
        out = ((y0 * np.float32(-0.5)).astype(_F64) * h + y0).astype(_F32)
    # Zeros, denormals, infinities, negatives and NaN keep the estimate.
    words = x.view(_U32)
    ordinary = (words >= np.uint32(0x00800000)) & (words < np.uint32(0x7F800000))
    return out if ordinary.all() else np.where(ordinary, out, y0)


# ---------------------------------------------------------------------------
# float64

# Veltkamp's splitting constant 2**27 + 1: a * it splits a 53-bit mantissa
# into two halves whose products are exact.
_SPLITTER = np.float64(2.0 ** 27 + 1)


def _split_halves(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def fma_f64(a, b, c) -> np.ndarray:
    """``a * b + c`` in float64 with one rounding, as XLA's contracted multiply-adds.

    Dekker's exact product and Knuth's exact sum give ``a * b + c`` as
    ``s + t + e`` exactly; rounding ``t + e`` first differs from a true fused
    multiply-add only when the exact result lies within 2**-53 ulp of a tie.
    (Products that overflow or fall below 2**-969 lose the exact error term.)
    """
    a, b, c = (np.asarray(v, _F64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        product = a * b
        a_hi, a_lo = _split_halves(a)
        b_hi, b_lo = _split_halves(b)
        product_err = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
        total = product + c
        c_part = total - product
        sum_err = (product - (total - c_part)) + (c - c_part)
        out = total + (sum_err + product_err)
    # Infinite or NaN operands, and zeros (whose sign the error terms would
    # lose): the plain expression has the right value.
    return np.where(np.isfinite(out) & ((out != 0) | (total != 0)), out, total)


_libm_log = np.frompyfunc(math.log, 1, 1)
_libm_pow = np.frompyfunc(math.pow, 2, 1)
_MIN_NORMAL_F64 = np.finfo(_F64).smallest_normal
# glibc's log is within 0.52 ulp: it can only round the other way than the
# exact value when that value lies within 0.02 ulp of a midpoint between two
# doubles. Where the platform's long double has 64 mantissa bits, `logl`
# finds the exact logarithm to about 2**-11 ulp of a double: elements whose
# logarithm lies farther than _TIE_MARGIN ulp from a midpoint round that
# value (the C library's result), the rest (~6%) call the C library itself.
_WIDE_LOG = np.finfo(np.longdouble).nmant >= 63
_TIE_MARGIN = 1 / 32


def _flush_denormals_f64(x: np.ndarray) -> np.ndarray:
    # XLA's CPU code treats float64 denormals as (signed) zeros too.
    return np.where(np.abs(x) < _MIN_NORMAL_F64, np.copysign(0.0, x), x)


def _libm_log_where(out: np.ndarray, x: np.ndarray, where: np.ndarray) -> None:
    if where.any():
        out[where] = _libm_log(x[where]).astype(_F64)


def _elementwise_f64(block_fn):
    # `block_fn` (float64 array -> float64 array, elementwise) applied by
    # index ranges, on every core when the array is large (split.py); a
    # range runs unsplit, so that nothing inside it waits on the pool.
    def fn(x) -> np.ndarray:
        x = np.asarray(x, _F64)
        if x.size < split.MIN_RANGE or split.num_workers() < 2:
            return block_fn(x)
        flat = np.ascontiguousarray(x).reshape(-1)
        out = np.empty_like(flat)

        def run(start: int, stop: int) -> None:
            with split.unsplit():
                out[start:stop] = block_fn(flat[start:stop])

        split.run_ranges(run, flat.size)
        return out.reshape(x.shape)

    fn.__name__ = block_fn.__name__.lstrip("_")
    return fn


def _log_f64(x: np.ndarray) -> np.ndarray:
    x = _flush_denormals_f64(x)
    with np.errstate(all="ignore"):
        out = np.log(x)  # the edges (0, negative, inf, NaN)
        finite = np.isfinite(out)
        if not _WIDE_LOG:
            _libm_log_where(out, x, finite)
            return out
        wide = np.log(x.astype(np.longdouble))
        near = wide.astype(_F64)  # the exact logarithm, rounded
        # The double on the other side of the exact value: one step of the
        # bit pattern away from zero (wide beyond near) or towards it.
        away = (wide > near) == (near > 0)
        other = (near.view(np.int64) + np.where(away, 1, -1)).view(_F64).astype(np.longdouble)
        # Both ends are doubles: the midpoint and the gap are exact in long double.
        midpoint = (other + near) * 0.5
        close = np.abs(wide - midpoint) < np.abs(other - near) * _TIE_MARGIN
    out = np.where(finite, near, out)
    _libm_log_where(out, x, finite & close)
    return out


log_f64 = _elementwise_f64(_log_f64)
log_f64.__doc__ = """XLA CPU's float64 natural logarithm: the C library's ``log`` (denormals
count as zero)."""


def pow_f64(x, y) -> np.ndarray:
    """XLA CPU's float64 ``x ** y`` for positive finite ``x``: the C library's ``pow``."""
    x, y = np.broadcast_arrays(np.asarray(x, _F64), np.asarray(y, _F64))
    with np.errstate(all="ignore"):
        out = np.asarray(np.power(x, y))  # (on 0-d operands np.power returns a scalar: no item assignment)
    ordinary = (x > 0) & np.isfinite(x) & np.isfinite(y)
    if ordinary.any():
        out[ordinary] = _libm_pow(x[ordinary], y[ordinary]).astype(_F64)
    return out


def _horner_f64(x: np.ndarray, coeffs) -> np.ndarray:
    acc = np.full(x.shape, coeffs[0], _F64)
    for c in coeffs[1:]:
        acc = fma_f64(acc, x, c)
    return acc


_LOG1P_CUT_F64 = 0.41421356237309504880  # sqrt(2) - 1
_LOG1P_NUM_F64 = [4.5270000862445199635215E-5, 4.9854102823193375972212E-1, 6.5787325942061044846969E0,
                  2.9911919328553073277375E1, 6.0949667980987787057556E1, 5.7112963590585538103336E1,
                  2.0039553499201281259648E1]
_LOG1P_DEN_F64 = [1.0, 1.5062909083469192043167E1, 8.3047565967967209469434E1, 2.2176239823732856465394E2,
                  3.0909872225312059774938E2, 2.1642788614495947685003E2, 6.0118660497603843919306E1]


def _log1p_f64(x: np.ndarray) -> np.ndarray:
    x = _flush_denormals_f64(x)
    with np.errstate(all="ignore"):
        small = np.abs(x) < _LOG1P_CUT_F64
        out = _log_f64(x + 1.0)
        if small.any():
            xs = x[small]
            x2 = xs * xs
            ratio = _horner_f64(xs, _LOG1P_NUM_F64) / _horner_f64(xs, _LOG1P_DEN_F64)
            # Here XLA contracts x2 * -0.5 with the sum, as in float32.
            out[small] = xs + fma_f64(x2, -0.5, (xs * x2) * ratio)
    return out


log1p_f64 = _elementwise_f64(_log1p_f64)
log1p_f64.__doc__ = """XLA CPU's float64 log(1 + x): Cephes' rational below sqrt(2) - 1, ``log``
of ``1 + x`` above."""


# Giles' double-precision coefficients for w = -log1p(-x*x) below 6.25 (in
# w - 3.125), below 16 (in sqrt(w) - 3.25) and above (in sqrt(w) - 5).
_ERF_INV_F64 = (
    (6.25, 3.125, False, [
        -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
        1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
        6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
        2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
        1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
        4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
        0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
        0.24015818242558961693, 1.6536545626831027356]),
    (16.0, 3.25, True, [
        2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
        1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
        2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
        6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
        0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
        -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
        3.0838856104922207635]),
    (np.inf, 5.0, True, [
        -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
        -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
        2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
        -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
        7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
        1.0103004648645343977, 4.8499064014085844221]),
)


def erf_inv_f64(x) -> np.ndarray:
    """XLA CPU's float64 inverse error function."""
    x = np.asarray(x, _F64)
    with np.errstate(all="ignore"):
        w = -log1p_f64(-x * x)
        p = np.full(x.shape, np.nan)
        below = np.zeros(x.shape, bool)
        for bound, shift, in_sqrt, coeffs in _ERF_INV_F64:
            part = (w < bound) & ~below
            below |= part
            if part.any():
                wp = w[part]
                p[part] = _horner_f64((np.sqrt(wp) if in_sqrt else wp) - shift, coeffs)
        # erf_inv(+-1) = +-inf (x times the largest float64, as XLA: +-inf).
        return np.where(np.abs(x) == 1, x * np.inf, p * x)


def _f64(*words: int) -> list[np.float64]:
    return [np.array(w, np.uint64).view(_F64)[()] for w in words]


# XLA's float64 exp (Cephes' Pade form): n = floor(x * log2(e) + 1/2),
# g = x - n * ln2 in two parts, e**g = 1 + 2 g P(g**2) / (Q(g**2) - g P(g**2)),
# times 2**n applied as four factors (2**(n >> 2) three times and the rest),
# so that 2**n itself never overflows. Contracted multiply-adds as in XLA.
_EXP_LO, _EXP_HI, _LOG2E, _LN2_HI, _LN2_LO = _f64(
    0xC086232BDD7ABCD2, 0x40862E42FEFA39EF, 0x3FF71547652B82FE, 0x3FE62E4000000000, 0x3EB7F7D1CF79ABCA)
_EXP_P = _f64(0x3F2089CDD5E44BE8, 0x3F9F06D10CCA2C7E)
_EXP_Q = _f64(0x3EC92EB6BC365FA0, 0x3F64AE39B508B6C0, 0x3FCD17099887E074)


def _exp_f64(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        xc = np.maximum(np.minimum(x, _EXP_HI), _EXP_LO)  # NaN stays NaN
        n = np.floor(fma_f64(xc, _LOG2E, 0.5))
        g = fma_f64(n, -_LN2_LO, xc - n * _LN2_HI)  # n * _LN2_HI is exact
        g2 = g * g
        pg = fma_f64(fma_f64(g2, _EXP_P[0], _EXP_P[1]), g2, 1.0) * g
        q = fma_f64(fma_f64(fma_f64(g2, _EXP_Q[0], _EXP_Q[1]), g2, _EXP_Q[2]), g2, 2.0)
        e = (pg / (q - pg)) * 2.0 + 1.0  # the product is exact: one rounding
        k = np.clip(np.nan_to_num(n), -2099, 2099).astype(np.int64)
        quarter = k >> 2
        step = ((quarter + 1023) << 52).view(_F64)
        out = e * step * step * step * ((k - 3 * quarter + 1023) << 52).view(_F64)
    out = np.where(x < _EXP_LO, 0.0, out)
    return np.where(x > _EXP_HI, np.inf, out)


exp_f64 = _elementwise_f64(_exp_f64)
exp_f64.__doc__ = """XLA CPU's float64 exponential (Cephes' Pade form, not the C library's)."""
