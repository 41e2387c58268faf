"""The windowed family: reduce_window_{sum,max,min}, the general
reduce_window, the general reduce, and the cumulative reductions.

Each impl is checked against an oracle written from XLA's semantics one
output element at a time (the window's operand elements gathered by index,
padding and dilation holes skipped, folded in row-major order with the
accumulator first), over the dtypes JAX accepts; then the monoid dispatch of
the wrappers, abstract eval against the impl, jit against eager, and the
error messages JAX 0.11 gives (recorded from the reference).
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np
import pytest
import scipy.special
from helpers import (
    check_close,
    check_impl_matches_abstract_eval,
    check_jit_matches_eager,
)

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.impls import windowed as windowed_impls
from pyjax._src.lax import reduce as reduce_lax
from pyjax._src.lax import windowed as win

BF16 = np.dtype(ml_dtypes.bfloat16)
NUMBERS = [np.dtype(d) for d in ("float32", "float16", "int32", "int8", "uint8", "complex64")] + [BF16]
ORDERED = [np.dtype(d) for d in ("float32", "float16", "int32", "int8", "uint8", "bool")] + [BF16]


def _values(rng, shape, dtype):
    """Small exactly-representable values (so combination order never matters)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    raw = rng.integers(-4 if dtype.kind != "u" else 0, 5, size=shape)
    if dtype.kind == "c":
        return (raw + 1j * rng.integers(-4, 5, size=shape)).astype(dtype)
    return raw.astype(dtype)


# ---------------------------------------------------------------------------
# The oracle: each output element folds the operand elements its window covers.


