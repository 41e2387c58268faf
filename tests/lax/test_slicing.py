"""The slicing family: dynamic_slice, dynamic_update_slice, pad, split,
gather and the scatters.

Each impl is checked against a per-element Python oracle written straight
from XLA's operation semantics (independent of the vectorised impl), over
the dtypes JAX accepts; then abstract eval against the impl, jit against
eager, and the error messages JAX 0.11 gives (recorded from the reference).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from helpers import (
    check_close,
    check_impl_matches_abstract_eval,
    check_jit_matches_eager,
)

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.lax import gather_scatter as gs
from pyjax._src.lax import slicing as sl

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(d) for d in ("float32", "float16", "int32", "int8", "uint8", "bool", "complex64")] + [BF16]
GDN = lax.GatherDimensionNumbers
SDN = lax.ScatterDimensionNumbers
Mode = lax.GatherScatterMode


def _values(rng, shape, dtype):
    """Small exactly-representable values of `dtype` (so combination order never matters)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    raw = rng.integers(-8 if dtype.kind not in "ub" else 0, 9, size=shape)
    if dtype.kind == "c":
        return (raw + 1j * rng.integers(-8, 9, size=shape)).astype(dtype)
    return raw.astype(dtype)


# ---------------------------------------------------------------------------
# Oracles: one output (or update) element at a time, as XLA's docs state it.


def _dynamic_slice_oracle(x, starts, sizes):
    starts = [min(max(s, 0), d - n) for s, d, n in zip(starts, x.shape, sizes, strict=True)]
    out = np.empty(sizes, x.dtype)
    for index in np.ndindex(*sizes):
        out[index] = x[tuple(s + i for s, i in zip(starts, index, strict=True))]
    return out


def _dynamic_update_slice_oracle(x, update, starts):
    starts = [min(max(s, 0), d - n) for s, d, n in zip(starts, x.shape, update.shape, strict=True)]
    out = x.copy()
    for index in np.ndindex(*update.shape):
        out[tuple(s + i for s, i in zip(starts, index, strict=True))] = update[index]
    return out


def _pad_oracle(x, value, config):
    shape = [lo + hi + (0 if d == 0 else 1 + (it + 1) * (d - 1)) for (lo, hi, it), d in zip(config, x.shape, strict=True)]
    out = np.full(shape, value, x.dtype)
    for index in np.ndindex(*x.shape):
        target = tuple(lo + i * (it + 1) for (lo, _, it), i in zip(config, index, strict=True))
        if all(0 <= t < n for t, n in zip(target, shape, strict=True)):
            out[target] = x[index]
    return out


