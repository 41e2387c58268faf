"""XLA's float32 `erf_inv` in C, operation for operation as xla/xla_math.py
evaluates it (the normal sampler's transform, so that loops drawing normal
numbers run natively).

xla_math.py writes XLA's fused multiply-adds as a float64 product and sum
rounded once to float32 (`_fma`, `_horner`); the C below does the same
float64 operations (native code is built with -ffp-contract=off, so the
compiler fuses nothing), and every other step is the same float32 IEEE
operation, so the bits are the Python code's. The coefficients are read
from xla_math.py, not copied. A NaN input's payload is NumPy's vector
multiply's (its first operand's); NumPy's own scalar loops may differ on a
NaN whose payload is not the default's (a bitcast's), which re-checks catch.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.numpy.native.csource import _Source, _Unsupported, _View, _element_lines
from pyjax._src.backends.numpy.xla import xla_math

_F32 = np.dtype(np.float32)


def _f(value) -> str:
    # An exact C literal of a float32 or float64 constant.
    return f"{float(value).hex()}"


def _horner(acc: str, x: str, coeffs, out: str) -> str:
    # xla_math._horner: acc = fma(acc, x, c), rounded to float32 each step.
    return "".join(f"{acc} = {acc} * {x} + {_f(c)}; {out} = (float){acc}; {acc} = {out}; " for c in coeffs)


def _erf_inv_source() -> str:
    m = xla_math
    p = m._LOG_P
    fma = "pj_fma32"
    return f"""\
static inline float {fma}(float a, float b, float c) {{ return (float)((double)a * (double)b + (double)c); }}
static inline float pj_flush32(float x) {{ return fabsf(x) < {_f(m._MIN_NORMAL)}f ? copysignf(0.0f, x) : x; }}
static float pj_log_f32(float v) {{
    float x = v > {_f(m._MIN_NORMAL)}f ? v : {_f(m._MIN_NORMAL)}f;
    uint32_t w, nan_bits = 0xFFFFFFFFu; memcpy(&w, &x, 4);
    float e = (float)((int32_t)(w >> 23) - 127) + 1.0f, mant, nan;
    uint32_t mw = (w & 0x807FFFFFu) | 0x3F000000u; memcpy(&mant, &mw, 4); memcpy(&nan, &nan_bits, 4);
    int low = mant < {_f(m._SQRT_HALF)}f;
    e = e - (float)low;
    x = (mant - 1.0f) + (low ? mant : 0.0f);
    float x2 = x * x, x3 = x2 * x;
    float y0 = {fma}({fma}(x, {_f(p[0])}f, {_f(p[1])}f), x, {_f(p[2])}f);
    float y1 = {fma}({fma}(x, {_f(p[3])}f, {_f(p[4])}f), x, {_f(p[5])}f);
    float y2 = {fma}({fma}(x, {_f(p[6])}f, {_f(p[7])}f), x, {_f(p[8])}f);
    float y = {fma}({fma}(y0, x3, y1), x3, y2);
    y = {fma}(y, x3, e * {_f(m._LOG_Q1)}f);
    float out = ((x - x2 * 0.5f) + y) + e * {_f(m._LOG_Q2)}f;
    out = v > 0 ? out : nan;
    if (fabsf(v) < {_f(m._MIN_NORMAL)}f) out = -INFINITY;
    return v == INFINITY ? v : out;
}}
static float pj_log1p_f32(float x) {{
    x = pj_flush32(x);
    if (!(fabsf(x) < {_f(m._LOG1P_CUT)}f)) return pj_log_f32(x + 1.0f);
    double x64 = x, den, num = {_f(m._LOG1P_NUM0)};
    float den32 = x + {_f(m._LOG1P_DEN0)}f, acc32 = 0;
    den = den32;
    {_horner("den", "x64", m._LOG1P_DEN, "den32")}
    {_horner("num", "x64", m._LOG1P_NUM, "acc32")}
    float x2 = x * x;
    return x + ((x * x2) * (acc32 / den32) + x2 * -0.5f);
}}
static float pj_erf_inv_f32(float u) {{
    u = pj_flush32(u);
    float l = pj_log1p_f32(u * -u), p = 0;
    double acc;
    if (l > -5.0f) {{
        double t = (float)(-2.5f - l); acc = {_f(m._ERF_INV_SMALL[0])};
        {_horner("acc", "t", m._ERF_INV_SMALL[1:], "p")}
    }} else {{
        double t = (float)(sqrtf(-l) - 3.0f); acc = {_f(m._ERF_INV_LARGE[0])};
        {_horner("acc", "t", m._ERF_INV_LARGE[1:], "p")}
    }}
    if (fabsf(u) == 1.0f) p = INFINITY;
    /* NumPy's vector multiply returns its first NaN operand (quieted); C's
       operand order is the compiler's. */
    if (u != u) {{ uint32_t b; memcpy(&b, &u, 4); b |= 0x00400000u; memcpy(&u, &b, 4); return u; }}
    return u * p;
}}
{_vector_source()}"""


# Below this |u| (and for u flushed to zero) erf_inv takes its first
# polynomial (log1p(-u * u) > -5 from |u| < 0.9966), its result finite.
_VECTOR_BOUND = "0.99f"


def _vector_source() -> str:
    # The same operations for |u| < 0.99 (all but ~1% of uniform draws), with
    # selects for branches (both sides computed): GCC vectorises the loop
    # when traps are off (it may then compute both sides, and IEEE values do
    # not change with that). The other inputs go to the function above.
    m = xla_math
    p = m._LOG_P
    fma = "pj_fma32_v"
    return f"""\
