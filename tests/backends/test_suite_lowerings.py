"""The lowerings issue 23's suite made faster compute what they computed:
blocked im2col convolutions, whole-row gathers and scatter-adds, and native
loops that tier up on time as well as on steps."""

from __future__ import annotations


import numpy as np
import pytest
from helpers import native_tiers_made

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.impls import convolution as conv_impl
from pyjax._src.backends.numpy.impls import slicing as slicing_impl
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import tiering as native_tiering

rng = np.random.default_rng(23)


def arr(*shape):
    return jnp.asarray(rng.standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("dn,lhs_shape,rhs_shape,groups", [
    (("NHWC", "HWIO", "NHWC"), (6, 20, 20, 16), (3, 3, 16, 24), 1),
    (("NCHW", "OIHW", "NCHW"), (6, 16, 20, 20), (24, 16, 3, 3), 1),
    (("NHWC", "HWIO", "NHWC"), (6, 20, 20, 16), (3, 3, 4, 24), 4),
])
def test_blocked_convolution_has_the_unblocked_bits(dn, lhs_shape, rhs_shape, groups, monkeypatch):
    # Forward and both gradients, blocked (small blocks) and in one matmul.
    x, w = arr(*lhs_shape), arr(*rhs_shape)

    def f(x, w):
        out = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn, feature_group_count=groups)
        return jnp.sum(jnp.sin(out))

    def run():
        return [np.asarray(v) for v in pyjax.jit(pyjax.value_and_grad(f, argnums=(0, 1)))(x, w)[1]]

    monkeypatch.setattr(conv_impl, "_direct_kernel", [None])  # (the patch path; native/directconv.py has its tests)
    made = []
    real_row_blocks = conv_impl._row_blocks
    monkeypatch.setattr(conv_impl, "_row_blocks", lambda *a: made.append(real_row_blocks(*a)) or made[-1])
    monkeypatch.setattr(conv_impl, "_BLOCK_BYTES", 1 << 17)
    blocked = run()
    assert groups > 1 or max(len(b) for b in made) > 2  # (grouped: each group too small to block)
    monkeypatch.setattr(conv_impl, "_BLOCK_BYTES", 1 << 40)
    pyjax.clear_caches()
    whole = run()
    for a, b in zip(blocked, whole, strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("workers", [2, 3])
def test_convolution_split_across_cores_has_the_whole_bits(workers, monkeypatch):
    # Forward and both gradients with their blocks spread over the split pool
    # (every call counted as split), against one matmul on one core.
    from pyjax._src.backends.numpy.parallel import split as split_lib
    x, w = arr(6, 20, 20, 16), arr(3, 3, 16, 24)

    def f(x, w):
        out = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.sum(jnp.sin(out))

    def run():
        pyjax.clear_caches()
        return [np.asarray(v) for v in pyjax.jit(pyjax.value_and_grad(f, argnums=(0, 1)))(x, w)[1]]

    monkeypatch.setattr(conv_impl, "_direct_kernel", [None])  # (the patch path; native/directconv.py has its tests)
    monkeypatch.setattr(split_lib, "_native_matmul", lambda *args: False)  # (the pool's blocks)
    calls = []
    real_run_all = split_lib.run_all
    monkeypatch.setattr(split_lib, "run_all", lambda fns: (calls.append(len(fns)), real_run_all(fns)))
    monkeypatch.setitem(split_lib._state, "workers", workers)
    monkeypatch.setattr(split_lib, "MIN_FLOPS", 1)
    monkeypatch.setattr(conv_impl, "SPLIT_MIN_FLOPS", 1)
    spread = run()
    assert calls and all(n == workers for n in calls)
    monkeypatch.setitem(split_lib._state, "workers", 1)
    monkeypatch.setattr(conv_impl, "_BLOCK_BYTES", 1 << 40)
    whole = run()
    for a, b in zip(spread, whole, strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dn,lhs_shape,rhs_shape,strides,dilation,padding", [
    (("NHWC", "HWIO", "NHWC"), (5, 12, 10, 6), (3, 3, 6, 7), (1, 1), (1, 1), "SAME"),
    (("NHWC", "HWIO", "NHWC"), (5, 13, 11, 6), (3, 2, 6, 7), (2, 3), (1, 1), "VALID"),
    (("NHWC", "HWIO", "NHWC"), (4, 12, 12, 3), (3, 3, 3, 5), (1, 1), (2, 1), ((2, 1), (0, 3))),
    (("NCHW", "OIHW", "NCHW"), (5, 6, 12, 10), (7, 6, 3, 3), (2, 1), (1, 1), "SAME"),
    (("NHWC", "HWIO", "NHWC"), (5, 12, 10, 1), (3, 3, 1, 7), (1, 1), (1, 1), "SAME"),  # Q^T copied
    (("NHWC", "HWIO", "NHWC"), (5, 13, 11, 2), (3, 2, 2, 7), (2, 1), (1, 2), "VALID"),
])
def test_kernel_gradients_with_batch_minor_patches(dn, lhs_shape, rhs_shape, strides, dilation, padding,
                                                   monkeypatch):
    # A kernel's gradient convolves the input (batch and features swapped:
    # features first in memory) with the cotangent: the batch-minor path,
    # against the general one (the input transposed to batch-major).
    x, w = arr(*lhs_shape), arr(*rhs_shape)

    def f(x, w):
        out = lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=dilation, dimension_numbers=dn)
        return jnp.sum(jnp.sin(out))

    monkeypatch.setattr(conv_impl, "_direct_kernel", [None])  # (the patch path; native/directconv.py has its tests)
    taken = []
    real = conv_impl._conv_batch_minor
    monkeypatch.setattr(conv_impl, "_conv_batch_minor", lambda *a: taken.append(1) or real(*a))
    pyjax.clear_caches()
    fast = np.asarray(pyjax.jit(pyjax.grad(f, argnums=1))(x, w))
    assert taken
    monkeypatch.setattr(conv_impl, "_SHORT_RUN_BYTES", -1)  # Q itself, whatever the batch
    pyjax.clear_caches()
    np.testing.assert_allclose(np.asarray(pyjax.jit(pyjax.grad(f, argnums=1))(x, w)), fast, rtol=2e-5, atol=2e-5)
    monkeypatch.setattr(conv_impl, "_batch_minor", lambda spec: False)
    pyjax.clear_caches()
    general = np.asarray(pyjax.jit(pyjax.grad(f, argnums=1))(x, w))
    np.testing.assert_allclose(fast, general, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("values", ["normal", "nan", "signed_zero_ties", "infinities", "all_nan"])
@pytest.mark.parametrize("is_max", [True, False])
def test_pooling_gradients_chosen_taps_by_extrema_are_the_selects(values, is_max, monkeypatch):
    # Max (min) pooling's gradient picks a tap per window: by np.maximum
    # (minimum) where no NaN shows, else by the select's own comparisons.
    from pyjax._src.backends.numpy.impls import windowed as windowed_impl
    from pyjax._src.backends.numpy.impls.convolution import window_view
    x = np.round(rng.standard_normal((3, 8, 6, 5)) * 2).astype(np.float32)  # many ties
    if values == "nan":
        x[0, 1, 2, 3] = x[2, 5, 1, 0] = np.nan
    elif values == "signed_zero_ties":
        x[x == 0] = -0.0
        x[1, ::2, ::2, :] = 0.0
    elif values == "infinities":
        x[0, 0, 0, 0], x[0, 0, 1, 0], x[1, 2, 2, 2] = np.inf, -np.inf, -np.inf
    elif values == "all_nan":
        x[...] = np.nan
    windows = window_view(x, range(4), (1, 3, 2, 1), (1, 2, 2, 1), (1, 1, 1, 1))
    taps = list(np.ndindex(1, 3, 2, 1))
    shape = windows.shape[:4]
    keep = np.greater_equal if is_max else np.less_equal
    by_select = windowed_impl._chosen_by_select
    calls = []
    monkeypatch.setattr(windowed_impl, "_chosen_by_select", lambda *a: calls.append(1) or by_select(*a))
    fast = windowed_impl._chosen_taps(windows, taps, shape, is_max, keep)
    assert bool(calls) == ("nan" in values)  # the extrema's way unless a NaN shows
    want = by_select(windows, taps, np.zeros(shape, np.uint8), keep)
    assert fast.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axes", [((8, 28, 28, 8), (0, 1, 2)), ((3, 5, 2), (0,)), ((4, 3, 17), (1, 0)),
                                        ((2049, 2), (0,)), ((6, 4, 4, 1, 3), (0, 1, 2, 3))])
