"""Property-based checks (hypothesis) over shapes, axes and broadcasting:
softmax/log_softmax/logsumexp/standardize against NumPy for any shape and
axis tuple, the stats log-densities under broadcasting, and jnp.fft round
trips over any axes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax.numpy as jnp
import pyjax.numpy.fft as jfft
from pyjax import nn
from pyjax.scipy import stats

SETTINGS = settings(max_examples=30, deadline=None)


@st.composite
def array_and_axes(draw, min_dims=1):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=min_dims, max_size=4)))
    ndim = len(shape)
    axes = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                          st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple)))
    seed = draw(st.integers(0, 2 ** 16))
    x = np.random.default_rng(seed).normal(size=shape).astype(np.float32) * 4
    return x, axes


def np_axes(axes):
    return axes if axes is None or isinstance(axes, int) else tuple(axes)


@SETTINGS
@given(array_and_axes())
def test_softmax_family(data):
    x, axes = data
    axis = np_axes(axes)
    expected = sc.softmax(x.astype(np.float64), axis=axis)
    np.testing.assert_allclose(np.asarray(nn.softmax(jnp.asarray(x), axis=axes)), expected, rtol=2e-5, atol=1e-7)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(jnp.asarray(x), axis=axes)),
                               sc.log_softmax(x.astype(np.float64), axis=axis), rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(np.asarray(nn.logsumexp(jnp.asarray(x), axis=axes)),
                               sc.logsumexp(x.astype(np.float64), axis=axis), rtol=2e-5, atol=2e-5)


@SETTINGS
@given(array_and_axes(min_dims=1))
def test_standardize(data):
    x, axes = data
    axis = np_axes(axes)
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean(axis, keepdims=True)) / np.sqrt(x64.var(axis, keepdims=True) + 1e-5)
    out = nn.standardize(jnp.asarray(x), axis=axes, algorithm="stable")
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-4, atol=1e-4)


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.lists(st.integers(1, 4), min_size=0, max_size=3),
       st.integers(0, 2 ** 16))
def test_stats_broadcasting(x_shape, loc_shape, seed):
    rng = np.random.default_rng(seed)
    x, loc = rng.normal(size=x_shape), rng.normal(size=loc_shape)
    try:
        expected_shape = np.broadcast_shapes(x.shape, loc.shape)
    except ValueError:
        return
    out = stats.norm.logpdf(jnp.asarray(x, jnp.float32), jnp.asarray(loc, jnp.float32), 1.5)
    assert out.shape == expected_shape
    np.testing.assert_allclose(np.asarray(out), ss.norm.logpdf(x, loc, 1.5), rtol=1e-5, atol=1e-5)


@SETTINGS
@given(array_and_axes(min_dims=1))
def test_fft_round_trip(data):
    x, axes = data
    axes = None if axes is None else ((axes,) if isinstance(axes, int) else axes)
    spectrum = jfft.fftn(jnp.asarray(x), axes=axes)
    np.testing.assert_allclose(np.asarray(spectrum), np.fft.fftn(x, axes=axes), rtol=1e-4, atol=1e-4)
    back = jfft.ifftn(spectrum, axes=axes)
    np.testing.assert_allclose(np.asarray(back).real, x, rtol=1e-4, atol=1e-4)
