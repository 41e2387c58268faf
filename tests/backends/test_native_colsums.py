"""Sums over leading axes in C (native/colsums.py): einsum's bits (each
column's running sum from +0 in the rows' order), NaNs, infinities, signed
zeros and subnormals included."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy.impls import standard
from pyjax._src.backends.numpy.native import colsums as colsums_lib
from pyjax._src.backends.numpy.native import settings as native_settings

import native_kernels  # noqa: E402  (tests/backends: whether a kernel builds)




pytestmark = pytest.mark.skipif(not native_kernels.built(colsums_lib.column_sums), reason="native code needs a C compiler")

rng = np.random.default_rng(59)


def special(shape, dtype):
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape[-1])).astype(dtype)
    flat = x.reshape(-1)
    tiny = np.finfo(dtype).smallest_subnormal
    for value, share in ((-0.0, 5), (tiny, 9)):
        flat[rng.integers(0, flat.size, max(1, flat.size // share))] = value
    rows = x.reshape(-1, shape[-1])
    rows[:, 0] = -0.0  # (a feature of -0 only: its sum from +0 is +0)
    rows[3, 1] = np.nan
    rows[5, -1], rows[7, -1] = np.inf, -np.inf
    rows[2, -2] = np.inf
    return x


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    ints = np.uint32 if a.dtype.itemsize == 4 else np.uint64
    return a.shape == b.shape and bool(np.all((a.view(ints) == b.view(ints)) | (np.isnan(a) & np.isnan(b))))


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = standard._column_sums[0]
    assert real is colsums_lib.column_sums and real.live

    class Counted:
        def sums(self, x):
            calls.append(x.shape)
            return real.sums(x)

    monkeypatch.setattr(standard, "_column_sums", [Counted()])
    return calls


@pytest.mark.parametrize("shape", [(8, 28, 28, 8), (8, 16, 16, 32), (4, 9, 7, 77), (8, 40, 30, 3), (64, 300)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_sums_are_einsums(shape, dtype, counted, monkeypatch):
    axes = tuple(range(len(shape) - 1))

    def run():
        pyjax.clear_caches()
        with np.errstate(all="ignore"):
            return np.asarray(pyjax.jit(lambda x: jnp.sum(x * 1.0, axis=axes))(x))

    with pyjax.enable_x64(dtype == np.float64):
        x = jnp.asarray(special(shape, dtype))
        fast = run()
        assert counted == [(np.prod(shape[:-1]), shape[-1])]
        monkeypatch.setattr(standard, "_column_sums", [None])
        einsum_way = run()
    assert fast.dtype == dtype and same(fast, einsum_way)
    assert same(fast, np.einsum("ij->j", np.asarray(x).reshape(-1, shape[-1])))


def test_small_sums_stay_with_einsum(counted):
    x = rng.standard_normal((4, 10, 16)).astype(np.float32)
    pyjax.clear_caches()
    got = pyjax.jit(lambda x: jnp.sum(x, axis=(0, 1)))(x)
    assert not counted and same(got, np.einsum("ij->j", x.reshape(-1, 16)))


def test_a_kernel_that_differs_fails_the_build_check_or_a_recheck(monkeypatch):
    real = colsums_lib.column_sums.fns

    def wrong(x, out, rows, cols):  # the first row left out
        row_bytes = cols * 4
        real[0](x + row_bytes, out, rows - 1, cols)

    assert colsums_lib._differs(real) is None
    assert "float32" in colsums_lib._differs((wrong, real[1]))
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    tier = colsums_lib.NativeColumnSums()
    x = rng.standard_normal((50, 8)).astype(np.float32)
    assert same(tier.sums(x), np.einsum("ij->j", x)) and tier.live
    tier.fns = (wrong, tier.fns[1])
    results = [tier.sums(x) for _ in range(3)]
    assert tier.dead and results[-1] is None and "differed" in tier.failure