def _window_elements(shape, out_index, window, strides, padding, base_dilation, window_dilation):
    """Operand indices covered by one window, in row-major tap order; taps on
    padding or on a base-dilation hole cover nothing."""
    covered = []
    for tap in np.ndindex(*window):
        index = []
        for o, t, s, (lo, _), bd, wd, size in zip(out_index, tap, strides, padding, base_dilation,
                                                  window_dilation, shape):
            position = o * s + t * wd - lo  # in the dilated operand
            if position < 0 or position % bd or position // bd >= size:
                break
            index.append(position // bd)
        else:
            covered.append(tuple(index))
    return covered


def reduce_window_oracle(operands, inits, combine, window, strides, padding, base_dilation, window_dilation):
    shape = operands[0].shape
    out_shape = win.reduce_window_shape_tuple(shape, window, strides, padding, base_dilation, window_dilation)
    outs = [np.empty(out_shape, o.dtype) for o in operands]
    for out_index in np.ndindex(*out_shape):
        acc = list(inits)
        for index in _window_elements(shape, out_index, window, strides, padding, base_dilation, window_dilation):
            acc = combine(acc, [o[index] for o in operands])
        for out, a in zip(outs, acc):
            out[out_index] = a
    return outs


MONOIDS = {
    "sum": (lambda a, b: [a[0] + b[0]], lambda d: 0),
    "max": (lambda a, b: [b[0] if b[0] > a[0] or np.isnan(b[0]) else a[0]], reduce_lax.max_identity),
    "min": (lambda a, b: [b[0] if b[0] < a[0] or np.isnan(b[0]) else a[0]], reduce_lax.min_identity),
}
PRIMITIVES = {"sum": win.reduce_window_sum_p, "max": win.reduce_window_max_p, "min": win.reduce_window_min_p}

# (shape, window, strides, padding, base_dilation, window_dilation)
GEOMETRIES = {
    "1d_valid": ((7,), (3,), (1,), ((0, 0),), (1,), (1,)),
    "2d_strided_padded": ((5, 6), (2, 3), (2, 1), ((1, 0), (1, 2)), (1, 1), (1, 1)),
    "2d_dilated": ((4, 5), (2, 2), (1, 2), ((0, 1), (2, 0)), (2, 1), (1, 2)),
    "3d_negative_padding": ((3, 4, 5), (1, 2, 2), (1, 1, 2), ((0, 0), (-1, 1), (1, -2)), (1, 1, 1), (1, 2, 1)),
    "window_bigger_than_operand": ((2, 3), (3, 1), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    "all_padding_windows": ((2,), (2,), (1,), ((3, 3),), (1,), (1,)),
    "empty_operand": ((0, 3), (1, 2), (1, 1), ((1, 1), (0, 0)), (1, 1), (1, 1)),
}


def _geometry_params(geometry):
    _, window, strides, padding, base_dilation, window_dilation = geometry
    return {"window_dimensions": window, "window_strides": strides, "padding": padding, "base_dilation": base_dilation,
                "window_dilation": window_dilation}


@pytest.mark.parametrize("geometry", list(GEOMETRIES))
@pytest.mark.parametrize("kind,dtype", [("sum", d) for d in NUMBERS] + [(k, d) for k in ("max", "min")
                                                                         for d in ORDERED], ids=str)
def test_monoid_reduce_window_matches_oracle(kind, dtype, geometry):
    shape, *rest = GEOMETRIES[geometry]
    x = _values(np.random.default_rng(len(geometry)), shape, dtype)
    combine, identity = MONOIDS[kind]
    want, = reduce_window_oracle([x], [np.asarray(identity(x.dtype), x.dtype)], combine, *rest)
    got = PRIMITIVES[kind].bind(x, **_geometry_params(GEOMETRIES[geometry]))
    check_close(got, want)


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
def test_monoid_reduce_window_whole_view_path(kind, monkeypatch):
    # Windows with many taps are reduced over the strided view in one call.
    monkeypatch.setattr(windowed_impls, "WINDOW_TAP_LOOP_MAX", 0)
    for name in ("2d_dilated", "3d_negative_padding", "all_padding_windows"):
        shape, *rest = GEOMETRIES[name]
        x = _values(np.random.default_rng(11), shape, np.int32)
        combine, identity = MONOIDS[kind]
        want, = reduce_window_oracle([x], [np.asarray(identity(x.dtype), x.dtype)], combine, *rest)
        check_close(PRIMITIVES[kind].bind(x, **_geometry_params(GEOMETRIES[name])), want)


def test_reduce_window_sum_float32_random():
    x = np.random.default_rng(0).standard_normal((6, 7)).astype(np.float32)
    geometry = GEOMETRIES["2d_dilated"]
    want, = reduce_window_oracle([x.astype(np.float64)], [0.0], MONOIDS["sum"][0], *geometry[1:])
    check_close(win.reduce_window_sum_p.bind(x, **_geometry_params(geometry)), want.astype(np.float32))


@pytest.mark.parametrize("kind", ["max", "min"])
def test_reduce_window_max_min_propagate_nan(kind):
    x = np.array([1.0, np.nan, 2.0, 3.0, -np.inf], np.float32)
    got = np.asarray(lax.reduce_window(x, -np.inf if kind == "max" else np.inf, getattr(lax, kind), (2,), (1,),
                                       "VALID"))
    want = np.array([np.nan, np.nan, 3.0 if kind == "max" else 2.0, 3.0 if kind == "max" else -np.inf], np.float32)
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------
# The general reduce_window


def _fold_ten(a, b):
    return a * 10 + b  # neither commutative nor associative: shows the fold order


@pytest.mark.parametrize("geometry", ["1d_valid", "2d_strided_padded", "2d_dilated", "all_padding_windows"])
def test_general_reduce_window_fold_order(geometry):
    shape, *rest = GEOMETRIES[geometry]
    x = np.random.default_rng(3).integers(0, 10, shape).astype(np.float32)
    window = rest[0]
    if np.prod(window) > 4:
        x = x % 3  # keep the folded numbers exactly representable
    want, = reduce_window_oracle([x], [np.float32(2)], lambda a, b: [_fold_ten(a[0], b[0])], *rest)
    got = lax.reduce_window(x, np.float32(2), _fold_ten, *rest[:3], base_dilation=rest[3], window_dilation=rest[4])
    check_close(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.uint8, np.complex64, BF16], ids=str)
def test_general_reduce_window_dtypes(dtype):
    x = _values(np.random.default_rng(4), (4, 5), dtype)
    if np.dtype(dtype).kind in "iu":
        x = x % 3  # products stay in range (the oracle multiplies NumPy scalars)
    init = np.asarray(1, dtype)
    want, = reduce_window_oracle([x], [init], lambda a, b: [a[0] * b[0]], (2, 2), (1, 2), ((1, 0), (0, 1)),
                                 (1, 1), (1, 1))
    check_close(lax.reduce_window(x, init, lax.mul, (2, 2), (1, 2), ((1, 0), (0, 1))), want)


def test_general_reduce_window_variadic():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    y = (x % 5).astype(np.int32)

    def combine(a, b):  # running maximum of x with the y next to it
        take = b[0] > a[0]
        return (lax.select(take, b[0], a[0]), lax.select(take, b[1], a[1]))

    got_x, got_y = lax.reduce_window((x, y), (np.float32(-np.inf), np.int32(-1)), combine, (2, 2), (1, 1), "SAME")
    want = reduce_window_oracle([x, y], [np.float32(-np.inf), np.int32(-1)],
                                lambda a, b: list(b) if b[0] > a[0] else list(a),
                                (2, 2), (1, 1), ((0, 1), (0, 1)), (1, 1), (1, 1))
    check_close(got_x, want[0])
    check_close(got_y, want[1])


def test_general_reduce_window_computation_not_elementwise_runs_slowly():
    def combine(a, b):  # a reshape in the computation: not elementwise in its inputs
        return lax.reshape(lax.reshape(a, (1,)) * 10 + lax.reshape(b, (1,)), ())

    jaxpr, _ = reduce_lax.reduction_jaxpr(combine, (pyjax.typeof(np.float32(0)),) * 1,
                                          pyjax.tree_util.tree_structure(0.0), "reduce_window comp")
    assert not windowed_impls._vectorisable(jaxpr)
    x = np.arange(5, dtype=np.float32)
    want, = reduce_window_oracle([x], [np.float32(1)], lambda a, b: [_fold_ten(a[0], b[0])], (2,), (1,),
                                 ((1, 0),), (1,), (1,))
    check_close(lax.reduce_window(x, np.float32(1), combine, (2,), (1,), ((1, 0),)), want)


def test_general_reduce_window_computation_with_a_jit_call_is_vectorised():
    add_jit = pyjax.jit(lambda a, b: a + b * 2)
    jaxpr, _ = reduce_lax.reduction_jaxpr(add_jit, (pyjax.typeof(np.float32(0)),),
                                          pyjax.tree_util.tree_structure(0.0), "reduce_window comp")
    assert windowed_impls._vectorisable(jaxpr)
    x = np.arange(6, dtype=np.float32)
    want, = reduce_window_oracle([x], [np.float32(0)], lambda a, b: [a[0] + b[0] * 2], (3,), (1,), ((0, 0),),
                                 (1,), (1,))
    check_close(lax.reduce_window(x, np.float32(0), add_jit, (3,), (1,), "VALID"), want)


# ---------------------------------------------------------------------------
# The general reduce


def reduce_oracle(operands, inits, combine, dimensions):
    if not dimensions:  # XLA: no dimension reduced, no initial value folded in
        return [o.copy() for o in operands]
    shape = operands[0].shape
    kept = [d for d in range(len(shape)) if d not in dimensions]
    outs = [np.empty([shape[d] for d in kept], o.dtype) for o in operands]
    for out_index in np.ndindex(*[shape[d] for d in kept]):
        acc = list(inits)
        for reduced in np.ndindex(*[shape[d] for d in dimensions]):
            index = [0] * len(shape)
            for d, i in zip(kept, out_index):
                index[d] = i
            for d, i in zip(dimensions, reduced):
                index[d] = i
            acc = combine(acc, [o[tuple(index)] for o in operands])
        for out, a in zip(outs, acc):
            out[out_index] = a
    return outs


@pytest.mark.parametrize("dimensions", [(0,), (1,), (0, 2), (2, 0), (0, 1, 2), ()])
def test_general_reduce_fold_order(dimensions):
    x = np.random.default_rng(5).integers(0, 3, (2, 3, 2)).astype(np.float32)
    want, = reduce_oracle([x], [np.float32(1)], lambda a, b: [_fold_ten(a[0], b[0])], dimensions)
    check_close(lax.reduce(x, np.float32(1), _fold_ten, dimensions), want)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.uint8, np.complex64, BF16, np.bool_], ids=str)