def test_sums_over_leading_axes_by_einsum_have_add_reduces_bits(shape, axes, dtype, monkeypatch):
    from pyjax._src.backends.numpy.impls import standard as standard_impl
    from pyjax._src.lax import reductions as red
    x = (rng.standard_normal(shape) * np.exp(rng.uniform(-15, 15, shape))).astype(dtype)
    taken = []
    real = standard_impl._sum_leading_rows
    monkeypatch.setattr(standard_impl, "_sum_leading_rows", lambda *a: taken.append(1) or real(*a))
    got = standard_impl.IMPLS[red.reduce_sum_p](x, axes=axes)
    assert taken
    assert got.tobytes() == np.add.reduce(x, axis=axes, dtype=dtype).tobytes()


def test_sums_leaving_one_element_per_row_keep_add_reduce(monkeypatch):
    # (einsum sums a single column in another order)
    from pyjax._src.backends.numpy.impls import standard as standard_impl
    from pyjax._src.lax import reductions as red
    x = rng.standard_normal((100, 1)).astype(np.float32)
    monkeypatch.setattr(standard_impl, "_sum_leading_rows", None)
    got = standard_impl.IMPLS[red.reduce_sum_p](x, axes=(0,))
    assert got.tobytes() == np.add.reduce(x, axis=0).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.uint8])
