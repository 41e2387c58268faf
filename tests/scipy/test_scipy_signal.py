"""jax.scipy.signal, fft, integrate, ndimage, interpolate, cluster and
spatial.transform against SciPy itself, in double precision: convolutions
in every mode and shape order, spectral estimates, DCT round trips,
interpolation modes, rotations in every Euler convention, and the
transformations (jit, vmap, grad) they must survive. JAX's own values and
errors are pinned by tests/golden/programs_scipy_signal.py."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.fft as sfft
import scipy.interpolate as sinterp
import scipy.ndimage as sndimage
import scipy.signal as ssignal
from scipy.spatial.transform import Rotation as SRotation

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy import fft as jfft
from pyjax.scipy import signal as jsignal
from pyjax.test_util import check_grads

transform = importlib.import_module("pyjax.scipy.spatial.transform")
RNG = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def x64():
    with pyjax.enable_x64(True):
        yield


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", [((9,), (4,)), ((4,), (9,)), ((5, 6), (2, 3)), ((2, 3), (5, 6)), ((4, 3, 5), (2, 2, 2))])
def test_convolve_correlate_match_scipy(mode, shapes):
    a, b = RNG.normal(size=shapes[0]), RNG.normal(size=shapes[1])
    close(jsignal.convolve(a, b, mode), ssignal.convolve(a, b, mode))
    close(jsignal.correlate(a, b, mode), ssignal.correlate(a, b, mode))
    close(jsignal.fftconvolve(a, b, mode), ssignal.fftconvolve(a, b, mode))
    if len(shapes[0]) == 2:
        close(jsignal.convolve2d(a, b, mode), ssignal.convolve2d(a, b, mode))
        close(jsignal.correlate2d(a, b, mode), ssignal.correlate2d(a, b, mode))


def test_complex_correlation_conjugates_the_second_input():
    a = RNG.normal(size=7) + 1j * RNG.normal(size=7)
    b = RNG.normal(size=3) + 1j * RNG.normal(size=3)
    close(jsignal.correlate(a, b), ssignal.correlate(a, b))
    a2, b2 = a[:6].reshape(2, 3), b[:2].reshape(1, 2) * 1j
    for mode in ("full", "same", "valid"):
        close(jsignal.correlate2d(a2, b2, mode), ssignal.correlate2d(a2, b2, mode))
        close(jsignal.correlate2d(b2, a2, mode), ssignal.correlate2d(b2, a2, mode))


def test_fftconvolve_axes_maps_the_other_axes():
    a, b = RNG.normal(size=(3, 10)), RNG.normal(size=(3, 4))
    close(jsignal.fftconvolve(a, b, axes=-1), ssignal.fftconvolve(a, b, axes=-1))


def test_convolution_transforms():
    a, b = RNG.normal(size=8), RNG.normal(size=3)
    f = lambda x, y: jsignal.convolve(x, y, "same")
    close(pyjax.jit(f)(a, b), ssignal.convolve(a, b, "same"))
    close(pyjax.vmap(f, in_axes=(0, None))(np.stack([a, -a]), b), np.stack([ssignal.convolve(a, b, "same"),
                                                                            ssignal.convolve(-a, b, "same")]))
    check_grads(f, (a, b), order=2, modes=["fwd", "rev"])
    check_grads(lambda x, y: jsignal.fftconvolve(x, y), (a, b), order=1, modes=["fwd", "rev"])


@pytest.mark.parametrize("bp", [0, [4], [3, 7]])
def test_detrend(bp):
    x = RNG.normal(size=(2, 10)) + np.arange(10.0)
    close(jsignal.detrend(x, bp=bp), ssignal.detrend(x, bp=bp))
    close(jsignal.detrend(x, axis=0, type="constant"), ssignal.detrend(x, axis=0, type="constant"))


@pytest.mark.parametrize("kwargs", [
    dict(nperseg=16),
    dict(nperseg=16, noverlap=12, boundary="even"),
    dict(nperseg=15, boundary="odd", padded=False, detrend="linear"),
    dict(nperseg=8, nfft=12, boundary="constant", return_onesided=False),
    dict(window=("tukey", 0.3), nperseg=12, boundary=None),
])
def test_stft_matches_scipy(kwargs):
    x = RNG.normal(size=(2, 70))
    for got, want in zip(jsignal.stft(x, fs=3.0, **kwargs), ssignal.stft(x, fs=3.0, **kwargs)):
        close(got, want)


def test_istft_inverts_stft():
    x = RNG.normal(size=(3, 64))
    _, _, z = jsignal.stft(x, nperseg=16, noverlap=12)
    t, back = jsignal.istft(z, nperseg=16, noverlap=12)
    close(back, x)
    close(t, ssignal.istft(np.asarray(z), nperseg=16, noverlap=12)[0])
    # the frequency and time axes elsewhere
    _, back_t = jsignal.istft(jnp.moveaxis(z, -1, 0), nperseg=16, noverlap=12, time_axis=0, freq_axis=-1)
    close(jnp.moveaxis(back_t, 0, -1), x)


@pytest.mark.parametrize("kwargs", [
    dict(nperseg=32),
    dict(nperseg=32, scaling="spectrum", average="median"),
    dict(nperseg=25, noverlap=10, nfft=40, detrend="linear"),
    dict(nperseg=16, detrend=False, return_onesided=False),
    dict(window="hamming", nperseg=20),
])
def test_welch_and_csd_match_scipy(kwargs):
    x, y = RNG.normal(size=200), RNG.normal(size=200)
    for got, want in zip(jsignal.welch(x, fs=5.0, **kwargs), ssignal.welch(x, fs=5.0, **kwargs)):
        close(got, want)
    for got, want in zip(jsignal.csd(x, y, fs=5.0, **kwargs), ssignal.csd(x, y, fs=5.0, **kwargs)):
        close(got, want)


def test_welch_differentiates_and_jits():
    x = RNG.normal(size=64)
    f = lambda s: jsignal.welch(s, nperseg=16)[1]
    close(pyjax.jit(f)(x), ssignal.welch(x, nperseg=16)[1])
    check_grads(lambda s: jnp.sum(f(s)), (x,), order=1, modes=["rev"])


@pytest.mark.parametrize("norm", [None, "backward", "ortho"])
@pytest.mark.parametrize("n", [None, 5, 9])
def test_dct_idct_match_scipy(norm, n):
    x = RNG.normal(size=(4, 7))
    close(jfft.dct(x, n=n, norm=norm), sfft.dct(x, n=n, norm=norm))
    close(jfft.idct(x, n=n, axis=0, norm=norm), sfft.idct(x, n=n, axis=0, norm=norm))


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dctn_idctn_match_scipy(norm):
    x = RNG.normal(size=(3, 4, 5))
    close(jfft.dctn(x, norm=norm), sfft.dctn(x, norm=norm))
    close(jfft.idctn(x, norm=norm), sfft.idctn(x, norm=norm))
    close(jfft.dctn(x, s=[6, 2], norm=norm), sfft.dctn(x, s=[6, 2], norm=norm))
    close(jfft.idctn(x, s=[2, 3], axes=[0, 2], norm=norm), sfft.idctn(x, s=[2, 3], axes=[0, 2], norm=norm))
    close(jfft.idctn(jfft.dctn(x, norm=norm), norm=norm), x)


def test_dct_is_linear_and_differentiable():
    x = RNG.normal(size=6)
    check_grads(lambda v: jfft.dct(v, norm="ortho"), (x,), order=1, modes=["fwd", "rev"])
    check_grads(jfft.idct, (x,), order=1, modes=["fwd", "rev"])


def test_trapezoid():
    from pyjax.scipy.integrate import trapezoid
    y, x = RNG.normal(size=(3, 6)), np.cumsum(RNG.uniform(size=6))
    from scipy.integrate import trapezoid as strap
    close(trapezoid(y, x), strap(y, x))
    close(trapezoid(y, dx=0.3, axis=0), strap(y, dx=0.3, axis=0))


# JAX's 'constant' and 'wrap' are SciPy's 'grid-constant' and 'grid-wrap'.
NDIMAGE_MODES = [("constant", "grid-constant"), ("nearest", "nearest"), ("wrap", "grid-wrap"),
                 ("mirror", "mirror"), ("reflect", "reflect")]


@pytest.mark.parametrize("mode,scipy_mode", NDIMAGE_MODES)
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_matches_scipy(mode, scipy_mode, order):
    from pyjax.scipy.ndimage import map_coordinates
    img = RNG.normal(size=(5, 6))
    # off the half-integers, where order 0's rounding conventions differ
    coords = [RNG.uniform(-3, 8, size=20) + 0.01, RNG.uniform(-3, 9, size=20) + 0.01]
    close(map_coordinates(img, coords, order, mode=mode, cval=0.5),
          sndimage.map_coordinates(img, coords, order=order, mode=scipy_mode, cval=0.5))


def test_map_coordinates_gradient_in_the_coordinates():
    from pyjax.scipy.ndimage import map_coordinates
    img = np.arange(12.0).reshape(3, 4) ** 2
    # Piecewise linear in each coordinate: differentiable inside the cells.
    check_grads(lambda c: map_coordinates(img, [c, c + 0.5], 1), (np.array([0.3, 1.25]),), order=1,
                modes=["fwd", "rev"])
    g = pyjax.grad(lambda r: map_coordinates(img, [r, jnp.array(1.0)], 1))(0.25)
    close(g, img[1, 1] - img[0, 1])


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_regular_grid_interpolator_matches_scipy(method):
    from pyjax.scipy.interpolate import RegularGridInterpolator
    grid = (np.array([0.0, 0.5, 2.0, 3.0]), np.array([-1.0, 0.0, 1.5]))
    values = RNG.normal(size=(4, 3, 2))
    pts = np.stack([RNG.uniform(-0.5, 3.5, 30), RNG.uniform(-1.5, 2.0, 30)], -1)
    for fill in (np.nan, None, -3.0):
        got = RegularGridInterpolator(grid, values, method=method, fill_value=fill)(pts)
        want = sinterp.RegularGridInterpolator(grid, values, method=method, fill_value=fill, bounds_error=False)(pts)
        close(got, want)


def test_regular_grid_interpolator_is_a_pytree():
    from pyjax.scipy.interpolate import RegularGridInterpolator
    f = RegularGridInterpolator((jnp.arange(3.0), jnp.arange(4.0)), jnp.arange(12.0).reshape(3, 4))
    leaves = pyjax.tree_util.tree_leaves(f)
    assert len(leaves) == 4  # two grids, the values, the fill value
    pts = jnp.array([[0.5, 0.5], [1.5, 2.25]])
    close(pyjax.jit(lambda g, p: g(p))(f, pts), f(pts))


def test_vq_matches_scipy():
    from scipy.cluster.vq import vq as svq

    from pyjax.scipy.cluster.vq import vq
    obs, book = RNG.normal(size=(10, 3)), RNG.normal(size=(4, 3))
    for got, want in zip(vq(obs, book), svq(obs, book)):
        close(got, want)


EULER_SEQS = ["xyz", "zyx", "xzx", "yxy", "ZYZ", "XYZ", "ZXY", "YXZ"]


@pytest.mark.parametrize("seq", EULER_SEQS)
def test_rotation_euler_round_trip_matches_scipy(seq):
    angles = RNG.uniform(-np.pi, np.pi, size=(6, 3))
    angles[:, 1] = RNG.uniform(0.1, np.pi - 0.1, size=6) if seq[0] == seq[2] else RNG.uniform(-1.4, 1.4, size=6)
    mine = transform.Rotation.from_euler(seq, angles)
    theirs = SRotation.from_euler(seq, angles)
    close(mine.as_matrix(), theirs.as_matrix())
    for out_seq in EULER_SEQS:
        close(mine.as_euler(out_seq), theirs.as_euler(out_seq), tol=1e-7)


def test_rotation_conversions_match_scipy():
    quats = RNG.normal(size=(8, 4))
    mine, theirs = transform.Rotation.from_quat(quats), SRotation.from_quat(quats)
    close(mine.as_quat(canonical=True), theirs.as_quat(canonical=True))
    close(mine.as_quat(scalar_first=True), theirs.as_quat(scalar_first=True))
    close(mine.as_rotvec(), theirs.as_rotvec())
    close(mine.as_rotvec(degrees=True), theirs.as_rotvec(degrees=True))
    close(mine.as_mrp(), theirs.as_mrp())
    close(mine.magnitude(), theirs.magnitude())
    close(transform.Rotation.from_matrix(theirs.as_matrix()).as_matrix(), theirs.as_matrix())
    close(transform.Rotation.from_rotvec(theirs.as_rotvec()).as_matrix(), theirs.as_matrix())
    close(transform.Rotation.from_mrp(theirs.as_mrp()).as_matrix(), theirs.as_matrix())
    v = RNG.normal(size=3)
    close(mine.apply(v), theirs.apply(v))
    close(mine.apply(v, inverse=True), theirs.apply(v, inverse=True))
    close((mine * mine.inv()[::-1]).as_matrix(), (theirs * theirs.inv()[::-1]).as_matrix())
    close(mine.mean().as_matrix(), theirs.mean().as_matrix())


def test_slerp_matches_scipy_and_survives_jit():
    from scipy.spatial.transform import Slerp as SSlerp
    quats = RNG.normal(size=(4, 4))
    times = np.array([0.0, 0.5, 2.0, 3.0])
    at = np.array([0.0, 0.2, 1.0, 2.5, 3.0])
    mine = transform.Slerp.init(times, transform.Rotation.from_quat(quats))
    theirs = SSlerp(times, SRotation.from_quat(quats))
    close(mine(at).as_matrix(), theirs(at).as_matrix())
    # A Slerp holds a Rotation, whose __len__ counts rotations: the pytree
    # must still see the named tuple's single field.
    close(pyjax.jit(lambda s, t: s(t).as_matrix())(mine, at), theirs(at).as_matrix())


def test_rotation_gradients():
    v = np.array([1.0, -2.0, 0.5])
    check_grads(lambda a: transform.Rotation.from_euler("xyz", a).apply(v), (np.array([0.3, -0.2, 1.1]),),
                order=1, modes=["fwd", "rev"])
    check_grads(lambda r: transform.Rotation.from_rotvec(r).as_quat(), (np.array([0.3, -0.2, 1.1]),),
                order=1, modes=["fwd", "rev"])
