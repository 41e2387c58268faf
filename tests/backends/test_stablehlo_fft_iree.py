"""fft on the StableHLO backends beyond the recorded programs: a symbolic
dimension is refused naming the primitive (no `length = [b]` text), and the
IREE backend's DFT spelling (rules/fft.py, `xla_ops=False`) computes what
the NumPy backend does for odd lengths, several axes and the inverse real
transform of either parity (IREE 3.13 rejects `stablehlo.fft` for these)."""

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