def test_general_reduce_dtypes(dtype):
    x = _values(np.random.default_rng(6), (3, 4), dtype)
    init = np.asarray(True if dtype == np.bool_ else 2, dtype)
    combine = (lambda a, b: a & b) if dtype == np.bool_ else (lambda a, b: a * b)
    want, = reduce_oracle([x], [init], lambda a, b: [combine(a[0], b[0])], (1,))
    check_close(lax.reduce(x, init, combine, (1,)), want)


def test_general_reduce_long_reductions_combine_pairwise():
    count = windowed_impls.SEQUENTIAL_FOLD_MAX * 5 + 3
    x = np.random.default_rng(7).integers(-100, 100, (3, count)).astype(np.int32)
    got = lax.reduce(x, np.int32(7), lambda a, b: a + b, (1,))  # a lambda: not the add monoid
    check_close(got, x.sum(axis=1, dtype=np.int32) + 7)
    got_max = lax.reduce(x, np.int32(0), lambda a, b: lax.max(a, b), (1,))
    check_close(got_max, np.maximum(x.max(axis=1), 0))


def test_general_reduce_variadic_argmax():
    x = np.array([[3.0, 9.0, 1.0, 9.0], [-1.0, -5.0, -0.5, -2.0]], np.float32)
    idx = np.broadcast_to(np.arange(4, dtype=np.int32), x.shape)

    def select_max(a, b):
        take = b[0] > a[0]
        return (lax.select(take, b[0], a[0]), lax.select(take, b[1], a[1]))

    values, indices = lax.reduce((x, idx), (np.float32(-np.inf), np.int32(0)), select_max, (1,))
    check_close(values, x.max(axis=1))
    check_close(indices, np.array([1, 2], np.int32))