def _gather_oracle(x, indices, dn, slice_sizes, mode, fill_value):
    batch_ndim = indices.ndim - 1
    window_dims = [d for d in range(x.ndim) if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    out_ndim = batch_ndim + len(dn.offset_dims)
    batch_sizes = iter(indices.shape[:-1])
    window_sizes = iter(slice_sizes[d] for d in window_dims)
    out_shape = tuple(next(window_sizes) if i in dn.offset_dims else next(batch_sizes) for i in range(out_ndim))
    out = np.empty(out_shape, x.dtype)
    for index in np.ndindex(*out_shape):
        batch = tuple(index[i] for i in range(out_ndim) if i not in dn.offset_dims)
        vector = indices[batch]
        start = [0] * x.ndim
        for k, d in enumerate(dn.start_index_map):
            start[d] = int(vector[k])
        for od, bd in zip(dn.operand_batching_dims, dn.start_indices_batching_dims, strict=True):
            start[od] = batch[bd]
        if mode == Mode.FILL_OR_DROP and any(
                not 0 <= start[d] <= x.shape[d] - slice_sizes[d] for d in dn.start_index_map):
            out[index] = fill_value
            continue
        for d in dn.start_index_map:
            start[d] = min(max(start[d], 0), x.shape[d] - slice_sizes[d])
        for k, d in enumerate(window_dims):
            start[d] += index[dn.offset_dims[k]]
        out[index] = x[tuple(start)]
    return out


def _scatter_oracle(x, indices, updates, dn, mode, combine):
    out = x.copy()
    scatter_axes = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    window_dims = [d for d in range(x.ndim) if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    window = [1] * x.ndim
    for d, u in zip(window_dims, dn.update_window_dims, strict=True):
        window[d] = updates.shape[u]
    for index in np.ndindex(*updates.shape):
        batch = tuple(index[a] for a in scatter_axes)
        vector = indices[batch]
        start = [0] * x.ndim
        for k, d in enumerate(dn.scatter_dims_to_operand_dims):
            start[d] = int(vector[k])
        for od, bd in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims, strict=True):
            start[od] = batch[bd]
        in_bounds = all(0 <= start[d] <= x.shape[d] - window[d] for d in dn.scatter_dims_to_operand_dims)
        if mode == Mode.CLIP:
            for d in dn.scatter_dims_to_operand_dims:
                start[d] = min(max(start[d], 0), x.shape[d] - window[d])
        elif not in_bounds:
            continue  # XLA drops the whole window
        for d, u in zip(window_dims, dn.update_window_dims, strict=True):
            start[d] += index[u]
        target = tuple(start)
        out[target] = combine(out[target], updates[index])
    return out


# ---------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("starts", [(0, 0), (2, 1), (4, 3), (-7, 9), (3, -1)])
def test_dynamic_slice_clamps_like_xla(dtype, starts):
    rng = np.random.default_rng(0)
    x = _values(rng, (5, 4), dtype)
    idx = [np.int32(s) for s in starts]
    out = check_impl_matches_abstract_eval(sl.dynamic_slice_p, x, *idx, slice_sizes=(2, 3))
    check_close(out, _dynamic_slice_oracle(x, starts, (2, 3)))


@pytest.mark.parametrize("index_dtype", ["int32", "int8", "uint8", "int16"])
def test_dynamic_slice_index_dtypes(index_dtype):
    x = np.arange(20.0, dtype=np.float32).reshape(4, 5)
    idx = [np.array(3, index_dtype)[()], np.array(4, index_dtype)[()]]
    out = check_impl_matches_abstract_eval(sl.dynamic_slice_p, x, *idx, slice_sizes=(2, 2))
    check_close(out, _dynamic_slice_oracle(x, (3, 4), (2, 2)))


def test_dynamic_slice_wrapper_counts_negative_starts_from_the_end():
    x = jnp.arange(10)
    check_close(lax.dynamic_slice(x, (-3,), (2,)), np.array([7, 8], np.int32))
    check_close(lax.dynamic_slice(x, (jnp.int32(-3),), (2,)), np.array([7, 8], np.int32))
    # Without negative indexing a negative start is just clamped to 0.
    check_close(lax.dynamic_slice(x, (jnp.int32(-3),), (2,), allow_negative_indices=False), np.array([0, 1], np.int32))
    with pytest.raises(ValueError, match=r"Index -3 is out of bounds for dimension 10 if allow_negative_indices=False"):
        lax.dynamic_slice(x, (-3,), (2,), allow_negative_indices=False)


def test_dynamic_slice_takes_an_array_of_starts_and_zero_d_operands():
    x = jnp.arange(12.0).reshape(3, 4)
    check_close(lax.dynamic_slice(x, jnp.array([1, 2]), (2, 2)), np.array([[6.0, 7.0], [10.0, 11.0]], np.float32))
    check_close(lax.dynamic_slice(jnp.float32(3.0), (), ()), np.float32(3.0))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("starts", [(0, 0), (1, 2), (4, 4), (-5, 1)])
def test_dynamic_update_slice_clamps_like_xla(dtype, starts):
    rng = np.random.default_rng(1)
    x = _values(rng, (5, 4), dtype)
    update = _values(rng, (2, 3), dtype)
    before = x.copy()
    idx = [np.int32(s) for s in starts]
    out = check_impl_matches_abstract_eval(sl.dynamic_update_slice_p, x, update, *idx)
    check_close(out, _dynamic_update_slice_oracle(x, update, starts))
    np.testing.assert_array_equal(x, before)  # the operand is never written


def test_one_axis_wrappers():
    x = jnp.arange(15.0).reshape(5, 3)
    xn = np.arange(15.0, dtype=np.float32).reshape(5, 3)
    check_close(lax.slice_in_dim(x, 1, -1, 2, 0), xn[1:-1:2])
    check_close(lax.slice_in_dim(x, None, None, 1, 1), xn)
    check_close(lax.index_in_dim(x, -1, 1, keepdims=False), xn[:, -1])
    check_close(lax.index_in_dim(x, 2), xn[2:3])
    check_close(lax.dynamic_slice_in_dim(x, jnp.int32(4), 2, 0), xn[3:5])
    check_close(lax.dynamic_index_in_dim(x, jnp.int32(-1), 1, keepdims=False), xn[:, 2])
    check_close(lax.dynamic_index_in_dim(x, 1, axis=0), xn[1:2])
    expected = xn.copy()
    expected[:, 1:3] = 0.0
    check_close(lax.dynamic_update_slice_in_dim(x, jnp.zeros((5, 2)), 1, 1), expected)
    expected = xn.copy()
    expected[4] = -1.0
    check_close(lax.dynamic_update_index_in_dim(x, jnp.full((3,), -1.0, jnp.float32), 9, 0), expected)
    check_close(lax.dynamic_update_index_in_dim(x, jnp.full((1, 3), -1.0, jnp.float32), jnp.int32(-1), 0), expected)


# ---------------------------------------------------------------------------
# pad and split

PAD_CONFIGS = [
    [(0, 0, 0), (0, 0, 0)],
    [(1, 2, 0), (0, 3, 1)],
    [(-1, -2, 0), (2, -1, 2)],
    [(-2, 1, 3), (-4, -3, 1)],
    [(3, -6, 1), (0, 0, 4)],
]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("config", PAD_CONFIGS, ids=str)
def test_pad_negative_and_interior(dtype, config):
    rng = np.random.default_rng(2)
    x = _values(rng, (3, 4), dtype)
    value = _values(rng, (), dtype)[()]
    config = tuple(tuple(c) for c in config)
    out = check_impl_matches_abstract_eval(sl.pad_p, x, value, padding_config=config)
    check_close(out, _pad_oracle(x, value, config))


def test_pad_empty_and_scalar_operands():
    check_close(lax.pad(jnp.zeros((0, 2)), 1.0, [(1, 2, 3), (0, 0, 1)]), np.ones((3, 3), np.float32))
    check_close(lax.pad(jnp.float32(3.0), 1.0, []), np.float32(3.0))


def test_pad_python_scalar_value_keeps_the_operand_dtype():
    out = lax.pad(jnp.arange(3, dtype=jnp.int8), jnp.int8(7), [(1, 1, 1)])
    check_close(out, np.array([7, 0, 7, 1, 7, 2, 7], np.int8))
    out = lax.pad(jnp.arange(3.0), 0.5, [(1, 0, 0)])  # a weak Python float padding value
    check_close(out, np.array([0.5, 0.0, 1.0, 2.0], np.float32))


@pytest.mark.parametrize("dtype", ["float32", "int8", "bool"])
@pytest.mark.parametrize("sizes,axis", [((2, 3), 0), ((0, 5, 0), 0), ((1, 1, 1, 1), 1), ((4,), -1)])
def test_split(dtype, sizes, axis):
    x = _values(np.random.default_rng(3), (5, 4), dtype)
    if sum(sizes) != x.shape[axis]:
        x = _values(np.random.default_rng(3), (sum(sizes), 4) if axis == 0 else (5, sum(sizes)), dtype)
    outs = lax.split(x, sizes, axis)
    expected = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    assert len(outs) == len(sizes)
    for out, want in zip(outs, expected, strict=True):
        check_close(out, want)
    check_impl_matches_abstract_eval(sl.split_p, x, sizes=tuple(sizes), axis=axis % 2)


# ---------------------------------------------------------------------------
# gather

# (operand shape, indices shape without the index vector, dimension numbers, slice sizes)
GATHER_CASES = {
    "rows": ((5, 4), (3,), GDN((1,), (0,), (0,)), (1, 4)),
    "2d_index_window": ((5, 4), (2, 3), GDN((2,), (0,), (0, 1)), (1, 2)),
    "offset_first": ((4, 5), (3,), GDN((0, 1), (), (1,)), (2, 3)),
    "scalar_elements": ((6,), (4,), GDN((), (0,), (0,)), (1,)),
    "swapped_index_map": ((4, 5), (3,), GDN((), (0, 1), (1, 0)), (1, 1)),
    "batching": ((3, 4, 5), (2, 3), GDN((2,), (2,), (2,), (0,), (1,)), (1, 4, 1)),  # indices axis 1 pairs operand axis 0
    "empty_index_vector": ((3, 4), (2,), GDN((1, 2), (), ()), (3, 4)),
}


def _gather_indices(rng, operand_shape, batch_shape, dn):
    if not dn.start_index_map:
        return np.zeros(batch_shape + (0,), np.int32)
    columns = [rng.integers(-3, operand_shape[d] + 3, size=batch_shape) for d in dn.start_index_map]
    return np.stack(columns, axis=-1).astype(np.int32)


@pytest.mark.parametrize("mode", [Mode.PROMISE_IN_BOUNDS, Mode.CLIP, Mode.FILL_OR_DROP], ids=str)
@pytest.mark.parametrize("case", sorted(GATHER_CASES))
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int8", "uint8", "bool", "complex64"])
def test_gather_matches_xla_semantics(dtype, case, mode):
    operand_shape, batch_shape, dn, slice_sizes = GATHER_CASES[case]
    rng = np.random.default_rng(4)
    x = _values(rng, operand_shape, dtype)
    indices = _gather_indices(rng, operand_shape, batch_shape, dn)
    fill = gs.default_fill_value(np.dtype(dtype)) if mode == Mode.FILL_OR_DROP else None
    params = {"dimension_numbers": dn, "slice_sizes": slice_sizes, "unique_indices": False,
              "indices_are_sorted": False, "mode": mode, "fill_value": fill}
    out = check_impl_matches_abstract_eval(lax.gather_p, x, indices, **params)
    check_close(out, _gather_oracle(x, indices, dn, slice_sizes, mode, fill))


def test_gather_wrapper_defaults():
    x = jnp.arange(10.0)
    dn = GDN((1,), (), (0,))
    i = jnp.array([[8], [-1]])
    # Default mode is PROMISE_IN_BOUNDS, which XLA clamps.
    check_close(lax.gather(x, i, dn, (3,)), np.array([[7, 8, 9], [0, 1, 2]], np.float32))
    check_close(lax.gather(x, i, dn, (3,), mode="fill"), np.full((2, 3), np.nan, np.float32))
    check_close(lax.gather(jnp.arange(10), i, dn, (3,), mode="fill", fill_value=-1),
                np.full((2, 3), -1, np.int32))
    # An unsigned fill value that does not fit wraps, as a conversion would.
    check_close(lax.gather(jnp.arange(10, dtype=jnp.uint8), i, dn, (3,), mode="fill", fill_value=-1),
                np.full((2, 3), 255, np.uint8))


def test_gather_params_and_their_printing():
    dn = GDN((1,), (0,), (0,))
    jaxpr = pyjax.make_jaxpr(lambda x, i: lax.gather(x, i, dn, (1, 3), mode="fill"))(jnp.ones((5, 3)), jnp.ones((2, 1), jnp.int32))
    (eqn,) = jaxpr.eqns
    assert eqn.params["mode"] is Mode.FILL_OR_DROP
    assert np.isnan(eqn.params["fill_value"])
    assert eqn.params["slice_sizes"] == (1, 3)
    text = str(jaxpr)
    assert ("dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
            "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())") in text
    assert "mode=GatherScatterMode.FILL_OR_DROP" in text and "fill_value=nan" in text


def test_gather_scatter_mode_from_any():
    assert Mode.from_any(None) is Mode.FILL_OR_DROP
    assert Mode.from_any("clip") is Mode.CLIP
    assert Mode.from_any("drop") is Mode.FILL_OR_DROP
    assert Mode.from_any("fill") is Mode.FILL_OR_DROP
    assert Mode.from_any("promise_in_bounds") is Mode.PROMISE_IN_BOUNDS
    assert Mode.from_any(Mode.CLIP) is Mode.CLIP
    assert str(Mode.CLIP) == "GatherScatterMode.CLIP"


def test_index_take_wraps_negative_and_large_indices():
    x = jnp.arange(12.0).reshape(3, 4)
    out = lax.index_take(x, (jnp.array([0, -1, 5]), jnp.array([1, 2, -3])), (0, 1))
    check_close(out, np.array([1.0, 10.0, 9.0], np.float32))


# ---------------------------------------------------------------------------
# scatter

# (operand shape, updates shape, dimension numbers)
SCATTER_CASES = {
    "rows": ((5, 4), (3, 4), SDN((1,), (0,), (0,))),
    "partial_window": ((6,), (3, 2), SDN((1,), (), (0,))),
    "elements": ((6,), (7,), SDN((), (0,), (0,))),
    "2d_index": ((4, 5), (2, 3), SDN((), (0, 1), (0, 1))),
    "swapped_map": ((4, 5), (3,), SDN((), (0, 1), (1, 0))),
    "window_first": ((5, 6), (2, 4), SDN((0,), (0,), (0,))),
    "batching": ((3, 4, 5), (2, 3, 4), SDN((2,), (2,), (2,), (0,), (1,))),
}

_COMBINERS = {
    "scatter": (lax.scatter_p, lambda old, new: new),
    "scatter-add": (lax.scatter_add_p, lambda old, new: old + new),
    "scatter-sub": (lax.scatter_sub_p, lambda old, new: old - new),
    "scatter-mul": (lax.scatter_mul_p, lambda old, new: old * new),
    "scatter-min": (lax.scatter_min_p, lambda old, new: min(old, new) if np.asarray(old).dtype.kind != "c" else np.minimum(old, new)),
    "scatter-max": (lax.scatter_max_p, lambda old, new: max(old, new) if np.asarray(old).dtype.kind != "c" else np.maximum(old, new)),
}

_SCATTER_DTYPES = {
    "scatter": ["float32", "bool", "int8", "bfloat16"],
    "scatter-add": ["float32", "int32", "uint8", "complex64", "float16", "bfloat16"],
    "scatter-sub": ["float32", "int32"],
    "scatter-mul": ["float32", "int32", "int8"],
    "scatter-min": ["float32", "int8", "uint8", "bool"],
    "scatter-max": ["float32", "int32", "bool", "bfloat16"],
}


def _scatter_indices(rng, operand_shape, updates_shape, dn):
    scatter_axes = [d for d in range(len(updates_shape)) if d not in dn.update_window_dims]
    batch_shape = tuple(updates_shape[d] for d in scatter_axes)
    columns = [rng.integers(-2, operand_shape[d] + 2, size=batch_shape) for d in dn.scatter_dims_to_operand_dims]
    return np.stack(columns, axis=-1).astype(np.int32)


def _scatter_params(dn, mode):
    # update_jaxpr None: replace for `scatter`; the combining scatters'
    # impls combine by primitive and never read it.
    return {"update_jaxpr": None, "update_consts": (), "dimension_numbers": dn, "indices_are_sorted": False,
            "unique_indices": False, "mode": mode}


@pytest.mark.parametrize("mode", [Mode.FILL_OR_DROP, Mode.CLIP, Mode.PROMISE_IN_BOUNDS], ids=str)
@pytest.mark.parametrize("case", sorted(SCATTER_CASES))
@pytest.mark.parametrize("kind,dtype", [(k, d) for k, ds in _SCATTER_DTYPES.items() for d in ds])
def test_scatter_matches_xla_semantics(kind, dtype, case, mode):
    primitive, combine = _COMBINERS[kind]
    operand_shape, updates_shape, dn = SCATTER_CASES[case]
    rng = np.random.default_rng(5)
    x = _values(rng, operand_shape, dtype)
    updates = _values(rng, updates_shape, dtype)
    indices = _scatter_indices(rng, operand_shape, updates_shape, dn)
    before = x.copy()
    out = check_impl_matches_abstract_eval(primitive, x, indices, updates, **_scatter_params(dn, mode))
    with np.errstate(over="ignore"):  # int8 products wrap, as in XLA
        expected = _scatter_oracle(x, indices, updates, dn, mode, combine)
    check_close(out, expected)
    np.testing.assert_array_equal(x, before)


def test_scatter_add_accumulates_duplicates_and_drops_partial_windows():
    dn = SDN((1,), (), (0,))
    i = jnp.array([[4], [1], [1], [-1]])
    u = jnp.array([[1.0, 2.0], [10.0, 20.0], [30.0, 40.0], [100.0, 200.0]])
    check_close(lax.scatter_add(jnp.zeros(5), i, u, dn), np.array([0, 40, 60, 0, 0], np.float32))
    check_close(lax.scatter_add(jnp.zeros(5), i, u, dn, mode="clip"), np.array([100, 240, 60, 1, 2], np.float32))


def test_scatter_replace_keeps_the_last_update():
    dn = SDN((1,), (0,), (0,))
    out = lax.scatter(jnp.zeros((5, 2)), jnp.array([[1], [1], [1]]), jnp.array([[1.0, 2], [3, 4], [5, 6]]), dn)
    check_close(out, np.array([[0, 0], [5, 6], [0, 0], [0, 0], [0, 0]], np.float32))


def test_scatter_apply_applies_once_per_update():
    dn = SDN((), (0,), (0,))
    out = lax.scatter_apply(jnp.full(5, 2.0, jnp.float32), jnp.array([[1], [1], [3], [1]]), lambda v: v * v, dn,
                            update_shape=(4,))
    check_close(out, np.array([2.0, 256.0, 2.0, 4.0, 2.0], np.float32))
    out = lax.scatter_apply(jnp.ones(3), jnp.array([2]), lambda v: v + 1, dn)  # scalar update shape
    check_close(out, np.array([1.0, 1.0, 2.0], np.float32))


def test_scatter_nan_propagates_through_min_and_max():
    dn = SDN((), (0,), (0,))
    x = jnp.array([1.0, 2.0, np.nan])
    i = jnp.array([[0], [2], [1]])
    u = jnp.array([np.nan, 0.0, 5.0])
    check_close(lax.scatter_max(x, i, u, dn), np.array([np.nan, 5.0, np.nan], np.float32))
    check_close(lax.scatter_min(x, i, u, dn), np.array([np.nan, 2.0, np.nan], np.float32))


def test_scatter_combiner_jaxprs_are_shared_per_function_and_dtype():
    dn = SDN((), (0,), (0,))
    jaxpr = pyjax.make_jaxpr(lambda x, i, u: (lax.scatter_add(x, i, u, dn), lax.scatter_add(x, i, u, dn)))(
        jnp.zeros(3), jnp.zeros((1, 1), jnp.int32), jnp.ones(1))
    first, second = jaxpr.eqns
    assert first.params["update_jaxpr"] is second.params["update_jaxpr"]
    assert first.params["update_consts"] == ()
    assert str(first.params["update_jaxpr"]) == "{ lambda ; a:f32[] b:f32[]. let c:f32[] = add a b in (c,) }"
    plain = pyjax.make_jaxpr(lambda x, i, u: lax.scatter(x, i, u, dn))(jnp.zeros(3), jnp.zeros((1, 1), jnp.int32), jnp.ones(1))
    assert plain.eqns[0].params["update_jaxpr"] is None


# ---------------------------------------------------------------------------
# Weak types and jit


def _out_weak_types(fn):
    """Weak types of fn's outputs when traced with a weak (Python float) scalar."""
    return [a.weak_type for a in pyjax.make_jaxpr(fn)(2.0).out_avals]


def test_weak_types_follow_jax():
    weak4 = lambda s: jnp.broadcast_to(s, (4,))
    i = jnp.array([[1]])
    # dynamic_slice, gather and the scatters keep the operand's weak type.
    assert _out_weak_types(lambda s: lax.dynamic_slice(weak4(s), (1,), (2,))) == [True]
    assert _out_weak_types(lambda s: lax.gather(weak4(s), i, GDN((), (0,), (0,)), (1,))) == [True]
    assert _out_weak_types(lambda s: lax.scatter_add(weak4(s), i, jnp.ones(1), SDN((), (0,), (0,)))) == [True]
    assert _out_weak_types(lambda s: lax.scatter(jnp.ones(4), i, weak4(s)[:1], SDN((), (0,), (0,)))) == [False]
    assert _out_weak_types(lambda s: lax.split(weak4(s), [1, 3])) == [True, True]
    # pad is weak only if operand and padding value both are.
    assert _out_weak_types(lambda s: lax.pad(weak4(s), 1.0, [(1, 1, 0)])) == [True]
    assert _out_weak_types(lambda s: lax.pad(weak4(s), np.float32(1.0), [(1, 1, 0)])) == [False]
    # dynamic_update_slice needs every operand weak, starts included (an int32 start is not).
    assert _out_weak_types(lambda s: lax.dynamic_update_slice(weak4(s), weak4(s)[:2], (1,))) == [False]


@pytest.mark.numpy_backend("scatter with mode=CLIP is declared, not lowered, for IREE")
def test_jit_matches_eager_for_every_primitive():
    gdn = GDN((1,), (0,), (0,))
    sdn = SDN((1,), (0,), (0,))
    x = jnp.arange(15.0).reshape(5, 3)
    i = jnp.array([[1], [6], [1]])
    u = jnp.arange(9.0).reshape(3, 3)

    def f(x, i, u, k):
        return (lax.dynamic_slice(x, (k, 1), (2, 2)), lax.dynamic_update_slice(x, u[:2], (k, 0)),
                lax.pad(x, -1.0, [(1, -2, 1), (0, 1, 0)]), lax.split(x, [1, 4]),
                lax.gather(x, i, gdn, (1, 3), mode="fill"), lax.gather(x, i, gdn, (1, 3)),
                lax.scatter(x, i, u, sdn), lax.scatter_add(x, i, u, sdn, mode="clip"),
                lax.scatter_sub(x, i, u, sdn), lax.scatter_mul(x, i, u, sdn), lax.scatter_min(x, i, u, sdn),
                lax.scatter_max(x, i, u, sdn), lax.scatter_apply(x, i, jnp.sin, sdn, update_shape=(3, 3)),
                lax.dynamic_index_in_dim(x, k, 1, False), lax.dynamic_update_index_in_dim(x, u[0], k, 0))

    check_jit_matches_eager(f, x, i, u, jnp.int32(3), rtol=1e-6)


# ---------------------------------------------------------------------------
# Errors: the messages JAX 0.11 gives for the same calls

_x33 = lambda: jnp.ones((3, 3))
_x45 = lambda: jnp.ones((4, 5))
_i31 = lambda: jnp.ones((3, 1), jnp.int32)

ERRORS = {
    "ds_index_dtypes": (lambda: lax.dynamic_slice(_x33(), (jnp.int32(1), jnp.int16(0)), (2, 2)), TypeError,
                        "index arguments to dynamic_slice must be integers of the same type, got: int32, int16"),
    "ds_float_index": (lambda: lax.dynamic_slice(_x33(), (1.0, 0), (2, 2)), TypeError,
                       "index arguments to dynamic_slice must be integers of the same type, got: float32, int32"),
    "ds_starts_length": (lambda: lax.dynamic_slice(_x33(), (1,), (2, 2)), ValueError,
                         "Length of slice indices must match number of operand dimensions (1 vs (3, 3))"),
    "ds_sizes_longer": (lambda: lax.dynamic_slice(_x33(), (1, 0), (2, 2, 2)), ValueError,
                        "safe_map() argument 2 is longer than argument 1"),
    "ds_sizes_shorter": (lambda: lax.dynamic_slice(_x33(), (1, 0), (2,)), ValueError,
                         "safe_map() argument 2 is shorter than argument 1"),
    "ds_size_too_big": (lambda: lax.dynamic_slice(_x33(), (1, 0), (4, 2)), TypeError,
                        ("slice slice_sizes must be less than or equal to operand shape, got slice_sizes (4, 2) "
                        "for operand shape (3, 3).")),
    "ds_negative_size": (lambda: lax.dynamic_slice(_x33(), (1, 0), (-1, 2)), TypeError,
                         "slice slice_sizes must be greater than or equal to zero, got slice_sizes of (-1, 2)."),
    "ds_nonscalar_start": (lambda: lax.dynamic_slice_p.bind(_x33(), jnp.ones(2, jnp.int32), jnp.int32(0), slice_sizes=(1, 1)),
                           TypeError, ("start_indices arguments to dynamic_slice must be scalars,  got indices "
                           "(ShapedArray(int32[2]), ShapedArray(int32[]))")),
    "dus_rank": (lambda: lax.dynamic_update_slice(_x33(), jnp.ones(2), (0, 0)), TypeError,
                 ("dynamic_update_slice update must have the same rank as operand, got update shape (2,) for operand "
                 "shape (3, 3).")),
    "dus_too_big": (lambda: lax.dynamic_update_slice(_x33(), jnp.ones((4, 1)), (0, 0)), TypeError,
                    ("dynamic_update_slice update shape must be smaller than operand shape, got update shape (4, 1) "
                    "for operand shape (3, 3).")),
    "dus_dtypes": (lambda: lax.dynamic_update_slice(_x33(), jnp.ones((1, 1), jnp.int32), (0, 0)), TypeError,
                   "lax.dynamic_update_slice requires arguments to have the same dtypes, got float32, int32."),
    "dus_index_dtypes": (lambda: lax.dynamic_update_slice(_x33(), jnp.ones((1, 1)), (jnp.int32(0), jnp.int8(0))),
                         TypeError, ("index arguments to dynamic_update_slice must be integers of the same type, got "
                         "int32, int8")),
    "pad_dtypes": (lambda: lax.pad(jnp.arange(5.0), 0, [(1, 1, 0)]), TypeError,
                   "pad operand and padding_value must be same dtype: got float32 and int32."),
    "pad_config_length": (lambda: lax.pad(jnp.arange(5.0), 0.0, [(1, 1, 0), (0, 0, 0)]), ValueError,
                          ("length of padding_config must equal the number of axes of operand, got padding_config "
                          "((1, 1, 0), (0, 0, 0)) for operand shape (5,)")),
    "pad_negative_interior": (lambda: lax.pad(jnp.arange(5.0), 0.0, [(1, 1, -1)]), ValueError,
                              "interior padding in padding_config must be nonnegative, got padding_config ((1, 1, -1),)"),
    "pad_negative_result": (lambda: lax.pad(jnp.arange(5.0), 0.0, [(-4, -3, 0)]), ValueError,
                            ("Dimension size after padding is not at least 0, got result shape (-2,), for padding_config "
                            "((-4, -3, 0),) and operand shape (5,)")),
    "pad_nonscalar_value": (lambda: lax.pad(jnp.arange(5.0), jnp.zeros(2), [(1, 1, 0)]), ValueError,
                            "padding_value must be a scalar; got np.shape(padding_value)=(2,)"),
    "split_sum": (lambda: lax.split(jnp.arange(5.0), [2, 2]), ValueError,
                  "Sum of sizes 4 must be equal to dimension 0 of the operand shape [5]"),
    "split_negative": (lambda: lax.split(jnp.arange(5.0), [6, -1]), ValueError,
                       "Sizes passed to split must be nonnegative, got [6, -1]"),
    "split_axis": (lambda: lax.split(jnp.ones((2, 3)), [1, 2], axis=3), ValueError,
                   "axis 3 is out of bounds for array of dimension 2"),
    "index_in_dim": (lambda: lax.index_in_dim(jnp.ones((2, 3)), 3, 1), IndexError,
                     "index 3 is out of bounds for axis 1 with size 3"),
    "gather_mode": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (0,), (0,)), (1, 5), mode="foo"), ValueError,
                    'Unknown gather mode "foo"'),
    "gather_float_indices": (lambda: lax.gather(_x45(), jnp.ones((3, 1)), GDN((1,), (0,), (0,)), (1, 5)), ValueError,
                             "indices must have an integer type"),
    "gather_offset_unsorted": (lambda: lax.gather(_x45(), _i31(), GDN((1, 0), (), (0,)), (1, 5)), TypeError,
                               "offset_dims in gather op must be sorted; got (1, 0)"),
    "gather_offset_oob": (lambda: lax.gather(_x45(), _i31(), GDN((2,), (0,), (0,)), (1, 5)), TypeError,
                          "Offset dimension 0 in gather op is out of bounds; got 2, but should have been in [0, 2)"),
    "gather_index_map_length": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (0,), (0, 1)), (1, 5)), TypeError,
                                ("Gather op has 2 elements in start_index_map and the bound of dimension "
                                "index_vector_dim=1 of indices is 1. These two numbers must be equal.")),
    "gather_index_map_oob": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (0,), (2,)), (1, 5)), TypeError,
                             "Invalid start_index_map; domain is [0, 2), got: 0->2."),
    "gather_collapsed_oob": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (2,), (0,)), (1, 5)), TypeError,
                             "Invalid collapsed_slice_dims set in gather op; valid range is [0, 2); got: 2."),
    "gather_slice_sizes_length": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (0,), (0,)), (1, 5, 1)), TypeError,
                                  ("Gather op must have one slice size for every input dimension; got: "
                                  "len(slice_sizes)=3, input_shape.rank=2")),
    "gather_slice_count": (lambda: lax.gather(_x45(), _i31(), GDN((1, 2), (0,), (0,)), (1, 5)), TypeError,
                           ("All components of the offset index in a gather op must either be a offset dimension or "
                           "explicitly collapsed/batching; got len(slice_sizes)=2, output_slice_sizes=(1, 2), "
                           "collapsed_slice_dims=(0,), operand_batching_dims=().")),
    "gather_slice_too_big": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (0,), (0,)), (1, 6)), TypeError,
                             "Slice size at index 1 in gather op is out of range, must be within [0, 5 + 1), got 6."),
    "gather_collapse_bound": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (0,), (0,)), (2, 5)), TypeError,
                              ("Gather op can only collapse slice dims with bound 1, but bound is 2 for index 0 at "
                              "position 0.")),
    "gather_batching_disjoint": (lambda: lax.gather(_x45(), _i31(), GDN((1,), (), (0,), (0,), (0,)), (1, 5)), TypeError,
                                 ("start_index_map and operand_batching_dims in gather op must be disjoint; got: (0,) "
                                 "and (0,).")),
    "gather_scalar_indices": (lambda: lax.gather(_x45(), jnp.int32(1), GDN((0, 1), (), ()), (1, 5)), TypeError,
                              ("Gather index leaf dimension must be within [0, rank(indices) + 1). rank(indices) is 0 "
                              "and gather index leaf dimension is -1.")),
    "gather_index_map_repeats": (lambda: lax.gather(_x45(), jnp.ones((3, 2), jnp.int32), GDN((), (0, 1), (0, 0)), (1, 1)),
                                 TypeError, "start_index_map in gather op must not repeat; got: (0, 0)."),
    "scatter_dtypes": (lambda: lax.scatter_add(jnp.zeros(5), jnp.array([[1]]), jnp.ones((1, 2), jnp.int32),
                                               SDN((1,), (), (0,))), TypeError,
                       "lax.scatter requires arguments to have the same dtypes, got float32, int32."),
    "scatter_updates_rank": (lambda: lax.scatter_add(jnp.zeros(5), jnp.array([[1]]), jnp.ones((2,)), SDN((1,), (), (0,))),
                             TypeError, "Updates tensor must be of rank 2; got 1."),
    "scatter_float_indices": (lambda: lax.scatter(jnp.zeros(5), jnp.array([[1.0]]), jnp.ones((1,)), SDN((), (0,), (0,))),
                              ValueError, "indices must have an integer type"),
    "scatter_window_size": (lambda: lax.scatter_add(_x45(), _i31(), jnp.ones((3, 5)), SDN((1,), (), (0,))), TypeError,
                            "Scatter op has window of size 1; doesn't match operand of rank 2."),
    "scatter_index_map_length": (lambda: lax.scatter_add(_x45(), _i31(), jnp.ones((3, 5)), SDN((1,), (0,), (0, 1))),
                                 TypeError, ("Scatter op has 2 elements in scatter_dims_to_operand_dims and the bound of "
                                 "dimension index_vector_dim=1 of indices is 1. These two numbers must be equal")),
    "scatter_index_map_oob": (lambda: lax.scatter_add(_x45(), _i31(), jnp.ones((3, 5)), SDN((1,), (0,), (3,))), TypeError,
                              "Invalid scatter_dims_to_operand_dims mapping; domain is [0, 2), got: 0->3."),
    "scatter_window_bounds": (lambda: lax.scatter_add(_x45(), _i31(), jnp.ones((3, 6)), SDN((1,), (0,), (0,))), TypeError,
                              ("Bounds of the window dimensions of updates must not exceed the bounds of the "
                              "corresponding dimensions of operand. For dimension 1, updates bound is 6, operand "
                              "bound is 5.")),
    "scatter_scatter_bounds": (lambda: lax.scatter_add(_x45(), _i31(), jnp.ones((2, 5)), SDN((1,), (0,), (0,))), TypeError,
                               ("Bounds of the scatter dimensions of updates must be the same as the bounds of the "
                               "corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is "
                               "2, indices bound is 3.")),
    "scatter_inserted_oob": (lambda: lax.scatter_add(_x45(), _i31(), jnp.ones((3, 5)), SDN((1,), (2,), (0,))), TypeError,
                             "Invalid inserted_window_dims set in scatter op; valid range is [0, 2); got: 2."),
    "scatter_index_map_repeats": (lambda: lax.scatter_add(_x45(), jnp.ones((3, 2), jnp.int32), jnp.ones((3,)),
                                                          SDN((), (0, 1), (0, 0))), TypeError,
                                  "scatter_dims_to_operand_dims in scatter op must not repeat; got: (0, 0)."),
    "scatter_add_bool": (lambda: lax.scatter_add(jnp.zeros(5, bool), jnp.array([[1]]), jnp.ones((1, 2), bool),
                                                 SDN((1,), (), (0,))), TypeError,
                         ("add does not accept dtype bool at position 0. Accepted dtypes at position 0 are subtypes of "
                         "integer, complexfloating, floating.")),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_messages_match_jax(name):
    fn, exc_type, message = ERRORS[name]
    with pytest.raises(exc_type) as info:
        fn()
    assert str(info.value) == message
