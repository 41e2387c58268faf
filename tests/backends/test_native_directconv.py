"""float32 convolutions computed in C from the input (native/directconv.py):
the same bits as the patch path's patches @ weights (OpenBLAS's sgemm)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.impls import convolution as conv_impl
from pyjax._src.backends.numpy.native import directconv as direct_lib
from pyjax._src.backends.numpy.native import im2col as im2col_lib
from pyjax._src.backends.numpy.native import settings as native_settings

import native_kernels  # noqa: E402  (tests/backends: whether a kernel builds)




pytestmark = pytest.mark.skipif(not native_kernels.built(direct_lib.direct_conv, "fn"), reason="the direct kernel needs a C compiler and AVX-512")

rng = np.random.default_rng(52)


@pytest.fixture
def calls(monkeypatch):
    """The process's kernel, its calls counted (rows a call)."""
    counted = []
    real = conv_impl._direct_kernel[0]
    assert real is direct_lib.direct_conv and real.live

    class Counted:
        def ready(self, *args):
            return real.ready(*args)

        def padded(self, *args):
            return real.padded(*args)

        def grad_ready(self, *args):
            return real.grad_ready(*args)

        def shares(self, *args):
            return real.shares(*args)

        def grad(self, x, cot, geometry):
            counted.append(("grad", cot.shape[0]))
            return real.grad(x, cot, geometry)

        def __call__(self, *args):
            counted.append(args[4] - args[3])
            return real(*args)

    monkeypatch.setattr(conv_impl, "_direct_kernel", [Counted()])
    return counted


def grads(f, *args):
    pyjax.clear_caches()
    out = pyjax.jit(pyjax.value_and_grad(f, argnums=(0, 1)))(*args)
    return [np.asarray(v) for v in pyjax.tree.leaves(out)]


