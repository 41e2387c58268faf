"""Functional updates `x.at[idx].op(y)` against NumPy's in-place updates.

Every operation (set, add, subtract, multiply, divide, power, min, max,
apply, get) over basic, advanced, mixed and boolean indices; repeated
indices (accumulated by the combining updates, as np.<ufunc>.at does); the
out-of-bounds modes (drop, clip, fill, promise_in_bounds); the
indices_are_sorted / unique_indices flags reaching the scatter; dtype
handling (JAX's FutureWarning for unsafe casts); gradients; and JAX's
errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp

RNG = np.random.default_rng(3)
X = RNG.normal(size=(4, 5)).astype(np.float32)

# (jnp method, NumPy ufunc used with ufunc.at for repeated indices)
COMBINING = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "power": np.power, "min": np.minimum, "max": np.maximum,
}

INDICES = [
    (1,), (-1, 2), (slice(1, 3),), (Ellipsis, slice(None, None, 2)), (np.array([0, 2]),),
    (np.array([3, 0]), np.array([-1, 1])), (slice(None), np.array([4, 0, 2])),
    (np.array([[0], [2]]), np.array([1, 3])), (X > 0,), (None, 2),
]


def _ids(idx):
    return repr(idx)[:50]


def _updates_for(idx):
    shape = X[idx].shape
    return RNG.uniform(0.5, 2.0, shape).astype(np.float32)


@pytest.mark.parametrize("idx", INDICES, ids=_ids)
def test_set_matches_numpy(idx):
    y = _updates_for(idx)
    expected = X.copy()
    expected[idx] = y
    check_close(jnp.asarray(X).at[idx].set(y), expected)
    check_close(jnp.asarray(X).at[idx].get(), X[idx])


@pytest.mark.parametrize("idx", INDICES, ids=_ids)
@pytest.mark.parametrize("op", sorted(COMBINING))
def test_combining_updates_match_numpy(op, idx):
    y = _updates_for(idx)
    base = np.abs(X) + 0.5 if op == "power" else X
    expected = base.copy()
    expected[idx] = COMBINING[op](base[idx], y)
    check_close(getattr(jnp.asarray(base).at[idx], op)(y), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "min", "max"])
def test_repeated_indices_accumulate(op):
    x = np.arange(1.0, 6.0, dtype=np.float32)
    idx = np.array([1, 3, 1, 1])
    y = np.array([2.0, -1.0, 3.0, 0.5], np.float32)
    expected = x.copy()
    getattr(np, {"min": "minimum", "max": "maximum"}.get(op, op)).at(expected, idx, y)
    check_close(getattr(jnp.asarray(x).at[idx], op)(y), expected, rtol=1e-6)
    # The same under jit, with the indices traced.
    check_close(pyjax.jit(lambda a, i, v: getattr(a.at[i], op)(v))(jnp.asarray(x), idx, y), expected, rtol=1e-6)


def test_scalar_updates_broadcast():
    expected = X.copy()
    expected[:, 1] = 7.0
    check_close(jnp.asarray(X).at[:, 1].set(7.0), expected)
    expected = X.copy()
    expected[np.array([0, 3])] += 1.0
    check_close(jnp.asarray(X).at[np.array([0, 3])].add(1.0), expected)


def test_apply_runs_the_function_at_each_index():
    x = np.arange(6.0, dtype=np.float32)
    out = jnp.asarray(x).at[np.array([1, 4, 1])].apply(lambda v: v * 10)
    # apply is unary: a repeated index applies the function repeatedly.
    check_close(out, np.array([0.0, 100.0, 2.0, 3.0, 40.0, 5.0], np.float32))


def test_out_of_bounds_modes():
    x = jnp.arange(5.0)
    idx = np.array([1, 7, -9])
    # The default for updates drops out-of-bounds entries (FILL_OR_DROP).
    check_close(x.at[idx].set(-1.0), np.array([0.0, -1.0, 2.0, 3.0, 4.0], np.float32))
    check_close(x.at[idx].set(-1.0, mode="drop"), np.array([0.0, -1.0, 2.0, 3.0, 4.0], np.float32))
    check_close(x.at[idx].set(-1.0, mode="clip"), np.array([-1.0, -1.0, 2.0, 3.0, -1.0], np.float32))
    check_close(x.at[idx].add(1.0, mode="clip"), np.array([1.0, 2.0, 2.0, 3.0, 5.0], np.float32))
    # Negative indices inside the bounds are normalised, not dropped.
    check_close(x.at[-1].set(9.0), np.array([0.0, 1.0, 2.0, 3.0, 9.0], np.float32))
    # Retrieval clamps by default; "fill" gives the fill value (NaN for floats).
    check_close(x.at[idx].get(), np.array([1.0, 4.0, 0.0], np.float32))
    check_close(x.at[idx].get(mode="fill", fill_value=-5.0), np.array([1.0, -5.0, -5.0], np.float32))
    check_close(jnp.arange(5).at[np.array([9])].get(mode="fill"), np.array([np.iinfo(np.int32).min], np.int32))
    with pytest.raises(ValueError, match='Unknown gather mode "bogus"'):
        x.at[2].set(1.0, mode="bogus")


def test_flags_reach_the_scatter():
    def f(a, i):
        return a.at[i].add(1.0, indices_are_sorted=True, unique_indices=True, mode="clip")

    jaxpr = pyjax.make_jaxpr(f)(jnp.zeros(5), jnp.array([0, 2]))
    scatter = next(e for e in jaxpr.jaxpr.eqns if e.primitive.name == "scatter-add")
    assert scatter.params["indices_are_sorted"] is True
    assert scatter.params["unique_indices"] is True
    assert str(scatter.params["mode"]) == "GatherScatterMode.CLIP"
    names = {op: [e.primitive.name for e in pyjax.make_jaxpr(
        lambda a, op=op: getattr(a.at[np.array([1])], op)(2.0))(jnp.ones(3)).jaxpr.eqns]
        for op in ("set", "add", "multiply", "min", "max")}
    assert "scatter" in names["set"]
    assert "scatter-add" in names["add"]
    assert "scatter-mul" in names["multiply"]
    assert "scatter-min" in names["min"]
    assert "scatter-max" in names["max"]


def test_dtypes_and_unsafe_casts():
    x = jnp.arange(5)
    check_close(x.at[1].set(7), np.array([0, 7, 2, 3, 4], np.int32))
    with pytest.warns(FutureWarning, match="scatter inputs have incompatible types: cannot safely cast value "
                      "from dtype=float32 to dtype=int32"):
        out = x.at[2].set(7.5)
    check_close(out, np.array([0, 1, 7, 3, 4], np.int32))
    # divide on integers gives the true-division dtype, as JAX does.
    check_close(x.at[2].divide(2), np.array([0.0, 1.0, 1.0, 3.0, 4.0], np.float32))
    b = jnp.zeros(3, jnp.bfloat16).at[1].set(1.5)
    assert b.dtype == jnp.bfloat16
    c = jnp.zeros(2, np.complex64).at[0].add(1j)
    check_close(c, np.array([1j, 0], np.complex64))


def test_update_shape_errors():
    with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input type=float32\[3\] "
                       r"and requested type=float32\[5\]"):
        jnp.arange(5.0).at[...].set(jnp.ones(3))


def test_gradients_through_updates():
    def f(x, y):
        return jnp.sum(x.at[np.array([0, 2, 0])].add(y * y) ** 2)

    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([0.5, 1.0, 2.0], np.float32)
    gx, gy = pyjax.grad(f, argnums=(0, 1))(x, y)
    z = x.copy()
    np.add.at(z, [0, 2, 0], y * y)
    check_close(gx, 2 * z)
    check_close(gy, 2 * z[[0, 2, 0]] * 2 * y, rtol=1e-6)
    g_set = pyjax.grad(lambda x: jnp.sum(x.at[1].set(0.0) * 3.0))(x)
    check_close(g_set, np.array([3.0, 0.0, 3.0], np.float32))


def test_at_repr():
    x = jnp.arange(3.0)
    assert repr(x.at).startswith("_IndexUpdateHelper(")
    assert repr(x.at[2]).startswith("_IndexUpdateRef(")


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6), st.lists(st.integers(-6, 5), min_size=1, max_size=8), st.sampled_from(["add", "max", "set"]))
def test_hypothesis_scatter_1d(size, raw, op):
    idx = np.array([i for i in raw if -size <= i < size] or [0])
    x = np.arange(size, dtype=np.float32)
    y = np.linspace(-1, 1, idx.size).astype(np.float32)
    expected = x.copy()
    if op == "set":
        idx = np.unique(idx % size)  # repeated writes of different values are unordered
        y = y[: idx.size]
        expected[idx] = y
    else:
        getattr(np, {"max": "maximum"}.get(op, op)).at(expected, idx, y)
    check_close(getattr(jnp.asarray(x).at[idx], op)(y), expected, rtol=1e-6)
