"""The convolution family: conv_general_dilated and its wrappers (conv,
conv_with_general_padding, conv_transpose, conv_general_dilated_patches),
dimension numbers and the padding helpers.

The impl is checked against an oracle written straight from XLA's Conv
semantics (one output position and one kernel tap at a time, independent of
the vectorised im2col impl), over the dtypes JAX accepts; conv_transpose
against a scatter-add oracle (the gradient of a forward convolution); then
abstract eval against the impl, jit against eager, and the error messages
JAX 0.11 gives (recorded from the reference).
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from helpers import (
    check_close,
    check_impl_matches_abstract_eval,
    check_jit_matches_eager,
)

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.lax import convolution as cv

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(d) for d in ("float32", "float16", "int32", "int8", "uint8", "bool", "complex64")] + [BF16]


def _values(rng, shape, dtype):
    """Small exactly-representable values (so accumulation order never matters)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    raw = rng.integers(-3 if dtype.kind != "u" else 0, 4, size=shape)
    if dtype.kind == "c":
        return (raw + 1j * rng.integers(-3, 4, size=shape)).astype(dtype)
    return raw.astype(dtype)


# ---------------------------------------------------------------------------
# The oracle: XLA's convolution, one output position and kernel tap at a time.


def _spec_permutation(spec: str, pair: str, rhs_spec: str) -> list[int]:
    spatial = sorted((c for c in spec if c not in pair), key=rhs_spec.index)
    return [spec.index(pair[0]), spec.index(pair[1])] + [spec.index(c) for c in spatial]


