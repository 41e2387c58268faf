"""NumPy impls of the special functions, and of the elementwise primitives
added with them (complex, clamp, mulhi, the total-order comparisons,
bitcast_convert_type, reduce_precision).

Special functions are computed with scipy.special in float64 and rounded to
the operand dtype (XLA computes bfloat16/float16 in float32; the rounding to
the narrow dtype hides the difference). Where scipy's conventions differ
from XLA's at the edges (digamma at the poles, zeta at q = inf, signed
zeros) the impl does what XLA does. `igamma_grad_a` and `random_gamma_grad`
have no scipy counterpart: they evaluate the series (small x) or continued
fraction (large x) of the incomplete gamma function together with its
derivative in `a` (forward-mode through the recurrences), as XLA does.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from pyjax._src import dtypes
from pyjax._src.backends.numpy.xla import xla_math
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import special as sp
from pyjax._src.backends.numpy.impls.lazy_scipy import deferred
from pyjax._src.backends.numpy.impls.lazy_scipy import special as sc

IMPLS: dict = {}

_PY_SCALARS = (bool, int, float, complex)


def _common_dtype(*args) -> np.dtype:
    # NEP 50: Python scalars are weak, as in JAX; all-Python operands take
    # the canonical default dtype.
    dtype = np.result_type(*args)
    if all(type(a) in _PY_SCALARS for a in args):
        dtype = dtypes.canonicalize_dtype(dtype)
    return dtype


# ---------------------------------------------------------------------------
# Elementwise primitives added with this family


def _complex(x, y):
    dtype = _common_dtype(x, y)
    out = np.empty(np.broadcast_shapes(np.shape(x), np.shape(y)),
                   np.complex128 if dtype == np.float64 else np.complex64)
    # Set the parts directly: x + 1j * y turns an infinite y into a NaN real part.
    out.real = x
    out.imag = y
    return out


def _clamp(lo, x, hi):
    from pyjax._src.backends.numpy.impls import IMPLS as table  # the merged table, built after this module

    dtype = _common_dtype(lo, x, hi)
    lo, x, hi = (np.asarray(v, dtype) for v in (lo, x, hi))
    # XLA's clamp is min(max(x, lo), hi), with max/min's NaN and signed-zero rules.
    return np.asarray(table[ew.min_p](table[ew.max_p](x, lo), hi), dtype)


def _mulhi(x, y):
    dtype = _common_dtype(x, y)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    bits = dtype.itemsize * 8
    if bits <= 32:
        wide = np.dtype(f"{dtype.kind}{2 * dtype.itemsize}")
        return ((x.astype(wide) * y.astype(wide)) >> bits).astype(dtype)
    # 64 bits: the high word of the unsigned 128-bit product from 32-bit halves,
    # then the two's-complement correction for signed operands.
    ux, uy = x.view(np.uint64), y.view(np.uint64)
    low_mask, shift = np.uint64(0xFFFFFFFF), np.uint64(32)
    x_lo, x_hi, y_lo, y_hi = ux & low_mask, ux >> shift, uy & low_mask, uy >> shift
    cross = ((x_lo * y_lo) >> shift) + ((x_hi * y_lo) & low_mask) + x_lo * y_hi
    high = x_hi * y_hi + ((x_hi * y_lo) >> shift) + (cross >> shift)
    if dtype.kind == "i":
        high = high - np.where(x < 0, uy, np.uint64(0)) - np.where(y < 0, ux, np.uint64(0))
    return high.view(dtype)


def _bitcast_convert_type(operand, *, new_dtype):
    x = np.asarray(operand)  # (np.ascontiguousarray would make a 0-d value 1-d)
    old_bits, new_bits = x.dtype.itemsize * 8, new_dtype.itemsize * 8
    if old_bits == new_bits:
        return x.view(new_dtype)
    flat = np.ascontiguousarray(x.reshape(-1)).view(new_dtype)  # little-endian element order, as XLA on CPU
    if old_bits > new_bits:
        return flat.reshape(*x.shape, old_bits // new_bits)
    return flat.reshape(x.shape[:-1])


def _reduce_precision(operand, *, exponent_bits, mantissa_bits):
    x = np.asarray(operand)
    info = ml_dtypes.finfo(x.dtype)
    src_mantissa, src_exponent, nbits = info.nmant, info.nexp, x.dtype.itemsize * 8
    utype = np.dtype(f"u{x.dtype.itemsize}")
    one = utype.type(1)
    bits = x.view(utype).copy()
    if mantissa_bits < src_mantissa:
        # Round to nearest, ties to even, on the integer image: add half an ulp
        # of the narrower format (minus one, plus the kept last bit), then cut.
        shift = utype.type(src_mantissa - mantissa_bits)
        last_bit_mask = one << shift
        half_minus_one = (last_bit_mask >> one) - one
        last_bit = (bits & last_bit_mask) >> shift
        bits = (bits + last_bit + half_minus_one) & np.invert(last_bit_mask - one)
    if exponent_bits < src_exponent:
        # Exponents above the narrower range overflow to a signed infinity;
        # those at or below its minimum (its denormals included) flush to a signed zero.
        sign_mask = one << utype.type(nbits - 1)
        exponent_mask = ((one << utype.type(src_exponent)) - one) << utype.type(src_mantissa)
        bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exponent_mask
        overflows = exponent > (utype.type(bias + reduced_bias) << utype.type(src_mantissa))
        underflows = exponent <= (utype.type(bias - reduced_bias) << utype.type(src_mantissa))
        signed_zero = bits & sign_mask
        bits = np.where(overflows, signed_zero | exponent_mask, np.where(underflows, signed_zero, bits))
    out = np.asarray(bits, utype).view(x.dtype)
    return np.where(np.isnan(x), x, out)  # NaN stays NaN


def _total_order_key(x):
    # Floats as signed integers whose order is IEEE 754's total order: the
    # magnitude bits of negative values are flipped, so -0.0 < +0.0 and the
    # NaNs sit beyond the infinities. Other dtypes compare as they are.
    if not dtypes.issubdtype(x.dtype, np.floating):
        return x
    signed = np.dtype(f"i{x.dtype.itemsize}")
    bits = x.view(signed)
    return np.where(bits < 0, bits ^ np.iinfo(signed).max, bits)


def _total_order(compare):
    def impl(x, y):
        dtype = _common_dtype(x, y)
        return compare(_total_order_key(np.asarray(x, dtype)), _total_order_key(np.asarray(y, dtype)))

    return impl


IMPLS[ew.eq_to_p] = _total_order(np.equal)
IMPLS[ew.le_to_p] = _total_order(np.less_equal)
IMPLS[ew.lt_to_p] = _total_order(np.less)
IMPLS[ew.complex_p] = _complex
IMPLS[ew.clamp_p] = _clamp
IMPLS[ew.mulhi_p] = _mulhi
IMPLS[ew.bitcast_convert_type_p] = _bitcast_convert_type
IMPLS[ew.reduce_precision_p] = _reduce_precision


# ---------------------------------------------------------------------------
# Special functions: float64 in, the operand dtype out


def _special(fn):
    """An impl that computes `fn` on float64 operands and rounds the result
    to the operands' dtype."""

    def impl(*args, **params):
        dtype = _common_dtype(*args)
        with np.errstate(all="ignore"):
            out = fn(*(np.asarray(a, np.float64) for a in args))
        return np.asarray(out).astype(dtype)

    impl.__name__ = fn.__name__
    return impl