def test_general_reduce_empty_and_closure_consts():
    check_close(lax.reduce(np.ones((0, 3), np.float32), np.float32(7), lambda a, b: a * b, (0,)),
                np.full(3, 7, np.float32))
    c = jnp.arange(3.0)
    got = lax.reduce(np.arange(4.0, dtype=np.float32), np.float32(0), lambda a, b: a + b * c[2], (0,))
    check_close(got, np.float32(12.0))


# ---------------------------------------------------------------------------
# Monoid dispatch, params and printing


def _eqn_names(f, *args):
    return [e.primitive.name for e in pyjax.make_jaxpr(f)(*args).eqns]


def test_reduce_window_dispatches_monoids():
    x = jnp.ones((4, 4))
    rw = functools.partial(lax.reduce_window, window_dimensions=(2, 2), window_strides=(1, 1), padding="VALID")
    assert _eqn_names(lambda x: rw(x, 0.0, lax.add), x) == ["reduce_window_sum"]
    assert _eqn_names(lambda x: rw(x, -jnp.inf, lax.max), x) == ["reduce_window_max"]
    assert _eqn_names(lambda x: rw(x, jnp.inf, lax.min), x) == ["reduce_window_min"]
    assert _eqn_names(lambda x: rw(x, 1.0, lax.add), x) == ["reduce_window"]
    assert _eqn_names(lambda x: rw(x, 0.0, lambda a, b: a + b), x) == ["reduce_window"]
    assert _eqn_names(lambda x, t: rw(x, t, lax.add), x, 0.0) == ["reduce_window"]


def test_reduce_dispatches_monoids():
    x = jnp.ones((2, 3))
    assert _eqn_names(lambda x: lax.reduce(x, 0.0, lax.add, (0,)), x) == ["reduce_sum"]
    assert _eqn_names(lambda x: lax.reduce(x, 1.0, lax.mul, (0,)), x) == ["reduce_prod"]
    assert _eqn_names(lambda x: lax.reduce(x, -jnp.inf, lax.max, (0,)), x) == ["reduce_max"]
    assert _eqn_names(lambda x: lax.reduce(x, 0.0, lax.max, (0,)), x) == ["reduce"]
    assert _eqn_names(lambda x: lax.reduce(x, 10.0, lax.add, (0,)), x) == ["reduce"]
    assert _eqn_names(lambda x: lax.reduce(x, 0, lax.bitwise_or, (0,)), jnp.arange(3)) == ["reduce_or"]
    assert _eqn_names(lambda x: lax.reduce(x, 1, lax.bitwise_or, (0,)), jnp.arange(3)) == ["reduce"]
    # A weak operand with a strong initial value: the result is made strong.
    assert _eqn_names(lambda s: lax.reduce(s, np.float32(0), lax.add, ()), 2.0) == ["reduce_sum",
                                                                                     "convert_element_type"]


