"""Numerical helpers against NumPy: diff / ediff1d / gradient / trapezoid /
interp / unwrap, piecewise, apply_along_axis / apply_over_axes,
packbits / unpackbits, comparisons of whole arrays (array_equal,
array_equiv, allclose, isclose), vectorize (signatures, excluded),
frompyfunc and the ufunc methods (reduce, accumulate, outer, at,
reduceat), and the small introspection helpers (shape, ndim, size,
isscalar, iterable).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax
import pyjax.numpy as jnp

RNG = np.random.default_rng(23)
X = RNG.normal(size=(3, 5)).astype(np.float32)
TOL = {"rtol": 1e-5, "atol": 1e-5}


@pytest.mark.parametrize("n,axis", [(1, -1), (2, 0), (3, 1), (0, 1)])
def test_diff(n, axis):
    check_close(jnp.diff(X, n=n, axis=axis), np.diff(X, n=n, axis=axis), **TOL)
    edge = np.ones((1, 5) if axis == 0 else (3, 1), np.float32)
    check_close(jnp.diff(X, axis=axis, prepend=0.0, append=edge),
                np.diff(X, axis=axis, prepend=np.float32(0.0), append=edge), **TOL)
    check_close(jnp.diff(np.array([True, False, False])), np.diff(np.array([True, False, False])))


def test_ediff1d_gradient_trapezoid():
    check_close(jnp.ediff1d(X), np.ediff1d(X), **TOL)
    check_close(jnp.ediff1d(X, to_begin=np.float32(-1), to_end=np.array([7.0, 8.0], np.float32)),
                np.ediff1d(X, to_begin=-1, to_end=[7.0, 8.0]), **TOL)
    for got, want in zip(jnp.gradient(X), np.gradient(X), strict=True):
        check_close(got, want, **TOL)
    check_close(jnp.gradient(X, 0.5, axis=1), np.gradient(X, 0.5, axis=1), **TOL)
    x = np.cumsum(RNG.uniform(0.5, 1.0, 5)).astype(np.float32)
    check_close(jnp.gradient(X, x, axis=1), np.gradient(X, x, axis=1), **TOL)
    check_close(jnp.trapezoid(X), np.trapezoid(X), **TOL)
    check_close(jnp.trapezoid(X, x=x), np.trapezoid(X, x=x), **TOL)
    check_close(jnp.trapezoid(X, dx=0.25, axis=0), np.trapezoid(X, dx=0.25, axis=0), **TOL)


def test_interp():
    xp = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
    fp = np.array([1.0, -1.0, 3.0, 0.0], np.float32)
    x = np.linspace(-1, 5, 13).astype(np.float32)
    check_close(jnp.interp(x, xp, fp), np.interp(x, xp, fp).astype(np.float32), **TOL)
    check_close(jnp.interp(x, xp, fp, left=-9.0, right=9.0),
                np.interp(x, xp, fp, left=-9.0, right=9.0).astype(np.float32), **TOL)
    check_close(jnp.interp(x, xp, fp, period=3.0), np.interp(x, xp, fp, period=3.0).astype(np.float32), **TOL)
    ext = jnp.interp(np.array([-1.0, 5.0], np.float32), xp, fp, left="extrapolate", right="extrapolate")
    check_close(ext, np.array([3.0, -2.0], np.float32), **TOL)  # the end segments' slopes
    with pytest.raises(ValueError, match="xp and fp must be one-dimensional arrays of equal size"):
        jnp.interp(x, xp, fp[:3])


def test_unwrap():
    phase = np.cumsum(RNG.uniform(0, 2.5, 12)).astype(np.float32)
    wrapped = np.angle(np.exp(1j * phase)).astype(np.float32)
    check_close(jnp.unwrap(wrapped), np.unwrap(wrapped), rtol=1e-4, atol=1e-4)
    check_close(jnp.unwrap(wrapped, discont=4.0), np.unwrap(wrapped, discont=4.0), rtol=1e-4, atol=1e-4)
    degrees = np.array([0, 170, 350, 10, 200], np.float32)
    check_close(jnp.unwrap(degrees, period=360), np.unwrap(degrees, period=360), **TOL)


def test_piecewise():
    x = np.linspace(-2, 2, 9).astype(np.float32)
    got = jnp.piecewise(x, [x < 0, x >= 1], [lambda v: -v, lambda v: v * 10, 0.5])
    want = np.piecewise(x, [x < 0, x >= 1], [lambda v: -v, lambda v: v * 10, 0.5])
    check_close(got, want)
    check_close(pyjax.jit(lambda v: jnp.piecewise(v, [v > 0], [jnp.sin, jnp.cos]))(x),
                np.piecewise(x, [x > 0], [np.sin, np.cos]), **TOL)
    with pytest.raises(ValueError, match="with 1 condition\\(s\\), either 1 or 2 functions are expected; got 3"):
        jnp.piecewise(x, [x > 0], [1.0, 2.0, 3.0])


def test_apply_along_and_over_axes():
    check_close(jnp.apply_along_axis(lambda v: v.max() - v.min(), 1, X), np.apply_along_axis(np.ptp, 1, X))
    check_close(jnp.apply_along_axis(lambda v: v[::-1] * 2, 0, X), np.apply_along_axis(lambda v: v[::-1] * 2, 0, X))
    check_close(jnp.apply_over_axes(jnp.sum, X, [0, 1]), np.apply_over_axes(np.sum, X, [0, 1]), **TOL)


@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_unpackbits(bitorder):
    bits = RNG.integers(0, 2, size=(3, 11)).astype(np.uint8)
    check_close(jnp.packbits(bits, axis=1, bitorder=bitorder), np.packbits(bits, axis=1, bitorder=bitorder))
    check_close(jnp.packbits(bits, bitorder=bitorder), np.packbits(bits, bitorder=bitorder))
    packed = np.packbits(bits, axis=1)
    check_close(jnp.unpackbits(packed, axis=1, bitorder=bitorder), np.unpackbits(packed, axis=1, bitorder=bitorder))
    check_close(jnp.unpackbits(packed, axis=1, count=11), np.unpackbits(packed, axis=1, count=11))
    with pytest.raises(TypeError, match="Expected an input array of integer or boolean data type"):
        jnp.packbits(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="Expected an input array of unsigned byte data type"):
        jnp.unpackbits(np.ones(3, np.int32))


def test_array_comparisons():
    a = np.array([1.0, np.nan, 3.0], np.float32)
    assert bool(jnp.array_equal(a[[0, 2]], np.array([1.0, 3.0])))
    assert not bool(jnp.array_equal(a, a))
    assert bool(jnp.array_equal(a, a, equal_nan=True))
    assert not bool(jnp.array_equal(np.ones(2), np.ones(3)))
    assert bool(jnp.array_equiv(np.ones((2, 3)), np.ones(3)))
    assert not bool(jnp.array_equiv(np.ones((2, 3)), np.ones(2)))
    b = a + np.float32(1e-6)
    check_close(jnp.isclose(a, b), np.isclose(a, b))
    check_close(jnp.isclose(a, b, equal_nan=True), np.isclose(a, b, equal_nan=True))
    check_close(jnp.isclose(a, a + 0.1, rtol=0.0, atol=0.2), np.isclose(a, a + 0.1, rtol=0.0, atol=0.2))
    inf = np.array([np.inf, -np.inf, np.inf], np.float32)
    check_close(jnp.isclose(inf, inf[::-1]), np.isclose(inf, inf[::-1]))
    assert bool(jnp.allclose(X, X + 1e-7)) and not bool(jnp.allclose(X, X + 1.0))
    assert bool(jnp.allclose(a, a, equal_nan=True))
    check_close(jnp.isclose(np.arange(3), np.array([0, 1, 3])), np.array([True, True, False]))


def test_vectorize():
    def clipped_dot(a, b):
        return jnp.minimum(jnp.dot(a, b), 10.0)

    f = jnp.vectorize(clipped_dot, signature="(n),(n)->()")
    a, b = RNG.normal(size=(4, 3)).astype(np.float32), RNG.normal(size=(3,)).astype(np.float32)
    check_close(f(a, b), np.minimum(a @ b, 10.0), **TOL)
    g = jnp.vectorize(lambda x, n: x ** n, excluded={1})
    check_close(g(np.arange(4.0, dtype=np.float32), 2), np.arange(4.0, dtype=np.float32) ** 2)
    h = jnp.vectorize(lambda x, y: x + y)
    check_close(h(np.ones((2, 1), np.float32), np.arange(3, dtype=np.float32)), np.ones((2, 1), np.float32) + np.arange(3.0, dtype=np.float32))
    outer = jnp.vectorize(lambda v: jnp.outer(v, v), signature="(k)->(k,k)")
    check_close(outer(a), np.einsum("bi,bj->bij", a, a), **TOL)
    with pytest.raises(ValueError, match="not a valid gufunc signature: \\(n\\)-\\(\\)"):
        jnp.vectorize(clipped_dot, signature="(n)-()")(a, b)  # checked when called
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n': 4 vs 3"):
        f(a, np.ones(4, np.float32))


def test_frompyfunc_and_ufunc_methods():
    add = jnp.frompyfunc(lambda x, y: x + y, nin=2, nout=1, identity=0)
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    check_close(add(x, 1), x + 1)
    check_close(add.reduce(x, axis=1), np.add.reduce(x, axis=1).astype(np.int32))
    check_close(add.accumulate(x, axis=0), np.add.accumulate(x, axis=0).astype(np.int32))
    check_close(add.outer(np.arange(3, dtype=np.int32), np.arange(2, dtype=np.int32)),
                np.add.outer(np.arange(3, dtype=np.int32), np.arange(2, dtype=np.int32)))
    check_close(add.at(np.zeros(4, np.int32), np.array([0, 2, 0]), 5, inplace=False), np.array([10, 0, 5, 0], np.int32))
    check_close(add.reduceat(np.arange(8, dtype=np.int32), np.array([0, 4, 1])),
                np.add.reduceat(np.arange(8, dtype=np.int32), [0, 4, 1]).astype(np.int32))
    # The built-in ufuncs have the same methods.
    check_close(jnp.multiply.reduce(x, axis=0), np.multiply.reduce(x, axis=0).astype(np.int32))
    check_close(jnp.maximum.accumulate(np.array([1, 3, 2, 5], np.int32)), np.array([1, 3, 3, 5], np.int32))
    check_close(jnp.subtract.outer(np.arange(2.0), np.arange(3.0)), np.subtract.outer(np.arange(2.0), np.arange(3.0))
                .astype(np.float32))
    assert jnp.add.nin == 2 and jnp.add.nout == 1 and jnp.add.identity == 0
    assert repr(jnp.add) == "<jnp.ufunc 'add'>"
    with pytest.raises(NotImplementedError, match="Because JAX arrays are immutable, jnp.ufunc.at\\(\\) cannot "
                       "operate inplace like\nnp.ufunc.at\\(\\)."):
        add.at(np.zeros(4, np.int32), 0, 1)
    assert isinstance(jnp.add, jnp.ufunc) and isinstance(jnp.negative, jnp.ufunc)
    with pytest.raises(ValueError, match="reduce only supported for binary ufuncs"):
        jnp.negative.reduce(x)


def test_introspection_helpers():
    a = jnp.ones((2, 3))
    assert jnp.shape(a) == (2, 3) and jnp.ndim(a) == 2 and jnp.size(a) == 6
    assert jnp.shape(3.0) == () and jnp.size([[1, 2]]) == 2 and jnp.size(a, 1) == 3
    assert jnp.isscalar(3.0) and jnp.isscalar(jnp.float32(2)) and not jnp.isscalar(a)
    assert jnp.iterable([1]) and not jnp.iterable(3)
    assert jnp.astype(a, np.int8).dtype == np.int8
    with pytest.raises(TypeError, match="astype requires ndarray or scalar arguments"):
        jnp.astype([1, 2], np.int8)
