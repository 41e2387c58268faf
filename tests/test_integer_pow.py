"""lax.integer_pow of floats as XLA computes it: products by repeated squaring,
bit for bit against JAX 0.11 (tests/golden/integer_pow.json, recorded by
record_integer_pow.py), jitted, eager and in native code; NumPy's power (libm's
pow) differs in the last bit for exponents past 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import native_tiers_made

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "integer_pow.json").read_text())
CASES = GOLDEN["cases"]


def _bits(dtype: str) -> str:
    return f"u{np.dtype(dtype).itemsize}"


def _case(case):
    dtype = case["dtype"]
    x = np.asarray(GOLDEN["inputs"][dtype], _bits(dtype)).view(dtype)
    return x, np.asarray(case["out"], _bits(dtype))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dtype']}-y{c['y']}")
def test_integer_pow_is_jax_bit_for_bit(case):
    x, expected = _case(case)
    y = case["y"]
    with pyjax.enable_x64(case["dtype"] == "float64"):
        jitted = np.asarray(pyjax.jit(lambda v: lax.integer_pow(v, y))(x))
        eager = np.asarray(lax.integer_pow(jnp.asarray(x), y))
    assert jitted.dtype == x.dtype and eager.dtype == x.dtype
    np.testing.assert_array_equal(jitted.view(_bits(case["dtype"])), expected)
    np.testing.assert_array_equal(eager.view(_bits(case["dtype"])), expected)


def test_numpy_power_is_not_what_xla_computes():
    # Why the impl multiplies: a check that the golden cases can tell the two apart.
    case = next(c for c in CASES if c["dtype"] == "float32" and c["y"] == 3)
    x, expected = _case(case)
    assert (np.power(x, np.float32(3)).view(np.uint32) != expected).any()


def test_cube_in_a_native_program_is_jax_bit_for_bit(monkeypatch):
    # A jitted program of small values runs as native code once it tiers up;
    # its integer_pow is the same products (GELU's cube, as in a transformer).
    from pyjax._src.backends.numpy import native
    from pyjax._src.backends.numpy.native import settings

    if native.compiler() is None or not settings.ENABLED:
        pytest.skip("native code needs a C compiler")
    monkeypatch.setattr(settings, "AFTER_STEPS", 0)
    case = next(c for c in CASES if c["dtype"] == "float32" and c["y"] == 3)
    x, expected = _case(case)
    f = pyjax.jit(lambda v: lax.integer_pow(v, 3) * 1.0)
    outs, made = native_tiers_made(lambda: [np.asarray(f(x)) for _ in range(3)])
    assert made and all(o.live for o in made)  # (a difference from the Python code would have dropped it)
    for out in outs:
        np.testing.assert_array_equal(out.view(np.uint32), expected)
