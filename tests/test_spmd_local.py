"""Convolutions, pooling and their gradients, FFTs, batched linear algebra,
cumulative ops and sorts run per device (issue 22; lax/spmd_local_rules.py).

Each used the fallback (operands all-gathered, the primitive computed whole
on every device, the result sliced back). Now the dimensions the primitive
treats independently (a convolution's batch and output features, the
dimensions a window leaves alone, an FFT's or a factorization's batch) stay
split and each device computes its own block; a kernel gradient contracts
the batch locally, then psums. Values equal the unsharded computation, the
result types are JAX 0.11's, and no per-device buffer is larger than the
largest block of the arguments and the result (the fallback's gathered
operand would be).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import spmd_jit
from pyjax._src.backends.numpy.impls import spmd
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P


@pytest.fixture(autouse=True)
def strict():
    spmd_jit.STRICT[0] = True
    yield
    spmd_jit.STRICT[0] = False


RNG = np.random.RandomState(0)
X = RNG.randn(8, 4, 6, 6).astype(np.float32)
X8 = RNG.randn(8, 4, 8, 8).astype(np.float32)
W = RNG.randn(4, 4, 3, 3).astype(np.float32)
A = RNG.randn(8, 4, 4, 4).astype(np.float32)
SPD = A @ A.transpose(0, 1, 3, 2) + 4 * np.eye(4, dtype=np.float32)


def _mesh():
    return jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)


def _put(value, *spec):
    return jax.device_put(value, NamedSharding(_mesh(), P(*spec)))


def _largest_block(*arrays) -> int:
    return max(int(np.prod(s.data.shape)) for a in arrays for s in a.addressable_shards)


def _check(fn, args, specs, bound=None, post=np.asarray, reference=None):
    """`fn` jitted on the placed `args`: per device, within the block bound,
    placed as `specs` and equal to `fn` on the global values."""
    seen: list = []
    with spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = jax.jit(fn)(*args)
    outs = out if isinstance(out, (tuple, list)) else [out]
    expected = (reference or fn)(*[np.asarray(a) for a in args])
    expected = expected if isinstance(expected, (tuple, list)) else [expected]
    for o, e, spec in zip(outs, expected, specs, strict=True):
        np.testing.assert_allclose(post(np.asarray(o)), np.asarray(e), rtol=2e-5, atol=2e-5)
        assert o.sharding.spec == spec
    assert seen, "the program did not run per device"
    bound = bound or _largest_block(*args, *outs)
    assert max(seen) <= bound, (max(seen), bound)


def _conv(x, w, **kw):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", **kw)


def _loss(w, x):
    return jnp.sum(jnp.tanh(_conv(x, w)) ** 2)


def test_conv_on_a_split_batch():
    _check(_conv, (_put(X, "x"), _put(W)), [P("x", None, None, None)])


def test_conv_with_split_output_features():
    out = NamedSharding(_mesh(), P("x", "y"))
    _check(lambda x, w: _conv(x, w, out_sharding=out), (_put(X, "x"), _put(W, "y")), [P("x", "y", None, None)])


def test_conv_nhwc_batch_split_over_both_axes():
    x = np.ascontiguousarray(X.transpose(0, 2, 3, 1))
    w = np.ascontiguousarray(W.transpose(2, 3, 1, 0))

    def f(x, w):
        return lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    _check(f, (_put(x, ("x", "y")), _put(w)), [P(("x", "y"), None, None, None)])


def test_grad_of_a_batch_sharded_cnn_loss():
    # the kernel gradient contracts over the batch: a local conv, then a psum
    _check(jax.grad(_loss), (_put(W), _put(X, "x")), [P(None, None, None, None)])
    _check(jax.grad(_loss, 1), (_put(W), _put(X, "x")), [P("x", None, None, None)])


def test_the_kernel_gradient_holds_a_psum_and_no_all_gather():
    text = jax.jit(jax.grad(_loss)).lower(_put(W), _put(X, "x")).compile().as_text()
    assert "psum" in text and "all_gather" not in text


def _max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def _sum_pool(x):
    return lax.reduce_window(x, 0.0, lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


@pytest.mark.parametrize("pool", [_max_pool, _sum_pool], ids=["max", "sum"])
def test_pooling_and_its_gradient(pool):
    x = _put(X, "x", "y")
    _check(pool, (x,), [P("x", "y", None, None)])
    # (the sum's transpose pads each device's (2, 2, 3, 3) cotangent block to (2, 2, 7, 7) first)
    _check(jax.grad(lambda x: jnp.sum(pool(x) ** 2)), (x,), [P("x", "y", None, None)], bound=2 * 2 * 7 * 7)


def test_pooling_whose_windows_line_up_with_the_blocks_stays_split():
    # 2x2 windows of stride 2 over dimension 2 split over y in blocks of 4: no window crosses a block edge
    x = _put(X8, "x", None, "y")
    _check(_max_pool, (x,), [P("x", None, "y", None)], bound=2 * 4 * 4 * 8)


# -- halo exchange: a window across a split spatial dimension ---------------------

XS = RNG.randn(8, 4, 16, 8).astype(np.float32)
_SPATIAL = P(None, None, "x", "y")


def _haloed_bound(left_right: int) -> int:
    # a device's (8, 4, 4, 4) block grown by the halos on both spatial dimensions
    return 8 * 4 * (4 + left_right) * (4 + left_right)


@pytest.mark.parametrize("k,stride,dilation,padding", [
    (3, 1, 1, "SAME"), (3, 2, 1, "SAME"), (5, 1, 1, "SAME"), (2, 1, 1, "SAME"), (3, 1, 1, "SAME_LOWER"),
    (3, 1, 2, "SAME"), (2, 2, 1, "VALID"), (3, 1, 1, ((1, 1), (0, 2)))])
def test_conv_over_split_spatial_dimensions_exchanges_halos(k, stride, dilation, padding):
    # each device convolves its block with its neighbours' edges (ppermutes), never the gathered image
    w = RNG.randn(4, 4, k, k).astype(np.float32)
    f = lambda x, w: lax.conv_general_dilated(x, w, (stride, stride), padding,  # noqa: E731
                                              rhs_dilation=(dilation, dilation))
    _check(f, (_put(XS, *_SPATIAL), _put(w)), [_SPATIAL], bound=_haloed_bound((k - 1) * dilation))


def test_the_halo_exchange_is_two_ppermutes_and_no_all_gather():
    f = jax.jit(lambda x, w: _conv(x, w))
    text = f.lower(_put(XS, None, None, "x"), _put(W)).compile().as_text()
    assert text.count("ppermute") == 2 and "all_gather" not in text, text


@pytest.mark.parametrize("pool", [
    lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 1, 1), "SAME"),
    lambda x: lax.reduce_window(x, jnp.inf, lax.min, (1, 1, 3, 3), (1, 1, 1, 1), "SAME"),
    lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 1, 3, 3), (1, 1, 2, 2), "SAME")], ids=["max", "min", "sum"])
def test_overlapping_pooling_over_split_spatial_dimensions_exchanges_halos(pool):
    # the devices at the ends fill their outer halo with the window's identity (-inf for max), as the padding is
    _check(pool, (_put(XS, *_SPATIAL),), [_SPATIAL], bound=_haloed_bound(2))


@pytest.mark.parametrize("padding", ["SAME", ((1, 1), (0, 2))])
def test_both_gradients_of_a_spatially_split_conv_exchange_halos(padding):
    loss = lambda x, w: jnp.sum(jnp.tanh(lax.conv_general_dilated(x, w, (1, 1), padding)) ** 2)  # noqa: E731
    _check(jax.grad(loss), (_put(XS, *_SPATIAL), _put(W)), [_SPATIAL], bound=_haloed_bound(2))
    # the kernel gradient sums over the positions: each device its own (haloed) ones, then a psum
    _check(jax.grad(loss, 1), (_put(XS, *_SPATIAL), _put(W)), [P(None, None, None, None)], bound=_haloed_bound(2))
    text = jax.jit(jax.grad(loss, 1)).lower(_put(XS, *_SPATIAL), _put(W)).compile().as_text()
    assert "psum" in text and "ppermute" in text and "all_gather" not in text


def test_windows_that_do_not_line_up_with_the_blocks_gather():
    # a VALID 3-window over 16 gives 14 results, which 4 devices cannot share: JAX's type error
    with pytest.raises(Exception, match="not divisible by mesh axes"):
        jax.jit(lambda x: lax.conv_general_dilated(x, W, (1, 1), "VALID"))(_put(XS, *_SPATIAL))
    # the max-pool gradient of overlapping windows scatters across block edges: gathered, and right
    grad = jax.grad(lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 1, 1),
                                                        "SAME") ** 2))
    _check(grad, (_put(XS, *_SPATIAL),), [_SPATIAL], bound=XS.size)


@pytest.mark.parametrize("fn", [jnp.fft.fft, jnp.fft.rfft2, jnp.fft.ifft2], ids=["fft", "rfft2", "ifft2"])
def test_fft_over_whole_trailing_axes(fn):
    _check(fn, (_put(X, "x", "y"),), [P("x", "y", None, None)])


@pytest.mark.parametrize("name", ["cholesky", "eigh", "qr", "svd", "lu", "triangular_solve"])
def test_batched_linalg(name):
    fns = {
        # (the primitive itself: lax.linalg.cholesky's tril mask is a replicated broadcast on every device)
        "cholesky": (lambda a: np.linalg.cholesky(a) if isinstance(a, np.ndarray) else lax.linalg.cholesky_p.bind(a),
                     SPD),
        "eigh": (lambda a: jnp.linalg.eigh(a)[0], SPD),
        "qr": (lambda a: jnp.abs(jnp.linalg.qr(a)[1]), A),
        "svd": (lambda a: jnp.linalg.svd(a, compute_uv=False), A),
        "lu": (lambda a: lax.linalg.lu(a)[0], SPD),
        "triangular_solve": (lambda a: lax.linalg.triangular_solve(a, a, left_side=True, lower=True),
                             np.tril(SPD)),
    }
    fn, value = fns[name]
    arg = _put(value, "x", "y")
    out = jax.jit(fn)(arg)
    # (the primitive leaves the upper triangle as it finds it)
    post = np.tril if name == "cholesky" else np.asarray
    _check(fn, (arg,), [P("x", "y", *(None,) * (out.ndim - 2))], post=post)


def test_triangular_solve_keeps_the_right_hand_sides_split():
    f = lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)  # noqa: E731
    _check(f, (_put(SPD, "x"), _put(A, "x", None, None, "y")), [P("x", None, None, "y")])


@pytest.mark.parametrize("fn", [lambda a: jnp.cumsum(a, axis=2), lambda a: lax.cummax(a, axis=3),
                                lambda a: jnp.sort(a, axis=3), lambda a: jnp.argsort(a, axis=2)],
                         ids=["cumsum", "cummax", "sort", "argsort"])
def test_cumulative_ops_and_sorts_along_whole_axes(fn):
    _check(fn, (_put(X, "x", "y"),), [P("x", "y", None, None)])


def _depthwise(x, w, **kw):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=4, **kw)


def test_depthwise_conv_and_its_kernel_gradient_on_a_split_batch():
    w = RNG.randn(4, 1, 3, 3).astype(np.float32)
    _check(_depthwise, (_put(X, "x"), _put(w)), [P("x", None, None, None)])
    loss = lambda w, x: jnp.sum(_depthwise(x, w) ** 2)  # noqa: E731
    _check(jax.grad(loss), (_put(w), _put(X, "x")), [P(None, None, None, None)])


def test_depthwise_conv_with_split_channels_takes_each_devices_groups():
    w = RNG.randn(4, 1, 3, 3).astype(np.float32)
    out = NamedSharding(_mesh(), P("x", "y"))
    _check(lambda x, w: _depthwise(x, w, out_sharding=out), (_put(X, "x", "y"), _put(w, "y")),
           [P("x", "y", None, None)])


def test_the_max_pool_jvp_selects_per_device():
    # jvp of a max pool is select_and_gather_add
    f = lambda x, t: jax.jvp(_max_pool, (x,), (t,))[1]  # noqa: E731
    t = RNG.randn(*X.shape).astype(np.float32)
    _check(f, (_put(X, "x", "y"), _put(t, "x", "y")), [P("x", "y", None, None)])


def test_a_generic_reduce_window_and_an_eager_conv():
    prod_pool = lambda x: lax.reduce_window(x, 1.0, lax.mul, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")  # noqa: E731
    _check(prod_pool, (_put(X, "x", "y"),), [P("x", "y", None, None)])
    seen: list = []
    with spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = _conv(_put(X, "x"), _put(W))
    assert out.sharding.spec == P("x", None, None, None) and seen and max(seen) <= 2 * 4 * 6 * 6


B = RNG.randint(0, 4, size=(8, 16)).astype(np.int32)


@pytest.mark.parametrize("fn", [lambda a: jnp.prod(a.astype(np.float32) * 0.5 + 0.8, axis=1),
                                lambda a: jnp.prod(a.astype(np.float32) * 0.5 + 0.8),
                                lambda a: jnp.all(a > 0, axis=0), lambda a: jnp.any(a > 2, axis=1),
                                lambda a: lax.reduce_xor(a, (0, 1)), lambda a: lax.reduce_or(a, (1,))],
                         ids=["prod_rows", "prod_all", "all", "any", "xor", "or"])
def test_reductions_without_a_collective_gather_only_partials(fn):
    # the gathered partials: one result block per device along the reduced axes (at most 4 x 8
    # for a reduction over the rows split 4 ways); the fallback gathers all 128 elements
    x = _put(B, "x", "y")
    out = jax.jit(fn)(x)
    _check(fn, (x,), [out.sharding.spec], bound=32)


T = RNG.randn(8, 16, 4).astype(np.float32)


@pytest.mark.parametrize("fn, spec, out_specs", [
    (lambda p: lax.top_k(p, 3), ("x", "y"), [P("x", "y", None)] * 2),
    (lambda p: jnp.tile(p, (1, 2, 1)), ("x", None, "y"), [P("x", None, "y")]),
    (lambda p: lax.dynamic_slice_in_dim(p, 2, 4, 1), ("x", None, "y"), [P("x", None, "y")]),
    (lambda p: lax.dynamic_slice(p, (jnp.int32(5), jnp.int32(3), jnp.int32(1)), (8, 6, 4)), ("x", None, "y"),
     [P("x", None, "y")]),
    (lambda p: lax.dynamic_update_slice_in_dim(p, p[:, :2] * 2, 3, 1), ("x", None, "y"), [P("x", None, "y")]),
], ids=["top_k", "tile", "dynamic_slice", "dynamic_slice_clamped", "dynamic_update_slice"])
def test_slices_tiles_and_top_k_along_whole_dims(fn, spec, out_specs):
    # a dimension taken whole stays split (its start clamps to 0 on a block as on the whole value)
    _check(fn, (_put(T, *spec),), out_specs)


def test_grad_with_batch_and_filters_split():
    # forward: batch over x, filters over y; the input gradient contracts the y-split
    # features (local conv, psum over y), the kernel gradient the x-split batch (psum over x)
    out = NamedSharding(_mesh(), P("x", "y"))
    loss = lambda w, x: jnp.sum(jnp.tanh(_conv(x, w, out_sharding=out)) ** 2)  # noqa: E731
    w, x = _put(W, "y"), _put(X, "x")
    _check(jax.grad(loss), (w, x), [P("y", None, None, None)], reference=jax.grad(_loss))
    _check(jax.grad(loss, 1), (w, x), [P("x", None, None, None)], reference=jax.grad(_loss, 1))