#pragma GCC push_options
#pragma GCC optimize ("O2", "tree-vectorize", "vect-cost-model=dynamic", "no-trapping-math")
static inline float {fma}(float a, float b, float c) {{ return (float)((double)a * (double)b + (double)c); }}
static inline float pj_flush32_v(float x) {{ return fabsf(x) < {_f(m._MIN_NORMAL)}f ? copysignf(0.0f, x) : x; }}
static inline float pj_log_f32_v(float v) {{
    float x = v > {_f(m._MIN_NORMAL)}f ? v : {_f(m._MIN_NORMAL)}f;
    uint32_t w; memcpy(&w, &x, 4);
    float e = (float)((int32_t)(w >> 23) - 127) + 1.0f, mant;
    uint32_t mw = (w & 0x807FFFFFu) | 0x3F000000u; memcpy(&mant, &mw, 4);
    int low = mant < {_f(m._SQRT_HALF)}f;
    e = e - (float)low;
    x = (mant - 1.0f) + (low ? mant : 0.0f);
    float x2 = x * x, x3 = x2 * x;
    float y0 = {fma}({fma}(x, {_f(p[0])}f, {_f(p[1])}f), x, {_f(p[2])}f);
    float y1 = {fma}({fma}(x, {_f(p[3])}f, {_f(p[4])}f), x, {_f(p[5])}f);
    float y2 = {fma}({fma}(x, {_f(p[6])}f, {_f(p[7])}f), x, {_f(p[8])}f);
    float y = {fma}({fma}(y0, x3, y1), x3, y2);
    y = {fma}(y, x3, e * {_f(m._LOG_Q1)}f);
    return ((x - x2 * 0.5f) + y) + e * {_f(m._LOG_Q2)}f;  /* (v > 0 here: 1 - u * u > 0.0199) */
}}
static inline float pj_erf_inv_f32_v(float u) {{
    u = pj_flush32_v(u);
    float x = pj_flush32_v(u * -u), big = pj_log_f32_v(x + 1.0f);
    double x64 = x, den, num = {_f(m._LOG1P_NUM0)};
    float den32 = x + {_f(m._LOG1P_DEN0)}f, acc32 = 0;
    den = den32;
    {_horner("den", "x64", m._LOG1P_DEN, "den32")}
    {_horner("num", "x64", m._LOG1P_NUM, "acc32")}
    float x2 = x * x, l = fabsf(x) < {_f(m._LOG1P_CUT)}f ? x + ((x * x2) * (acc32 / den32) + x2 * -0.5f) : big, p = 0;
    double acc = {_f(m._ERF_INV_SMALL[0])}, t = (float)(-2.5f - l);
    {_horner("acc", "t", m._ERF_INV_SMALL[1:], "p")}
    return u * p;
}}
/* erf_inv of n contiguous floats (in place too: each block is read before
   it is written). */
static void pj_erf_inv_f32_n(const float *x, float *y, intptr_t n) {{
    float part[256];
    for (intptr_t i = 0; i < n; i += 256) {{
        intptr_t m = n - i < 256 ? n - i : 256;
        for (intptr_t k = 0; k < m; k++) part[k] = pj_erf_inv_f32_v(x[i + k]);
        for (intptr_t k = 0; k < m; k++) y[i + k] = fabsf(x[i + k]) < {_VECTOR_BOUND} ? part[k] : pj_erf_inv_f32(x[i + k]);
    }}
}}
#pragma GCC pop_options"""


def erf_inv_lines(src: _Source, ins: list, out: _View) -> list[str]:
    """The impl (impls/special.py `_erf_inv`) for float32: xla_math.erf_inv_f32
    (its grid table, for draws of 2**20 and more, holds the same values)."""
    (x,) = ins
    if x.dtype != _F32 or out.dtype != _F32:
        raise _Unsupported(f"erf_inv of {x.dtype}")
    src.helpers.setdefault("pj_erf_inv_f32", _erf_inv_source())
    if x.shape == out.shape and x.contiguous and out.contiguous:
        return [f"pj_erf_inv_f32_n((const float *){x.ptr}, (float *){out.ptr}, {out.size});"]
    return _element_lines(src, out.shape, [x, out], lambda r: f"{r[1]} = pj_erf_inv_f32({r[0]});")
