"""Autodiff of conv_general_dilated: the bilinear JVP and both transposes
against finite differences (check_grads, forward and reverse, to second
order: a convolution's second derivative is again a convolution), over 1-D
to 3-D, strides, paddings, lhs and rhs dilation, feature and batch groups,
layouts and preferred_element_type; the transposes checked against the
adjoint identity directly; and the empty-output corner.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.test_util import check_grads

# float32 finite differences: the tolerance these checks were written for
# (JAX's own default for float32 is 2e-3)
check_grads = functools.partial(check_grads, atol=2e-2, rtol=2e-2)


def _values(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, shape).astype(np.float32)


def _conv(**params):
    return lambda x, w: lax.conv_general_dilated(x, w, **params)


CASES = [
    # name, lhs shape, rhs shape, params
    ("1d_valid", (2, 3, 7), (4, 3, 3), {"window_strides": (1,), "padding": "VALID"}),
    ("1d_same_strided", (2, 3, 8), (4, 3, 3), {"window_strides": (2,), "padding": "SAME"}),
    ("1d_padding_rhs_dilation", (2, 3, 8), (4, 3, 3),
     {"window_strides": (2,), "padding": ((1, 1),), "rhs_dilation": (2,)}),
    ("1d_lhs_dilation", (1, 2, 5), (3, 2, 2),
     {"window_strides": (1,), "padding": ((1, 0),), "lhs_dilation": (2,)}),
    ("1d_negative_padding", (1, 2, 9), (2, 2, 3),
     {"window_strides": (2,), "padding": ((-1, 2),)}),
    ("2d_same", (2, 3, 5, 6), (4, 3, 3, 3), {"window_strides": (1, 1), "padding": "SAME"}),
    ("2d_strided_valid_uneven", (1, 2, 9, 10), (3, 2, 3, 2), {"window_strides": (2, 3), "padding": "VALID"}),
    ("2d_both_dilations", (2, 2, 6, 5), (3, 2, 2, 3),
     {"window_strides": (1, 2), "padding": ((1, 2), (0, 1)), "lhs_dilation": (2, 1), "rhs_dilation": (1, 2)}),
    ("2d_nhwc_hwio", (2, 6, 5, 3), (3, 2, 3, 4),
     {"window_strides": (2, 1), "padding": "SAME", "dimension_numbers": ("NHWC", "HWIO", "NHWC")}),
    ("2d_mixed_layouts", (2, 6, 5, 3), (4, 3, 2, 2),
     {"window_strides": (1, 1), "padding": "VALID", "dimension_numbers": ("NHWC", "OIHW", "NCHW")}),
    ("1d_feature_groups", (2, 4, 8), (6, 2, 3), {"window_strides": (1,), "padding": "SAME", "feature_group_count": 2}),
    ("2d_depthwise_nhwc", (1, 5, 5, 3), (3, 3, 1, 6),
     {"window_strides": (1, 1), "padding": "SAME", "feature_group_count": 3,
          "dimension_numbers": ("NHWC", "HWIO", "NHWC")}),
    ("2d_feature_groups_strided_dilated", (2, 6, 7, 6), (6, 2, 2, 3),
     {"window_strides": (2, 1), "padding": ((0, 1), (1, 1)), "rhs_dilation": (2, 1), "feature_group_count": 3}),
    ("1d_batch_groups", (4, 3, 7), (6, 3, 2), {"window_strides": (1,), "padding": "VALID", "batch_group_count": 2}),
    ("2d_batch_groups_nhwc", (3, 5, 4, 2), (2, 2, 2, 6),
     {"window_strides": (2, 1), "padding": ((0, 1), (1, 0)), "batch_group_count": 3,
          "dimension_numbers": ("NHWC", "HWIO", "NHWC")}),
    ("3d_same", (1, 2, 4, 5, 3), (2, 2, 2, 3, 2), {"window_strides": (1, 2, 1), "padding": "SAME"}),
]


@pytest.mark.parametrize("name, lhs_shape, rhs_shape, params", CASES, ids=[c[0] for c in CASES])
def test_conv_grads(name, lhs_shape, rhs_shape, params):
    x, w = _values(lhs_shape, 0), _values(rhs_shape, 1)
    check_grads(_conv(**params), (x, w), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name, lhs_shape, rhs_shape, params", CASES, ids=[c[0] for c in CASES])
def test_conv_transposes_are_adjoint(name, lhs_shape, rhs_shape, params):
    # <ct, conv(x, w)> == <vjp_x(ct), x> == <vjp_w(ct), w>: conv is bilinear,
    # so each cotangent is the exact adjoint of the map in that argument.
    x, w = _values(lhs_shape, 2), _values(rhs_shape, 3)
    out, vjp = jax.vjp(_conv(**params), x, w)
    ct = _values(np.shape(out), 4)
    ct_x, ct_w = vjp(ct)
    assert ct_x.shape == x.shape and ct_w.shape == w.shape
    full = np.vdot(np.asarray(ct, np.float64), np.asarray(out, np.float64))
    np.testing.assert_allclose(np.vdot(np.asarray(ct_x, np.float64), x), full, rtol=1e-4)
    np.testing.assert_allclose(np.vdot(np.asarray(ct_w, np.float64), w), full, rtol=1e-4)


def test_conv_transpose_wrapper_grads():
    x, w = _values((1, 4, 4, 2), 5), _values((3, 3, 2, 5), 6)
    f = lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME")
    check_grads(f, (x, w), order=2, modes=("fwd", "rev"))


def test_conv_patches_grad():
    x = _values((1, 2, 4, 4), 7)
    check_grads(lambda x: lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID"), (x,), order=1,
                modes=("fwd", "rev"))


def test_conv_grad_nonlinear_loss_under_jit():
    x, w = _values((2, 3, 6), 8), _values((4, 3, 3), 9)
    loss = lambda x, w: jnp.sum(jnp.tanh(lax.conv(x, w, (1,), "SAME")))
    check_grads(jax.jit(loss), (x, w), order=2, modes=("fwd", "rev"))
    gx, gw = jax.jit(jax.grad(loss, argnums=(0, 1)))(x, w)
    ex, ew = jax.grad(loss, argnums=(0, 1))(x, w)
    np.testing.assert_allclose(gx, ex, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, ew, rtol=1e-5, atol=1e-6)


def test_conv_preferred_element_type_casts_cotangents_back():
    x = jnp.asarray(_values((1, 2, 6), 10), jnp.bfloat16)
    w = jnp.asarray(_values((3, 2, 2), 11), jnp.bfloat16)
    f = lambda x, w: jnp.sum(lax.conv(x, w, (1,), "VALID", preferred_element_type=jnp.float32))
    gx, gw = jax.grad(f, argnums=(0, 1))(x, w)
    assert gx.dtype == jnp.bfloat16 and gw.dtype == jnp.bfloat16
    ex, ew = jax.grad(f, argnums=(0, 1))(x.astype(jnp.float32), w.astype(jnp.float32))
    np.testing.assert_allclose(np.asarray(gx, np.float32), ex, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(np.asarray(gw, np.float32), ew, rtol=2e-2, atol=2e-2)


def test_conv_empty_output_gives_zero_kernel_cotangent():
    # A window larger than the input: no outputs, so the kernel's cotangent
    # is zero (no degenerate convolution is formed).
    x, w = _values((1, 1, 2), 12), _values((1, 1, 3), 13)
    gw = jax.grad(lambda w: jnp.sum(lax.conv(x, w, (1,), "VALID")))(w)
    assert gw.shape == w.shape
    np.testing.assert_array_equal(gw, np.zeros_like(w))
