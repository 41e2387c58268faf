"""Max pooling over non-overlapping windows and its gradient in C
(native/pooling.py): the NumPy impls' bits, NaNs, infinities and signed
zeros included."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.impls import windowed
from pyjax._src.backends.numpy.native import pooling as pooling_lib
from pyjax._src.backends.numpy.native import settings as native_settings

import native_kernels  # noqa: E402  (tests/backends: whether a kernel builds)




pytestmark = pytest.mark.skipif(not native_kernels.built(pooling_lib.pooling), reason="native code needs a C compiler")

rng = np.random.default_rng(53)


def special(shape):
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    for value, share in ((0.0, 6), (-0.0, 6), (np.nan, 15), (np.inf, 20), (-np.inf, 20)):
        flat[rng.integers(0, flat.size, flat.size // share)] = value
    flat[1::5] = flat[::5][:flat[1::5].size]  # ties
    return x


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.all((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))))


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = windowed._pool_kernel[0]
    assert real is pooling_lib.pooling and real.live

    class Counted:
        takes = staticmethod(real.takes)
        ready = real.ready

        def max_pool(self, *args):
            calls.append("max")
            return real.max_pool(*args)

        def max_pool_grad(self, *args):
            calls.append("grad")
            return real.max_pool_grad(*args)

        takes_sum = staticmethod(real.takes_sum)

        def window_sum(self, *args):
            calls.append("sum")
            return real.window_sum(*args)

    monkeypatch.setattr(windowed, "_pool_kernel", [Counted()])
    return calls


@pytest.mark.parametrize("shape,window", [((8, 28, 28, 8), (2, 2)), ((3, 9, 7, 5), (2, 3)), ((2, 6, 8, 70), (3, 2)),
                                          ((2, 5, 5, 1), (1, 1))])
@pytest.mark.parametrize("specials", [False, True])
def test_pooling_and_its_gradient_are_numpys(shape, window, specials, counted, monkeypatch):
    x = jnp.asarray(special(shape) if specials else rng.standard_normal(shape).astype(np.float32))
    dims = (1, *window, 1)

    def f(x):
        y = lax.reduce_window(x, -jnp.inf, lax.max, dims, dims, "VALID")
        return jnp.sum(y * jnp.arange(y.size, dtype=jnp.float32).reshape(y.shape) - 0.5), y

    def run():
        pyjax.clear_caches()
        with np.errstate(all="ignore"):
            (_, y), g = pyjax.jit(pyjax.value_and_grad(f, has_aux=True))(x)
        return np.asarray(y), np.asarray(g)

    fast = run()
    assert "max" in counted and "grad" in counted
    monkeypatch.setattr(windowed, "_pool_kernel", [None])
    numpy_way = run()
    assert all(same(a, b) for a, b in zip(fast, numpy_way, strict=True))


@pytest.mark.parametrize("shape,window,strides", [((8, 14, 14, 16), (2, 2), (2, 2)), ((8, 15, 15, 16), (2, 2), (1, 1)),
                                                  ((3, 9, 7, 13), (3, 2), (2, 1)), ((2, 6, 8, 70), (3, 3), (1, 3))])
@pytest.mark.parametrize("specials", [False, True])
def test_window_sums_are_numpys(shape, window, strides, specials, counted, monkeypatch):
    x = jnp.asarray(special(shape) if specials else rng.standard_normal(shape).astype(np.float32))

    def run():
        pyjax.clear_caches()
        with np.errstate(all="ignore"):
            return np.asarray(pyjax.jit(lambda x: lax.reduce_window(x, 0.0, lax.add, (1, *window, 1), (1, *strides, 1),
                                                                    "VALID"))(x))

    fast = run()
    assert counted == ["sum"]
    monkeypatch.setattr(windowed, "_pool_kernel", [None])
    assert same(fast, run())


def test_poolings_it_does_not_take():
    x = np.zeros((2, 8, 8, 3), np.float32)
    ones = ((1, 1, 1, 1),)
    assert pooling_lib.takes(x, (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, *ones)
    assert not pooling_lib.takes(x, (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0),) * 4, *ones)          # overlapping
    assert not pooling_lib.takes(x, (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0), (1, 0), (0, 0), (0, 0)), *ones)
    assert not pooling_lib.takes(x, (2, 2, 2, 1), (2, 2, 2, 1), ((0, 0),) * 4, *ones)          # over the batch
    assert not pooling_lib.takes(x.astype(np.float64), (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, *ones)
    assert not pooling_lib.takes(x, (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, (1, 2, 1, 1))
    assert pooling_lib.takes_sum(x, (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0),) * 4, *ones)        # sums may overlap
    assert not pooling_lib.takes_sum(x, (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 0), (0, 0), (0, 0)), *ones)
    assert not pooling_lib.takes_sum(x, (1, 2, 2, 2), (1, 1, 1, 1), ((0, 0),) * 4, *ones)       # over the features
    assert not pooling_lib.takes_sum(x.astype(np.float64), (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0),) * 4, *ones)
    assert not pooling_lib.takes_sum(x.transpose(0, 2, 1, 3), (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0),) * 4, *ones)


def test_a_kernel_that_differs_fails_the_build_check_or_a_recheck(monkeypatch):
    real = pooling_lib.pooling.fns

    def wrong_grad(x, s, grad, p):  # the last of equal maxima instead of the first
        real[1](x, s, grad, p)
        np.frombuffer((ctypes.c_float * 1).from_address(grad), np.float32)[0] += 1.0

    def wrong_sum(x, out, p):  # the taps added from +0 (a window of -0 sums to +0)
        real[2](x, out, p)
        sums = np.frombuffer((ctypes.c_float * 4).from_address(out), np.float32)
        sums += np.float32(0.0)

    assert pooling_lib._differs(real, pooling_lib.pooling.reference) is None
    assert "gradient" in pooling_lib._differs((real[0], wrong_grad, real[2]), pooling_lib.pooling.reference)
    assert "window sums" in pooling_lib._differs((real[0], real[1], wrong_sum), pooling_lib.pooling.reference)
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    tier = pooling_lib.NativePooling()
    assert tier.ready() and tier.live
    tier.fns = (tier.fns[0], wrong_grad)
    x = np.ones((1, 4, 4, 2), np.float32)  # (every window ties: the first tap is chosen)
    s = np.ones((1, 2, 2, 2), np.float32)
    results = [tier.max_pool_grad(x, s, (2, 2)) for _ in range(3)]
    assert tier.dead and results[-1] is None and "differed" in tier.failure


@pytest.mark.parametrize("call", ["max", "grad", "sum"])
def test_the_sizes_array_is_alive_while_the_kernel_reads_it(call):
    # A kernel reads its sizes through a pointer while other threads run
    # (ctypes releases the GIL): the array must still be alive then, or an
    # allocation on another thread takes its memory (a crash seen in the
    # build check: garbage strides, a division by zero).
    seen = []

    def kernel(*pointers):
        junk = [np.full(n, -1, np.int64) for n in (6, 8) for _ in range(4)]  # (reuses freed blocks)
        seen.append(np.frombuffer((ctypes.c_int64 * 6).from_address(pointers[-1]), np.int64).copy())
        del junk

    x = np.zeros((1, 4, 4, 2), np.float32)
    if call == "max":
        pooling_lib._max_pool(kernel, x, (2, 2))
    elif call == "grad":
        pooling_lib._max_pool_grad(kernel, x, np.zeros((1, 2, 2, 2), np.float32), (2, 2))
    else:
        pooling_lib._window_sum(kernel, x, (2, 2), (1, 1))
    assert seen[0].tolist() == [1, 4, 4, 2, 2, 2]
