"""Scatter-add's sums in C (native/scatter.py) and the gather that skips its
fill when every window is in bounds (impls/slicing.py): the same bits as
np.add.at and as the filling path."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.impls import slicing as slicing_impl
from pyjax._src.backends.numpy.native import scatter as native_scatter
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import tiering as native_tiering

needs_cc = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                              reason="native code needs a C compiler")
rng = np.random.default_rng(7)


def _values(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    real = np.finfo(dtype).dtype
    parts = rng.standard_normal(shape + ((2,) if dtype.kind == "c" else ())).astype(real)
    parts.reshape(-1)[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-39]
    return parts.view(dtype).reshape(shape) if dtype.kind == "c" else parts


def _kernel_calls(monkeypatch):
    # The kernel, built now, with its answers recorded.
    kernel = native_scatter.rows_add
    kernel.start(wait=True)
    if kernel._thread is not None:
        kernel._thread.join()
    assert kernel.state == native_tiering.LIVE, kernel.failure
    answers = []
    monkeypatch.setattr(slicing_impl, "_add_kernel", [lambda *a: answers.append(kernel(*a)) or answers[-1]])
    return answers


def _without_kernel(f, args, monkeypatch):
    monkeypatch.setattr(slicing_impl, "_add_kernel", [None])
    pyjax.clear_caches()
    return [np.asarray(v) for v in pyjax.tree.leaves(pyjax.jit(f)(*args))]


@needs_cc
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32, np.uint32, np.int64])
@pytest.mark.parametrize("rows", [True, False])
def test_scatter_add_in_c_has_np_add_at_bits(dtype, rows, monkeypatch):
    # Whole rows (an embedding's gradient) and elements (indexing two axes:
    # the flat path), many updates to few places, every mode's bounds.
    x, upd = _values((6, 40), dtype), _values((3000, 40) if rows else (3000,), dtype)
    idx = rng.integers(-2, 7, 3000).astype(np.int32)
    col = rng.integers(0, 40, 3000).astype(np.int32)

    def f(x, i, c, u):
        return x.at[i].add(u, mode="drop") if rows else x.at[i, c].add(u, mode="clip")

    args = (jnp.asarray(x), jnp.asarray(idx), jnp.asarray(col), jnp.asarray(upd))
    answers = _kernel_calls(monkeypatch)
    pyjax.clear_caches()
    got = [np.asarray(v) for v in pyjax.tree.leaves(pyjax.jit(f)(*args))]
    assert answers == [True]
    want = _without_kernel(f, args, monkeypatch)
    assert [g.tobytes() for g in got] == [w.tobytes() for w in want]


@needs_cc
def test_embedding_gradient_takes_the_kernel(monkeypatch):
    table, ids = _values((500, 16), np.float32), rng.integers(0, 500, 2000).astype(np.int32)

    def f(table, ids):
        return pyjax.grad(lambda t: jnp.sum(jnp.sin(t[ids])))(table)

    answers = _kernel_calls(monkeypatch)
    pyjax.clear_caches()
    got = np.asarray(pyjax.jit(f)(jnp.asarray(table), jnp.asarray(ids)))
    assert answers == [True]
    (want,) = _without_kernel(f, (jnp.asarray(table), jnp.asarray(ids)), monkeypatch)
    assert got.tobytes() == want.tobytes()


def test_small_scatters_keep_np_add_at(monkeypatch):
    kernel = native_scatter.rows_add
    x = np.zeros((4, 3), np.float32)
    assert not kernel(x, np.zeros(2, np.int64), np.ones((2, 3), np.float32))  # (below MIN_ELEMENTS)
    assert not kernel(x.astype(np.float16), np.zeros(400, np.int64), np.ones((400, 3), np.float16))  # (no C add)


def test_gather_in_bounds_fills_nothing(monkeypatch):
    # FILL_OR_DROP with every window inside: no pass of np.where over the
    # result, the same bits as with some window outside (which fills).
    x = _values((50, 8), np.float32)
    inside = rng.integers(0, 50, 300).astype(np.int32)
    (eqn,) = [e for e in pyjax.make_jaxpr(lambda x, i: x.at[i].get(mode="fill", fill_value=0.0))(x, inside).eqns
              if e.primitive.name == "gather"]
    wheres = []
    real_where = np.where
    monkeypatch.setattr(np, "where", lambda *a: wheres.append(1) or real_where(*a))
    got = slicing_impl._gather(x, inside[:, None], **eqn.params)
    assert not wheres
    outside = inside.copy()
    outside[0] = 99
    filled = slicing_impl._gather(x, outside[:, None], **eqn.params)
    assert wheres
    assert got[1:].tobytes() == filled[1:].tobytes() and not filled[0].any()
    assert got.tobytes() == x[inside].tobytes()


@pytest.mark.parametrize("mode", ["clip", "drop", "fill", None])
def test_point_gather_and_scatter_add(mode, monkeypatch):
    # One element per index (jnp.diag and its gradient): the starts index
    # the operand directly, no per-axis index arrays laid out (no
    # np.reshape / np.expand_dims); NumPy's values, bounds by mode.
    x = _values((7, 9), np.float32)
    i = rng.integers(-2, 11, (3, 5)).astype(np.int32)
    j = rng.integers(0, 9, (3, 5)).astype(np.int32)
    u = _values((3, 5), np.float32)
    get_mode = "fill" if mode == "drop" else mode
    gather = pyjax.make_jaxpr(lambda x, i, j: x.at[i, j].get(mode=get_mode, fill_value=-1.0))(x, i, j)
    scatter = pyjax.make_jaxpr(lambda x, i, j, u: x.at[i, j].add(u, mode="drop" if mode == "fill" else mode))(x, i, j, u)
    (g,) = [e for e in gather.eqns if e.primitive.name == "gather"]
    (s,) = [e for e in scatter.eqns if e.primitive.name == "scatter-add"]
    idx = np.stack([i, j], -1)
    layouts = []

    def spied(name):
        real = getattr(np, name)
        monkeypatch.setattr(np, name, lambda *a, **k: layouts.append(name) or real(*a, **k))

    spied("reshape")  # (the general gather lays each start out with it)
    got = slicing_impl._gather(x, idx, **g.params)
    monkeypatch.undo()
    spied("expand_dims")  # (the general scatter's targets)
    added = slicing_impl.IMPLS[s.primitive](x, idx, u, **s.params)
    monkeypatch.undo()
    assert not layouts
    inside = (i >= 0) & (i < 7)
    ic = np.clip(i, 0, 6)
    want = x[ic, j]
    if get_mode == "fill":
        want = np.where(inside, want, np.float32(-1.0))
    assert got.tobytes() == want.tobytes()
    want_added = x.copy()
    keep = np.ones_like(inside) if mode == "clip" else inside
    np.add.at(want_added, (ic[keep], j[keep]), u[keep])
    assert added.tobytes() == want_added.tobytes()