@pytest.mark.parametrize("layout", ["full", "mask_broadcast", "case_broadcast", "both_broadcast"])
def test_select_n_blend_is_np_where(dtype, layout, monkeypatch):
    # select_n's bitwise blend, the mask made on a broadcast operand's own
    # rows (attention's causal mask over batch and heads): np.where's bits.
    from pyjax._src.backends.numpy.impls import standard as standard_impl
    from pyjax._src.lax import elementwise as ew
    shape = (3, 4, 24, 24)
    which = rng.random(shape) < 0.4
    a = (rng.standard_normal(shape) * 100).astype(dtype)
    b = (rng.standard_normal(shape) * 100).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        a.flat[:6] = [np.nan, -0.0, 0.0, np.inf, -np.inf, -np.nan]
        b.flat[3:9] = [np.nan, -0.0, 0.0, np.inf, -np.inf, -0.0]
    if layout in ("mask_broadcast", "both_broadcast"):
        which = np.broadcast_to(np.tril(np.ones(shape[2:], bool)), shape)
    if layout in ("case_broadcast", "both_broadcast"):
        b = np.broadcast_to(np.asarray(-1e4 if np.issubdtype(dtype, np.floating) else 7, dtype), shape)
    taken = []
    for name in ("_blend", "_blend_value"):  # (one case a single value: _blend_value)
        real = getattr(standard_impl, name)
        monkeypatch.setattr(standard_impl, name, lambda *args, real=real: taken.append(1) or real(*args))
    got = standard_impl.IMPLS[ew.select_n_p](which, b, a)
    assert taken
    assert got.dtype == dtype and got.tobytes() == np.where(which, a, b).tobytes()


@pytest.mark.parametrize("transform", ["rfft", "irfft", "fft2"])
def test_large_ffts_on_every_core_have_one_cores_bits(transform, monkeypatch):
    from pyjax._src.backends.numpy.impls import fft as fft_impl
    from pyjax._src.backends.numpy.parallel import split as split_lib
    x = arr(8, 128, 64)
    f = {"rfft": lambda x: jnp.fft.rfft(x.reshape(8, -1)),
         "irfft": lambda x: jnp.fft.irfft(jnp.fft.rfft(x.reshape(8, -1)) * 2.0),
         "fft2": lambda x: jnp.fft.fft2(x)}[transform]
    used = []
    real = fft_impl._workers
    monkeypatch.setattr(fft_impl, "_workers", lambda x: used.append(real(x)) or used[-1])
    monkeypatch.setattr(fft_impl, "MIN_SPLIT_ELEMENTS", 1 << 10)
    monkeypatch.setitem(split_lib._state, "workers", 2)
    pyjax.clear_caches()
    spread = np.asarray(pyjax.jit(f)(x))
    assert used and all(n == 2 for n in used)
    monkeypatch.setitem(split_lib._state, "workers", 1)
    pyjax.clear_caches()
    assert np.asarray(pyjax.jit(f)(x)).tobytes() == spread.tobytes()