def conv_oracle(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, specs, feature_groups=1,
                batch_groups=1, out_dtype=None):
    lhs_spec, rhs_spec, out_spec = specs or ("NC" + "xyz"[: lhs.ndim - 2], "OI" + "xyz"[: lhs.ndim - 2],
                                             "NC" + "xyz"[: lhs.ndim - 2])
    wide = np.complex128 if lhs.dtype.kind == "c" else (np.int64 if lhs.dtype.kind in "iub" else np.float64)
    x = np.transpose(lhs, _spec_permutation(lhs_spec, "NC", rhs_spec)).astype(wide)
    w = np.transpose(rhs, _spec_permutation(rhs_spec, "OI", rhs_spec)).astype(wide)
    n, c = x.shape[:2]
    o = w.shape[0]
    # Dilate, then pad (negative padding crops).
    dilated = np.zeros((n, c, *[(d - 1) * r + 1 if d else 0 for d, r in zip(x.shape[2:], lhs_dilation)]), wide)
    dilated[(slice(None), slice(None), *[slice(None, None, r) for r in lhs_dilation])] = x
    for axis, (lo, hi) in enumerate(padding, start=2):
        widths = [(0, 0)] * dilated.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        dilated = np.pad(dilated, widths)
        index = [slice(None)] * dilated.ndim
        index[axis] = slice(max(-lo, 0), dilated.shape[axis] - max(-hi, 0))
        dilated = dilated[tuple(index)]
    taps = w.shape[2:]
    extent = [(k - 1) * r + 1 for k, r in zip(taps, rhs_dilation)]
    out_space = [max(0, (p - e) // s + 1) for p, e, s in zip(dilated.shape[2:], extent, strides)]
    nb = n // batch_groups
    out = np.zeros((nb, o, *out_space), wide)
    cg, og_f, og_b = c // feature_groups, o // feature_groups, o // batch_groups
    for position in np.ndindex(*out_space):
        for tap in np.ndindex(*taps):
            at = tuple(p * s + t * r for p, s, t, r in zip(position, strides, tap, rhs_dilation))
            xs = dilated[(slice(None), slice(None), *at)]  # (N, C)
            ws = w[(slice(None), slice(None), *tap)]  # (O, I)
            for g in range(feature_groups):
                for b in range(batch_groups):
                    rows = xs[b * nb:(b + 1) * nb, g * cg:(g + 1) * cg]
                    if batch_groups > 1:
                        cols = slice(b * og_b, (b + 1) * og_b)
                    else:
                        cols = slice(g * og_f, (g + 1) * og_f)
                    out[(slice(None), cols, *position)] += rows @ ws[cols].T
    out_perm = _spec_permutation(out_spec, "NC", rhs_spec)
    result = np.transpose(out, np.argsort(out_perm))
    out_dtype = np.dtype(out_dtype or lhs.dtype)
    if out_dtype == np.bool_:
        return result != 0
    if out_dtype.kind in "iu":
        # XLA's integer accumulation wraps: reduce modulo 2**bits.
        bits = out_dtype.itemsize * 8
        result = np.mod(result, 2 ** bits)
        if out_dtype.kind == "i":
            result = np.where(result >= 2 ** (bits - 1), result - 2 ** bits, result)
    return result.astype(out_dtype)


# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, specs, feature groups, batch groups)
CONFIGS = {
    "1d_valid": ((2, 3, 9), (4, 3, 3), (1,), ((0, 0),), (1,), (1,), None, 1, 1),
    "1d_strided_padded_dilated": ((2, 4, 9), (6, 2, 3), (2,), ((1, 2),), (2,), (2,), None, 2, 1),
    "1d_negative_padding": ((1, 2, 8), (3, 2, 3), (1,), ((-2, 1),), (1,), (1,), None, 1, 1),
    "2d_nhwc_hwio": ((2, 6, 5, 3), (3, 2, 3, 4), (2, 1), ((1, 1), (0, 2)), (1, 1), (1, 2),
                     ("NHWC", "HWIO", "NHWC"), 1, 1),
    "2d_mixed_layouts": ((2, 5, 6, 3), (4, 3, 2, 2), (1, 2), ((0, 1), (1, 0)), (1, 2), (2, 1),
                         ("NWHC", "OIHW", "CNHW"), 1, 1),
    "2d_depthwise": ((2, 4, 5, 5), (8, 1, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), None, 4, 1),
    "2d_batch_groups": ((4, 3, 5, 4), (6, 3, 2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), None, 1, 2),
    "3d": ((1, 2, 4, 5, 3), (3, 2, 2, 3, 2), (1, 2, 1), ((1, 0), (1, 1), (0, 1)), (1, 1, 2), (1, 1, 1),
           None, 1, 1),
    "0d": ((3, 4), (5, 4), (), (), (), (), None, 1, 1),
    "empty_output": ((2, 3, 2), (4, 3, 3), (1,), ((0, 0),), (1,), (1,), None, 1, 1),
}


def _params(config):
    _, _, strides, padding, lhs_dil, rhs_dil, specs, fg, bg = config
    return {"window_strides": strides, "padding": padding, "lhs_dilation": lhs_dil, "rhs_dilation": rhs_dil,
                "dimension_numbers": specs, "feature_group_count": fg, "batch_group_count": bg}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_conv_general_dilated_matches_oracle(name, dtype):
    config = CONFIGS[name]
    rng = np.random.default_rng(abs(hash((name, str(dtype)))) % 2**32)
    lhs, rhs = _values(rng, config[0], dtype), _values(rng, config[1], dtype)
    got = lax.conv_general_dilated(lhs, rhs, **_params(config))
    want = conv_oracle(lhs, rhs, *config[2:7], config[7], config[8])
    check_close(got, want)


def test_conv_float32_random_values():
    rng = np.random.default_rng(0)
    for name in ("2d_nhwc_hwio", "2d_depthwise", "3d"):
        config = CONFIGS[name]
        lhs = rng.standard_normal(config[0]).astype(np.float32)
        rhs = rng.standard_normal(config[1]).astype(np.float32)
        want = conv_oracle(lhs, rhs, *config[2:7], config[7], config[8])
        check_close(lax.conv_general_dilated(lhs, rhs, **_params(config)), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,preferred", [(np.int8, np.int32), (np.uint8, np.uint16), (np.int8, np.float32),
                                             (np.float16, np.float32), (BF16, np.float32)], ids=str)
def test_preferred_element_type_accumulates_wide(dtype, preferred):
    lhs = np.full((1, 4, 6), 100 if np.dtype(dtype).kind in "iu" else 60, dtype)
    rhs = np.full((2, 4, 3), 3, dtype)
    got = lax.conv(lhs, rhs, (1,), "VALID", preferred_element_type=preferred)
    want = conv_oracle(lhs, rhs, (1,), ((0, 0),), (1,), (1,), None, out_dtype=preferred)
    check_close(got, want)
    assert np.asarray(got).dtype == np.dtype(preferred)


def test_integer_accumulation_wraps_like_xla():
    got = lax.conv(np.full((1, 2, 5), 100, np.int8), np.ones((3, 2, 2), np.int8), (1,), "VALID")
    check_close(got, np.full((1, 3, 4), np.int8(-112)))


@pytest.mark.parametrize("name", ["1d_strided_padded_dilated", "2d_mixed_layouts", "2d_batch_groups", "0d",
                                  "empty_output"])
def test_abstract_eval_matches_impl(name):
    config = CONFIGS[name]
    rng = np.random.default_rng(1)
    lhs, rhs = _values(rng, config[0], np.float32), _values(rng, config[1], np.float32)
    dnums = lax.conv_dimension_numbers(lhs.shape, rhs.shape, config[6])
    params = _params(config)
    params.update(dimension_numbers=dnums, precision=None, preferred_element_type=None, out_sharding=None)
    check_impl_matches_abstract_eval(lax.conv_general_dilated_p, lhs, rhs, **params)


def test_jit_matches_eager():
    rng = np.random.default_rng(2)
    x = jnp.asarray(rng.standard_normal((2, 6, 5, 4)).astype(np.float32))
    w = jnp.asarray(rng.standard_normal((3, 3, 2, 6)).astype(np.float32))
    w2 = jnp.asarray(rng.standard_normal((2, 2, 6, 3)).astype(np.float32))

    def f(x, w, w2):
        y = lax.conv_general_dilated(x, w, (1, 2), "SAME", rhs_dilation=(2, 1),
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2)
        return lax.conv_transpose(y, w2, (2, 1), "VALID"), y

    check_jit_matches_eager(f, x, w, w2, rtol=1e-5, atol=1e-5)


def test_weak_type_rules():
    weak = lax.broadcast_in_dim(2.0, (1, 1, 4), ())
    assert weak.aval.weak_type
    assert lax.conv(weak, weak[:, :, :2], (1,), "VALID").aval.weak_type
    assert not lax.conv(weak, jnp.ones((1, 1, 2)), (1,), "VALID").aval.weak_type


# ---------------------------------------------------------------------------
# Wrappers


def test_conv_transpose_is_the_gradient_of_a_forward_convolution():
    # conv_transpose(g, w, transpose_kernel=True) scatters each cotangent
    # element back through the forward convolution's kernel w (HWIO).
    rng = np.random.default_rng(3)
    stride, taps = 2, 3
    g = rng.integers(-3, 4, (2, 4, 5)).astype(np.float32)  # (N, J, O)
    w = rng.integers(-3, 4, (taps, 3, 5)).astype(np.float32)  # (K, I=C, O)
    want = np.zeros((2, (4 - 1) * stride + taps, 3), np.float32)
    for j, k in itertools.product(range(4), range(taps)):
        want[:, j * stride + k, :] += g[:, j, :] @ w[k].T
    got = lax.conv_transpose(g, w, (stride,), "VALID", dimension_numbers=("NHC", "HIO", "NHC"),
                             transpose_kernel=True)
    check_close(got, want)


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 2), (0, 1))])
def test_conv_transpose_is_a_dilated_convolution(padding):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 5, 4, 2)).astype(np.float32)
    w = rng.standard_normal((3, 2, 2, 3)).astype(np.float32)
    got = lax.conv_transpose(x, w, (2, 3), padding)
    if isinstance(padding, str):
        pads = [cv._conv_transpose_padding(k, s, padding) for k, s in ((3, 2), (2, 3))]
    else:
        pads = padding
    want = conv_oracle(x, w, (1, 1), pads, (2, 3), (1, 1), ("NHWC", "HWIO", "NHWC"))
    check_close(got, want, rtol=1e-5, atol=1e-5)
    assert got.shape == lax.conv_transpose_shape_tuple(x.shape, w.shape, (2, 3), padding, ("NHWC", "HWIO", "NHWC"))


