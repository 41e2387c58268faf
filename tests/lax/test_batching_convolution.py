"""vmap of conv_general_dilated: for a batched image, a batched kernel and
both, at several placements of the batch axis and with feature and batch
groups, vmap(f) equals running f on each example and stacking. (Without the
batching rule vmap raises "Batching rule for 'conv_general_dilated' not
implemented".) The folding itself — which axis the batch joins, the group
trick — is pinned by the golden jaxprs in programs_convolution_vmap.py."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
from pyjax import lax

from vmap_oracle import check_vmap

B = 3
rng = np.random.default_rng(0)


def _normal(shape):
    return rng.standard_normal(shape).astype(np.float32)


def _batched(shape, axis):
    # an example of `shape`, B of them stacked along `axis`
    return np.moveaxis(_normal((B,) + shape), 0, axis)


PLACEMENTS = [(0, None), (3, None), (None, 0), (None, 2), (0, 0), (4, 1), (2, 3)]


@pytest.mark.parametrize("in_axes", PLACEMENTS)
def test_nchw_convolution(in_axes):
    # x: (N=2, C=3, H=6, W=5), k: (O=4, I=3, 3, 2) -> (2, 4, 3, 4) per example
    f = lambda x, k: lax.conv_general_dilated(x, k, (2, 1), ((1, 1), (0, 1)), rhs_dilation=(1, 2))
    x_axis, k_axis = in_axes
    x = _batched((2, 3, 6, 5), x_axis) if x_axis is not None else _normal((2, 3, 6, 5))
    k = _batched((4, 3, 3, 2), k_axis) if k_axis is not None else _normal((4, 3, 3, 2))
    check_vmap(f, (x, k), in_axes)


@pytest.mark.parametrize("in_axes", PLACEMENTS)
def test_nhwc_hwio_layout(in_axes):
    # x: (N=2, H=5, W=5, C=2), k: (3, 3, I=2, O=3) -> (2, 5, 5, 3)
    f = lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    x_axis, k_axis = in_axes
    x = _batched((2, 5, 5, 2), x_axis) if x_axis is not None else _normal((2, 5, 5, 2))
    k = _batched((3, 3, 2, 3), k_axis) if k_axis is not None else _normal((3, 3, 2, 3))
    check_vmap(f, (x, k), in_axes)


@pytest.mark.parametrize("in_axes", [(0, None), (2, None), (None, 0), (None, 3), (0, 0), (3, 1)])
def test_feature_groups(in_axes):
    # Two feature groups: x: (N=2, C=4, W=7), k: (O=6, I=2, 3); each group's
    # output features see only its input features, per example.
    f = lambda x, k: lax.conv_general_dilated(x, k, (1,), "SAME", feature_group_count=2)
    x_axis, k_axis = in_axes
    x = _batched((2, 4, 7), x_axis) if x_axis is not None else _normal((2, 4, 7))
    k = _batched((6, 2, 3), k_axis) if k_axis is not None else _normal((6, 2, 3))
    check_vmap(f, (x, k), in_axes)


@pytest.mark.parametrize("in_axes", [(0, None), (3, None), (None, 0), (None, 2), (0, 0), (1, 3)])
def test_batch_groups(in_axes):
    # Two batch groups: x: (N=4, C=3, W=6), k: (O=4, I=3, 2) -> (2, 4, 5);
    # what the kernel gradient of a grouped convolution looks like.
    f = lambda x, k: lax.conv_general_dilated(x, k, (1,), "VALID", batch_group_count=2)
    x_axis, k_axis = in_axes
    x = _batched((4, 3, 6), x_axis) if x_axis is not None else _normal((4, 3, 6))
    k = _batched((4, 3, 2), k_axis) if k_axis is not None else _normal((4, 3, 2))
    check_vmap(f, (x, k), in_axes)


@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_transposed_convolution_out_axes(out_axes):
    # lhs dilation (a transposed convolution), results stacked at out_axes.
    f = lambda x, k: lax.conv_general_dilated(x, k, (1,), ((1, 1),), lhs_dilation=(2,))
    check_vmap(f, (_batched((1, 2, 5), 1), _batched((3, 2, 2), 0)), (1, 0), out_axes)


def test_per_example_kernel_gradients():
    # vmap(grad) over examples: the gradient's convolution has both operands
    # batched (batch groups), the classic per-example-gradient case.
    def loss(k, x):
        return (lax.conv_general_dilated(x[None], k, (1, 1), "SAME") ** 2).sum()

    check_vmap(jax.grad(loss), (_normal((2, 3, 3, 3)), _normal((B, 3, 5, 5))), (None, 0), rtol=1e-4, atol=1e-4)


def test_empty_batch():
    # A size-0 batch: nothing to fold into, the result is empty of the right shape.
    f = lambda x, k: lax.conv_general_dilated(x, k, (1,), "VALID")
    out = jax.vmap(f)(np.zeros((0, 2, 3, 5), np.float32), np.zeros((0, 4, 3, 2), np.float32))
    assert out.shape == (0, 2, 4, 4) and out.dtype == np.float32
