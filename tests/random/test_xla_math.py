"""XLA CPU's float32 log / log1p / erf_inv / erf / rsqrt and float64 exp / log /
log1p (backends/numpy/xla/xla_math.py) against values JAX 0.11.0 computed on the
CPU (bit patterns recorded with ``jax.jit(f)(x).view(uint32)``, float64 in
tests/golden/xla_math_f64.json), the jnp paths that must use them, the
erf_inv table path against the direct evaluation, and the PRNGs pyjax
refuses."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.special

import pyjax as jax
from pyjax import lax, random
from pyjax._src.backends.numpy.parallel import split
from pyjax._src.backends.numpy.xla import xla_math
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.backends.numpy.impls.interpreter import run_jaxpr

F32 = np.float32
ERF_INV_X = [0.0, -0.0, 0.1, -0.3, 0.5, 0.64, -0.7, 0.9, 0.99, -0.999, 0.9999, 1.0, -1.0, 1.5, np.nan, 1e-40]
ERF_INV_JAX = [0, 2147483648, 1035336225, 3196813373, 1056190718, 1059435234, 3208355151, 1066721289, 1072243507,
               3222595993, 1076891859, 2139095040, 4286578688, 2147483647, 2143289344, 0]
# (A denormal operand is left out: XLA's CPU kernels for log disagree on it.)
LOG_X = [1e-30, 0.001, 0.3, 0.7071, 0.75, 1.0, 1.5, 2.0, 10.0, 1e30, 0.0, -1.0, np.inf]
LOG_JAX = [3263834037, 3235712085, 3214547912, 3199300443, 3197324049, 0, 1053792543, 1060205080, 1075010958,
           1116350389, 4286578688, 4290772992, 2139095040]
LOG1P_X = [-0.9, -0.5, -0.41, -0.1, -1e-5, 0.0, 1e-5, 0.2, 0.414, 0.5, 3.0, -1.0, np.inf, 1e-40]
LOG1P_JAX = [3222494605, 3207688728, 3204911856, 3185035073, 3072837091, 0, 925353333, 1044034177, 1051811404,
             1053792543, 1068593688, 4286578688, 2139095040, 0]


def _assert_bits(actual, expected_bits):
    expected = np.array(expected_bits, np.uint32).view(F32)
    actual = np.asarray(actual, F32)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(actual), nan)
    np.testing.assert_array_equal(actual[~nan].view(np.uint32), expected[~nan].view(np.uint32))


@pytest.mark.parametrize("fn, xs, bits", [
    (xla_math.erf_inv_f32, ERF_INV_X, ERF_INV_JAX),
    (xla_math.log_f32, LOG_X, LOG_JAX),
    (xla_math.log1p_f32, LOG1P_X, LOG1P_JAX),
], ids=["erf_inv", "log", "log1p"])
def test_matches_xla_cpu(fn, xs, bits):
    with np.errstate(all="ignore"):
        _assert_bits(fn(np.array(xs, F32)), bits)


def test_lax_erf_inv_float32_is_xlas():
    x = np.array(ERF_INV_X, F32)
    _assert_bits(lax.erf_inv(x), ERF_INV_JAX)
    _assert_bits(jax.jit(lax.erf_inv)(x), ERF_INV_JAX)
    # ... which is not the correctly rounded value everywhere: scipy's differs.
    grid = np.linspace(-0.999, 0.999, 20001, dtype=F32)
    assert not np.array_equal(np.asarray(lax.erf_inv(grid)), scipy.special.erfinv(grid.astype(np.float64)).astype(F32))


def test_erf_inv_narrow_dtypes_round_the_float32_value():
    x = np.array([0.1, -0.5, 0.9], F32)
    for dtype in (np.float16, jax.numpy.bfloat16):
        expected = xla_math.erf_inv_f32(x.astype(dtype).astype(F32)).astype(dtype)
        np.testing.assert_array_equal(np.asarray(lax.erf_inv(x.astype(dtype))), expected)


def test_table_path_equals_direct_evaluation():
    # A draw of 2**20 values on the normal sampler's grid takes the table.
    k = np.random.default_rng(0).integers(0, 1 << 23, 1 << 20)
    u = (xla_math._GRID_LO + k.astype(F32) / xla_math._GRID_SCALE).astype(F32)
    assert xla_math._from_grid_table(u) is not None
    np.testing.assert_array_equal(xla_math.erf_inv_f32(u).view(np.uint32), xla_math._erf_inv_exact(u).view(np.uint32))


def test_off_grid_values_are_computed():
    u = np.linspace(-0.99, 0.99, 1 << 20, dtype=F32)
    assert xla_math._from_grid_table(u) is None
    u[::7] = np.nan
    assert xla_math._from_grid_table(u) is None
    out = xla_math.erf_inv_f32(u)
    assert np.isnan(out[::7]).all()
    np.testing.assert_array_equal(out[1:50], xla_math._erf_inv_exact(u[1:50]))


@pytest.mark.parametrize("name", ["philox2x32", "philox4x32", "threefry4x32"])
def test_unimplemented_prngs_are_refused_by_name(name):
    with pytest.raises(NotImplementedError, match=f"the {name} PRNG is not implemented"):
        random.key(0, impl=name)
    with _default_impl(name):
        with pytest.raises(NotImplementedError, match=f"the {name} PRNG is not implemented"):
            random.key(0)


class _default_impl:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.previous = jax.config.jax_default_prng_impl
        jax.config.update("jax_default_prng_impl", self.name)

    def __exit__(self, *exc):
        jax.config.update("jax_default_prng_impl", self.previous)


def test_fma_f64_rounds_once():
    # Against the exact a * b + c rounded once (Fraction -> float is correctly rounded).
    from fractions import Fraction

    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(2000), rng.standard_normal(2000)
    c = -(a * b) * (1 + rng.uniform(-1e-6, 1e-6, 2000))  # heavy cancellation: one rounding matters
    got = xla_math.fma_f64(a, b, c)
    want = np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c, strict=True)])
    assert np.array_equal(got, want)
    assert not np.array_equal(a * b + c, want)


# ---- rsqrt: the CPU's 12-bit estimate and one Newton step (float32)
# Inputs where XLA's result is not the correctly rounded 1 / sqrt(x) (one
# ulp off, every exponent range), then the edges; bits from JAX 0.11.0's
# `jax.jit(lax.rsqrt)(x).view(uint32)` on the recording CPU.
RSQRT_X_BITS = [1065355265, 1117024280, 984309555, 1237607150, 736005203, 1090232906, 1578670233, 406348852,
                1197184027, 1048575998]
RSQRT_JAX = [1065351168, 1038989640, 1105018609, 978234611, 1229071844, 1052153151, 807782971, 1394004474,
             998913381, 1073741824]
RSQRT_EDGES = [1.0, 2.0, 0.0, -0.0, 1e-40, np.inf, -2.0, np.nan]
RSQRT_EDGES_JAX = [1065353216, 1060439283, 2139095040, 4286578688, 2139095040, 0, 4290772992, 2143289344]
# `3.0 / jnp.sqrt(x)` under jit: XLA multiplies by the rsqrt instead of dividing.
THREE_OVER_SQRT_JAX = [1077934592, 1051871990, 1118170933, 991625654, 1242668139, 1065938927, 821604184,
                       1407335159, 1011830808, 1086324736]


def _rsqrt_inputs():
    return np.array(RSQRT_X_BITS, np.uint32).view(F32)


def test_rsqrt_matches_xla_cpu():
    x = _rsqrt_inputs()
    _assert_bits(xla_math.rsqrt_f32(x), RSQRT_JAX)
    with np.errstate(all="ignore"):
        _assert_bits(xla_math.rsqrt_f32(np.array(RSQRT_EDGES, F32)), RSQRT_EDGES_JAX)
        # ... and each of these differs from the correctly rounded value.
        correct = (1 / np.sqrt(x.astype(np.float64))).astype(F32)
    assert (correct.view(np.uint32) != np.array(RSQRT_JAX, np.uint32)).all()
    # XLA's `a / sqrt(b)` is a times that rsqrt.
    _assert_bits(F32(3) * xla_math.rsqrt_f32(x), THREE_OVER_SQRT_JAX)


def test_lax_rsqrt_is_xlas():
    x = _rsqrt_inputs()
    _assert_bits(lax.rsqrt(x), RSQRT_JAX)
    _assert_bits(jax.jit(lax.rsqrt)(x), RSQRT_JAX)
    # Narrow floats round the float32 rsqrt.
    for dtype in (np.float16, jax.numpy.bfloat16):
        narrow = np.array([0.3, 1.7, 5.0, 123.0], dtype)
        expected = xla_math.rsqrt_f32(narrow.astype(F32)).astype(dtype)
        np.testing.assert_array_equal(np.asarray(lax.rsqrt(narrow)).view(np.uint16), expected.view(np.uint16))


def test_rsqrt_estimate_is_scaled_by_the_exponent():
    # The estimate table covers [1, 4): x * 4**k has the estimate times 2**-k.
    x = np.linspace(1, 4, 4097, dtype=F32)[:-1]
    base = xla_math.rsqrt_estimate_f32(x)
    assert (np.abs(base.astype(np.float64) * np.sqrt(x.astype(np.float64)) - 1) < 1.5 * 2.0 ** -12).all()
    for k in (-60, -3, 1, 20, 62):
        scaled = xla_math.rsqrt_estimate_f32(x * F32(4.0) ** k)
        np.testing.assert_array_equal(scaled, base * F32(2.0) ** -k)


def _cpu_estimates(x):
    # The estimate rsqrtss gives on this CPU, through a tiny C program built
    # by the compiler native code uses.
    import subprocess
    import tempfile
    from pathlib import Path

    from pyjax._src.backends.numpy.native import compiler

    cc = compiler()
    if cc is None or "avx" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("needs a C compiler and an x86-64 CPU with AVX")
    source = r"""
    #include <immintrin.h>
    #include <stdio.h>
    int main(void) { float x; while (scanf("%a", &x) == 1) printf("%a\n", _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)))); }
    """
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "p.c").write_text(source)
        subprocess.run([cc, "-O1", "-mavx", "p.c", "-o", "p"], cwd=tmp, check=True)
        out = subprocess.run([str(Path(tmp, "p"))], input="\n".join(float(v).hex() for v in x), text=True,
                             capture_output=True, check=True).stdout
    return np.array([float.fromhex(v) for v in out.split()], F32)


def test_rsqrt_estimate_table_is_this_cpus():
    # The table was dumped on an AMD EPYC (tools/rsqrt_estimate_table.py);
    # an Intel CPU's rsqrtps differs, and so do JAX's float32 rsqrt bits there.
    from pathlib import Path

    if "AMD EPYC" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("the table is an AMD EPYC's rsqrtps")
    x = np.random.default_rng(3).uniform(1, 4, 2000).astype(F32) * F32(4.0) ** np.arange(-10, 10).repeat(100)
    np.testing.assert_array_equal(_cpu_estimates(x), xla_math.rsqrt_estimate_f32(x))


# ---- erf (float32): XLA's rational approximation; inputs where scipy's
# correctly rounded erf differs from it. Bits from `jax.jit(lax.erf)`.
ERF_X_BITS = [3217698070, 1074906407, 1029193059, 3220742186, 1075049672, 1080042768, 3209998405, 3223945863]
ERF_JAX = [3212409053, 1065331789, 1030997538, 3212735947, 1065335135, 1065353205, 3208810080, 3212833845]


def test_erf_matches_xla_cpu():
    x = np.array(ERF_X_BITS, np.uint32).view(F32)
    _assert_bits(xla_math.erf_f32(x), ERF_JAX)
    _assert_bits(lax.erf(x), ERF_JAX)
    _assert_bits(jax.jit(lax.erf)(x), ERF_JAX)
    assert (scipy.special.erf(x.astype(np.float64)).astype(F32).view(np.uint32) != np.array(ERF_JAX, np.uint32)).all()
    # Past |x| = 3.8325 the result is +-1; denormal inputs count as zero.
    edges = xla_math.erf_f32(np.array([3.9, -5.0, np.inf, 1e-40, -1e-40], F32))
    np.testing.assert_array_equal(edges.view(np.uint32), np.array([1.0, -1.0, 1.0, 0.0, -0.0], F32).view(np.uint32))


# ---- exp (float64): Cephes' Pade form with contracted multiply-adds, not the
# C library's; inputs where NumPy's differs. Bits from `jax.jit(jnp.exp)` (x64).
EXP_X = [-27.984865481672138, 10.827428215065765, -10.254344660455146, -0.3218115196603897, -11.568112206376789,
         -21.703686307503183, -7.169857406765562, -8.034623855805808]
EXP_JAX = [4424983349350787690, 4677157532771835616, 4540320050321414493, 4604703950966684816, 4531703644442947310,
           4465820151746593542, 4560235984916139978, 4554613224573763708]
# Edges: +-0, +-inf, NaN, near overflow, near the flush to zero (no denormals).
EXP_EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 709.78, 709.79, -708.39, -708.4, 1e-300, -745.0]
EXP_EDGES_JAX = [4607182418800017408, 4607182418800017408, 9218868437227405312, 0, 9221120237041090560,
                 9218844034771735220, 9218868437227405312, 4532599094331755, 0, 4607182418800017408, 0]


def test_exp_f64_matches_xla_cpu():
    x = np.array(EXP_X)
    np.testing.assert_array_equal(xla_math.exp_f64(x).view(np.uint64), np.array(EXP_JAX, np.uint64))
    assert (np.exp(x).view(np.uint64) != np.array(EXP_JAX, np.uint64)).all()
    edges = xla_math.exp_f64(np.array(EXP_EDGES)).view(np.uint64)
    np.testing.assert_array_equal(edges, np.array(EXP_EDGES_JAX, np.uint64))


# ---- float64 exp / log / log1p as XLA's CPU computes them, against the
# bits recorded by tests/golden/record_xla_math_f64.py (mostly inputs where
# NumPy's ufunc differs from XLA), through xla_math and through every path
# jnp takes: the eager plan, compiled code (small, 0-d and split across the
# cores) and the jaxpr interpreter.
F64_FUNCTIONS = ("exp", "log", "log1p")
_XLA_F64 = {"exp": xla_math.exp_f64, "log": xla_math.log_f64, "log1p": xla_math.log1p_f64}


@functools.cache
def _recorded_f64(name: str) -> tuple[np.ndarray, np.ndarray]:
    path = Path(__file__).resolve().parents[1] / "golden" / "xla_math_f64.json"
    entry = json.loads(path.read_text())["functions"][name]
    return np.array(entry["x"], np.uint64).view(np.float64), np.array(entry["jax"], np.uint64)


def _assert_bits_f64(actual, expected_bits: np.ndarray) -> None:
    actual = np.asarray(actual)
    assert actual.dtype == np.float64 and actual.shape == expected_bits.shape
    nan = np.isnan(expected_bits.view(np.float64))
    np.testing.assert_array_equal(np.isnan(actual), nan)
    np.testing.assert_array_equal(actual[~nan].view(np.uint64), expected_bits[~nan])


@pytest.fixture
def x64():
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("name", F64_FUNCTIONS)
def test_f64_matches_xla_cpu(name):
    x, bits = _recorded_f64(name)
    _assert_bits_f64(_XLA_F64[name](x), bits)
    with np.errstate(all="ignore"):
        numpy_bits = getattr(np, name)(x).view(np.uint64)
    assert (numpy_bits != bits).sum() >= 100  # the recorded inputs are ones NumPy gets wrong
    for i in range(0, x.size, 97):  # 0-d operands too
        _assert_bits_f64(_XLA_F64[name](x[i]), bits[i])


@pytest.mark.parametrize("name", F64_FUNCTIONS)
def test_jnp_f64_is_xlas_on_every_path(name, x64):
    x, bits = _recorded_f64(name)
    fn = getattr(jax.numpy, name)
    array = jax.numpy.asarray(x)
    with np.errstate(all="ignore"):
        _assert_bits_f64(fn(array), bits)  # builds the eager plan
        _assert_bits_f64(fn(array), bits)  # runs it
        _assert_bits_f64(getattr(lax, name)(array), bits)
        _assert_bits_f64(jax.jit(fn)(x), bits)
        # Inside a larger compiled program, and on 0-d values.
        _assert_bits_f64(jax.jit(lambda v: fn(v * 1.0) * 1.0)(x), bits)
        _assert_bits_f64(jax.jit(fn)(x[3]), bits[3])
        _assert_bits_f64(fn(array[3]), bits[3])
        closed = jax.make_jaxpr(fn)(x)
        _assert_bits_f64(run_jaxpr(closed.jaxpr, IMPLS, [x])[0], bits)


@pytest.mark.parametrize("name", F64_FUNCTIONS)
def test_jnp_f64_large_arrays_split_bitwise(name, x64):
    # Past split.MIN_RANGE elements the emulation runs by index ranges.
    x, bits = _recorded_f64(name)
    reps = -(-split.MIN_RANGE // x.size) + 1
    big, big_bits = np.tile(x, reps).reshape(reps, -1), np.tile(bits, reps).reshape(reps, -1)
    with np.errstate(all="ignore"):
        _assert_bits_f64(jax.jit(getattr(jax.numpy, name))(big), big_bits)
        _assert_bits_f64(_XLA_F64[name](big), big_bits)


def test_float32_keeps_numpys_ufunc():
    # Only float64 is routed to the emulation: float32 plans and compiled code call the ufunc.
    for name in F64_FUNCTIONS:
        impl = IMPLS[getattr(lax, name + "_p")]
        assert impl.ufunc is getattr(np, name) and np.dtype(np.float32) not in impl.exact_dtypes
    x = np.linspace(0.1, 3, 1001, dtype=F32)
    for name in F64_FUNCTIONS:
        fn = getattr(jax.numpy, name)
        np.testing.assert_array_equal(np.asarray(jax.jit(fn)(x)), getattr(np, name)(x))
        np.testing.assert_array_equal(np.asarray(fn(jax.numpy.asarray(x))), getattr(np, name)(x))
