"""The sorting family: sort, top_k, approx_top_k.

Impls are checked against oracles written independently of them (Python's
sorted() with explicit keys for XLA's two float orders, np.lexsort for
several keys), abstract evaluation against the impl's results, jit against
eager, and the errors against JAX's messages.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from helpers import (
    check_close,
    check_impl_matches_abstract_eval,
    check_jit_matches_eager,
)

import pyjax
from pyjax import lax
from pyjax._src import core
from pyjax._src.lax import sorting

BF16 = np.dtype(ml_dtypes.bfloat16)
SORT_DTYPES = [np.dtype(d) for d in ("float32", "float16", "int32", "int8", "uint8", "uint32", "bool",
                                     "complex64")] + [BF16]
TOP_K_DTYPES = [np.dtype(d) for d in ("float32", "float16", "int32", "int8", "uint8", "bool")] + [BF16]


@pytest.fixture
def x64():
    pyjax.config.update("jax_enable_x64", True)
    yield
    pyjax.config.update("jax_enable_x64", False)


def _values(rng, shape, dtype, specials: bool = True):
    """Random values of `dtype` with many ties, and NaNs/infs/signed zeros for floats."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -5), min(info.max, 5), shape, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.integers(-2, 3, shape) + 1j * rng.integers(-2, 3, shape)).astype(dtype)
    x = rng.integers(-3, 4, shape).astype(np.float64) / 2
    if specials:
        pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0])
        mask = rng.random(shape) < 0.3
        x = np.where(mask, rng.choice(pool, shape), x)
    return x.astype(dtype)


def _sort_key(v) -> tuple:
    """JAX's sort comparator: -0.0 == 0.0, NaNs (any sign) equal and last."""
    v = complex(v) if isinstance(v, (complex, np.complexfloating)) else float(v)
    parts = (v.real, v.imag) if isinstance(v, complex) else (v,)
    return tuple((1, 0.0) if math.isnan(p) else (0, p + 0.0) for p in parts)


def _total_order_key(v) -> tuple:
    """XLA TopK's total order: -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN."""
    v = float(v)
    if math.isnan(v):
        return (1 if math.copysign(1, v) > 0 else -1, 0.0, 0)
    return (0, v, 1 if math.copysign(1, v) > 0 else 0)


def _oracle_permutation(keys: list, axis: int, key_fn) -> np.ndarray:
    """The stable permutation sorting rows of `keys` (lexicographically) along `axis`."""
    moved = [np.moveaxis(k, axis, -1) for k in keys]
    out = np.empty(moved[0].shape, np.int64)
    for index in np.ndindex(*moved[0].shape[:-1]):
        rows = [m[index] for m in moved]
        n = rows[0].shape[0]
        out[index] = sorted(range(n), key=lambda i: tuple(key_fn(r[i]) for r in rows))
    return np.moveaxis(out, -1, axis)


