"""The eager fast paths of x[static index] and of the common reductions
(dispatch.py Sites): they are taken (the ordinary path is not run again for a cached
key), and they give what the ordinary path gives (the jit result, compared
in shape, dtype, weak type and value), including JAX's clamping, weak
types, keys that compare equal across types (True == 1 == 1.0), and calls
that warn or raise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import check_jit_matches_eager

import pyjax
import pyjax.numpy as jnp
from pyjax._src import dispatch
from pyjax._src.numpy import indexing, reductions

X = jnp.arange(24.0).reshape(2, 3, 4)
WEAK = jnp.full((2, 3, 4), 1.5)  # weakly typed

STATIC_INDICES = [0, -1, 5, -9, slice(1, None), slice(None, None, -1), (1, 2), (Ellipsis, 0), (None, 1, None),
                  (slice(0, 2), Ellipsis, slice(3, 0, -2)), (), Ellipsis, (0, -1, -1), slice(-10, 10, 3)]


@pytest.mark.parametrize("index", STATIC_INDICES, ids=repr)
def test_static_indexing_fast_path_matches_jit(index):
    check_jit_matches_eager(lambda a: a[index], X)
    check_jit_matches_eager(lambda a: a[index], WEAK)


def test_static_indexing_takes_the_fast_path(monkeypatch):
    x = jnp.arange(10.0)
    x[3]

    def fail(*args, **kwargs):
        raise AssertionError("the ordinary indexing path ran")

    monkeypatch.setattr(indexing, "rewriting_take", fail)
    assert float(x[3]) == 3.0
    assert float(x[12]) == 9.0  # clamped, as JAX does, from a new plan
    np.testing.assert_array_equal(np.asarray(x[2:8:3]), [2.0, 5.0])
    with pytest.raises(AssertionError, match="the ordinary indexing path ran"):
        x[np.array([1, 2])]  # arrays are not static: ordinary path


def test_keys_distinguish_equal_values_of_other_types():
    x = jnp.arange(5.0)
    assert float(x[1]) == 1.0
    assert x[True].shape == (1, 5)  # True == 1, but a boolean index adds an axis
    with pytest.raises(TypeError, match="Indexer must have integer or boolean type, got indexer with type float"):
        x[1.0]
    assert x[slice(1, 3)].shape == (2,)
    with pytest.raises(IndexError):
        x[slice(1.0, 3)]
    assert float(x[np.int32(1)]) == 1.0


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "all", "any", "argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_fast_path_matches_jit(name, axis, keepdims):
    fn = getattr(jnp, name)
    for x in (X, jnp.arange(6, dtype=np.int8).reshape(2, 3), jnp.full((2, 3), 1.5), jnp.ones((2, 3), bool)):
        check_jit_matches_eager(lambda a: fn(a, axis=axis, keepdims=keepdims), x)


def test_reduction_takes_the_fast_path(monkeypatch):
    jnp.sum(X, axis=1)  # first sight: the ordinary path, the key is remembered
    jnp.sum(X, axis=1)  # second: the program is compiled

    def fail(*args, **kwargs):
        raise AssertionError("the ordinary reduction path ran")

    monkeypatch.setattr(reductions, "_reduction", fail)
    np.testing.assert_array_equal(np.asarray(jnp.sum(X, axis=1)), np.asarray(X).sum(axis=1))
    with pytest.raises(AssertionError, match="the ordinary reduction path ran"):
        jnp.sum(X, axis=1, where=np.asarray(X) > 3)  # where= is not on the fast path


def test_calls_that_warn_or_raise_keep_doing_so():
    z = jnp.ones(3, np.complex64)
    for _ in range(2):
        with pytest.warns(np.exceptions.ComplexWarning):
            jnp.sum(z, dtype=np.float32)
    for _ in range(2):
        with pytest.raises(ValueError, match="axis 5 is out of bounds for array of dimension 3"):
            jnp.sum(X, axis=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jnp.sum(X)  # no warning from the cached path


def test_fast_paths_do_not_apply_under_transformations():
    f = lambda a: jnp.sum(a[1:], axis=0)
    text = str(pyjax.make_jaxpr(f)(X))
    assert "slice" in text and "reduce_sum" in text
    np.testing.assert_allclose(np.asarray(pyjax.grad(lambda a: jnp.sum(a[0] ** 2))(X))[0], 2 * np.asarray(X)[0])
    np.testing.assert_allclose(np.asarray(pyjax.vmap(lambda r: r[1])(X)), np.asarray(X)[:, 1])


def test_first_call_of_a_key_compiles_nothing(monkeypatch):
    from pyjax._src import jit as jit_lib

    x = jnp.arange(7.0) * 3  # a shape no other test uses
    compiled = []
    real = jit_lib.compile_for_backend
    monkeypatch.setattr(jit_lib, "compile_for_backend", lambda j, **kw: compiled.append(j) or real(j, **kw))
    assert float(jnp.sum(x)) == 63.0
    assert compiled == []  # code that meets a shape once pays no compilation
    assert float(jnp.sum(x)) == 63.0
    assert len(compiled) == 1
    assert float(jnp.sum(x)) == 63.0
    assert len(compiled) == 1


@pytest.mark.parametrize("name", ["dot", "matmul"])
def test_contractions_take_the_fast_path_and_match_jit(name, monkeypatch):
    from pyjax._src.lax import dot as lax_dot

    fn = getattr(jnp, name)
    a, b = jnp.arange(6.0).reshape(2, 3), jnp.arange(12, dtype=np.int32).reshape(3, 4)
    check_jit_matches_eager(lambda a, b: fn(a, b), a, b)
    check_jit_matches_eager(lambda a, b: fn(a, b, preferred_element_type=np.float32), b.T, a.T)
    fn(a, b)
    fn(a, b)

    def fail(*args, **kwargs):
        raise AssertionError("the ordinary path ran")

    monkeypatch.setattr(lax_dot, "dot_general", fail)
    np.testing.assert_array_equal(np.asarray(fn(a, b)), np.asarray(a) @ np.asarray(b))
    with pytest.raises(AssertionError, match="the ordinary path ran"):
        fn(a, b, precision="highest")  # a new key: the ordinary path first


def test_hashable_keys():
    assert dispatch.hashable(slice(1, 2)) != dispatch.hashable(slice(True, 2))
    assert dispatch.hashable((0, None)) == dispatch.hashable((0, None))
    with pytest.raises(TypeError):
        dispatch.hashable(np.arange(3))


@pytest.mark.parametrize("form", ["arrays", "scalar_y", "scalar_x"])
def test_three_argument_where_takes_the_fast_path_and_matches_jit(form, monkeypatch):
    from pyjax._src.numpy import where as where_mod

    c = jnp.arange(5.0) > 1.5
    a, b = jnp.arange(5.0), jnp.full(5, -1.0)
    args = {"arrays": (c, a, b), "scalar_y": (c, a, 0.5), "scalar_x": (c, 2, b)}[form]
    expected = pyjax.jit(lambda c: jnp.where(c, *args[1:]))(c)
    for _ in range(3):
        out = jnp.where(*args)
        assert out.dtype == expected.dtype and out.weak_type == expected.weak_type
        np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))

    def fail(*a, **k):
        raise AssertionError("the ordinary path ran")

    monkeypatch.setattr(where_mod, "_where", fail)
    np.testing.assert_array_equal(np.asarray(jnp.where(*args)), np.asarray(expected))  # compiled program
