"""Products the compiled code hands to BLAS itself (codegen/dots.py):
`np.matmul` (or split.matmul) on the views the dot_general impl would make,
bitwise the impl's results, and the impl kept where its path differs."""

import numpy as np
import pytest

import pyjax
from pyjax._src.backends.numpy import tiers as tiers_lib
from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.lax import dot as dot_lax


@pytest.fixture(autouse=True)
def pool_blocks(monkeypatch):
    # The split products here are checked as the pool cuts them; native/
    # threads.py's runtime, which calls NumPy's loop on the same blocks, is
    # checked against the pool in test_native_threads.py.
    monkeypatch.setattr(split_lib, "_native_matmul", lambda *args: False)

rng = np.random.default_rng(11)

# (lhs shape, rhs shape, contracting dims): every placement of the
# contracting axis behind a leading batch axis.
LAYOUTS = [
    ((3, 5, 7), (3, 7, 4), ((2,), (1,))),   # (B, M, K) @ (B, K, N)
    ((3, 7, 5), (3, 7, 4), ((1,), (1,))),   # lhs (B, K, M)
    ((3, 5, 7), (3, 4, 7), ((2,), (2,))),   # rhs (B, N, K): q @ k.T
    ((3, 7, 5), (3, 4, 7), ((1,), (2,))),   # both transposed
    ((2, 64, 96), (2, 96, 80), ((2,), (1,))),  # past OpenBLAS's small-matrix kernels
]


def _random(shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _jaxpr(lhs, rhs, contract, batch=((0,), (0,)), preferred=None):
    return pyjax.make_jaxpr(lambda a, b: dot_lax.dot_general(a, b, (contract, batch),
                                                             preferred_element_type=preferred))(lhs, rhs)


def _impl(jaxpr, a, b):
    return IMPLS[dot_lax.dot_general_p](a, b, **jaxpr.eqns[0].params)


def _assert_bitwise(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("lhs_shape, rhs_shape, contract", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_batched_product_calls_matmul_and_is_bitwise_the_impl(lhs_shape, rhs_shape, contract, dtype):
    with pyjax.enable_x64(np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))):  # (their own jaxprs)
        jaxpr = _jaxpr(np.ones(lhs_shape, dtype), np.ones(rhs_shape, dtype), contract)
        assert jaxpr.jaxpr.outvars[0].aval.dtype == dtype
        compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers())
        assert "_np_matmul" in compiled.source and "_dot_general" not in compiled.source, compiled.source
        for _ in range(3):
            a, b = _random(lhs_shape, dtype), _random(rhs_shape, dtype)
            _assert_bitwise(compiled(a, b)[0], _impl(jaxpr, a, b))


@pytest.mark.parametrize("lhs_shape, rhs_shape, contract", LAYOUTS[:4])
def test_strided_operands_are_read_as_the_impl_reads_them(lhs_shape, rhs_shape, contract):
    # Views of larger arrays (every other batch entry, a column window), as
    # a tiled block's slices or a transpose's output arrive.
    jaxpr = _jaxpr(np.ones(lhs_shape, np.float32), np.ones(rhs_shape, np.float32), contract)
    compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers())
    big_a = _random((2 * lhs_shape[0], lhs_shape[1], lhs_shape[2] + 3), np.float32)
    big_b = _random((rhs_shape[0], rhs_shape[2], rhs_shape[1]), np.float32)
    a = big_a[::2, :, 1:1 + lhs_shape[2]]
    b = big_b.transpose(0, 2, 1)
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    _assert_bitwise(compiled(a, b)[0], _impl(jaxpr, a, b))


def test_a_large_batched_product_is_split_as_the_impl_splits_it(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    lhs, rhs = _random((4, 128, 256), np.float32), _random((4, 256, 128), np.float32)
    jaxpr = _jaxpr(lhs, rhs, ((2,), (1,)))
    calls = []
    real = split_lib._run_blocks
    monkeypatch.setattr(split_lib, "_run_blocks", lambda fn, blocks: calls.append(len(blocks)) or real(fn, blocks))
    compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers(split=split_lib.SplitTier()))
    assert "_split_matmul" in compiled.source, compiled.source
    got = compiled(lhs, rhs)[0]
    assert calls == [2]
    _assert_bitwise(got, _impl(jaxpr, lhs, rhs))
    # below the split's threshold: one np.matmul
    small = _jaxpr(lhs[:, :8], rhs, ((2,), (1,)))
    assert "_np_matmul" in compile_jaxpr(small, IMPLS, tiers=tiers_lib.Tiers(split=split_lib.SplitTier())).source


