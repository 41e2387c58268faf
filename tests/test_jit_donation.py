"""jit's buffer donation on CPU, pinned to JAX 0.11.0's recorded behaviour
(tests/golden/jit_donation.json, recorded by
tests/golden/record_jit_donation.py from cases_jit_donation.py): a donated
Array is deleted only when an output can reuse its buffer (an exact type
first, then, as XLA, an output of as many elements and bytes), JAX's
warning about the others (once per compilation), and XLA's refusal of a
taken buffer passed twice; and pyjax.donation.plan's matching directly."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("jit_donation")


namespace, test_recording_is_current, test_case_matches_jax = case_set.standard_tests(CASES)


from pyjax._src import donation  # noqa: E402
from pyjax._src.avals import ShapedArray  # noqa: E402


def _a(shape, dtype=np.float32):
    return ShapedArray(shape, np.dtype(dtype))


def test_plan_exact_types_before_sizes_and_bytes():
    ins = [_a((4,)), _a((2, 2)), _a((4,), np.float16)]
    outs = [_a((2, 2)), _a((4,), np.int32), _a((4,), np.int8)]
    p = donation.plan(ins, outs, [True, True, True])
    # (2,2) aliased exactly; f32[4] goes to XLA and fits i32[4]; f16[4] too, but no output has its bytes.
    assert p.taken == [True, True, False] and p.unusable == []
    p = donation.plan(ins, [_a(())], [True, True, False])
    assert p.taken == [False, False, False] and p.unusable == ins[:2]


def test_plan_on_several_devices_warns_about_nothing():
    p = donation.plan([_a((4,)), _a((3,))], [_a((2, 2))], [True, True], several_devices=True)
    assert p.taken == [True, False] and p.unusable == []
