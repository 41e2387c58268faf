"""A convolution's patch matrix made in C (native/im2col.py): the same bytes as
NumPy's padded-window copy, so the same convolutions bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.impls import convolution as conv_impl
from pyjax._src.backends.numpy.native import im2col as im2col_lib
from pyjax._src.backends.numpy.native import settings as native_settings

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

rng = np.random.default_rng(45)


@pytest.fixture
def kernel(monkeypatch):
    """The process's kernel, built now, its calls counted."""
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    assert im2col_lib.im2col.ready(1 << 20) and im2col_lib.im2col.live
    monkeypatch.setattr(conv_impl, "_direct_kernel", [None])  # (the patch path: native/directconv.py's tests)
    calls = []
    real = conv_impl._patch_kernel[0]

    class Counted:
        def ready(self, nbytes):
            return real.ready(nbytes)

        def __call__(self, *args):
            calls.append(args[3] - args[2])
            return real(*args)

    monkeypatch.setattr(conv_impl, "_patch_kernel", [Counted()])
    return calls


def grads(f, *args):
    pyjax.clear_caches()
    out = pyjax.jit(pyjax.value_and_grad(f, argnums=(0, 1)))(*args)
    return [np.asarray(v) for v in pyjax.tree.leaves(out)]


@pytest.mark.parametrize("dn,lhs_shape,rhs_shape,strides,dilation,padding,dtype", [
    (("NHWC", "HWIO", "NHWC"), (8, 16, 16, 32), (3, 3, 32, 32), (1, 1), (1, 1), "SAME", np.float32),
    (("NHWC", "HWIO", "NHWC"), (8, 40, 44, 6), (3, 2, 6, 7), (2, 3), (1, 1), "VALID", np.float32),
    (("NHWC", "HWIO", "NHWC"), (8, 24, 24, 3), (3, 3, 3, 5), (1, 1), (2, 1), ((2, 1), (0, 3)), np.float32),
    (("NHWC", "HWIO", "NHWC"), (6, 14, 14, 8), (5, 5, 8, 4), (2, 2), (1, 2), "SAME", np.float64),
    (("NHWC", "HWIO", "NHWC"), (8, 28, 28, 1), (3, 3, 1, 8), (1, 1), (1, 1), "SAME", np.float32),
])
def test_native_patches_give_numpys_convolutions(dn, lhs_shape, rhs_shape, strides, dilation, padding, dtype,
                                                 kernel, monkeypatch):
    x = jnp.asarray(rng.standard_normal(lhs_shape).astype(dtype))
    w = jnp.asarray(rng.standard_normal(rhs_shape).astype(dtype))

    def f(x, w):
        out = lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=dilation, dimension_numbers=dn)
        return jnp.sum(jnp.sin(out))

    fast = grads(f, x, w)
    assert kernel  # (the forward, and the input's and the kernel's gradients where their patches are large)
    monkeypatch.setattr(conv_impl, "_patch_kernel", [None])
    numpy_way = grads(f, x, w)
    for a, b in zip(fast, numpy_way, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_kernel_rows_match_the_numpy_patch_matrix(kernel):
    x = rng.standard_normal((3, 9, 10, 5)).astype(np.float32)
    geometry = ((3, 3), (9, 10), (1, 1), (1, 1), ((1, 1), (1, 1)))
    want = im2col_lib.numpy_im2col(x, *geometry)
    got = np.full((40, want.shape[1]), np.nan, np.float32)
    assert im2col_lib.im2col(x, got, 17, 57, geometry)
    assert got.tobytes() == want[17:57].tobytes()


def test_a_kernel_that_differs_is_dropped_on_a_recheck(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    tier = im2col_lib.NativeIm2col()
    assert tier.ready(1 << 20)
    real = tier.fn

    def wrong(x, out, r0, r1, g):  # one patch element off
        real(x, out, r0, r1, g)
        np.frombuffer((np.ctypeslib.ctypes.c_float * 1).from_address(out), np.float32)[0] += 1.0

    tier.fn = wrong
    x = rng.standard_normal((2, 6, 6, 4)).astype(np.float32)
    geometry = ((3, 3), (6, 6), (1, 1), (1, 1), ((1, 1), (1, 1)))
    out = np.empty((72, 36), np.float32)
    results = [tier(x, out, 0, 72, geometry) for _ in range(3)]
    assert tier.dead and results[-1] is False and "differed" in tier.failure
