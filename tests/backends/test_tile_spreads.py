"""A tiled region (backends/numpy/parallel/tile.py) does not export a
broadcast of one value (the zeros linalg's rules mask with): that would
write a whole array; the broadcast runs again after the region as a NumPy
view, and the program's bits are the same."""

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.backends.numpy.parallel import tile as tile_lib


@pytest.fixture
def tiling(monkeypatch):
    monkeypatch.setitem(split_lib._state, "workers", 2)
    monkeypatch.setattr(tile_lib, "MIN_ELEMENTS", 64)
    monkeypatch.setattr(tile_lib, "BLOCK_BYTES", 256)


def f(x, w):
    zeros = lax.broadcast_in_dim(np.float32(0.0), x.shape, ())
    a = lax.select_n(x > 0, zeros, x) * 2.0 + 1.0  # a region with the zeros in it
    s = jnp.sum(a, axis=0)  # a sum over the leading axis ends it
    return lax.select_n(w > s, a, zeros).T, s  # the zeros read after it


def test_a_scalar_broadcast_is_not_a_region_output(tiling):
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((64, 16)).astype(np.float32), rng.standard_normal((64, 16)).astype(np.float32)
    closed = pyjax.make_jaxpr(f)(x, w)
    items = tile_lib.plan(closed.jaxpr)
    regions = [i for i in items if isinstance(i, tile_lib.Region)]
    assert regions
    eqns = closed.jaxpr.eqns
    spread = next(e for e in eqns if e.primitive.name == "broadcast_in_dim" and not e.invars[0].aval.shape)
    first = regions[0]
    assert any(e is spread for e in first.eqns)  # computed in the region for its own use,
    assert spread.outvars[0] not in first.outvars  # not exported,
    after = items[items.index(first) + 1:]
    assert any(type(i) is int and eqns[i] is spread for i in after)  # and run again after it
    got = compile_jaxpr(closed, IMPLS)(x, w)
    before = tile_lib.MIN_ELEMENTS
    tile_lib.MIN_ELEMENTS = 1 << 62
    try:
        want = compile_jaxpr(closed, IMPLS)(x, w)
    finally:
        tile_lib.MIN_ELEMENTS = before
    for g, e in zip(got, want, strict=True):
        assert np.asarray(g).tobytes() == np.asarray(e).tobytes()