def test_conv_with_general_padding_and_conv():
    rng = np.random.default_rng(5)
    x, w = _values(rng, (1, 2, 6, 5), np.float32), _values(rng, (3, 2, 3, 2), np.float32)
    got = lax.conv_with_general_padding(x, w, (1, 2), ((2, 1), (0, 1)), (2, 1), (1, 2))
    check_close(got, conv_oracle(x, w, (1, 2), ((2, 1), (0, 1)), (2, 1), (1, 2), None))
    same = cv.padtype_to_pads((6, 5), (3, 2), (1, 1), "SAME")
    check_close(lax.conv(x, w, (1, 1), "SAME"), conv_oracle(x, w, (1, 1), same, (1, 1), (1, 1), None))


def test_conv_general_dilated_patches_are_the_windows():
    x = np.arange(2 * 3 * 5 * 4, dtype=np.float32).reshape(2, 3, 5, 4)
    got = np.asarray(lax.conv_general_dilated_patches(x, (2, 3), (2, 1), ((1, 0), (1, 1))))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 0), (1, 1)))
    out_h, out_w = (6 - 2) // 2 + 1, (6 - 3) + 1
    assert got.shape == (2, 3 * 6, out_h, out_w)
    for i, j in itertools.product(range(out_h), range(out_w)):
        window = padded[:, :, 2 * i:2 * i + 2, j:j + 3]  # (N, C, 2, 3): features major
        check_close(got[:, :, i, j], window.reshape(2, -1))