def test_computation_param_prints_masked_and_compares_by_function():
    f = lambda a, b: a + b
    param = reduce_lax.Computation(f)
    assert "at 0xXXXXXXXXXXXX>" in str(param) or str(param).endswith("X>")
    assert "0x" + "X" in str(param) and hex(id(f))[2:] not in str(param)
    assert param == reduce_lax.Computation(f) and hash(param) == hash(reduce_lax.Computation(f))
    assert param != reduce_lax.Computation(lambda a, b: a + b)
    assert param(1, 2) == 3


def test_reduction_jaxpr_is_cached_per_computation():
    f = lambda a, b: a * b + 1
    jaxpr = pyjax.make_jaxpr(lambda x: (lax.reduce(x, 1.0, f, (0,)), lax.reduce(x, 1.0, f, (1,))))(jnp.ones((2, 3)))
    assert jaxpr.eqns[0].params["jaxpr"] is jaxpr.eqns[1].params["jaxpr"]
    assert str(jaxpr).startswith("let jaxpr = {")


def test_computation_closing_over_a_tracer_is_refused():
    def f(x, y):
        return lax.reduce(x, 0.0, lambda a, b: a + b * y, (0,))

    with pytest.raises(NotImplementedError, match="Reduction computations can't close over Tracers"):
        pyjax.make_jaxpr(f)(jnp.ones(3), 2.0)


def test_weak_types():
    weak = lax.broadcast_in_dim(2.0, (3, 4), ())
    assert lax.reduce_window(weak, 0.0, lax.add, (2, 2), (1, 1), "VALID").aval.weak_type
    assert not lax.reduce_window(weak, 1.0, lax.mul, (2, 2), (1, 1), "VALID").aval.weak_type  # as JAX
    assert lax.reduce(weak, 1.0, lambda a, b: a * b, (0,)).aval.weak_type
    assert not lax.reduce(weak, np.float32(1), lambda a, b: a * b, (0,)).aval.weak_type
    for name in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
        assert getattr(lax, name)(weak, 1).aval.weak_type


# ---------------------------------------------------------------------------
# Cumulative reductions

ORACLES = {
    "cumsum": lambda x, axis: np.cumsum(x, axis=axis),
    "cumprod": lambda x, axis: np.cumprod(x, axis=axis),
    "cummax": lambda x, axis: np.maximum.accumulate(x, axis=axis),
    "cummin": lambda x, axis: np.minimum.accumulate(x, axis=axis),
}


def _wide(x):
    kind = x.dtype.kind
    return x.astype(np.complex128 if kind == "c" else np.int64 if kind in "iu" else np.float64)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", NUMBERS, ids=str)
@pytest.mark.parametrize("name", list(ORACLES))
def test_cumulative_matches_numpy(name, dtype, reverse):
    x = _values(np.random.default_rng(8), (3, 5), dtype)
    if name == "cumprod" and np.dtype(dtype).kind == "c":
        x = (x.real % 2 + 1j * (x.imag % 2)).astype(dtype)  # keep products exact
    elif name == "cumprod" and np.dtype(dtype).kind == "f" or dtype == BF16:
        x = (x % 3).astype(dtype)
    for axis in (0, 1):
        wide = _wide(x)
        if name in ("cummax", "cummin") and x.dtype.kind == "c":
            continue  # checked lexicographically below
        want = ORACLES[name](np.flip(wide, axis) if reverse else wide, axis)
        want = np.flip(want, axis) if reverse else want
        got = getattr(lax, name)(x, axis, reverse=reverse)
        check_close(got, want.astype(x.dtype))


def test_cummax_cummin_nan_and_complex():
    x = np.array([1.0, 3.0, np.nan, 2.0, 5.0], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.cummax(x)), [1.0, 3.0, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(np.asarray(lax.cummin(x, reverse=True)), [np.nan, np.nan, np.nan, 2.0, 5.0])
    z = np.array([1 + 1j, 2.0, 1 + 5j], np.complex64)  # lexicographic, as XLA
    check_close(lax.cummax(z), np.array([1 + 1j, 2, 2], np.complex64))
    check_close(lax.cummin(z), np.array([1 + 1j, 1 + 1j, 1 + 1j], np.complex64))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=str)
