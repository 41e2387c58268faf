"""Differential fuzzing of the native tier against the Python code
(pyjax.tools.fuzz_native): random programs over the operations the tier
takes, on random and edge values, compared bitwise. The nightly command
runs thousands: ``python -m pyjax.tools.fuzz_native --cases 5000 --seed N``.
"""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from helpers import native_tiers_made

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import fpenv, native
from pyjax._src.backends.numpy.native import build as native_build
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax.tools import fuzz_native

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED or native_build._headers() is None,
                                reason="native code needs a C compiler and Python's headers")



def test_random_programs_run_natively_bit_for_bit():
    seed = int(os.environ.get("PYJAX_FUZZ_SEED", "0"))
    report = fuzz_native.fuzz(cases=240, seed=seed, per_batch=12, input_sets=6)
    print(report.summary())
    assert report.live_batches >= report.batches // 2, report.summary()  # the tier really ran
    assert report.float64_live, report.summary()  # float64 programs ran as float64 (x64 on)
    assert not report.failures, f"seed {seed}:\n" + "\n".join(report.failures[:5])


def test_the_fuzzer_waits_for_every_build(monkeypatch):
    # A first call waits a few seconds for its build, then runs in Python; on
    # a loaded machine the fuzzer's probe then found ops "without a tier"
    # and the same seed drew other programs. It waits for every build.
    monkeypatch.setattr(native_settings, "_FIRST_CALL_WAIT_S", 0.0)  # every build "too slow"
    ops = set(fuzz_native._ops())
    report = fuzz_native.fuzz(cases=12, seed=3, per_batch=12, input_sets=2, exclude=frozenset(ops - {"add", "max"}))
    assert report.batches and report.live_batches == report.batches, report.summary()
    assert not report.unsupported and not report.failures, (report.unsupported, report.failures)
    assert native_settings._FIRST_CALL_WAIT_S == 0.0  # (restored)


def test_the_fuzzers_probe_finds_float32_products(monkeypatch):
    # Its probe followed an op with an add: a product then fused into one
    # multiply-add, a program too short for a tier, so float32 `mul` and
    # `square` were never drawn.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    ops = {name: op for name, op in fuzz_native._ops().items() if name in ("mul", "square", "max", "add", "sub")}
    assert sorted(fuzz_native._supported(ops, np.float32, False)) == ["add", "max", "mul", "square", "sub"]


def _tier(f, *args):
    # The program tier `jit(f)` builds on its first (checked) call.
    jf = pyjax.jit(f)
    _, made = native_tiers_made(lambda: jf(*args))
    assert len(made) == 1, made
    return jf, made[0]


def _python(f, *args):
    saved, native_settings.ENABLED = native_settings.ENABLED, False
    try:
        return pyjax.jit(f)(*args)
    finally:
        native_settings.ENABLED = saved


# Every (lo, x, hi) of signed zeros and ±1: 64 triples, one per element.
_TRIPLES = np.array(list(itertools.product([0.0, -0.0, 1.0, -1.0], repeat=3))).T.reshape(3, 8, 8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["max", "min", "clamp", "max_first", "min_first", "max_last", "min_all"])
def test_extrema_of_signed_zeros_are_the_impls(op, dtype, monkeypatch):
    # Found by the fuzzer: clamp(-0.0, -0.0, +0.0) natively gave +0.0 (the
    # min's zero fix-up read the max after NumPy's min overwrote it), and a
    # max/min over the leading axis did not compile (its fix-up's name hid
    # the arguments' array). The impls order -0.0 below +0.0 (XLA's rule).
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    fn = {"max": lambda lo, x, hi: jnp.maximum(x, lo), "min": lambda lo, x, hi: jnp.minimum(x, hi),
          "clamp": lambda lo, x, hi: lax.clamp(lo, x, hi),
          "max_first": lambda lo, x, hi: jnp.max(x * lo, axis=0), "min_first": lambda lo, x, hi: jnp.min(x, axis=0),
          "max_last": lambda lo, x, hi: jnp.max(x * hi, axis=-1), "min_all": lambda lo, x, hi: jnp.min(x + lo)}[op]
    f = lambda lo, x, hi: (fn(lo, x, hi), x - 1.0)
    with pyjax.enable_x64(dtype == "float64"):
        lo, x, hi = _TRIPLES.astype(dtype)
        jf, tier = _tier(f, lo, x, hi)
        assert tier.live, tier.failure
        assert all(np.dtype(d) == dtype for _, d in tier.in_specs)
        for args in [(lo, x, hi), (x, lo, hi), (hi, x, lo), (-lo, -x, -hi)]:
            want = _python(f, *args)
            got = fpenv.run(tier._call, *args)  # the native code itself, never re-checked
            assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes(), (args, got[0], want[0])


