"""Array creation against NumPy: constant fills, ranges (arange, linspace,
logspace, geomspace), identity-like matrices (eye, identity, tri, tril,
triu), grids (meshgrid, indices, mgrid/ogrid, ix_), diagonals (diag,
diagflat, diagonal, trace, fill_diagonal and the index helpers),
fromfunction / frombuffer / fromstring, vander and the window functions;
JAX's default dtypes (x64 off) and weak types; JAX's errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax
import pyjax.numpy as jnp
from pyjax._src import core


def weak(x) -> bool:
    return core.get_aval(x).weak_type


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dtype", [None, np.int8, np.float16, jnp.bfloat16, np.complex64, bool])
def test_constant_fills(name, dtype):
    out = getattr(jnp, name)((2, 3), dtype=dtype)
    assert out.shape == (2, 3)
    assert out.dtype == (np.float32 if dtype is None else np.dtype(dtype))
    if name != "empty":
        check_close(out, getattr(np, name)((2, 3), dtype=out.dtype))
    like = getattr(jnp, f"{name}_like")(np.ones((4,), np.int16))
    assert like.shape == (4,) and like.dtype == np.int16


def test_full_and_full_like():
    check_close(jnp.full((2, 2), 3), np.full((2, 2), 3, np.int32))
    check_close(jnp.full(3, 1.5, dtype=np.float16), np.full(3, 1.5, np.float16))
    check_close(jnp.full((2, 3), np.array([1, 2, 3], np.float32)), np.full((2, 3), [1.0, 2.0, 3.0], np.float32))
    check_close(jnp.full_like(np.ones(3, np.int8), 7), np.full(3, 7, np.int8))
    check_close(jnp.full_like(np.ones(3), 2.5, dtype=np.float32, shape=(2,)), np.full(2, 2.5, np.float32))
    assert weak(jnp.full((2,), 1.0)) and not weak(jnp.full((2,), 1.0, dtype=np.float32))
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values of integer type"):
        pyjax.jit(lambda n: jnp.zeros(n))(3)
    with pytest.raises(TypeError, match=r"(?s)Cannot interpret '3' as a data type.*jax.numpy.zeros\(\(2, 3\)\)"):
        jnp.zeros(2, 3)


@pytest.mark.parametrize("args,kwargs", [((5,), {}), ((2, 9, 3), {}), ((1.0, 2.0, 0.25), {}), ((5, 0, -2), {}),
                                         ((3,), {"dtype": np.float16}), ((0.5, 4), {}), ((-3, 3), {"dtype": np.int8})])
def test_arange(args, kwargs):
    out = jnp.arange(*args, **kwargs)
    want = np.arange(*args, **kwargs)
    if want.dtype == np.int64:
        want = want.astype(np.int32)
    elif want.dtype == np.float64:
        want = want.astype(np.float32)
    check_close(out, want)


def test_arange_errors_and_traced_bounds():
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match="It arose in the jnp.arange argument 'stop'"):
        pyjax.jit(lambda n: jnp.arange(n))(3)
    check_close(pyjax.jit(lambda: jnp.arange(4))(), np.arange(4, dtype=np.int32))


@pytest.mark.parametrize("num", [1, 2, 7])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace(num, endpoint):
    check_close(jnp.linspace(-1.0, 3.0, num, endpoint=endpoint),
                np.linspace(-1.0, 3.0, num, endpoint=endpoint).astype(np.float32), rtol=1e-6, atol=1e-6)
    samples, step = jnp.linspace(0.0, 1.0, num, endpoint=endpoint, retstep=True)
    want_samples, want_step = np.linspace(0.0, 1.0, num, endpoint=endpoint, retstep=True)
    check_close(samples, want_samples.astype(np.float32), atol=1e-6)
    if num > 1:
        check_close(step, np.float32(want_step), rtol=1e-6)
    start, stop = np.array([0.0, 1.0], np.float32), np.array([1.0, -1.0], np.float32)
    check_close(jnp.linspace(start, stop, num, axis=1, endpoint=endpoint),
                np.linspace(start, stop, num, axis=1, endpoint=endpoint).astype(np.float32), atol=1e-6)
    check_close(jnp.linspace(0, 10, 5, dtype=np.int32), np.linspace(0, 10, 5, dtype=np.int32))
    with pytest.raises(ValueError, match="Number of samples, -1, must be non-negative."):
        jnp.linspace(0, 1, -1)


def test_logspace_and_geomspace():
    check_close(jnp.logspace(0.0, 2.0, 5), np.logspace(0.0, 2.0, 5).astype(np.float32), rtol=1e-5)
    check_close(jnp.logspace(1.0, 3.0, 4, base=2.0, endpoint=False),
                np.logspace(1.0, 3.0, 4, base=2.0, endpoint=False).astype(np.float32), rtol=1e-5)
    check_close(jnp.geomspace(1.0, 1000.0, 4), np.geomspace(1.0, 1000.0, 4).astype(np.float32), rtol=1e-5)
    check_close(jnp.geomspace(-1.0, -16.0, 5), np.geomspace(-1.0, -16.0, 5).astype(np.float32), rtol=1e-5)
    check_close(jnp.geomspace(2.0, 32.0, 3, endpoint=False),
                np.geomspace(2.0, 32.0, 3, endpoint=False).astype(np.float32), rtol=1e-5)


@pytest.mark.parametrize("k", [-2, 0, 1, 4])
def test_eye_tri_tril_triu(k):
    check_close(jnp.eye(3, 4, k=k), np.eye(3, 4, k=k, dtype=np.float32))
    check_close(jnp.eye(3, k=k, dtype=np.int32), np.eye(3, k=k, dtype=np.int32))
    check_close(jnp.tri(4, 3, k=k), np.tri(4, 3, k=k, dtype=np.float32))
    m = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check_close(jnp.tril(m, k=k), np.tril(m, k=k))
    check_close(jnp.triu(m, k=k), np.triu(m, k=k))
    check_close(jnp.identity(3, dtype=np.int8), np.identity(3, dtype=np.int8))
    with pytest.raises(ValueError, match="Argument to jax.numpy.tril must be at least 2D"):
        jnp.tril(np.ones(3))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse):
    a, b, c = np.arange(3.0), np.arange(4), np.arange(2.0)
    got = jnp.meshgrid(a, b, c, indexing=indexing, sparse=sparse)
    want = np.meshgrid(a, b, c, indexing=indexing, sparse=sparse)
    for g, w in zip(got, want, strict=True):
        check_close(g, w.astype(np.float32 if w.dtype == np.float64 else np.int32))


def test_indices_mgrid_ogrid_ix():
    check_close(jnp.indices((2, 3)), np.indices((2, 3)).astype(np.int32))
    for g, w in zip(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True), strict=True):
        check_close(g, w.astype(np.int32))
    check_close(jnp.mgrid[0:3, 1:5:2], np.mgrid[0:3, 1:5:2].astype(np.int32))
    check_close(jnp.mgrid[0:1:5j], np.mgrid[0:1:5j].astype(np.float32), atol=1e-7)
    for g, w in zip(jnp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3], strict=True):
        check_close(g, w.astype(np.int32))
    for g, w in zip(jnp.ix_(np.array([0, 2]), np.array([1, 3, 4])), np.ix_([0, 2], [1, 3, 4]), strict=True):
        check_close(g, w.astype(np.int32))
    check_close(jnp.r_[np.array([1, 2]), 0, np.array([5])], np.r_[[1, 2], 0, [5]].astype(np.int32))
    check_close(jnp.c_[np.array([1, 2]), np.array([3, 4])], np.c_[[1, 2], [3, 4]].astype(np.int32))
    check_close(jnp.r_["0,2", np.array([1, 2]), np.array([3, 4])], np.r_["0,2", [1, 2], [3, 4]].astype(np.int32))
    assert jnp.s_[1:3] == np.s_[1:3] and jnp.index_exp[2] == np.index_exp[2]


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_diagonals(k):
    m = np.arange(20, dtype=np.float32).reshape(4, 5)
    check_close(jnp.diag(m, k=k), np.diag(m, k=k))
    check_close(jnp.diag(np.arange(3.0, dtype=np.float32), k=k), np.diag(np.arange(3.0, dtype=np.float32), k=k))
    check_close(jnp.diagflat(np.array([[1, 2], [3, 4]], np.int32), k=k), np.diagflat([[1, 2], [3, 4]], k=k)
                .astype(np.int32))
    t = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check_close(jnp.diagonal(t, offset=k, axis1=2, axis2=0), np.diagonal(t, offset=k, axis1=2, axis2=0))
    check_close(jnp.trace(t, offset=k, axis1=1, axis2=2), np.trace(t, offset=k, axis1=1, axis2=2))
    with pytest.raises(ValueError, match="diag input must be 1d or 2d"):
        jnp.diag(t)


def test_diagonal_index_helpers():
    for got, want in zip(jnp.diag_indices(3, ndim=2), np.diag_indices(3, ndim=2), strict=True):
        check_close(got, want.astype(np.int32))
    for n, k, m in [(3, 0, None), (4, 1, 5), (3, -1, 2)]:
        for got, want in zip(jnp.tril_indices(n, k, m), np.tril_indices(n, k, m), strict=True):
            check_close(got, want.astype(np.int32))
        for got, want in zip(jnp.triu_indices(n, k, m), np.triu_indices(n, k, m), strict=True):
            check_close(got, want.astype(np.int32))
    a = np.ones((3, 4))
    for got, want in zip(jnp.triu_indices_from(a, 1), np.triu_indices_from(a, 1), strict=True):
        check_close(got, want.astype(np.int32))
    for got, want in zip(jnp.tril_indices_from(a), np.tril_indices_from(a), strict=True):
        check_close(got, want.astype(np.int32))
    for got, want in zip(jnp.diag_indices_from(np.ones((3, 3))), np.diag_indices_from(np.ones((3, 3))), strict=True):
        check_close(got, want.astype(np.int32))
    for got, want in zip(jnp.mask_indices(3, jnp.triu, 1), np.mask_indices(3, np.triu, 1), strict=True):
        check_close(got, want.astype(np.int32))
    b = np.zeros((3, 3), np.float32)
    out = jnp.fill_diagonal(b, 5.0, inplace=False)
    np.fill_diagonal(b, 5.0)
    check_close(out, b)
    with pytest.raises(NotImplementedError, match="JAX arrays are immutable, must use inplace=False"):
        jnp.fill_diagonal(jnp.zeros((2, 2)), 1.0)


def test_fromfunction_frombuffer_fromstring_vander():
    check_close(jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=np.int32),
                np.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=np.int32))
    raw = np.arange(4, dtype=np.int16).tobytes()
    check_close(jnp.frombuffer(raw, dtype=np.int16), np.frombuffer(raw, dtype=np.int16))
    check_close(jnp.fromstring("1 2 3", dtype=np.int32, sep=" "), np.array([1, 2, 3], np.int32))
    x = np.array([1.0, 2.0, 3.0], np.float32)
    check_close(jnp.vander(x), np.vander(x).astype(np.float32))
    check_close(jnp.vander(x, 2, increasing=True), np.vander(x, 2, increasing=True).astype(np.float32))


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("m", [0, 1, 6])
def test_window_functions(name, m):
    check_close(getattr(jnp, name)(m), getattr(np, name)(m).astype(np.float32), rtol=1e-5, atol=1e-6)


def test_kaiser():
    check_close(jnp.kaiser(7, 3.0), np.kaiser(7, 3.0).astype(np.float32), rtol=1e-5, atol=1e-6)


def test_array_and_asarray():
    check_close(jnp.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]], np.int32))
    check_close(jnp.array([1, 2.5]), np.array([1, 2.5], np.float32))
    check_close(jnp.array([True, 2]), np.array([1, 2], np.int32))
    check_close(jnp.array((1 + 2j, 3)), np.array([1 + 2j, 3], np.complex64))
    check_close(jnp.array([jnp.ones(2), np.zeros(2)]), np.array([[1, 1], [0, 0]], np.float32))
    check_close(jnp.array(np.arange(3), ndmin=3), np.arange(3, dtype=np.int32).reshape(1, 1, 3))
    assert weak(jnp.asarray(2.0)) and not weak(jnp.array(2.0, dtype=np.float32))
    assert jnp.asarray(np.float64(2.0)).dtype == np.float32  # x64 is off
    x = jnp.ones(3)
    assert jnp.asarray(x) is x
    check_close(jnp.copy(x), np.ones(3, np.float32))
    with pytest.raises(TypeError, match="with dtype object is not a valid JAX array type. Only arrays of numeric "
                       "types are supported by JAX."):
        jnp.array([object()])
    with pytest.raises(ValueError, match="setting an array element with a sequence"):
        jnp.array([[1, 2], [3]])


def test_io_and_interchange(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(3.0))
    loaded = jnp.load(path)
    assert isinstance(loaded, pyjax.Array)
    check_close(loaded, np.arange(3.0, dtype=np.float32))  # x64 is off
    check_close(jnp.from_dlpack(np.arange(3)), np.arange(3, dtype=np.int32))
    assert jnp.save is np.save and jnp.savez is np.savez
    assert jnp.array_repr(np.array([1, 2])) == "array([1, 2])"
    for name in ("fromiter", "fromfile"):
        with pytest.raises(NotImplementedError, match=f"jnp.{name}\\(\\) is not implemented because it may be "
                           "non-pure and thus unsafe for use with JIT and other JAX transformations."):
            getattr(jnp, name)(iter([1, 2]) if name == "fromiter" else "x")
    previous = jnp.get_printoptions()["precision"]
    jnp.set_printoptions(precision=3)
    try:
        assert jnp.get_printoptions()["precision"] == 3
    finally:
        jnp.set_printoptions(precision=previous)
