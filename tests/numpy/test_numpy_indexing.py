"""Array indexing as jax.numpy does it, against NumPy's indexing.

Basic indexing (integers, slices, None, Ellipsis), advanced integer
indexing (arrays, lists, broadcasting index arrays, adjacent and separated
advanced indices), mixtures of both, boolean masks (concrete only), negative
index normalisation, JAX's clamping of out-of-bounds gathers, jit with
traced indices, the staged primitives (slice / dynamic_slice / gather), a
hypothesis layer over random index expressions, and JAX's errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp
from pyjax import errors

X = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)

BASIC = [
    (0,), (-1,), (1, 2), (-1, -2, -3), (slice(None),), (slice(1, None),), (slice(None, None, -1),),
    (slice(0, 3, 2), slice(None, None, -2)), (Ellipsis, 1), (1, Ellipsis), (None,), (None, 0, None),
    (Ellipsis, None), (slice(-2, None), Ellipsis, slice(None, -1)), (slice(5, 10),), (slice(None, None, 3),),
    (0, slice(None), -1), (slice(-10, 10),), (slice(3, 0, -1), slice(None), slice(-1, 0, -2)), (),
    (np.int32(1),), (np.int64(-1), np.uint8(2)),
]

ADVANCED = [
    (np.array([0, 1, 1]),), (np.array([-1, 0]),), ([1, 0],), (np.array([[0], [1]]),),
    (slice(None), np.array([2, 0, 1])), (np.array([0, 1]), np.array([2, 1])),
    (np.array([0, 1]), slice(None), np.array([3, 1])),  # separated: advanced axes go first
    (slice(None), np.array([0, 2]), np.array([1, 3])),  # adjacent: they stay in place
    (np.array([[0, 1], [1, 0]]), np.array([0, 2])), (Ellipsis, np.array([3, -4])),
    (np.array([1]), None, np.array([2])), (None, np.array([1, 0]), slice(1, 3)),
    (0, np.array([1, 2]), slice(None, None, -1)), (np.array([1, 0]), Ellipsis, 2),
    (slice(None), [True, False, True]), (np.array([True, False]),), (X > 10,), (X[:, :, 0] > 5,),
    (True,), (False,), (np.array(True),), (1, [True, False, True]),
    (np.array([], np.int32),), ([],), (np.array([0, 1]), [[2], [0]], slice(1, 2)),
]


def _name(idx):
    return repr(idx)[:60]


@pytest.mark.parametrize("idx", BASIC, ids=_name)
def test_basic_indexing_matches_numpy(idx):
    x = jnp.asarray(X)
    check_close(x[idx], X[idx])
    check_close(pyjax.jit(lambda a: a[idx])(x), X[idx])


@pytest.mark.parametrize("idx", ADVANCED, ids=_name)
def test_advanced_indexing_matches_numpy(idx):
    x = jnp.asarray(X)
    check_close(x[idx], X[idx])


@pytest.mark.parametrize("idx", [i for i in ADVANCED if not any(
    isinstance(e, (bool, list)) or (isinstance(e, np.ndarray) and e.dtype == bool) for e in i)], ids=_name)
def test_advanced_indexing_with_traced_indices(idx):
    # Index arrays passed as jit arguments are traced; the gather is the same.
    arrays = [i for i, e in enumerate(idx) if isinstance(e, np.ndarray)]

    def f(a, *index_arrays):
        full = list(idx)
        for position, value in zip(arrays, index_arrays, strict=True):
            full[position] = value
        return a[tuple(full)]

    check_close(pyjax.jit(f)(jnp.asarray(X), *[jnp.asarray(idx[i]) for i in arrays]), X[idx])


def test_staged_primitives_follow_the_index_kind():
    x = jnp.asarray(X)
    prims = lambda f, *a: [e.primitive.name for e in pyjax.make_jaxpr(f)(x, *a).jaxpr.eqns]
    assert prims(lambda a: a[1:, ::2]) == ["slice"]
    assert prims(lambda a: a[0]) == ["slice", "squeeze"]
    # A traced integer: every start is normalised (i < 0 ? i + n : i), then
    # one dynamic_slice; a weakly typed Python int is converted first.
    assert prims(lambda a, i: a[i], jnp.int32(1)) == ["lt", "add", "select_n"] * 3 + ["dynamic_slice", "squeeze"]
    assert prims(lambda a, i: a[i], 1)[0] == "convert_element_type"
    assert "gather" in prims(lambda a: a[np.array([0, 1])])
    assert prims(lambda a: a[::-1]) == ["rev"]


def test_gather_parameters_for_mixed_indexing():
    jaxpr = pyjax.make_jaxpr(lambda a, i: a[i, :, 1:3])(jnp.asarray(X), jnp.array([1, 0]))
    gather = next(e for e in jaxpr.jaxpr.eqns if e.primitive.name == "gather")
    dnums = gather.params["dimension_numbers"]
    # The static slice 1:3 becomes a gathered window of size 2 starting at 1.
    assert dnums.offset_dims == (1, 2)
    assert dnums.collapsed_slice_dims == (0,)
    assert dnums.start_index_map == (0, 2)
    assert gather.params["slice_sizes"] == (1, 3, 2)
    assert str(gather.params["mode"]) == "GatherScatterMode.PROMISE_IN_BOUNDS"


def test_negative_indices_are_normalised():
    x = jnp.asarray(X)
    check_close(x[jnp.array([-1, -2])], X[[-1, -2]])
    check_close(pyjax.jit(lambda a, i: a[:, i])(x, -1), X[:, -1])
    check_close(pyjax.jit(lambda a, i: a[i])(x, jnp.array([-1, 0])), X[[-1, 0]])
    text = str(pyjax.make_jaxpr(lambda a, i: a[i])(x, jnp.array([-1, 0])))
    assert "lt" in text and "select_n" in text  # i < 0 ? i + n : i


def test_out_of_bounds_gathers_clamp_as_jax():
    # JAX does not raise for out-of-bounds array indices: gathers clamp.
    x = jnp.arange(5.0)
    check_close(x[7], np.float32(4.0))
    check_close(x[-9], np.float32(0.0))
    check_close(x[jnp.array([7, -9])], np.array([4.0, 0.0], np.float32))
    check_close(pyjax.jit(lambda a, i: a[i])(x, 12), np.float32(4.0))
    check_close(x.at[jnp.array([7])].get(mode="fill", fill_value=-1.0), np.array([-1.0], np.float32))
    assert np.isnan(np.asarray(x.at[jnp.array([9, 1])].get(mode="fill"))[0])
    check_close(x.at[jnp.array([9, 1])].get(mode="clip"), np.array([4.0, 1.0], np.float32))


def test_scalar_boolean_indices():
    x = jnp.asarray(X)
    assert x[True].shape == (1, 2, 3, 4)
    assert x[False].shape == (0, 2, 3, 4)
    check_close(pyjax.jit(lambda a: a[True])(x), X[None])


def test_boolean_mask_must_be_concrete_under_jit():
    x = jnp.asarray(X)
    msg = r"Array boolean indices must be concrete; got bool\[2,3,4\]"
    with pytest.raises(errors.NonConcreteBooleanIndexError, match=msg):
        pyjax.jit(lambda a: a[a > 3])(x)
    with pytest.raises(errors.NonConcreteBooleanIndexError, match=msg):
        pyjax.jit(lambda a, m: a.at[m].set(0.0))(x, x > 3)
    # A mask that is a constant of the traced function is concrete.
    check_close(pyjax.jit(lambda a: a[np.array([True, False])])(x), X[[True, False]])
    # The mask-free rewrite JAX recommends works under jit.
    check_close(pyjax.jit(lambda a: jnp.where(a > 3, a, 0.0))(x), np.where(X > 3, X, 0.0))


def test_index_errors():
    x = jnp.asarray(X)
    with pytest.raises(IndexError, match="Too many indices: array is 3-dimensional, but 4 were indexed"):
        x[0, 0, 0, 0]
    with pytest.raises(TypeError, match="Indexer must have integer or boolean type, got indexer with type float64"):
        x[1.5]
    with pytest.raises(TypeError, match="Indexer must have integer or boolean type, got indexer with type float32"):
        x[jnp.array([1.0])]
    with pytest.raises(TypeError, match="JAX does not support string indexing; got idx='a'"):
        x["a"]
    with pytest.raises(IndexError, match=r"an index can only have a single ellipsis \('...'\)"):
        x[..., ...]
    with pytest.raises(TypeError, match="Using a non-tuple sequence for multidimensional indexing is not allowed"):
        x[[[0], [1]]]
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        pyjax.jit(lambda i: x[i:i + 2])(1)
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[np.array([True, False, True])]


def test_iteration_and_len():
    x = jnp.asarray(X)
    rows = list(x)
    assert len(rows) == len(x) == 2
    check_close(rows[1], X[1])
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(jnp.float32(1.0))


# ---------------------------------------------------------------------------
# hypothesis: random index expressions over random shapes


@st.composite
def index_expressions(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    entries, axis, used_ellipsis = [], 0, False
    # After an ellipsis the remaining entries index the trailing axes exactly.
    while axis < len(shape) and (used_ellipsis or draw(st.booleans())):
        size = shape[axis]
        kind = draw(st.sampled_from(["int", "slice", "array", "none", "ellipsis", "list"]))
        if kind == "int":
            entries.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            entries.append(slice(draw(st.none() | st.integers(-size - 1, size + 1)),
                                 draw(st.none() | st.integers(-size - 1, size + 1)),
                                 draw(st.none() | st.sampled_from([-2, -1, 1, 2, 3]))))
        elif kind == "array":
            n = draw(st.integers(1, 3))
            entries.append(np.array(draw(st.lists(st.integers(-size, size - 1), min_size=n, max_size=n))))
        elif kind == "list":
            entries.append(draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3)))
        elif kind == "none":
            entries.append(None)
            continue
        elif not used_ellipsis:
            entries.append(Ellipsis)
            used_ellipsis = True
            axis = len(shape) - draw(st.integers(0, len(shape) - axis - 1))
            continue
        else:  # a second ellipsis is not allowed: a full slice instead
            entries.append(slice(None))
        axis += 1
    return shape, tuple(entries)


def _numpy_or_error(x, idx):
    try:
        return x[idx]
    except IndexError:  # index arrays of different lengths do not broadcast
        return None


@settings(max_examples=150, deadline=None)
@given(index_expressions())
def test_hypothesis_index_expressions(case):
    shape, idx = case
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    expected = _numpy_or_error(x, idx)
    if expected is None:
        with pytest.raises((IndexError, ValueError, TypeError)):
            jnp.asarray(x)[idx]
        return
    check_close(jnp.asarray(x)[idx], expected)
    check_close(pyjax.jit(lambda a: a[idx])(jnp.asarray(x)), expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.integers(0, 2**31 - 1))
def test_hypothesis_boolean_masks(shape, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape).astype(np.float32)
    depth = rng.integers(1, len(shape) + 1)
    mask = rng.random(shape[:depth]) > 0.5
    check_close(jnp.asarray(x)[mask], x[mask])
    check_close(jnp.asarray(x).at[mask].set(0.0), np.where(np.broadcast_to(
        mask.reshape(mask.shape + (1,) * (len(shape) - depth)), shape), 0.0, x).astype(np.float32))