@pytest.mark.parametrize("op", ["max", "clamp"])
def test_scan_extrema_of_signed_zeros_are_the_impls(op, monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    step = (lambda c, lo, hi: jnp.maximum(lo, c)) if op == "max" else (lambda c, lo, hi: lax.clamp(lo, c, hi))
    f = lambda lo, x, hi: lax.scan(lambda c, _: (step(c, lo, hi), None), x, None, length=3)[0]
    lo, x, hi = _TRIPLES.astype(np.float32)
    _, tier = _tier(f, lo, x, hi)
    assert tier.live, tier.failure  # its checked call matched the impls bitwise


def test_a_float64_fma_is_the_impls_emulation(monkeypatch):
    # Found by the fuzzer once its float64 cases ran in float64: the impl's
    # float64 fma (xla_math.fma_f64) is an emulation, which rounds
    # -5e-324 * 0.5 + 5e-324 to 5e-324 where C's fma gives 0.0.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    f = lambda a, b, c: (a * b + c, a - 1.0)
    with pyjax.enable_x64(True):
        ones = np.ones((4, 8))
        _, tier = _tier(f, ones, ones, ones)
        assert tier.live, tier.failure
        a, b, c = ones.copy(), ones.copy(), ones.copy()
        tiny = np.finfo(np.float64).smallest_subnormal
        a[0, :3], b[0, :3], c[0, :3] = [-tiny, 1e300, 3.0], [0.5, 1e10, 1 / 3], [tiny, -np.inf, -1.0]
        values = np.random.default_rng(3).standard_normal(8)
        a[1], b[1], c[1] = values, values * 7, -values
        want = _python(f, a, b, c)
        assert want[0].dtype == np.float64
        got = fpenv.run(tier._call, a, b, c)
        assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes(), (got[0][:2], want[0][:2])


def test_an_fma_with_nan_operands_gives_the_impls_nan(monkeypatch):
    # Found by the fuzzer: a hardware fma picks among NaN operands in its
    # own order; the impl's NaN is NumPy's multiply-then-add's. a * b + b
    # with a = +NaN, b = -NaN: +NaN from the impl, -NaN from fmaf.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    f = lambda a, b: (a * b + b, a - 1.0)
    jf = pyjax.jit(f)
    ones = np.ones((4, 8), np.float32)
    _, (tier,) = native_tiers_made(lambda: jf(ones, ones))
    assert tier.live, tier.failure
    a, b = ones.copy(), ones.copy()
    nan = np.float32(np.nan)
    a[0, :4], b[0, :4] = [nan, -nan, np.inf, -nan], [-nan, nan, 0.0, 2.0]
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        want = pyjax.jit(f)(a, b)
    got = fpenv.run(tier._call, a, b)  # the native code itself (in pyjax's FP mode)
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()
    assert np.asarray(jf(a, b)[0]).tobytes() == np.asarray(want[0]).tobytes() and tier.live


# Found by the fuzzer with short sources built at -O3 (GCC 12): a select's
# element loop over a 4x8 block, `c[j] ? x[j] : y[j]` with a bool `c` and
# values of 4 bytes computed by the program (its scratch), became masked
# vector loads that reused the first row's mask for every later row, so
# rows 1-3 read zeros (or leftovers) in place of the chosen values. The
# element loops now read every operand before choosing. (Sources are no
# longer built at -O3, which miscompiled another way, but no element loop
# relies on that.)
_SELECTS = {
    "int32": lambda c, x, y: jnp.where(c > 0, x + 1, y - 1),
    "float32": lambda c, x, y: jnp.where(c > 0, x.astype(jnp.float32), y.astype(jnp.float32)),
}


@pytest.mark.parametrize("op", sorted(_SELECTS))
def test_selects_built_at_O3_are_the_impls(op, monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    monkeypatch.setattr(native_build, "opt_level", lambda source, straight_line=False: "-O3")
    fn = _SELECTS[op]
    f = lambda c, x, y: (fn(c, x, y), x - 1)
    rng = np.random.default_rng(5)
    c = rng.integers(-40, 40, (4, 8), dtype=np.int32)
    x, y = (rng.integers(-2**31, 2**31 - 1, (4, 8), dtype=np.int32) | 1 for _ in range(2))
    _, tier = _tier(f, c, x, y)
    assert tier.live, tier.failure
    for _ in range(4):
        c = rng.integers(-40, 40, (4, 8), dtype=np.int32)
        want = _python(f, c, x, y)
        got = fpenv.run(tier._call, c, x, y)  # the native code itself, never re-checked
        assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes(), (c, got[0], want[0])