def _same_bits(actual, expected):
    """Equal values, NaNs and signed zeros included."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if actual.dtype.kind in "fcV":
        np.testing.assert_array_equal(actual.view(f"u{actual.dtype.itemsize}"),
                                      expected.view(f"u{expected.dtype.itemsize}"))
    else:
        np.testing.assert_array_equal(actual, expected)


# ---------------------------------------------------------------------------
# sort


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=str)
@pytest.mark.parametrize("shape,dimension", [((13,), 0), ((4, 7), 1), ((4, 7), 0), ((2, 3, 5), 1)])
def test_sort_single_operand_matches_the_comparator(dtype, shape, dimension):
    rng = np.random.default_rng(0)
    x = _values(rng, shape, dtype)
    permutation = _oracle_permutation([x], dimension, _sort_key)
    out = sorting.sort_p.bind(x, dimension=dimension, is_stable=True, num_keys=1)[0]
    _same_bits(out, np.take_along_axis(x, permutation, axis=dimension))


@pytest.mark.parametrize("dtypes", [("int32", "float32", "int32"), ("float16", "bool", "uint8"),
                                    ("complex64", "int8", "float32")], ids=str)
@pytest.mark.parametrize("num_keys", [1, 2, 3])
def test_sort_several_operands_lexicographic_and_stable(dtypes, num_keys):
    rng = np.random.default_rng(1)
    operands = [_values(rng, (3, 9), d) for d in dtypes]
    permutation = _oracle_permutation(operands[:num_keys], 1, _sort_key)
    outs = lax.sort(tuple(operands), num_keys=num_keys)
    for out, operand in zip(outs, operands, strict=True):
        _same_bits(out, np.take_along_axis(operand, permutation, axis=1))


def test_sort_float64(x64):
    x = _values(np.random.default_rng(2), (20,), np.float64)
    out = lax.sort(x)
    assert np.asarray(out).dtype == np.float64
    _same_bits(out, x[_oracle_permutation([x], 0, _sort_key)])


def test_sort_abstract_eval_keeps_avals_and_weak_type():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check_impl_matches_abstract_eval(sorting.sort_p, x, x.astype(np.int32), dimension=0, is_stable=True,
                                     num_keys=1)
    weak = lax.broadcast_in_dim(2.0, (3,), ())
    assert core.get_aval(lax.sort(weak)).weak_type is True
    assert core.get_aval(lax.sort(x)).weak_type is False


def test_sort_wrappers_and_jit():
    rng = np.random.default_rng(3)
    k, v = _values(rng, (4, 6), np.float32), _values(rng, (4, 6), np.int32)
    check_jit_matches_eager(lambda k, v: lax.sort_key_val(k, v, dimension=0), k, v)
    check_jit_matches_eager(lambda k: lax.sort(k, is_stable=False), k)
    keys, values = lax.sort_key_val(k, v)
    permutation = _oracle_permutation([k], 1, _sort_key)
    _same_bits(values, np.take_along_axis(v, permutation, axis=1))
    _same_bits(keys, np.take_along_axis(k, permutation, axis=1))


@pytest.mark.parametrize("call,error,message", [
    (lambda: lax.sort((np.ones(3), np.ones(4))), TypeError, "Arguments to sort must have equal shapes, got: (3,) (4,)"),
    (lambda: lax.sort([]), TypeError, "Sort requires at least one operand"),
    (lambda: lax.sort([np.ones(3)], num_keys=2), ValueError, "num_keys=2 must be between 1 and len(operand)=1"),
    (lambda: lax.sort(np.ones(3), num_keys=2), ValueError, "num_keys=2 must equal 1 for a single operand."),
    (lambda: lax.sort(np.ones((2, 3)), dimension=2), ValueError, "axis 2 is out of bounds for array of dimension 2"),
])
def test_sort_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


# ---------------------------------------------------------------------------
# top_k


@pytest.mark.parametrize("dtype", TOP_K_DTYPES, ids=str)
@pytest.mark.parametrize("shape,k,axis", [((10,), 4, 0), ((3, 8), 8, 1), ((6, 3), 2, 0), ((2, 5, 3), 0, 1)])
def test_top_k_total_order_stable(dtype, shape, k, axis):
    x = _values(np.random.default_rng(4), shape, dtype)
    order = _oracle_permutation([x], axis, lambda v: tuple(-p for p in _total_order_key(v)))
    expected_indices = np.take(order, np.arange(k), axis=axis)
    values, indices = check_impl_matches_abstract_eval(sorting.top_k_p, x, k=k, axis=axis, is_stable=True)
    check_close(indices, expected_indices.astype(np.int32))
    _same_bits(values, np.take_along_axis(x, expected_indices, axis=axis))


def test_top_k_wrapper_axis_and_jit():
    x = _values(np.random.default_rng(5), (4, 6), np.float32, specials=False)
    values, indices = lax.top_k(x, 3, axis=0)
    assert np.asarray(values).shape == (3, 6) and np.asarray(indices).dtype == np.int32
    check_jit_matches_eager(lambda x: lax.top_k(x, 2), x)
    check_close(lax.top_k(np.array([9., 3., 6., 4., 10.], np.float32), 3)[1], np.array([4, 0, 2], np.int32))


@pytest.mark.parametrize("call,error,message", [
    (lambda: lax.top_k(np.ones(3, np.complex64), 1), ValueError, "top_k is not compatible with complex inputs."),
    (lambda: lax.top_k(np.ones(3, np.float32), -1), ValueError, "k argument to top_k must be nonnegative, got -1"),
    (lambda: lax.top_k(np.ones((2, 3), np.float32), 4), ValueError,
     "k argument to top_k must be no larger than size along axis; got k=4 with shape=[2, 3] and axis=1"),
    (lambda: lax.top_k(np.float32(1), 1), ValueError, "axis -1 is out of bounds for array of dimension 0"),
    (lambda: sorting.top_k_p.bind(np.float32(1), k=1, axis=0, is_stable=True), TypeError,
     "top_k operand must have >= 1 dimension, got ()"),
])
def test_top_k_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


# ---------------------------------------------------------------------------
# approx_top_k


# (input size, rank, k, recall, override) -> (output size, log2 reduction), recorded from JAX 0.11's
# jax._src.lib._jax.approx_top_k_reduction_output_size.
REDUCTION_SIZES = [
    ((10, 1, 3, 0.95, -1), (10, 0)), ((200, 2, 3, 0.95, -1), (200, 0)), ((2000, 1, 3, 0.95, -1), (2000, 0)),
    ((5000, 2, 10, 0.9, -1), (256, 5)), ((5000, 2, 10, 0.99, -1), (1280, 2)),
    ((100000, 1, 50, 0.95, -1), (2048, 6)), ((5000, 2, 10, 0.9, 20000), (128, 6)),
    ((5000, 2, 1, 0.9, -1), (128, 6)), ((5000, 2, 10, 1.0, -1), (5000, 0)), ((300, 2, 10, 0.5, -1), (256, 1)),
    ((159, 3, 85, 0.8, 3657), (256, 0)), ((154, 3, 124, 0.999, 1232), (154, 0)),
    ((879, 3, 139, 0.99, 43950), (512, 1)), ((69838, 3, 1, 0.5, 1326922), (128, 14)),
]


@pytest.mark.parametrize("args,expected", REDUCTION_SIZES, ids=str)
def test_approx_top_k_reduction_output_size(args, expected):
    n, rank, k, recall, override = args
    assert sorting.approx_top_k_reduction_output_size(n, rank, k, recall, False, override) == expected
    assert sorting.approx_top_k_reduction_output_size(n, rank, k, recall, True, override) == (k, -1)


@pytest.mark.parametrize("dtype", ["float32", "float16", BF16], ids=str)
@pytest.mark.parametrize("is_max_k", [True, False])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_approx_top_k_is_exact_on_cpu(dtype, is_max_k, k):
    # Distinct values: whatever order XLA uses for ties, the answer is unique.
    x = np.random.default_rng(6).permutation(28).reshape(4, 7).astype(dtype)
    values, indices = check_impl_matches_abstract_eval(
        sorting.approx_top_k_p, x, k=k, reduction_dimension=-1, recall_target=0.95, is_max_k=is_max_k,
        reduction_input_size_override=-1, aggregate_to_topk=True)
    order = np.argsort(-x.astype(np.float32) if is_max_k else x.astype(np.float32), axis=1)[:, :k]
    check_close(indices, order.astype(np.int32))
    check_close(values, np.take_along_axis(x, order, axis=1))


def test_approx_top_k_ties_follow_xla_cpu():
    x = np.array([1, 2, 2, 1, 3, -0.0, 0.0], np.float32)
    # Full sorts keep ties (and both zeros) in order; a cut max-k uses the total order; k=1 keeps the last.
    check_close(lax.approx_max_k(x, 7)[1], np.array([4, 1, 2, 0, 3, 5, 6], np.int32))
    check_close(lax.approx_min_k(x, 7)[1], np.array([5, 6, 0, 3, 1, 2, 4], np.int32))
    check_close(lax.approx_max_k(np.array([-0.0, 0.0, -0.0, 1], np.float32), 3)[1], np.array([3, 1, 0], np.int32))
    check_close(lax.approx_max_k(np.array([3, 3, 3, -0.0, 0.0], np.float32), 1)[1], np.array([2], np.int32))
    check_close(lax.approx_min_k(np.array([3, 3, 3, -0.0, 0.0], np.float32), 1)[1], np.array([4], np.int32))


def test_approx_top_k_unaggregated_shape_and_values():
    x = np.random.default_rng(7).permutation(2 * 5000).reshape(2, 5000).astype(np.float32)
    values, _ = lax.approx_max_k(x, 10, recall_target=0.9, aggregate_to_topk=False)
    assert np.asarray(values).shape == (2, 256)
    check_close(values, -np.sort(-x, axis=1)[:, :256])
    check_jit_matches_eager(lambda x: lax.approx_min_k(x, 3, reduction_dimension=0), x[:, :20].T)


@pytest.mark.parametrize("call,error,message", [
    (lambda: lax.approx_max_k(np.ones(3, np.int32), 2), ValueError, "operand must be a floating type"),
    (lambda: lax.approx_min_k(np.ones(3, np.float32), 4), ValueError,
     "k must be smaller than the size of reduction_dim 3, got 4"),
    (lambda: lax.approx_max_k(np.ones(3, np.float32), 0), ValueError, "k must be positive, got 0"),
    (lambda: lax.approx_max_k(np.float32(1), 1), TypeError, "approx_top_k operand must have >= 1 dimension, got ()"),
    (lambda: lax.approx_max_k(np.ones(3, np.float32), 1, reduction_dimension=3), IndexError,
     "list index out of range"),
])
def test_approx_top_k_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message