def test_conv_general_dilated_local_with_shared_weights_is_a_convolution():
    rng = np.random.default_rng(6)
    x = _values(rng, (2, 5, 6, 3), np.float32)  # NHWC
    w = _values(rng, (2, 3, 3, 4), np.float32)  # HWIO
    specs = ("NHWC", "HWIO", "NHWC")
    want = conv_oracle(x, w, (1, 2), ((1, 0), (1, 1)), (1, 1), (1, 1), specs)
    out_h, out_w = want.shape[1:3]
    # The same kernel at every output position; the I axis holds (C, H, W) flattened.
    flat = np.transpose(w, (2, 0, 1, 3)).reshape(3 * 2 * 3, 4)
    local = np.broadcast_to(flat, (out_h, out_w, 18, 4))
    got = lax.conv_general_dilated_local(x, local, (1, 2), ((1, 0), (1, 1)), (2, 3), dimension_numbers=specs)
    check_close(got, want)


# ---------------------------------------------------------------------------
# Dimension numbers, paddings and shapes


def test_conv_dimension_numbers():
    dn = lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert repr(dn) == "ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))"
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == ((0, 1, 2),) * 3
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), dn) is dn
    assert lax.conv_general_permutations(("NHWC", "HWIO", "NCHW")) == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 1, 2, 3))
    # Spatial axes follow the kernel spec's order.
    assert lax.conv_general_permutations(("NCWH", "OIHW", "NCHW")) == ((0, 1, 3, 2), (0, 1, 2, 3), (0, 1, 2, 3))


def test_dimension_numbers_param_is_hashable_and_prints_as_jax():
    user = lax.ConvDimensionNumbers([0, 1, 2], [0, 1, 2], [0, 1, 2])
    jaxpr = pyjax.make_jaxpr(lambda x, w: lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=user))(
        jnp.ones((1, 2, 5)), jnp.ones((3, 2, 2)))
    assert ("dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), "
            "out_spec=(0, 1, 2))") in str(jaxpr)
    hash(jaxpr.eqns[0].params["dimension_numbers"])


