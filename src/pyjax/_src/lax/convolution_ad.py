"""The autodiff rules of conv_general_dilated (convolution.py defines it).

conv_general_dilated is bilinear. Each transpose is itself
a convolution: of the cotangent with the flipped kernel (for lhs), or of
lhs with the cotangent (for rhs), with strides and dilations swapping roles.
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src import core
from pyjax._src.ad_util import Zero as _Zero
from pyjax._src.interpreters.jvp import defjvp as _defjvp
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes
from pyjax._src.lax.convolution import (
    ConvDimensionNumbers,
    _reshape_axis_into,
    _reshape_axis_out_of,
    conv_general_dilated,
    conv_general_dilated_p,
    dilate_shape,
)


def _spatial_dims(spec) -> tuple:
    return tuple(spec[2:])


def _swap_feature_dims(spec) -> tuple:
    # (batch, feature, spatial...) -> (feature, batch, spatial...): the roles
    # the two leading axes play in the transposed convolution.
    return (spec[1], spec[0], *spec[2:])






def _conv_vjp_lhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding, lhs_dilation,
                          rhs_dilation) -> list:
    """Padding of the cotangent so that the transposed convolution gives
    back exactly the (dilated) input: the kernel overhang minus the forward
    low padding before, whatever is left after."""
    lhs_dilated = dilate_shape(in_shape, lhs_dilation)
    rhs_dilated = dilate_shape(window_dimensions, rhs_dilation)
    out_dilated = dilate_shape(out_shape, window_strides)
    before = np.subtract(rhs_dilated, [lo for lo, _ in padding]) - 1
    after = np.add(lhs_dilated, rhs_dilated) - 1 - out_dilated - before
    return list(zip(before, after, strict=True))


def _conv_vjp_rhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding, lhs_dilation,
                          rhs_dilation) -> list:
    """Padding of lhs in the convolution of lhs with the cotangent: the
    forward low padding, and a high padding that makes the window count
    equal the (dilated) kernel size."""
    if not len(in_shape):  # a 0-d convolution
        return []
    lhs_dilated = dilate_shape(in_shape, lhs_dilation)
    rhs_dilated = dilate_shape(window_dimensions, rhs_dilation)
    out_dilated = dilate_shape(out_shape, window_strides)
    lows = [lo for lo, _ in padding]
    highs = [o - i + r - lo - 1 for o, i, r, lo in zip(out_dilated, lhs_dilated, rhs_dilated, lows, strict=True)]
    return list(zip(lows, highs, strict=True))


def _conv_transpose_lhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                        feature_group_count, batch_group_count, precision, preferred_element_type, out_sharding):
    # ct: out shape -> lhs shape, convolving ct with the spatially reversed
    # kernel whose in/out feature axes swap roles (the dimension numbers
    # read ct as the input and produce lhs's layout).
    lhs_aval, rhs_shape = lhs.aval, core.get_aval(rhs).shape
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if feature_group_count > 1:
        # The group axis moves from the kernel's out features to its in
        # features, which the transposed convolution reads as out features.
        rhs = _reshape_axis_out_of(rhs_spec[0], feature_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    elif batch_group_count > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], batch_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        feature_group_count = batch_group_count
    transposed = ConvDimensionNumbers(out_spec, _swap_feature_dims(rhs_spec), lhs_spec)
    ct_aval = core.get_aval(ct)
    pads = _conv_vjp_lhs_padding(
        np.take(lhs_aval.shape, _spatial_dims(lhs_spec)), np.take(rhs_shape, _spatial_dims(rhs_spec)),
        window_strides, np.take(ct_aval.shape, _spatial_dims(out_spec)), padding, lhs_dilation, rhs_dilation)
    reversed_kernel = shapes.rev(rhs, _spatial_dims(rhs_spec))
    if ct_aval.dtype != core.get_aval(reversed_kernel).dtype:
        reversed_kernel = ew.convert_element_type(reversed_kernel, ct_aval.dtype)
    out = conv_general_dilated(
        ct, reversed_kernel, window_strides=lhs_dilation, padding=pads, lhs_dilation=window_strides,
        rhs_dilation=rhs_dilation, dimension_numbers=transposed, feature_group_count=feature_group_count,
        batch_group_count=1, precision=precision, preferred_element_type=preferred_element_type,
        out_sharding=lhs_aval.sharding)
    if core.get_aval(out).dtype != lhs_aval.dtype:
        out = ew.convert_element_type(out, lhs_aval.dtype)
    if batch_group_count > 1:
        # The groups came out as features: put them back into the batch.
        out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _conv_transpose_rhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                        feature_group_count, batch_group_count, precision, preferred_element_type, out_sharding):
    # ct: out shape -> rhs shape, convolving lhs (batch read as features)
    # with ct (batch read as in features): the kernel's taps are the windows.
    rhs_aval, lhs_aval = rhs.aval, core.get_aval(lhs)
    ct_aval = core.get_aval(ct)
    if math.prod(ct_aval.shape) == 0:
        # No degenerate convolutions with an empty kernel window.
        return _Zero(rhs_aval)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    # Feature groups of the forward convolution are batch groups here, and
    # the other way round.
    if batch_group_count > 1:
        feature_group_count, batch_group_count = batch_group_count, 1
    elif feature_group_count > 1:
        feature_group_count, batch_group_count = 1, feature_group_count
    transposed = ConvDimensionNumbers(_swap_feature_dims(lhs_spec), _swap_feature_dims(out_spec),
                                      _swap_feature_dims(rhs_spec))
    pads = _conv_vjp_rhs_padding(
        np.take(lhs_aval.shape, _spatial_dims(lhs_spec)), np.take(rhs_aval.shape, _spatial_dims(rhs_spec)),
        window_strides, np.take(ct_aval.shape, _spatial_dims(out_spec)), padding, lhs_dilation, rhs_dilation)
    if ct_aval.dtype != lhs_aval.dtype:
        lhs = ew.convert_element_type(lhs, ct_aval.dtype)
    out = conv_general_dilated(
        lhs, ct, window_strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides, dimension_numbers=transposed, feature_group_count=feature_group_count,
        batch_group_count=batch_group_count, precision=precision, preferred_element_type=preferred_element_type,
        out_sharding=rhs_aval.sharding)
    if core.get_aval(out).dtype != rhs_aval.dtype:
        out = ew.convert_element_type(out, rhs_aval.dtype)
    return out


def _conv_general_dilated_transpose(ct, lhs, rhs, **params):
    from pyjax._src.interpreters.transpose import is_undefined_primal

    if is_undefined_primal(lhs):
        return [_conv_transpose_lhs(ct, lhs, rhs, **params), None]
    return [None, _conv_transpose_rhs(ct, lhs, rhs, **params)]


_defjvp(conv_general_dilated_p,
        lambda g, lhs, rhs, **params: conv_general_dilated_p.bind(g, rhs, **params),
        lambda g, lhs, rhs, **params: conv_general_dilated_p.bind(lhs, g, **params))
conv_general_dilated_p.def_transpose(_conv_general_dilated_transpose)
