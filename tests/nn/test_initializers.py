"""jax.nn.initializers: shapes, dtypes, the variance each one promises (on
large draws), the fan computation, orthogonality, determinism per key, and
JAX's errors. Bit-identity with JAX's draws is in tests/golden/programs_nn.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.nn.initializers import _compute_fans
from pyjax.nn import initializers as init

KEY = pyjax.random.key(42)
has_truncated_normal = hasattr(pyjax.random, "truncated_normal")
has_orthogonal = hasattr(pyjax.random, "orthogonal")
needs_truncated = pytest.mark.skipif(not has_truncated_normal, reason="pyjax.random.truncated_normal not written yet")
needs_orthogonal = pytest.mark.skipif(not has_orthogonal, reason="pyjax.random.orthogonal not written yet")


@pytest.mark.parametrize("shape,kwargs,expected", [
    ((3, 4), {}, (3, 4)),
    ((5, 3, 4), {}, (15, 20)),  # receptive field 5
    ((3, 3, 2, 8), {}, (18, 72)),  # an HWIO kernel
    ((2, 6, 7), {"in_axis": 1, "out_axis": 2, "batch_axis": 0}, (6, 7)),
    ((2, 3, 4, 5), {"in_axis": (0, 1), "out_axis": -1}, (24, 20)),
])
def test_compute_fans(shape, kwargs, expected):
    assert _compute_fans(shape, **kwargs) == expected


def test_compute_fans_1d():
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a 1-dimensional weights tensor"):
        _compute_fans((4,))
    # in and out are the same axis: the "receptive field" is then 1/4.
    assert _compute_fans((4,), in_axis=0, out_axis=0) == (1.0, 1.0)


@pytest.mark.parametrize("builder,scale,mode", [
    (init.glorot_uniform, 1.0, "fan_avg"), (init.xavier_uniform, 1.0, "fan_avg"),
    (init.lecun_uniform, 1.0, "fan_in"), (init.he_uniform, 2.0, "fan_in"),
    (init.kaiming_uniform, 2.0, "fan_in"),
])
def test_uniform_variance_scaling(builder, scale, mode):
    shape = (200, 300)
    w = np.asarray(builder()(KEY, shape))
    n = {"fan_in": 200, "fan_avg": 250}[mode]
    limit = math.sqrt(3 * scale / n)
    assert w.dtype == np.float32 and w.shape == shape
    assert np.all(np.abs(w) <= limit)
    assert abs(w.var() - scale / n) < 0.05 * scale / n


@pytest.mark.parametrize("mode,n", [("fan_in", 200), ("fan_out", 300), ("fan_avg", 250), ("fan_geo_avg", math.sqrt(6e4))])
def test_normal_variance_scaling(mode, n):
    w = np.asarray(init.variance_scaling(3.0, mode, "normal")(KEY, (200, 300)))
    assert abs(w.var() - 3.0 / n) < 0.05 * 3.0 / n
    assert abs(w.mean()) < 0.01


@needs_truncated
@pytest.mark.parametrize("builder,scale", [(init.glorot_normal, 1.0), (init.lecun_normal, 1.0),
                                           (init.he_normal, 2.0), (init.kaiming_normal, 2.0)])
def test_truncated_normal_variance_scaling(builder, scale):
    w = np.asarray(builder()(KEY, (200, 300)))
    n = 250 if builder is init.glorot_normal else 200
    stddev = math.sqrt(scale / n)
    # Truncated at two (untruncated) standard deviations, rescaled to `stddev`.
    assert np.all(np.abs(w) <= 2 * stddev / 0.87962566103423978 + 1e-6)
    assert abs(w.std() - stddev) < 0.05 * stddev


def test_normal_and_uniform():
    w = np.asarray(init.normal(0.5)(KEY, (400, 100)))
    assert abs(w.std() - 0.5) < 0.02
    u = np.asarray(init.uniform(2.0)(KEY, (400, 100)))
    assert u.min() >= 0 and u.max() < 2 and abs(u.mean() - 1.0) < 0.02


@needs_truncated
def test_truncated_normal():
    w = np.asarray(init.truncated_normal(0.3, lower=-1.0, upper=1.5)(KEY, (400, 100)))
    assert w.min() >= -0.3 and w.max() <= 0.45


def test_constants():
    np.testing.assert_array_equal(init.zeros(KEY, (2, 3)), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(init.ones(KEY, (2,), jnp.int32), np.ones(2, np.int32))
    c = init.constant(-2.5, jnp.float16)(KEY, (3,))
    assert c.dtype == np.float16
    np.testing.assert_array_equal(c, np.full(3, -2.5, np.float16))


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16, jnp.float32])
def test_dtypes(dtype):
    for builder in (init.glorot_uniform(), init.normal(), init.uniform(), init.variance_scaling(1.0, "fan_in", "normal")):
        assert builder(KEY, (3, 4), dtype).dtype == np.dtype(dtype)
    assert init.he_uniform(dtype=dtype)(KEY, (3, 4)).dtype == np.dtype(dtype)


def test_complex_uniform_variance_scaling():
    w = np.asarray(init.variance_scaling(1.0, "fan_in", "uniform")(KEY, (200, 300), jnp.complex64))
    assert w.dtype == np.complex64
    assert np.all(np.abs(w) <= math.sqrt(2 / 200) + 1e-6)  # a disc of radius sqrt(2 * variance)
    assert abs(np.mean(np.abs(w) ** 2) - 1 / 200) < 0.05 / 200


def test_same_key_same_draw_and_jit():
    f = init.he_uniform()
    np.testing.assert_array_equal(f(KEY, (4, 5)), f(KEY, (4, 5)))
    np.testing.assert_array_equal(pyjax.jit(f, static_argnums=1)(KEY, (4, 5)), f(KEY, (4, 5)))
    assert not np.array_equal(f(pyjax.random.key(1), (4, 5)), f(KEY, (4, 5)))


@needs_orthogonal
@pytest.mark.parametrize("shape,column_axis", [((6, 4), -1), ((4, 6), -1), ((3, 3, 5), -1), ((5, 2, 3), 0)])
@pytest.mark.numpy_backend("qr (LAPACK) is declared, not lowered, for IREE")
def test_orthogonal(shape, column_axis):
    w = np.asarray(init.orthogonal(scale=2.0, column_axis=column_axis)(KEY, shape), np.float64)
    matrix = np.moveaxis(w, column_axis, -1).reshape(-1, shape[column_axis]) / 2.0
    small = min(matrix.shape)
    gram = matrix.T @ matrix if matrix.shape[0] >= matrix.shape[1] else matrix @ matrix.T
    np.testing.assert_allclose(gram, np.eye(small), atol=2e-6)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="orthogonal initializer requires at least a 2D shape"):
        init.orthogonal()(KEY, (4,))
    np.testing.assert_array_equal(init.orthogonal()(KEY, (0, 3)), np.zeros((0, 3), np.float32))


def test_variance_scaling_errors():
    with pytest.raises(ValueError, match="invalid mode for variance scaling initializer: fan_out_in"):
        init.variance_scaling(1.0, "fan_out_in", "normal")(KEY, (2, 2))
    with pytest.raises(ValueError, match="invalid distribution for variance scaling initializer: cauchy"):
        init.variance_scaling(1.0, "fan_in", "cauchy")(KEY, (2, 2))


def test_initializer_protocol():
    assert isinstance(init.zeros, init.Initializer)
    assert isinstance(init.glorot_normal(), init.Initializer)
