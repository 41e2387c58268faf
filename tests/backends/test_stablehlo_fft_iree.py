"""fft on the StableHLO backends beyond the recorded programs: a symbolic
dimension is refused naming the primitive (no `length = [b]` text), and the
IREE backend's DFT spelling (rules/fft.py, `xla_ops=False`) computes what
the NumPy backend does for odd lengths, several axes and the inverse real
transform of either parity (IREE 3.13 rejects `stablehlo.fft` for these).
Axes longer than `DENSE_MAX` are split (Cooley-Tukey) so the module's DFT
matrices stay small; a length with a larger prime factor is refused."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import export
from pyjax._src.backends import iree as iree_backend
from pyjax._src.backends.stablehlo.lowering import LoweringError


def test_fft_over_a_symbolic_dimension_is_refused():
    spec = pyjax.ShapeDtypeStruct(export.symbolic_shape("b, 4"), jnp.complex64)
    with pytest.raises(LoweringError, match="primitive 'fft' over a symbolic dimension"):
        export.export(pyjax.jit(jnp.fft.fft))(spec).mlir_module()


def test_iree_module_has_no_fft_op():
    from pyjax._src.backends.iree.compile import module_text

    jaxpr = pyjax.jit(lambda z: jnp.fft.irfftn(z, s=(3, 5))).trace(jnp.ones((2, 3, 3), jnp.complex64)).jaxpr
    text, _ = module_text(jaxpr.jaxpr, "f")
    assert "stablehlo.fft" not in text and "stablehlo.dot_general" in text


@pytest.mark.skipif(not iree_backend.available(), reason="IREE is not installed (pip install -e '.[iree]')")
@pytest.mark.parametrize("name, fun", [
    ("fftn_odd", lambda z: jnp.fft.fftn(z)),
    ("ifftn_two_axes", lambda z: jnp.fft.ifftn(z, axes=(0, 2))),
    ("irfft_odd", lambda z: jnp.fft.irfft(z, n=9)),
    ("irfftn_even", lambda z: jnp.fft.irfftn(z, s=(3, 8))),
    ("rfftn", lambda z: jnp.fft.rfftn(jnp.real(z))),
])
def test_iree_dft_matches_the_numpy_backend(name, fun):
    rng = np.random.default_rng(0)
    z = (rng.standard_normal((2, 3, 5)) + 1j * rng.standard_normal((2, 3, 5))).astype(np.complex64)
    want = np.asarray(pyjax.jit(fun, backend="cpu")(z))
    got = np.asarray(pyjax.jit(fun, backend="iree")(z))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=5e-6)


_needs_iree = pytest.mark.skipif(not iree_backend.available(), reason="IREE is not installed (pip install -e '.[iree]')")
_rng = np.random.default_rng(1)
_SPLIT_CASES = {  # (with DENSE_MAX 8: 24 = 4 x 6, 27 = 3 x 9 = 3 x 3 x 3, 64 = 8 x 8)
    "fft_24": (lambda z: jnp.fft.fft(z), (3, 24), True),
    "ifft_axis0_64": (lambda z: jnp.fft.ifft(z, axis=0), (64, 3), True),
    "fft2_16x12": (lambda z: jnp.fft.fft2(z), (2, 16, 12), True),
    "rfft_27": (lambda x: jnp.fft.rfft(x), (4, 27), False),
    "irfft_even_32": (lambda z: jnp.fft.irfft(z, 32), (4, 17), True),
    "irfft_odd_27": (lambda z: jnp.fft.irfft(z, 27), (4, 14), True),
    "irfftn_12x20": (lambda z: jnp.fft.irfftn(z, s=(12, 20)), (12, 11), True),
}


@_needs_iree
@pytest.mark.parametrize("name", list(_SPLIT_CASES))
def test_iree_split_dft_matches_the_numpy_backend(name, monkeypatch):
    from pyjax._src.backends.stablehlo.rules import fft as fft_rule

    monkeypatch.setattr(fft_rule, "DENSE_MAX", 8)
    fun, shape, is_complex = _SPLIT_CASES[name]
    x = _rng.standard_normal(shape)
    x = (x + 1j * _rng.standard_normal(shape)).astype(np.complex64) if is_complex else x.astype(np.float32)
    want = np.asarray(pyjax.jit(fun, backend="cpu")(x))
    got = np.asarray(pyjax.jit(fun, backend="iree")(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=5e-6 * np.abs(want).max())


def test_iree_long_transform_module_stays_small():
    # (one 2048 x 1025 DFT matrix pair printed 34 MB of text; the benchmark's n = 16384, gigabytes)
    from pyjax._src.backends.iree.compile import module_text

    x = np.zeros((2, 2048), np.float32)
    conv = lambda x: jnp.fft.irfft(jnp.fft.rfft(x) * 2, 2048)  # noqa: E731
    text, _ = module_text(pyjax.make_jaxpr(conv)(x).jaxpr, "f")
    assert len(text) < 1_000_000


@_needs_iree
def test_iree_long_rfft_convolution_runs():
    x = _rng.standard_normal((2, 4096)).astype(np.float32)
    conv = lambda x: jnp.fft.irfft(jnp.fft.rfft(x) * jnp.fft.rfft(x[:, ::-1]), 4096)  # noqa: E731
    want = np.asarray(pyjax.jit(conv, backend="cpu")(x))
    got = np.asarray(pyjax.jit(conv, backend="iree")(x))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())


def test_iree_fft_of_a_large_prime_length_is_refused(monkeypatch):
    from pyjax._src.backends.iree.compile import IreeUnsupportedError, module_text
    from pyjax._src.backends.stablehlo.rules import fft as fft_rule

    monkeypatch.setattr(fft_rule, "DENSE_MAX", 8)
    jaxpr = pyjax.make_jaxpr(jnp.fft.fft)(np.ones(22, np.complex64)).jaxpr  # (2 x 11)
    with pytest.raises(IreeUnsupportedError, match="primitive 'fft' of length 11 .* a prime above 8"):
        module_text(jaxpr, "f")
