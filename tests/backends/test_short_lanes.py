"""Short rows that NumPy walks 2 to 7 elements at a time: elementwise ops of
operands broadcast along different axes run lane by lane (codegen/columns.py),
sums over such a last axis add lane planes (impls/standard.py
`_sum_short_rows`). Both bitwise what NumPy's own calls give."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy import impls
from pyjax._src.backends.numpy.codegen import columns
from pyjax._src.backends.numpy.impls import standard
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.lax import reductions as red

rng = np.random.default_rng(7)


def specials(shape, dtype):
    x = (rng.standard_normal(shape) * rng.choice([1.0, 1e4, 1e-4, 0.0, -0.0], shape)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        tiny = np.finfo(dtype).smallest_subnormal
        flat[:9] = [0.0, -0.0, np.nan, np.inf, -np.inf, tiny, -tiny, -3.0, 1e30]
    return x


LANE_CASES = [(u, d) for u in (np.subtract, np.add, np.multiply, np.divide, np.maximum, np.less, np.equal)
              for d in (np.float32, np.float64, np.int32) if not (u is np.divide and d is np.int32)]


@pytest.mark.parametrize("ufunc, dtype", LANE_CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_broadcast_operands_run_lane_by_lane_bitwise(ufunc, dtype):
    out_shape = (96, 200, 3)
    a, b = specials((96, 1, 3), dtype), specials((1, 200, 3), dtype)
    call = columns.column_ufunc(ufunc, (a.shape, b.shape), out_shape)
    assert call is not None and call.__name__.startswith("lanes_")
    with np.errstate(all="ignore"):
        want = ufunc(a, b)
        got = call(a, b)
        assert got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()
        out = np.empty(out_shape, want.dtype)
        assert call(a, b, out) is out and out.tobytes() == want.tobytes()
        # Full-shape operands: lanes only for broadcast views, same bits either way.
        full = columns.column_ufunc(ufunc, (out_shape, out_shape), out_shape)
        views = np.broadcast_to(a, out_shape), np.broadcast_to(b, out_shape)
        assert full(*views).tobytes() == want.tobytes()
        dense = [np.ascontiguousarray(v) for v in views]
        assert full(*dense).tobytes() == want.tobytes()


def test_lanes_are_taken_only_for_short_rows_of_large_arrays():
    assert columns.column_ufunc(np.subtract, ((96, 1, 4), (1, 200, 4)), (96, 200, 4)) is not None
    assert columns.column_ufunc(np.subtract, ((96, 1, 5), (1, 200, 5)), (96, 200, 5)) is None
    assert columns.column_ufunc(np.subtract, ((8, 1, 3), (1, 8, 3)), (8, 8, 3)) is None
    assert columns.column_ufunc(np.power, ((96, 1, 3), (1, 200, 3)), (96, 200, 3)) is None
    assert columns.column_ufunc(np.subtract, ((1, 200, 3), (96, 200, 3)), (96, 200, 3)) is None  # rows merge
    assert columns.column_ufunc(np.subtract, ((4096, 1, 3), (1, 4, 3)), (4096, 4, 3)) is None  # short lanes
    # Full shapes: lanes only for operands repeated along the next-to-last axis.
    call = columns.column_ufunc(np.subtract, ((96, 200, 3),) * 2, (96, 200, 3))
    a, b = specials((1, 200, 3), np.float32), specials((96, 200, 3), np.float32)
    with np.errstate(all="ignore"):
        assert call(np.broadcast_to(a, b.shape), b).tobytes() == np.subtract(a, b).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32])
@pytest.mark.parametrize("length", range(2, 8))
def test_short_last_axis_sums_are_numpys_bitwise(dtype, length, monkeypatch):
    x = specials((64, 90, length), dtype)
    if np.dtype(dtype).kind == "f":  # rows of zeros of both signs and subnormals
        tiny = np.finfo(dtype).smallest_subnormal
        x[1] = rng.choice(np.array([0.0, -0.0, tiny, -tiny], dtype), (90, length))
    with np.errstate(all="ignore"):
        want = np.add.reduce(x, axis=2, dtype=dtype)
    # Routed around split.py's (and so NumPy's) reduction.
    monkeypatch.setattr(split_lib, "reduce", lambda *a: pytest.fail("short rows went to np.add.reduce"))
    strided = np.ascontiguousarray(x.transpose(2, 0, 1)).transpose(1, 2, 0)
    with np.errstate(all="ignore"):
        got = impls.IMPLS[red.reduce_sum_p](x, axes=(2,))
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        assert impls.IMPLS[red.reduce_sum_p](strided, axes=(2,)).tobytes() == want.tobytes()


def test_squared_distances_use_both_and_keep_their_bits():
    def d2(x):
        return jnp.exp(-0.5 * jnp.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1))

    x = jnp.asarray(rng.uniform(-2, 2, (300, 3)).astype(np.float32))
    text = pyjax.jit(d2).lower(x).as_text("python")
    assert "lanes_subtract" in text
    got = np.asarray(pyjax.jit(d2)(x))
    xn = np.asarray(x)
    with np.errstate(all="ignore"):
        want = np.exp(np.float32(-0.5) * np.add.reduce((xn[:, None, :] - xn[None, :, :]) ** 2, axis=-1))
    assert got.tobytes() == want.tobytes()
