"""Sorting and searching against NumPy: sort / argsort (stable, descending,
axis=None, NaN placement), lexsort, partition / argpartition, sort_complex,
searchsorted (sides, sorters, every method JAX offers), digitize, clip,
select / choose / where, take / take_along_axis / put_along_axis / put /
place, unravel_index / ravel_multi_index; JAX's errors; hypothesis layers.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp

RNG = np.random.default_rng(13)
X = RNG.integers(-5, 5, size=(3, 4, 5)).astype(np.float32)


def _i32(a):
    return np.asarray(a).astype(np.int32)


@pytest.mark.parametrize("axis", [0, -1, None])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float16, np.float32, bool])
def test_sort_and_argsort(axis, dtype):
    x = X.astype(dtype)
    check_close(jnp.sort(x, axis=axis), np.sort(x, axis=axis))
    check_close(jnp.argsort(x, axis=axis, stable=True), _i32(np.argsort(x, axis=axis, kind="stable")))
    descending = jnp.argsort(x, axis=axis, stable=True, descending=True)
    ref = np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
    n = x.shape[axis] if axis is not None else x.size
    check_close(descending, _i32(n - 1 - ref))
    check_close(jnp.sort(x, axis=axis, descending=True), np.flip(np.sort(x, axis=axis), axis))


def test_sort_nans_and_complex():
    f = np.array([3.0, np.nan, -1.0, np.inf, np.nan, 0.0], np.float32)
    check_close(jnp.sort(f), np.sort(f))  # NaNs last, as NumPy
    check_close(jnp.argsort(f), _i32(np.argsort(f, kind="stable")))
    z = np.array([1 + 2j, 1 - 1j, -3 + 0j, 1 + 0j], np.complex64)
    check_close(jnp.sort(z), np.sort(z))  # lexicographic on (real, imag)
    check_close(jnp.sort_complex(np.array([3, 1, 2], np.int32)), np.sort_complex(np.array([3, 1, 2], np.int32))
                .astype(np.complex64))


def test_sort_errors():
    with pytest.raises(TypeError, match="'kind' argument to sort is not supported. Use stable=True or "
                       "stable=False to specify sort stability."):
        jnp.sort(X, kind="quicksort")
    with pytest.raises(TypeError, match="'order' argument to sort is not supported."):
        jnp.sort(X, order="a")


def test_lexsort():
    a = np.array([1, 5, 1, 4, 3, 4, 4], np.int32)
    b = np.array([9, 4, 0, 4, 0, 2, 1], np.int32)
    check_close(jnp.lexsort((b, a)), _i32(np.lexsort((b, a))))
    m = RNG.integers(0, 3, size=(3, 6))
    check_close(jnp.lexsort(m), _i32(np.lexsort(m)))
    check_close(jnp.lexsort(m.T, axis=0), _i32(np.lexsort(m.T, axis=0)))
    with pytest.raises(TypeError, match="need sequence of keys with len > 0 in lexsort"):
        jnp.lexsort(())


@pytest.mark.parametrize("kth", [0, 2, -1])
def test_partition(kth):
    x = RNG.permutation(12).astype(np.float32)
    part = np.asarray(jnp.partition(x, kth))
    k = kth % x.size
    assert part[k] == np.sort(x)[k]
    assert np.all(part[:k] <= part[k]) and np.all(part[k + 1:] >= part[k])
    idx = np.asarray(jnp.argpartition(x, kth))
    check_close(x[idx][k], np.sort(x)[k])
    m = RNG.normal(size=(3, 7)).astype(np.float32)
    p = np.asarray(jnp.partition(m, 3, axis=1))
    check_close(p[:, 3], np.sort(m, axis=1)[:, 3])
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        jnp.partition(x, 1.5)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "sort", "compare_all"])
def test_searchsorted(side, method):
    a = np.array([-1.0, 0.0, 0.0, 2.5, 4.0, 4.0, 9.0], np.float32)
    v = np.array([[-3.0, 0.0, 1.0], [4.0, 9.0, 11.0]], np.float32)
    check_close(jnp.searchsorted(a, v, side=side, method=method), _i32(np.searchsorted(a, v, side=side)))
    sorter = np.argsort(a[::-1], kind="stable")
    check_close(jnp.searchsorted(a[::-1], v, side=side, sorter=sorter, method=method),
                _i32(np.searchsorted(a[::-1], v, side=side, sorter=sorter)))
    check_close(pyjax.jit(lambda s, q: jnp.searchsorted(s, q, side=side, method=method))(a, v),
                _i32(np.searchsorted(a, v, side=side)))


def test_searchsorted_errors_and_nans():
    with pytest.raises(ValueError, match="invalid argument side='bogus', expected 'left' or 'right'"):
        jnp.searchsorted(np.arange(3), 1, side="bogus")
    with pytest.raises(ValueError, match=r"invalid argument method='bogus', expected one of \['compare_all', 'scan', 'scan_unrolled', 'sort'\]"):
        jnp.searchsorted(np.arange(3), 1, method="bogus")
    with pytest.raises(ValueError, match="a should be 1-dimensional"):
        jnp.searchsorted(np.ones((2, 2)), 1.0)
    a = np.array([0.0, 1.0, np.nan], np.float32)
    check_close(jnp.searchsorted(a, np.array([np.nan, 0.5], np.float32)),
                _i32(np.searchsorted(a, np.array([np.nan, 0.5], np.float32))))


@pytest.mark.parametrize("right", [False, True])
def test_digitize(right):
    bins = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
    x = np.array([-1.0, 0.0, 1.0, 3.0, 4.0, 7.0], np.float32)
    check_close(jnp.digitize(x, bins, right=right), _i32(np.digitize(x, bins, right=right)))
    check_close(jnp.digitize(x, bins[::-1], right=right), _i32(np.digitize(x, bins[::-1], right=right)))


def test_clip():
    x = np.linspace(-3, 3, 7).astype(np.float32)
    check_close(jnp.clip(x, -1, 2), np.clip(x, -1, 2))
    check_close(jnp.clip(x, min=0.5), np.clip(x, 0.5, None))
    check_close(jnp.clip(x, max=np.full(7, 1.0, np.float32)), np.clip(x, None, 1.0))
    check_close(jnp.clip(np.arange(5, dtype=np.int8), 1, 3), np.clip(np.arange(5, dtype=np.int8), 1, 3))
    check_close(jnp.clip(x), x)
    with pytest.raises(TypeError, match="clip\\(\\) got an unexpected keyword argument 'a_min'"):
        jnp.clip(x, a_min=0.0)  # removed in JAX 0.11


def test_select_choose_where():
    x = np.arange(-3, 4, dtype=np.int32)
    conds = [x < -1, x > 1]
    check_close(jnp.select(conds, [x * 10, x * 100], default=-7), np.select(conds, [x * 10, x * 100], default=-7))
    check_close(jnp.where(x > 0, x, 0), np.where(x > 0, x, 0).astype(np.int32))
    check_close(jnp.where(x > 0, 1.5, x), np.where(x > 0, 1.5, x).astype(np.float32))
    choices = [np.arange(4, dtype=np.int32) + 10 * k for k in range(3)]
    idx = np.array([2, 0, 1, 5], np.int32)
    check_close(jnp.choose(idx, choices, mode="clip"), np.choose(idx, choices, mode="clip"))
    check_close(jnp.choose(idx, choices, mode="wrap"), np.choose(idx, choices, mode="wrap"))
    check_close(jnp.select([x], [x]), x)  # a non-boolean condition is converted
    with pytest.raises(ValueError, match=r"condlist must have length equal to choicelist \(1 vs 2\)"):
        jnp.select([x > 0], [x, x])
    with pytest.raises(TypeError, match="where requires ndarray or scalar arguments, got <class 'NoneType'> at "
                       "position 2."):
        jnp.where(x > 0, x)


@pytest.mark.parametrize("mode", [None, "clip", "wrap", "fill"])
def test_take(mode):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[0, 2], [1, -1]])
    if mode in ("clip", "wrap"):
        check_close(jnp.take(a, np.array([5, -7, 1]), axis=1, mode=mode), np.take(a, [5, -7, 1], axis=1, mode=mode))
    # JAX's clip and wrap apply to negative indices too (NumPy's do the same).
    np_mode = mode if mode in ("clip", "wrap") else "raise"
    check_close(jnp.take(a, idx, mode=mode), np.take(a, idx, mode=np_mode))
    check_close(jnp.take(a, idx, axis=0, mode=mode), np.take(a, idx, axis=0, mode=np_mode))
    if mode in (None, "fill"):
        # Out-of-bounds reads give the fill value (NaN for floats) by default.
        assert np.isnan(np.asarray(jnp.take(a, np.array([20]), mode=mode))[0])


def test_take_along_axis_and_put_along_axis():
    a = RNG.normal(size=(3, 4)).astype(np.float32)
    order = np.argsort(a, axis=1)
    check_close(jnp.take_along_axis(a, order, axis=1), np.take_along_axis(a, order, axis=1))
    check_close(jnp.take_along_axis(a, order[:, :1], axis=1), np.take_along_axis(a, order[:, :1], axis=1))
    check_close(jnp.take_along_axis(a.ravel(), order.ravel(), axis=None), np.take_along_axis(a.ravel(), order.ravel(),
                                                                                             axis=None))
    out = jnp.put_along_axis(a, order[:, :1], -1.0, axis=1, inplace=False)
    want = a.copy()
    np.put_along_axis(want, order[:, :1], -1.0, axis=1)
    check_close(out, want)
    with pytest.raises(ValueError, match="jax.numpy.put_along_axis cannot modify arrays in-place"):
        jnp.put_along_axis(a, order, 0.0, axis=1)
    with pytest.raises(ValueError, match="indices and arr must have the same number of dimensions"):
        jnp.take_along_axis(a, order[0], axis=1)


def test_put_and_place():
    a = np.arange(6, dtype=np.float32)
    want = a.copy()
    np.put(want, [0, 7], [-1.0, -2.0], mode="wrap")
    check_close(jnp.put(a, np.array([0, 7]), np.array([-1.0, -2.0]), mode="wrap", inplace=False), want)
    want = a.copy()
    np.place(want, a > 2, [9.0, 8.0])
    check_close(jnp.place(a, a > 2, np.array([9.0, 8.0]), inplace=False), want)
    with pytest.raises(ValueError, match="jax.numpy.put cannot modify arrays in-place"):
        jnp.put(a, 0, 1.0)


def test_unravel_and_ravel_multi_index():
    flat = np.array([0, 5, 11, -1], np.int32)
    for got, want in zip(jnp.unravel_index(flat, (3, 4)), np.unravel_index(flat % 12, (3, 4)), strict=True):
        check_close(got, _i32(want))
    idx = (np.array([0, 2, 1]), np.array([3, 0, 5]))
    check_close(jnp.ravel_multi_index(idx, (3, 4), mode="clip"), _i32(np.ravel_multi_index(idx, (3, 4), mode="clip")))
    check_close(jnp.ravel_multi_index(idx, (3, 4), mode="wrap"), _i32(np.ravel_multi_index(idx, (3, 4), mode="wrap")))
    check_close(jnp.ravel_multi_index(idx, (3, 4), mode="clip", order="F"),
                _i32(np.ravel_multi_index(idx, (3, 4), mode="clip", order="F")))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple), st.integers(0, 2**31 - 1))
def test_hypothesis_sort(shape, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 3, size=shape).astype(np.float32)
    axis = int(rng.integers(-len(shape), len(shape)))
    check_close(jnp.sort(x, axis=axis), np.sort(x, axis=axis))
    check_close(jnp.argsort(x, axis=axis), _i32(np.argsort(x, axis=axis, kind="stable")))
    check_close(jnp.take_along_axis(x, jnp.argsort(x, axis=axis), axis=axis), np.sort(x, axis=axis))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=8), st.lists(st.integers(-7, 7), min_size=0, max_size=6),
       st.sampled_from(["left", "right"]))
def test_hypothesis_searchsorted(a, v, side):
    a = np.sort(np.asarray(a, np.int32))
    v = np.asarray(v, np.int32)
    check_close(jnp.searchsorted(a, v, side=side), _i32(np.searchsorted(a, v, side=side)))