@pytest.mark.parametrize("case", ["k1", "empty", "int", "preferred", "two_batch_axes_k1", "batch_not_leading"])
def test_products_the_impl_keeps(case):
    # K = 1 (the impl multiplies: no BLAS sum and its zero signs), empty
    # axes, integer and cast products, and other batch layouts stay the impl's.
    f32 = np.float32
    if case == "k1":
        jaxpr = _jaxpr(np.ones((3, 5, 1), f32), np.ones((3, 1, 4), f32), ((2,), (1,)))
    elif case == "empty":
        jaxpr = _jaxpr(np.ones((3, 0, 4), f32), np.ones((3, 4, 2), f32), ((2,), (1,)))
    elif case == "int":
        jaxpr = _jaxpr(np.ones((3, 5, 4), np.int32), np.ones((3, 4, 2), np.int32), ((2,), (1,)))
    elif case == "preferred":
        jaxpr = _jaxpr(np.ones((3, 5, 4), np.float16), np.ones((3, 4, 2), np.float16), ((2,), (1,)),
                       preferred=np.float32)
    elif case == "two_batch_axes_k1":
        jaxpr = _jaxpr(np.ones((2, 3, 5, 1), f32), np.ones((2, 3, 1, 2), f32), ((3,), (2,)), ((0, 1), (0, 1)))
    else:
        jaxpr = _jaxpr(np.ones((5, 3, 4), f32), np.ones((3, 4, 2), f32), ((2,), (1,)), ((1,), (0,)))
    source = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers()).source
    assert "matmul" not in source and "_dot_general" in source, source


# Products without batch axes of N-d operands or several contracting axes:
# (lhs shape, rhs shape, contracting dims).
FLAT_LAYOUTS = [
    ((4, 5, 7), (7, 3), ((2,), (0,))),  # activations @ weight
    ((4, 5, 7), (3, 7), ((2,), (1,))),  # activations @ weight.T (a projection's input gradient)
    ((4, 5, 7), (4, 5, 3), ((0, 1), (0, 1))),  # a weight's gradient, summed over batch and sequence
    ((7, 4, 5), (3, 7), ((0,), (1,))),  # contracting axis first
    ((2, 3, 4), (3, 4, 2, 5), ((1, 2), (0, 1))),  # two contracting axes into an N-d rhs
    ((6,), (2, 6, 3), ((0,), (1,))),  # a vector against an N-d operand
]


@pytest.mark.parametrize("lhs_shape, rhs_shape, contract", FLAT_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_unbatched_nd_product_calls_matmul_and_is_bitwise_the_impl(lhs_shape, rhs_shape, contract, dtype):
    with pyjax.enable_x64(np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))):
        jaxpr = _jaxpr(np.ones(lhs_shape, dtype), np.ones(rhs_shape, dtype), contract, batch=((), ()))
        compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers())
        assert "_np_matmul" in compiled.source and "_dot_general" not in compiled.source, compiled.source
        for _ in range(3):
            a, b = _random(lhs_shape, dtype), _random(rhs_shape, dtype)
            _assert_bitwise(compiled(a, b)[0], _impl(jaxpr, a, b))
        # strided views, whose axes do not merge: the impl's copies, the same bits
        a = _random(lhs_shape[:-1] + (2 * lhs_shape[-1],), dtype)[..., ::2]
        b = _random(rhs_shape[::-1], dtype).transpose(tuple(range(len(rhs_shape)))[::-1])
        _assert_bitwise(compiled(a, b)[0], _impl(jaxpr, a, b))


def test_a_large_unbatched_product_is_split_as_the_impl_splits_it(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    lhs, rhs = _random((4, 128, 256), np.float32), _random((256, 128), np.float32)
    jaxpr = _jaxpr(lhs, rhs, ((2,), (0,)), batch=((), ()))
    calls = []
    real = split_lib._run_blocks
    monkeypatch.setattr(split_lib, "_run_blocks", lambda fn, blocks: calls.append(len(blocks)) or real(fn, blocks))
    compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers(split=split_lib.SplitTier()))
    assert "_split_matmul" in compiled.source and "_dot_general" not in compiled.source, compiled.source
    got = compiled(lhs, rhs)[0]
    assert calls == [2]
    _assert_bitwise(got, _impl(jaxpr, lhs, rhs))
    # nothing to sum (K = 1): the impl multiplies, and stays
    k1 = _jaxpr(lhs[..., :1], rhs[:1], ((2,), (0,)), batch=((), ()))
    source = compile_jaxpr(k1, IMPLS, tiers=tiers_lib.Tiers(split=split_lib.SplitTier())).source
    assert "matmul" not in source and "_dot_general" in source, source