def _keep_signed_zero(fn):
    # For odd functions XLA returns -0.0 at -0.0; scipy returns +0.0.
    def odd(x):
        return np.where(x == 0, x, fn(x))

    odd.__name__ = fn.__name__
    return odd


def _is_pole(x):
    return (x <= 0) & (x == np.floor(x))


def _lgamma(x):
    return np.where(x == -np.inf, np.inf, sc.gammaln(x))  # scipy: -inf at -inf


def _digamma(x):
    return np.where(_is_pole(x), np.nan, sc.psi(x))  # scipy: ±inf at 0, NaN at the other poles


def _zeta(x, q):
    # scipy's values, with XLA's results where the sum is not finite:
    # * q a pole (a non-positive integer, or -inf): the terms (q + k)**-x hit
    #   1/0, which sums to inf for even integer x and to NaN otherwise;
    # * x < 1: NaN, but for x = 0, -2, ... at those poles (inf again);
    # * x = ±inf, q = +inf or a NaN: NaN; x = 1 always gives inf.
    out = sc.zeta(x, q)
    q_pole = (q <= 0) & (q == np.floor(q))
    x_even = (x == np.floor(x)) & (np.fmod(x, 2) == 0)
    out = np.where(q_pole, np.where(x_even, np.inf, np.nan), out)
    out = np.where((x < 1) & ~(q_pole & x_even), np.nan, out)
    out = np.where(np.isinf(x) | (q == np.inf) | np.isnan(x) | np.isnan(q), np.nan, out)
    return np.where(x == 1, np.inf, out)