@pytest.mark.parametrize("lhs_shape,rhs_shape,strides,dilation,padding", [
    ((8, 16, 16, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME"),      # the ResNet block's
    ((8, 28, 28, 1), (3, 3, 1, 8), (1, 1), (1, 1), "SAME"),         # the small CNN's first layer
    ((8, 14, 14, 8), (3, 3, 8, 16), (1, 1), (1, 1), "SAME"),
    ((16, 25, 31, 6), (3, 2, 6, 40), (2, 3), (1, 1), "VALID"),     # masked columns past 32
    ((16, 12, 12, 5), (3, 3, 5, 21), (1, 1), (2, 1), ((2, 1), (0, 3))),
    ((2, 9, 10, 42), (3, 3, 42, 64), (1, 1), (1, 1), "SAME"),       # the longest contraction taken
])
def test_direct_kernel_gives_the_patch_paths_convolutions(lhs_shape, rhs_shape, strides, dilation, padding,
                                                          calls, monkeypatch):
    x = jnp.asarray(rng.standard_normal(lhs_shape).astype(np.float32))
    w = jnp.asarray(rng.standard_normal(rhs_shape).astype(np.float32))

    def f(x, w):
        out = lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=dilation,
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.sum(jnp.sin(out))

    fast = grads(f, x, w)
    assert calls  # (the forward at least; the input's gradient where eligible)
    monkeypatch.setattr(conv_impl, "_direct_kernel", [None])
    patch_way = grads(f, x, w)
    for a, b in zip(fast, patch_way, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_rows_and_special_values_match_numpys_product():
    x = rng.standard_normal((3, 9, 10, 5)).astype(np.float32)
    x[0, 1, 2] = [np.inf, -np.inf, np.nan, 0.0, -0.0]
    x[1] = 0.0
    geometry = ((3, 3), (9, 10), (1, 1), (1, 1), ((1, 1), (1, 1)))
    weights = rng.standard_normal((45, 16)).astype(np.float32)
    weights[3] = -0.0
    with np.errstate(invalid="ignore"):
        want = np.matmul(im2col_lib.numpy_im2col(x, *geometry), weights)
    got = np.full((200, 16), 7.0, np.float32)
    assert direct_lib.direct_conv(x, weights, got, 37, 237, geometry)
    assert direct_lib.same_bits(got, want[37:237])
    assert np.isnan(want).any() and (np.signbit(want) & (want == 0)).sum() == (np.signbit(got) & (got == 0)).sum()


def test_products_blas_sums_otherwise_are_not_taken():
    assert direct_lib.eligible(2048, 288, 32)
    assert direct_lib.eligible(6272, 9, 8)          # short contraction
    assert not direct_lib.eligible(2048, 432, 32)   # past MAX_K: OpenBLAS may split the sum
    assert not direct_lib.eligible(2048, 288, 1)    # a matrix-vector product
    assert not direct_lib.eligible(200, 144, 8)     # small-matrix kernel, another order
    assert not direct_lib.eligible(4, 72, 16)


def test_a_kernel_that_differs_fails_its_build_check():
    real = direct_lib.direct_conv.fn

    def wrong(x, w, out, r0, r1, g):  # one output element off
        real(x, w, out, r0, r1, g)
        np.frombuffer((ctypes.c_float * 1).from_address(out), np.float32)[0] += 1.0

    assert direct_lib._differs(real, direct_lib.direct_conv.pad_fn) is None
    assert "features" in direct_lib._differs(wrong, direct_lib.direct_conv.pad_fn)


def test_a_kernel_that_differs_is_dropped_on_a_recheck(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    tier = direct_lib.NativeDirectConv()
    assert tier.ready(2048, 288, 32) and tier.live
    real = tier.fn

    def wrong(x, w, out, r0, r1, g):
        real(x, w, out, r0, r1, g)
        np.frombuffer((ctypes.c_float * 1).from_address(out), np.float32)[0] += 1.0

    tier.fn = wrong
    x = rng.standard_normal((2, 6, 6, 4)).astype(np.float32)
    geometry = ((3, 3), (6, 6), (1, 1), (1, 1), ((1, 1), (1, 1)))
    weights = rng.standard_normal((36, 16)).astype(np.float32)
    out = np.empty((72, 16), np.float32)
    results = [tier(x, weights, out, 0, 72, geometry) for _ in range(3)]
    assert tier.dead and results[-1] is False and "differed" in tier.failure


def test_the_padded_copy_gives_the_same_rows():
    x = rng.standard_normal((2, 7, 9, 3)).astype(np.float32)
    geometry = ((3, 2), (5, 4), (2, 2), (1, 2), ((2, 3), (1, 0)))
    xp, inside = direct_lib.direct_conv.padded(x, geometry)
    assert inside[4] == ((0, 0), (0, 0)) and xp.shape[1] >= 7 + 2 and xp.shape[2] >= 9 + 1
    assert np.array_equal(xp[:, 2:9, 1:10], x) and not xp[:, :2].any() and not xp[:, :, :1].any()
    weights = rng.standard_normal((18, 5)).astype(np.float32)
    want = np.matmul(im2col_lib.numpy_im2col(x, *geometry), weights)
    got, from_padded = np.empty_like(want), np.empty_like(want)
    assert direct_lib.direct_conv(x, weights, got, 0, 40, geometry)
    assert direct_lib.direct_conv(xp, weights, from_padded, 0, 40, inside)
    assert got.tobytes() == want.tobytes() == from_padded.tobytes()


@pytest.mark.parametrize("lhs_shape,rhs_shape,strides,dilation,padding", [
    ((8, 16, 16, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME"),      # five blocks of the sum, the last two halved
    ((8, 14, 14, 8), (3, 3, 8, 16), (1, 1), (1, 1), "SAME"),        # the small CNN's second layer
    ((2, 7, 6, 3), (3, 3, 3, 40), (1, 1), (1, 1), "SAME"),          # small-matrix kernel: one chain
    ((6, 11, 13, 5), (3, 2, 5, 10), (2, 1), (1, 2), ((2, 0), (0, 3))),
])
def test_kernel_gradients_are_the_patch_paths(lhs_shape, rhs_shape, strides, dilation, padding, calls, monkeypatch):
    x = jnp.asarray(rng.standard_normal(lhs_shape).astype(np.float32))
    w = jnp.asarray(rng.standard_normal(rhs_shape).astype(np.float32))

    def f(w, x):
        out = lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=dilation,
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.sum(jnp.sin(out))

    pyjax.clear_caches()
    fast = np.asarray(pyjax.jit(pyjax.grad(f))(w, x))
    assert any(c[0] == "grad" for c in calls if isinstance(c, tuple))
    monkeypatch.setattr(conv_impl, "_direct_kernel", [None])
    pyjax.clear_caches()
    patch_way = np.asarray(pyjax.jit(pyjax.grad(f))(w, x))
    assert fast.tobytes() == patch_way.tobytes()


def test_the_sums_blocks_are_sgemms():
    assert direct_lib.sum_blocks(288, 2048, 32) == [0, 448, 896, 1344, 1696, 2048]
    assert direct_lib.sum_blocks(288, 512, 32) == [0, 256, 512]
    assert direct_lib.sum_blocks(9, 100, 8) == [0, 100]  # (small-matrix kernel: one chain)
    assert direct_lib.grad_eligible(72, 1568, 16, transposed=True)
    assert not direct_lib.grad_eligible(9, 6272, 8, transposed=False)  # a small copy of patches^T: another order
    assert direct_lib.grad_eligible(9, 65536, 32, transposed=False)
    assert not direct_lib.grad_eligible(288, 2048, 1, transposed=True)


def test_a_gradient_that_differs_fails_its_build_check():
    real = direct_lib.direct_conv.grad_fn

    def wrong(x, cot, out, g, b, blocks):  # the sum's blocks in one chain
        whole = np.array([0, np.frombuffer((ctypes.c_int64 * (blocks + 1)).from_address(b), np.int64)[-1]], np.int64)
        real(x, cot, out, g, whole.ctypes.data, 1)

    assert direct_lib._grad_differs(real, direct_lib.direct_conv.pad_fn) is None
    assert "kernel gradient" in direct_lib._grad_differs(wrong, direct_lib.direct_conv.pad_fn)


@pytest.mark.parametrize("chunk", [12, 36, 48, 1000])
def test_shared_calls_give_the_one_thread_kernels_bits(chunk):
    tier = direct_lib.direct_conv
    if not tier.run_shared:
        pytest.skip("one core here: the kernel runs on one thread")
    x = rng.standard_normal((8, 16, 16, 32)).astype(np.float32)
    x[0, 1, 2, :3] = [np.inf, np.nan, -0.0]
    geometry = ((3, 3), (16, 16), (1, 1), (1, 1), ((1, 1), (1, 1)))
    xp, inside = tier.padded(x, geometry)
    weights = rng.standard_normal((288, 32)).astype(np.float32)
    g = direct_lib._geometry(xp.shape, 32, inside)
    one, shared = np.empty((2000, 32), np.float32), np.full((2000, 32), 7.0, np.float32)
    with np.errstate(invalid="ignore"):
        tier.fn(xp.ctypes.data, weights.ctypes.data, one.ctypes.data, 37, 2037, g)
        tier.conv_shared(tier.run_shared, xp.ctypes.data, weights.ctypes.data, shared.ctypes.data, 37, 2037, g, chunk)
    assert direct_lib.same_bits(one, shared)
    cot = rng.standard_normal((2048, 32)).astype(np.float32)
    bounds = np.array(direct_lib.sum_blocks(288, 2048, 32), np.int64)
    one, shared = np.empty((288, 32), np.float32), np.full((288, 32), 7.0, np.float32)
    with np.errstate(invalid="ignore"):
        tier.grad_fn(xp.ctypes.data, cot.ctypes.data, one.ctypes.data, g, bounds.ctypes.data, len(bounds) - 1)
        tier.grad_shared(tier.run_shared, xp.ctypes.data, cot.ctypes.data, shared.ctypes.data, g, bounds.ctypes.data,
                         len(bounds) - 1, chunk)
    assert direct_lib.same_bits(one, shared)


def test_the_resnet_blocks_convolutions_share_their_rows():
    tier = direct_lib.direct_conv
    if not tier.run_shared:
        pytest.skip("one core here: the kernel runs on one thread")
    assert tier.shares(2048 * 288 * 32)           # the ResNet block's: ~19M multiply-adds
    assert not tier.shares(6272 * 9 * 8)          # the small CNN's first layer: too little to hand off
