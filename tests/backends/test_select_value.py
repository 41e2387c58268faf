"""select_n between an array and one value broadcast (a matrix's triangle
and zeros elsewhere, as linalg's autodiff rules mask their results): the
NumPy backend's bitwise blend in two to four passes (impls/standard.py
`_blend_value`), bitwise np.where's choice for every value."""

from __future__ import annotations

import numpy as np
import pytest

from pyjax._src.backends.numpy import impls
from pyjax._src.backends.numpy.impls import standard
from pyjax._src.lax import elementwise as ew

rng = np.random.default_rng(11)
N = 128


def masks():
    return {"triangle": np.tri(N, dtype=bool), "random": rng.random((N, N)) < 0.5,
            "broadcast rows": np.broadcast_to(rng.random((1, N)) < 0.5, (N, N))}


CASES = [(d, v) for d in (np.float32, np.float64, np.float16) for v in (0.0, -0.0, 1.5, np.nan, -7.0)]
CASES += [(np.int32, 0), (np.int32, -7), (np.int8, 0), (np.int8, 5), (np.uint64, 0), (np.uint64, 2**63 + 5)]


@pytest.mark.parametrize("dtype, value", CASES)
def test_array_against_one_value_is_np_wheres_choice(dtype, value, monkeypatch):
    x = (rng.standard_normal((N, N)) * 5).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x.reshape(-1)[:6] = [np.nan, -0.0, 0.0, np.inf, -np.inf, -1.0]
    v = np.broadcast_to(np.asarray(value, dtype), (N, N))
    # The general blend is not what runs here.
    monkeypatch.setattr(standard, "_blend", lambda *a: pytest.fail("took the two-array blend"))
    select = impls.IMPLS[ew.select_n_p]
    for name, which in masks().items():
        for cases in [(v, x), (x, v), (v, x[:, ::-1]), (np.broadcast_to(x[:1], (N, N)), v)]:
            want = np.where(which, cases[1], cases[0])
            got = select(which, *cases)
            assert got.dtype == want.dtype and got.shape == want.shape, name
            assert got.tobytes() == want.tobytes(), name
