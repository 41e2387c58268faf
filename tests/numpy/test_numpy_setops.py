"""Functions with data-dependent output shapes: nonzero, one-argument where,
argwhere, flatnonzero, compress, extract, the unique family and the set
operations, against NumPy.

Eagerly they return NumPy's shapes; with `size=` (and `fill_value=`) they
have a static shape and work under jit, padding or truncating as JAX does;
without it, under jit, they raise JAX's ConcretizationTypeError with JAX's
message (recorded from JAX 0.11 below).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp
from pyjax.errors import ConcretizationTypeError

RNG = np.random.default_rng(7)
M = np.array([[0, 2, 0, 1], [3, 0, 0, 4], [0, 0, 5, 0]], np.int32)


def _ints(values):
    return np.asarray(values, np.int32)


def test_nonzero_matches_numpy():
    for got, want in zip(jnp.nonzero(M), np.nonzero(M), strict=True):
        check_close(got, _ints(want))
    for got, want in zip(jnp.where(M > 1), np.where(M > 1), strict=True):
        check_close(got, _ints(want))
    check_close(jnp.argwhere(M), _ints(np.argwhere(M)))
    check_close(jnp.flatnonzero(M), _ints(np.flatnonzero(M)))
    check_close(jnp.argwhere(np.float32(2.0)), np.zeros((1, 0), np.int32))
    with pytest.raises(ValueError, match=r"Calling nonzero on 0d arrays is not allowed. "
                       r"Use jnp.atleast_1d\(scalar\).nonzero\(\) instead."):
        jnp.nonzero(jnp.float32(1))


@pytest.mark.parametrize("size,fill_value", [(3, None), (7, None), (7, -1), (7, (9, 8))])
def test_nonzero_with_size_pads_or_truncates(size, fill_value):
    rows, cols = np.nonzero(M)
    n = rows.size
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value or 0,) * 2
    want_rows = np.concatenate([rows, np.full(max(size - n, 0), fills[0])])[:size]
    want_cols = np.concatenate([cols, np.full(max(size - n, 0), fills[1])])[:size]
    for fn in (lambda m: jnp.nonzero(m, size=size, fill_value=fill_value),
               pyjax.jit(lambda m: jnp.nonzero(m, size=size, fill_value=fill_value))):
        r, c = fn(jnp.asarray(M))
        check_close(r, _ints(want_rows))
        check_close(c, _ints(want_cols))


def test_sized_variants_under_jit():
    x = jnp.asarray(M)
    check_close(pyjax.jit(lambda m: jnp.argwhere(m, size=6))(x),
                _ints(np.concatenate([np.argwhere(M), np.zeros((1, 2))])))
    check_close(pyjax.jit(lambda m: jnp.flatnonzero(m, size=4, fill_value=-1))(x), _ints(np.flatnonzero(M)[:4]))
    check_close(pyjax.jit(lambda m: jnp.where(m > 2, size=4, fill_value=-1)[1])(x),
                _ints(list(np.where(M > 2)[1]) + [-1]))
    a = np.arange(6.0, dtype=np.float32)
    check_close(pyjax.jit(lambda c, v: jnp.compress(c, v, size=4, fill_value=-1.0))(a > 3, a),
                np.array([4.0, 5.0, -1.0, -1.0], np.float32))
    check_close(jnp.extract(a > 2, a), np.extract(a > 2, a))
    check_close(jnp.compress(np.array([True, False, True]), M, axis=1), np.compress([True, False, True], M, axis=1))


# The messages JAX 0.11 gives (regular expressions).
NONZERO_MSG = "The size argument of jnp.nonzero must be statically specified"
UNIQUE_MSG = ("The error arose for the first argument of jnp.unique\\(\\). To make jnp.unique\\(\\) compatible "
              "with JIT and other transforms, you can specify a concrete value for the size argument, which will "
              "determine the output size.")
DATA_DEPENDENT = {
    "nonzero": (lambda x: jnp.nonzero(x), NONZERO_MSG + " to use jnp.nonzero within JAX transformations."),
    "where": (lambda x: jnp.where(x), NONZERO_MSG),
    "argwhere": (lambda x: jnp.argwhere(x), NONZERO_MSG),
    "flatnonzero": (lambda x: jnp.flatnonzero(x), NONZERO_MSG),
    "unique": (lambda x: jnp.unique(x), UNIQUE_MSG),
    "union1d": (lambda x: jnp.union1d(x, x), "The error arose in union1d\\(\\)"),
    "setdiff1d": (lambda x: jnp.setdiff1d(x, x), "The error arose in setdiff1d\\(\\)"),
    "intersect1d": (lambda x: jnp.intersect1d(x, x), UNIQUE_MSG),
    "setxor1d": (lambda x: jnp.setxor1d(x, x), UNIQUE_MSG),
    "extract": (lambda x: jnp.extract(x > 0, x), ("The size argument of jnp.compress must be specified in order "
                                                  "to use jnp.compress within JAX transformations like jax.jit, "
                                                  "jax.vmap, and jax.grad.")),
    "bincount": (lambda x: jnp.bincount(x), ("The error occurred because of argument 'x' of jnp.bincount. To "
                                             "avoid this error, pass a static `length` argument.")),
    "trim_zeros": (lambda x: jnp.trim_zeros(x), "Error arose in the `filt` argument of trim_zeros\\(\\)"),
    "repeat": (lambda x: jnp.repeat(x, x), "When jit-compiling jnp.repeat, the total number of repeats must be static."),
}


@pytest.mark.parametrize("name", sorted(DATA_DEPENDENT))
def test_data_dependent_shapes_raise_under_jit(name):
    fn, message = DATA_DEPENDENT[name]
    with pytest.raises(ConcretizationTypeError, match=message):
        pyjax.jit(fn)(jnp.arange(4))


V = np.array([3, 1, 2, 3, 1, 5, 3], np.int32)


def test_unique_and_its_returns():
    values, index, inverse, counts = jnp.unique(V, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(V, return_index=True, return_inverse=True, return_counts=True)
    for got, expected in zip((values, index, inverse, counts), want, strict=True):
        check_close(got, _ints(expected))
    m = np.array([[1, 2], [1, 2], [0, 4]], np.int32)
    check_close(jnp.unique(m, axis=0), np.unique(m, axis=0))
    check_close(jnp.unique(np.array([2.0, np.nan, 2.0, np.nan], np.float32)),
                np.unique(np.array([2.0, np.nan, 2.0, np.nan], np.float32)))
    check_close(jnp.unique(np.array([2.0, np.nan, np.nan], np.float32), equal_nan=False),
                np.array([2.0, np.nan, np.nan], np.float32))
    # Array API spellings.
    all_ = jnp.unique_all(V)
    check_close(all_.values, np.unique(V))
    check_close(all_.counts, _ints(np.unique(V, return_counts=True)[1]))
    check_close(jnp.unique_counts(V).counts, _ints(np.unique_counts(V).counts))
    check_close(jnp.unique_inverse(V).inverse_indices, _ints(np.unique_inverse(V).inverse_indices))
    check_close(jnp.unique_values(V), np.unique(V))  # JAX sorts; NumPy's may not


def test_unique_with_size():
    out = pyjax.jit(lambda v: jnp.unique(v, size=6, fill_value=-1))(V)
    check_close(out, _ints([1, 2, 3, 5, -1, -1]))
    # Without fill_value the padding repeats the smallest value, as JAX does.
    check_close(jnp.unique(V, size=6), _ints([1, 2, 3, 5, 1, 1]))
    check_close(jnp.unique(V, size=2), _ints([1, 2]))
    _, counts = jnp.unique(V, size=5, return_counts=True)
    check_close(counts, _ints([2, 1, 3, 1, 0]))


A = np.array([5, 1, 3, 3, 7], np.int32)
B = np.array([3, 8, 1, 0], np.int32)


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_set_operations_match_numpy(name):
    check_close(getattr(jnp, name)(A, B), getattr(np, name)(A, B))
    f = np.array([0.5, 2.0, 2.0], np.float32)
    g = np.array([2.0, 3.0], np.float32)
    check_close(getattr(jnp, name)(f, g), getattr(np, name)(f, g))


def test_set_operations_with_size_and_options():
    check_close(pyjax.jit(lambda a, b: jnp.union1d(a, b, size=8, fill_value=-1))(A, B),
                _ints([0, 1, 3, 5, 7, 8, -1, -1]))
    check_close(pyjax.jit(lambda a, b: jnp.setdiff1d(a, b, size=3, fill_value=0))(A, B), _ints([5, 7, 0]))
    check_close(jnp.intersect1d(A, B, assume_unique=False), np.intersect1d(A, B))
    both, ia, ib = jnp.intersect1d(A, B, return_indices=True)
    want = np.intersect1d(A, B, return_indices=True)
    for got, expected in zip((both, ia, ib), want, strict=True):
        check_close(got, _ints(expected))
    check_close(jnp.setdiff1d(np.array([1, 2]), np.array([1, 2])), np.zeros(0, np.int32))


@pytest.mark.parametrize("invert", [False, True])
def test_isin(invert):
    e = np.array([[1, 2], [9, 3]], np.int32)
    check_close(jnp.isin(e, B, invert=invert), np.isin(e, B, invert=invert))
    check_close(jnp.isin(e, B, assume_unique=True, invert=invert), np.isin(e, B, invert=invert))
    check_close(pyjax.jit(lambda a, b: jnp.isin(a, b, invert=invert))(e, B), np.isin(e, B, invert=invert))
    with pytest.raises(ValueError, match="method='hash' is not implemented; options are 'compare_all', 'binary_search', 'sort', and 'auto'"):
        jnp.isin(e, B, method="hash")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=10), st.lists(st.integers(-3, 3), min_size=1, max_size=10))
def test_hypothesis_set_operations(a, b):
    a, b = _ints(a), _ints(b)
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        check_close(getattr(jnp, name)(a, b), getattr(np, name)(a, b), err_msg=name)
    check_close(jnp.isin(a, b), np.isin(a, b))
    check_close(jnp.unique(a), np.unique(a))
    n = np.unique(a).size
    check_close(pyjax.jit(lambda v: jnp.unique(v, size=n))(a), np.unique(a))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.integers(0, 2**31 - 1))
def test_hypothesis_nonzero(shape, seed):
    x = (np.random.default_rng(seed).random(shape) > 0.5).astype(np.int32)
    for got, want in zip(jnp.nonzero(x), np.nonzero(x), strict=True):
        check_close(got, _ints(want))
    size = int(x.sum()) + 1
    padded = pyjax.jit(lambda v: jnp.nonzero(v, size=size, fill_value=-1))(x)
    for got, want in zip(padded, np.nonzero(x), strict=True):
        check_close(got, _ints(list(want) + [-1]))
