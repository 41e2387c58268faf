"""integer_pow by repeated squaring (impls/standard.py `power_by_squaring`)
returns a square it computed itself without copying it (a squared distance's
`d ** 2` over 800x800x3 floats: one pass instead of two), and still never
returns its operand."""

from __future__ import annotations

import tracemalloc

import numpy as np

from pyjax._src.backends.numpy.impls import standard


def test_a_square_is_returned_without_a_copy_and_never_the_operand():
    x = np.random.default_rng(5).standard_normal((256, 1024)).astype(np.float32)
    tracemalloc.start()
    try:
        got = standard.power_by_squaring(x, 2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got.tobytes() == (x * x).tobytes()
    assert peak < 1.5 * x.nbytes  # (the square and a copy of it: 2x)
    once = standard.power_by_squaring(x, 1)
    assert once is not x and not np.shares_memory(once, x) and once.tobytes() == x.tobytes()