@pytest.mark.parametrize("padding,want", [
    ("SAME", [(1, 1), (0, 1)]), ("SAME_LOWER", [(1, 1), (1, 0)]), ("VALID", [(0, 0), (0, 0)]),
    ("same", [(1, 1), (0, 1)]), (cv.PaddingType.SAME, [(1, 1), (0, 1)]),
])
def test_padtype_to_pads(padding, want):
    got = lax.padtype_to_pads((5, 6), (3, 3), (2, 2), padding)
    assert got == want and all(type(v) is int for pair in got for v in pair)


def test_precision_canonicalisation():
    f = lambda p: pyjax.make_jaxpr(lambda x, w: lax.conv(x, w, (1,), "VALID", precision=p))(
        jnp.ones((1, 2, 4)), jnp.ones((3, 2, 2))).eqns[0].params["precision"]
    H, D = lax.Precision.HIGHEST, lax.Precision.DEFAULT
    assert f(None) is None
    assert f(H) == (H, H) and f("highest") == (H, H) and f("float32") == (H, H)
    assert f(("bfloat16", "highest")) == (D, H) and f((D, H)) == (D, H)
    with pytest.raises(ValueError, match="Precision argument must be one of"):
        f("fast")
    with pyjax.default_matmul_precision("highest"):
        assert f(None) == (H, H)


def test_shape_tuples():
    assert lax.conv_shape_tuple((1, 2, 5), (3, 2, 2), (1,), "SAME") == (1, 3, 5)
    assert lax.conv_general_shape_tuple((1, 5, 2), (2, 2, 3), (1,), "VALID", ("NWC", "WIO", "NWC")) == (1, 4, 3)
    assert lax.conv_transpose_shape_tuple((1, 5, 2), (2, 2, 3), (2,), "SAME", ("NWC", "WIO", "NWC")) == (1, 10, 3)


# ---------------------------------------------------------------------------
# Errors (messages recorded from JAX 0.11)

X, W = np.ones((2, 4, 8), np.float32), np.ones((6, 4, 3), np.float32)