def _polygamma(m, x):
    # psi^(m)(x) = (-1)**(m + 1) m! zeta(m + 1, x) for integer m >= 1 (with
    # zeta's pole rules); m = 0 is digamma. Other m give NaN.
    valid = (m >= 0) & (m == np.floor(m)) & np.isfinite(m)
    safe_m = np.where(valid, m, 1.0)
    higher = np.where(np.fmod(safe_m, 2) == 0, -1.0, 1.0) * np.exp(sc.gammaln(safe_m + 1)) * _zeta(safe_m + 1, x)
    return np.where(valid, np.where(m == 0, _digamma(x), higher), np.nan)


def _igamma(a, x):
    # XLA sums the series ax / a with ax underflowing to 0 when a = 0, so
    # P(0, x) is NaN for 0 < x < 1 (and 1 from x = 1, where it uses 1 - Q).
    return np.where((a == 0) & (x > 0) & (x < 1), np.nan, sc.gammainc(a, x))


def _erf_inv(x, **params):
    # Float32 and narrower (which XLA computes in float32): XLA's own
    # polynomial approximation, bit for bit; float64: scipy's.
    dtype = _common_dtype(x)
    if dtype.itemsize <= 4:
        return xla_math.erf_inv_f32(np.asarray(x, np.float32)).astype(dtype)
    return _erf_inv_f64(x)


_erf_inv_f64 = xla_math.erf_inv_f64  # XLA CPU's float64 erf_inv (Giles), bit for bit


def _erf(x, **params):
    # Float32 and narrower (computed in float32): XLA's rational approximation, bit for bit.
    dtype = _common_dtype(x)
    if dtype.itemsize <= 4:
        return xla_math.erf_f32(np.asarray(x, np.float32)).astype(dtype)
    with np.errstate(all="ignore"):
        return np.asarray(sc.erf(np.asarray(x, np.float64))).astype(dtype)


IMPLS[sp.erf_p] = _erf
IMPLS[sp.erfc_p] = _special(deferred(sc, "erfc"))
IMPLS[sp.erf_inv_p] = _erf_inv
IMPLS[sp.lgamma_p] = _special(_lgamma)
IMPLS[sp.digamma_p] = _special(_digamma)
IMPLS[sp.polygamma_p] = _special(_polygamma)
IMPLS[sp.igamma_p] = _special(_igamma)
IMPLS[sp.igammac_p] = _special(deferred(sc, "gammaincc"))
IMPLS[sp.zeta_p] = _special(_zeta)
IMPLS[sp.bessel_i0e_p] = _special(deferred(sc, "i0e"))
IMPLS[sp.bessel_i1e_p] = _special(_keep_signed_zero(deferred(sc, "i1e")))
IMPLS[sp.regularized_incomplete_beta_p] = _special(deferred(sc, "betainc"))


# ---------------------------------------------------------------------------
# The derivative of the incomplete gamma function in `a`
#
# For x <= 1 or x <= a:  P(a, x) = ax * S,   ax = x**a e**-x / Gamma(a + 1),
#                        S = sum_n x**n / ((a + 1) ... (a + n)).
# Otherwise:             Q(a, x) = ax' * F,  ax' = x**a e**-x / Gamma(a),
#                        F the continued fraction of Q (Cephes' recurrence).
# Both are summed with their derivative in `a` carried alongside; the
# elements still iterating are compacted each step, so the cost follows the
# slowest element's count only for that element.

_MAX_ITERATIONS = 2000
_EPS = np.finfo(np.float64).eps
_BIG = 1.0 / _EPS


def _iterate(state: dict, step, out_names: tuple) -> list:
    """Runs `step(state) -> converged mask` on the unconverged elements until
    all converge (or _MAX_ITERATIONS); returns the `out_names` arrays."""
    size = next(iter(state.values())).size
    results = [np.empty(size) for _ in out_names]
    index = np.arange(size)
    for _ in range(_MAX_ITERATIONS):
        if index.size == 0:
            break
        done = step(state)
        if done.any():
            for result, name in zip(results, out_names, strict=True):
                result[index[done]] = state[name][done]
            keep = ~done
            index = index[keep]
            state = {k: v[keep] for k, v in state.items()}
    for result, name in zip(results, out_names, strict=True):
        result[index] = state[name]
    return results


def _series_step(s: dict) -> np.ndarray:
    s["r"] = s["r"] + 1.0
    s["dterm"] = (s["dterm"] - s["term"] / s["r"]) * s["x"] / s["r"]
    s["term"] = s["term"] * s["x"] / s["r"]
    s["total"] = s["total"] + s["term"]
    s["dtotal"] = s["dtotal"] + s["dterm"]
    return ((np.abs(s["term"]) <= np.abs(s["total"]) * _EPS)
            & (np.abs(s["dterm"]) <= np.abs(s["dtotal"]) * _EPS))