@pytest.mark.parametrize("dtype,fill", [(np.float32, 0), (np.float32, -np.inf), (np.int8, 3), (np.bool_, True)])
@pytest.mark.parametrize("padding", [((0, 0), (1, 1), (2, 0), (0, 3)), ((1, 2), (0, 0), (0, 0), (1, 1))])
def test_padding_without_holes_fills_only_the_borders(dtype, fill, padding, monkeypatch):
    # (np.full of the whole result, then the copy: two passes; now one)
    x = (rng.standard_normal((3, 4, 5, 2)) * 5).astype(dtype)
    fulls = []
    real_full = conv_impl.np.full
    monkeypatch.setattr(conv_impl.np, "full", lambda *a, **k: fulls.append(1) or real_full(*a, **k))
    got = conv_impl.dilate_and_pad(x, (1, 1, 1, 1), padding, fill)
    monkeypatch.undo()
    assert not fulls
    want = np.pad(x, padding, constant_values=np.asarray(fill).astype(dtype))
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def _with_and_without_rows(f, args, monkeypatch):
    # The row paths against the general one (every axis indexed).
    with_rows = np.asarray(pyjax.jit(f)(*args))
    monkeypatch.setattr(slicing_impl, "_row_axis", lambda *a: None)
    pyjax.clear_caches()
    general = np.asarray(pyjax.jit(f)(*args))
    assert with_rows.tobytes() == general.tobytes()
    return with_rows


@pytest.mark.parametrize("mode", ["clip", "fill", None])
@pytest.mark.parametrize("axis", [0, 1])
def test_row_gather_has_the_general_bits(mode, axis, monkeypatch):
    x = arr(9, 4, 3)
    idx = jnp.asarray(rng.integers(-12, 12, (5, 7)).astype(np.int32))
    _with_and_without_rows(lambda x, i: jnp.take(x, i, axis=axis, mode=mode), (x, idx), monkeypatch)


@pytest.mark.parametrize("mode", ["drop", "clip", None])
def test_row_scatter_add_has_the_general_bits(mode, monkeypatch):
    # Many updates to few rows: sums in update order, as ufunc.at by element.
    x, upd = arr(4, 6), arr(300, 6)
    idx = jnp.asarray(rng.integers(-6, 6, 300).astype(np.int32))
    got = _with_and_without_rows(lambda x, i, u: x.at[i].add(u, mode=mode), (x, idx, upd), monkeypatch)
    if mode == "drop":
        want = np.asarray(x).copy()
        i = np.asarray(idx)
        for k in np.flatnonzero((i >= -4) & (i < 4)):
            want[i[k]] += np.asarray(upd)[k]
        np.testing.assert_array_equal(got, want)


def test_row_scatter_add_along_axis_1(monkeypatch):
    x, upd = arr(3, 8, 2), arr(3, 50, 2)
    idx = jnp.asarray(rng.integers(0, 8, 50).astype(np.int32))
    _with_and_without_rows(lambda x, i, u: x.at[:, i].add(u), (x, idx, upd), monkeypatch)


@pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED, reason="native code needs a C compiler")
def test_a_loop_of_costly_steps_tiers_up_on_time(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 10 ** 9)
    monkeypatch.setattr(native_settings, "AFTER_SECONDS", 0.0)

    def f(x):
        return lax.while_loop(lambda c: c[0] < 30, lambda c: (c[0] + 1, jnp.tanh(jnp.roll(c[1], 1) * 1.1)), (0, x))[1]

    jf = pyjax.jit(f)
    x = arr(16)
    first, (made,) = native_tiers_made(lambda: np.asarray(jf(x)))
    assert made.state != native_tiering.COLD and made.steps == 30
    if getattr(made, "_thread", None) is not None:
        made._thread.join()
    outs = [np.asarray(jf(x)) for _ in range(3)]
    assert made.state == native_tiering.LIVE
    assert all(o.tobytes() == first.tobytes() for o in outs)
