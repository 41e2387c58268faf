"""Elementwise ops between short rows and one broadcast row (codegen/columns.py):
a batch norm's per-feature vectors against NHWC activations run by wide rows,
bitwise what NumPy's broadcasting gives."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy.codegen import columns

rng = np.random.default_rng(3)


def specials(shape, dtype):
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    if np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        flat[:7] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, -3.0]
    return x


CASES = [(u, d) for u in sorted(columns._EXACT, key=lambda u: u.__name__) for d in (np.float32, np.float64, np.int32)
         if not (np.dtype(d).kind == "f" and u.__name__.startswith("bitwise"))  # (no such loops)
         and not (np.dtype(d).kind == "i" and u is np.copysign)]


@pytest.mark.parametrize("ufunc, dtype", CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_wide_rows_are_numpys_broadcast_bitwise(ufunc, dtype):
    shape = (8, 28, 28, 8)
    x, v = specials(shape, dtype), specials((1, 1, 1, 8), dtype)
    with np.errstate(all="ignore"):
        for a, b, full in ((x, v, 0), (v, x, 1), (x, v.reshape(8), 0)):
            call = columns.column_ufunc(ufunc, (a.shape, b.shape), shape)
            assert call is not None
            want = ufunc(a, b)
            got = call(a, b)
            assert got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()
            out = np.empty(shape, want.dtype)
            got = call(a, b, out)
            assert np.shares_memory(got, out) and out.tobytes() == want.tobytes()


def test_other_operands_keep_numpys_call():
    shape = (8, 28, 28, 8)
    assert columns.column_ufunc(np.multiply, (shape, shape), shape) is None  # no broadcast
    assert columns.column_ufunc(np.multiply, (shape, (8, 1, 1, 8)), shape) is None  # not one row
    assert columns.column_ufunc(np.exp2, (shape,), shape) is None
    assert columns.column_ufunc(np.power, (shape, (1, 1, 1, 8)), shape) is None  # not one IEEE operation
    assert columns.column_ufunc(np.multiply, ((64, 512), (1, 512)), (64, 512)) is None  # long rows
    assert columns.column_ufunc(np.multiply, ((8, 8, 8), (1, 1, 8)), (8, 8, 8)) is None  # small
    # A view (a transposed operand) runs as NumPy's call, with the same result.
    call = columns.column_ufunc(np.subtract, (shape, (1, 1, 1, 8)), shape)
    x = specials((8, 28, 8, 28), np.float32).transpose(0, 1, 3, 2)
    v = specials((1, 1, 1, 8), np.float32)
    assert call(x, v).tobytes() == np.subtract(x, v).tobytes()


def test_batch_norm_of_nhwc_activations_runs_by_wide_rows():
    def bn(x, g, b):
        mean = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.var(x, axis=(0, 1, 2))
        return g * (x - mean) / jnp.sqrt(var + 1e-5) + b

    x = jnp.asarray(specials((8, 28, 28, 8), np.float32)[::-1].copy() + 0.5)
    x = jnp.where(jnp.isfinite(x), x, 1.0)
    g, b = jnp.asarray(specials((8,), np.float32)), jnp.asarray(specials((8,), np.float32))
    text = pyjax.jit(bn).lower(x, g, b).as_text("python")
    assert text.count("_wide_") >= 3
    got = pyjax.jit(bn)(x, g, b)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(columns, "MAX_ROW", 0)
        columns.column_ufunc.cache_clear()
        plain = pyjax.jit(lambda *a: bn(*a))
        assert "_wide_" not in plain.lower(x, g, b).as_text("python")
        want = plain(x, g, b)
    columns.column_ufunc.cache_clear()
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_a_row_broadcast_in_the_program_is_read_as_the_row():
    # Reverse mode spreads a per-feature vector to the activations' shape
    # (broadcast_in_dim) before multiplying: the product reads the vector
    # itself, by wide rows, with NumPy's bits.
    def f(x, g):
        return (jnp.multiply(pyjax.lax.broadcast_in_dim(g * 2.0, x.shape, (3,)), x),
                x - pyjax.lax.broadcast_in_dim(g.reshape(1, 1, 1, 8), x.shape, (0, 1, 2, 3)))

    x, g = specials((8, 28, 28, 8), np.float32), specials((8,), np.float32)
    for a in (x, g):
        a[(np.abs(a) < 1e-30) & (a != 0)] = 0.5  # (no denormals: pyjax flushes them, as XLA)
    with pyjax.enable_checks(False):  # (checking mode reads every value, the spread too)
        text = pyjax.jit(f).lower(x, g).as_text("python")
    assert text.count("_wide_multiply") == 1 and text.count("_wide_subtract") == 1
    assert "_broadcast_in_dim" not in text  # (read by nothing else: not made at all)
    with np.errstate(all="ignore"):
        want = np.multiply(np.broadcast_to(g * np.float32(2.0), x.shape), x), x - g
    got = pyjax.jit(f)(x, g)
    assert all(np.asarray(a).tobytes() == b.tobytes() for a, b in zip(got, want, strict=True))