@pytest.mark.parametrize("reverse", [False, True])
def test_cumlogsumexp(dtype, reverse):
    x = np.array([[0.0, 1.0, 2.0, -3.0], [60.0, 60.0, -60.0, 61.0]], dtype)
    wide = x.astype(np.float64)
    if reverse:
        wide = np.flip(wide, 1)
    want = np.stack([[scipy.special.logsumexp(row[: i + 1]) for i in range(row.size)] for row in wide])
    if reverse:
        want = np.flip(want, 1)
    check_close(lax.cumlogsumexp(x, 1, reverse=reverse), want.astype(dtype))


def test_cumlogsumexp_complex_and_integer():
    z = np.array([1 + 1j, 2.0, -1j], np.complex64)
    want = np.log(np.cumsum(np.exp(z.astype(np.complex128))))
    check_close(lax.cumlogsumexp(z), want.astype(np.complex64), rtol=1e-5, atol=1e-5)
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        lax.cumlogsumexp(np.arange(3, dtype=np.int32))


def test_cumulative_integer_overflow_wraps():
    x = np.full(4, 100, np.int8)
    check_close(lax.cumsum(x), np.array([100, -56, 44, -112], np.int8))


def test_cumulative_empty_axis():
    check_close(lax.cumsum(np.ones((0, 3), np.float32)), np.ones((0, 3), np.float32))


# ---------------------------------------------------------------------------
# Abstract eval against the impls, jit against eager


@pytest.mark.parametrize("primitive,args,params", [
    (win.reduce_window_sum_p, (np.ones((4, 5), np.float16),), _geometry_params(GEOMETRIES["2d_dilated"])),
    (win.reduce_window_max_p, (np.ones((2, 3), np.int8),),
     _geometry_params(GEOMETRIES["window_bigger_than_operand"])),
    (win.reduce_window_min_p, (np.ones((0, 3), bool),), _geometry_params(GEOMETRIES["empty_operand"])),
    (win.cumsum_p, (np.ones((2, 3), np.uint8),), {"axis": 1, "reverse": True}),
    (win.cumlogsumexp_p, (np.ones((2, 3), BF16),), {"axis": 0, "reverse": False}),
])
def test_abstract_eval_matches_impl(primitive, args, params):
    check_impl_matches_abstract_eval(primitive, *args, **params)


def test_general_primitives_abstract_eval_matches_impl():
    x = np.ones((3, 4), np.int8)
    jaxpr, _ = reduce_lax.reduction_jaxpr(lax.mul, (pyjax.typeof(np.int8(1)),), pyjax.tree_util.tree_structure(0),
                                          "reduce_window comp")
    check_impl_matches_abstract_eval(win.reduce_window_p, x, np.int8(1), jaxpr=jaxpr, consts=(),
                                     **_geometry_params(((3, 4), (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 1), (1, 1))))
    check_impl_matches_abstract_eval(reduce_lax.reduce_p, x, np.int8(1), computation=reduce_lax.Computation(lax.mul),
                                     jaxpr=jaxpr, dimensions=(0,))