ERRORS = [
    (lambda: lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2), np.int32), (1,), "VALID"), TypeError,
     "lax.conv_general_dilated requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.conv(np.ones((1, 2, 5)), np.ones((3, 2, 2, 2)), (1,), "VALID"), TypeError,
     "convolution requires lhs and rhs ndim to be equal, got 3 and 4."),
    (lambda: lax.conv_general_dilated(X, np.ones((6, 2, 3), np.float32), (1,), "VALID", feature_group_count=3),
     ValueError, ("conv_general_dilated feature_group_count must divide lhs feature dimension size, but 3 does "
     "not divide 4.")),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID", feature_group_count=0), ValueError,
     "conv_general_dilated feature_group_count must be a positive integer, got 0."),
    (lambda: lax.conv(X, np.ones((6, 3, 3), np.float32), (1,), "VALID"), ValueError,
     ("conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input "
     "feature dimension size, but 4 // 1 != 3.")),
    (lambda: lax.conv_general_dilated(X, np.ones((5, 2, 3), np.float32), (1,), "VALID", feature_group_count=2),
     ValueError, ("conv_general_dilated rhs output feature dimension size must be a multiple of "
     "feature_group_count, but 5 is not a multiple of 2.")),
    (lambda: lax.conv_general_dilated(np.ones((3, 4, 8)), W, (1,), "VALID", batch_group_count=2), ValueError,
     "conv_general_dilated batch_group_count must divide lhs batch dimension size, but 2 does not divide 3."),
    (lambda: lax.conv_general_dilated(np.ones((4, 4, 8)), np.ones((5, 4, 3)), (1,), "VALID", batch_group_count=2),
     ValueError, ("conv_general_dilated rhs output feature dimension size must be a multiple of batch_group_count, "
     "but 5 is not a multiple of 2.")),
    (lambda: lax.conv_general_dilated(np.ones((4, 4, 8)), np.ones((6, 2, 3)), (1,), "VALID", batch_group_count=2,
                                      feature_group_count=2), ValueError,
     ("At most one of batch_group_count and feature_group_count may be > 1, got batch_group_count=2 and "
     "feature_group_count=2")),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "VALID"), ValueError,
     "conv_general_dilated window and window_strides must have the same number of dimensions, but got 1 and 2"),
    (lambda: lax.conv_general_dilated(X, W, (1,), [(0, 0), (1, 1)]), TypeError,
     "Wrong number of explicit pads for convolution: expected 1, got 2."),
    (lambda: lax.conv_general_dilated(X, W, (1,), [(-5, -5)]), ValueError,
     ("Negative padding is larger than the size of the corresponding dimension: got padding=((-5, -5),) for "
     "lhs_shape[2:]=(np.int64(8),)")),
    (lambda: lax.conv_general_dilated(X, W, (1,), [(0, 0, 1)]), ValueError,
     ("padding argument to conv_general_dilated should be a string or a sequence of (low, high) pairs, got "
     "[(0, 0, 1)]")),
    (lambda: lax.conv(X, W, (1,), "FOO"), RuntimeError,
     "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FOO."),
    (lambda: lax.conv_general_dilated(X, W, (1,), "SAME", lhs_dilation=(2,)), ValueError,
     ("String padding is not implemented for transposed convolution using this op. Please either exactly "
     "specify the required padding or use conv_transpose.")),
    (lambda: lax.conv_general_dilated(X, W, (1,), [(0, 0)], lhs_dilation=(0,)), TypeError,
     "All dilations must be positive, got (0,)."),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID", dimension_numbers=("NCH", "OIH")), TypeError,
     "convolution dimension_numbers list/tuple must be length 3, got 2."),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID", dimension_numbers=("NCH", "OIW", "NCH")), TypeError,
     ("convolution dimension_numbers elements must each have the same set of spatial characters, got "
     "('NCH', 'OIW', 'NCH').")),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID", dimension_numbers=("NCC", "OIH", "NCH")), TypeError,
     "convolution dimension_numbers[0] must contain the characters 'N' and 'C' exactly once, got NCC."),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW")), TypeError,
     ("convolution dimension_numbers[0] must have len equal to the ndim of lhs and rhs, got 4 for lhs and rhs "
     "shapes (2, 4, 8) and (6, 4, 3).")),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID", dimension_numbers=5), TypeError,
     "convolution dimension_numbers must be tuple/list or None, got <class 'int'>."),
    (lambda: lax.conv_general_dilated(X, W, (1,), "VALID", dimension_numbers=(1, 2, 3)), TypeError,
     "convolution dimension_numbers elements must be strings, got (<class 'int'>, <class 'int'>, <class 'int'>)."),
    (lambda: lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2), np.float32), (1,), "VALID",
                      preferred_element_type=np.float16), TypeError,
     "`preferred_element_type` must not be narrower than the original type."),
    (lambda: lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2), np.float32), (1,), "VALID",
                      preferred_element_type=np.int32), TypeError,
     ("Input type is incompatible with `preferred_element_type`. The compatible combinations of (input_type, "
     "preferred_element_type) are (integral, integral), (integral, floating), (floating, floating), (complex, "
     "complex.")),
    (lambda: lax.conv(np.ones((1, 2, 5), np.int8), np.ones((3, 2, 2), np.int8), (1,), "VALID",
                      preferred_element_type=np.uint32), TypeError,
     "`preferred_element_type` must have the same signedness as the original type."),
]


@pytest.mark.parametrize("fn,error,message", ERRORS, ids=[m[:50] for _, _, m in ERRORS])
def test_error_messages(fn, error, message):
    with pytest.raises(error) as info:
        fn()
    assert str(info.value) == message