def _series(a, x):
    """S and dS/da."""
    ones, zeros = np.ones_like(a), np.zeros_like(a)
    state = {"x": x, "r": a.copy(), "term": ones, "dterm": zeros, "total": ones.copy(),
             "dtotal": zeros.copy()}
    return _iterate(state, _series_step, ("total", "dtotal"))


def _fraction_step(s: dict) -> np.ndarray:
    s["c"] = s["c"] + 1.0
    s["y"] = s["y"] + 1.0
    s["z"] = s["z"] + 2.0
    yc, dyc = s["y"] * s["c"], -s["c"]  # dy/da = dz/da = -1
    pk = s["pkm1"] * s["z"] - s["pkm2"] * yc
    qk = s["qkm1"] * s["z"] - s["qkm2"] * yc
    dpk = s["dpkm1"] * s["z"] - s["pkm1"] - s["dpkm2"] * yc - s["pkm2"] * dyc
    dqk = s["dqkm1"] * s["z"] - s["qkm1"] - s["dqkm2"] * yc - s["qkm2"] * dyc
    nonzero = qk != 0
    safe_qk = np.where(nonzero, qk, 1.0)
    ratio = np.where(nonzero, pk / safe_qk, s["ans"])
    dratio = np.where(nonzero, (dpk - ratio * dqk) / safe_qk, s["dans"])
    done = nonzero & (np.abs(s["ans"] - ratio) <= _EPS * np.abs(ratio)) & (
        np.abs(s["dans"] - dratio) <= _EPS * np.abs(dratio))
    s["ans"], s["dans"] = ratio, dratio
    s["pkm2"], s["pkm1"], s["qkm2"], s["qkm1"] = s["pkm1"], pk, s["qkm1"], qk
    s["dpkm2"], s["dpkm1"], s["dqkm2"], s["dqkm1"] = s["dpkm1"], dpk, s["dqkm1"], dqk
    rescale = np.where(np.abs(pk) > _BIG, _EPS, 1.0)
    for name in ("pkm2", "pkm1", "qkm2", "qkm1", "dpkm2", "dpkm1", "dqkm2", "dqkm1"):
        s[name] = s[name] * rescale
    return done


def _continued_fraction(a, x):
    """F and dF/da."""
    y = 1.0 - a
    z = x + y + 1.0
    state = {"c": np.zeros_like(a), "y": y, "z": z, "pkm2": np.ones_like(a), "qkm2": x.copy(),
             "pkm1": x + 1.0, "qkm1": z * x, "dpkm2": np.zeros_like(a), "dqkm2": np.zeros_like(a),
             "dpkm1": np.zeros_like(a), "dqkm1": -x}
    state["ans"] = state["pkm1"] / state["qkm1"]
    state["dans"] = (state["dpkm1"] - state["ans"] * state["dqkm1"]) / state["qkm1"]
    return _iterate(state, _fraction_step, ("ans", "dans"))


def _gamma_derivatives(a, x, *, sample_grad: bool):
    """dP(a, x)/da, or (sample_grad) the derivative of a Gamma(a) sample x in a."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    shape = a.shape
    a, x = a.reshape(-1), x.reshape(-1)
    out = np.full(a.shape, np.nan)
    out[(x == 0) & (a > 0)] = 0.0  # x = inf stays NaN, as in XLA
    live = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    use_fraction = live & (x > 1) & (x > a)
    use_series = live & ~use_fraction
    if use_series.any():
        sa, sx = a[use_series], x[use_series]
        total, dtotal = _series(sa, sx)
        inner = (np.log(sx) - sc.psi(sa + 1)) * total + dtotal
        if sample_grad:
            out[use_series] = -inner * sx / sa
        else:
            out[use_series] = np.exp(sa * np.log(sx) - sx - sc.gammaln(sa + 1)) * inner
    if use_fraction.any():
        fa, fx = a[use_fraction], x[use_fraction]
        ans, dans = _continued_fraction(fa, fx)
        inner = (np.log(fx) - sc.psi(fa)) * ans + dans
        if sample_grad:
            out[use_fraction] = inner * fx
        else:
            out[use_fraction] = -np.exp(fa * np.log(fx) - fx - sc.gammaln(fa)) * inner
    return out.reshape(shape)


def _igamma_grad_a(a, x):
    return _gamma_derivatives(a, x, sample_grad=False)


def _random_gamma_grad(a, x):
    return _gamma_derivatives(a, x, sample_grad=True)


IMPLS[sp.igamma_grad_a_p] = _special(_igamma_grad_a)
IMPLS[sp.random_gamma_grad_p] = _special(_random_gamma_grad)