def test_a_loop_writes_a_batched_product_straight_into_its_stacked_output():
    # A scan's ys are written in place (`ys[i]`) by the product itself.
    a = _random((6, 3, 5, 7), np.float32)
    b = _random((3, 7, 4), np.float32)

    def f(a, b):
        return pyjax.lax.scan(lambda c, x: (c, dot_lax.dot_general(x, b, (((2,), (1,)), ((0,), (0,))))), 0.0, a)[1]

    jaxpr = pyjax.make_jaxpr(f)(a, b)
    compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers())
    assert "_np_matmul" in compiled.source and ", out=" in compiled.source, compiled.source
    step = _jaxpr(a[0], b, ((2,), (1,)))
    _assert_bitwise(compiled(a, b)[0], np.stack([_impl(step, x, b) for x in a]))


# Products batched over two axes (attention's (batch, heads)): (lhs shape,
# rhs shape, contracting dims, batch dims).
HEAD_LAYOUTS = [
    ((2, 3, 5, 4), (2, 3, 6, 4), ((3,), (3,)), ((0, 1), (0, 1))),  # q @ k.T
    ((2, 3, 5, 6), (2, 3, 6, 4), ((3,), (2,)), ((0, 1), (0, 1))),  # probabilities @ v
    ((2, 3, 6, 5), (2, 3, 6, 4), ((2,), (2,)), ((0, 1), (0, 1))),  # probabilities.T @ a gradient
    ((2, 3, 6, 4), (2, 3, 5, 6), ((2,), (3,)), ((0, 1), (0, 1))),  # lhs (B, H, K, M), rhs (B, H, N, K)
    ((5, 2, 3, 4), (2, 4, 3, 6), ((3,), (1,)), ((1, 2), (0, 2))),  # batch axes elsewhere
    ((2, 2, 128, 96), (2, 2, 96, 128), ((3,), (2,)), ((0, 1), (0, 1))),  # past the small-matrix kernels
]


def _head_view(shape, dtype):
    # (B, H, M, K) as attention's heads arrive: a window of a (B, M, H*K)
    # projection, reshaped and transposed (its batch axes do not merge).
    b, h, m, k = shape
    return _random((b, m, 2 * h * k), dtype)[..., :h * k].reshape(b, m, h, k).transpose(0, 2, 1, 3)


@pytest.mark.parametrize("lhs_shape, rhs_shape, contract, batch", HEAD_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_a_product_batched_over_two_axes_calls_matmul_and_is_bitwise_the_impl(lhs_shape, rhs_shape, contract,
                                                                                batch, dtype):
    with pyjax.enable_x64(np.dtype(dtype) == np.dtype(np.float64)):
        jaxpr = _jaxpr(np.ones(lhs_shape, dtype), np.ones(rhs_shape, dtype), contract, batch)
        compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers_lib.Tiers())
        assert "_np_matmul" in compiled.source and "_dot_general" not in compiled.source, compiled.source
        operands = [(_random(lhs_shape, dtype), _random(rhs_shape, dtype))]
        if batch[0] == (0, 1):  # strided head views, one or both, and the transposes of contiguous arrays
            operands += [(_head_view(lhs_shape, dtype), _head_view(rhs_shape, dtype)),
                         (_head_view(lhs_shape, dtype), _random(rhs_shape, dtype)),
                         (_random(lhs_shape, dtype), _head_view(rhs_shape, dtype)),
                         (_random(lhs_shape[:2] + lhs_shape[:1:-1], dtype).transpose(0, 1, 3, 2),
                          _random(rhs_shape[:2] + rhs_shape[:1:-1], dtype).transpose(0, 1, 3, 2))]
        if lhs_shape == rhs_shape:  # one head view on both sides (q @ q.T)
            q = _head_view(lhs_shape, dtype)
            operands.append((q, q))
        for a, b in operands:
            _assert_bitwise(compiled(a, b)[0], _impl(jaxpr, a, b))