def test_jit_matches_eager():
    x = jnp.asarray(np.random.default_rng(9).standard_normal((4, 6)).astype(np.float32))

    def f(x):
        return (lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 2), "SAME"),
                lax.reduce_window(x, 0.0, lax.add, (3, 1), (1, 1), ((1, 1), (0, 0)), base_dilation=(2, 1)),
                lax.reduce_window(x, 1.0, lax.mul, (2, 2), (2, 2), "VALID"),
                lax.reduce(x, 0.0, lambda a, b: a + b * b, (1,)),
                lax.cumsum(x, 1, reverse=True), lax.cumlogsumexp(x), lax.cummin(x, 1))

    check_jit_matches_eager(f, x, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Errors (messages recorded from JAX 0.11)

X = np.ones((3, 4), np.float32)

ERRORS = [
    (lambda: lax.reduce_window(X, 0.0, lax.add, (2,), (1,), "VALID"), TypeError,
     ("reduce_window got the wrong number of window_dimensions for operand: got operand shape (3, 4) with "
     "window_dimensions (2,).")),
    (lambda: lax.reduce_window(X, 0.0, lax.add, (2, 2), (1,), "VALID"), TypeError,
     ("reduce_window got inconsistent window_strides and window_dimensions: got window_strides (1,) and "
     "window_dimensions (2, 2).")),
    (lambda: lax.reduce_window(X, 0.0, lax.add, (0, 2), (1, 1), "VALID"), TypeError,
     "reduce_window window_dimensions must have every element be strictly positive, got (0, 2)."),
    (lambda: lax.reduce_window(X, 0.0, lax.add, (1, 2), (1, -1), "VALID"), TypeError,
     "reduce_window window_strides must have every element be strictly positive, got (1, -1)."),
    (lambda: lax.reduce_window(X, 0.0, lax.add, (1, 2), (1, 1), "VALID", base_dilation=(1,)), TypeError,
     ("reduce_window got inconsistent base_dilation and window_dimensions: got base_dilation (1,) and "
     "window_dimensions (1, 2).")),
    (lambda: lax.reduce_window(X, 0.0, lax.add, (1, 2), (1, 1), "VALID", window_dilation=(1,)), TypeError,
     ("reduce_window got inconsistent window_dilation and window_dimensions: got window_dilation (1,) and "
     "window_dimensions (1, 2).")),
    (lambda: lax.reduce_window(X, 0.0, lax.add, (1, 2), (1, 1), "VALID", window_dilation=(1, 0)), TypeError,
     "All dilations must be positive, got (1, 0)."),
    (lambda: lax.reduce_window(X, 1, lax.mul, (2, 2), (1, 1), "VALID"), TypeError,
     ("reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
     "[dtype('float32')] and init_value dtypes [dtype('int32')].")),
    (lambda: lax.reduce_window(X, jnp.ones(2), lax.mul, (1, 2), (1, 1), "VALID"), TypeError,
     "reduce_window expected init_values to be scalars but init_values have shapes [(2,)]."),
    (lambda: lax.reduce_window((X, X), 0.0, lax.mul, (1, 2), (1, 1), "VALID"), ValueError,
     "Operands must have the same tree structure as init_values: PyTreeDef((*, *)) vs. PyTreeDef(*)"),
    (lambda: lax.reduce_window(np.array([True, False]), False, lax.add, (2,), (1,), "VALID"), TypeError,
     "operand to reduce_window_sum must have a number dtype, got bool"),
    (lambda: lax.reduce_window(X, 0.0, lax.add, 2, (1, 1), "VALID"), TypeError, "object of type 'int' has no len()"),
    (lambda: lax.reduce(X, 2, lax.mul, (0,)), TypeError,
     ("reduce operand dtypes should match corresponding initial value dtypes, got "
     "operands=[ShapedArray(float32[3,4])] and initial_values=[ShapedArray(int32[], weak_type=True)]")),
    (lambda: lax.reduce(X, jnp.ones(4), lambda a, b: a * b, (0,)), ValueError,
     "reduce found non-scalar initial value: [(4,)]"),
    (lambda: lax.reduce(X, 1.0, lambda a, b: a * b, (2,)), IndexError,
     "index 2 is out of bounds for axis 0 with size 2"),
    (lambda: lax.reduce(X, 0.0, lax.add, (2,)), ValueError,
     "reduction axes (2,) contains out-of-bounds indices for float32[3,4]."),
    (lambda: lax.reduce((X, X), 0.0, lax.add, (0,)), ValueError,
     "Operands must have the same tree structure as init_values: PyTreeDef((*, *)) vs. PyTreeDef(*)"),
    (lambda: lax.cumsum(np.array([True, False])), TypeError,
     "cumsum does not accept dtype bool. Accepted dtypes are subtypes of number."),
    (lambda: lax.cumlogsumexp(np.ones(3, bool)), TypeError,
     "cumlogsumexp does not accept dtype bool. Accepted dtypes are subtypes of number."),
    (lambda: lax.cumprod(X, axis=-1), ValueError, "XLA operations do not allow negative axes"),
    (lambda: lax.cummax(X, axis=2), ValueError, "axis 2 is out of bounds for array of shape (3, 4)"),
    (lambda: lax.cummin(np.float32(3)), ValueError, "axis 0 is out of bounds for array of shape ()"),
]


@pytest.mark.parametrize("fn,error,message", ERRORS, ids=[m[:50] for _, _, m in ERRORS])
def test_error_messages(fn, error, message):
    with pytest.raises(error) as info:
        fn()
    assert str(info.value) == message


def test_error_computation_returning_a_non_array():
    with pytest.raises(TypeError) as info:
        lax.reduce(X, 0.0, lambda a, b: "sum", (0,))
    message = str(info.value)
    assert message.startswith("function <lambda> at ") and message.endswith(
        " traced for reduce comp returned a value of type <class 'str'>, which is not a valid JAX type")
