"""IREE's sort of long rows as a bitonic network (rules/sorting_network.py):
what it sorts must equal the NumPy backend's sort bit for bit, for every
case the comparator distinguishes (NaN, -0.0, infinities, ties kept in
order, several keys, values carried along, padding to a power of two, any
axis, integer, boolean and 16-bit types). The network's threshold is
lowered so that short rows take it too.

Needs the `[iree]` extra; without it the tests are skipped and say so.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends import iree as iree_backend

pytestmark = pytest.mark.skipif(not iree_backend.available(),
                                reason="IREE is not installed (pip install -e '.[iree]')")

_r = np.random.RandomState(3)
_F = np.array([np.nan, -0.0, 0.0, 1.5, -np.inf, np.inf, 1.5, -2.0, 0.0, -0.0, 7.0, -np.nan, 1.5], np.float32)
_M = _r.randint(-3, 3, size=(6, 11)).astype(np.float32)
_CASES = {
    "floats_13": (lambda x: jnp.sort(x), (_F,)),
    "argsort_13": (lambda x: jnp.argsort(x), (_F,)),
    "descending": (lambda x: jnp.sort(x, descending=True), (_F,)),
    "rows_axis1": (lambda x: jnp.sort(x, axis=1), (_M,)),
    "argsort_axis0": (lambda x: jnp.argsort(x, axis=0), (_M,)),
    "middle_axis_8": (lambda x: jnp.sort(x, axis=1), (_r.randint(0, 4, (2, 8, 3)).astype(np.float32),)),
    "key_val": (lambda k, v: lax.sort_key_val(k, v), (_r.randint(0, 3, 12).astype(np.int32), np.arange(12.0, dtype=np.float32))),
    "two_keys": (lambda a, c, v: lax.sort((a, c, v), num_keys=2),
                 (_r.randint(0, 2, 10).astype(np.int8), _r.randint(0, 3, 10).astype(np.uint32), np.arange(10, dtype=np.int32))),
    "unstable": (lambda x, v: lax.sort((x, v), num_keys=1, is_stable=False), (_M[0], np.arange(11, dtype=np.int32))),
    "bools": (lambda x: jnp.argsort(x), (_r.rand(9) < 0.5,)),
    "float16": (lambda x: jnp.sort(x), (_F.astype(np.float16),)),
    # (without -nan: IREE 3.13 returns a bfloat16 -nan as +nan from its own sort too)
    "bfloat16": (lambda x: jnp.sort(x), (jnp.asarray(np.where(np.isnan(_F), np.float32(np.nan), _F), jnp.bfloat16),)),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_network_sort_equals_the_numpy_backend(name, monkeypatch):
    from pyjax._src.backends.stablehlo.rules import sorting_network

    monkeypatch.setattr(sorting_network, "NETWORK_MIN", 2)
    fun, args = _CASES[name]
    want = pyjax.tree_util.tree_leaves(pyjax.jit(fun)(*args))
    got = pyjax.tree_util.tree_leaves(pyjax.jit(fun, backend="iree")(*args))
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes(), (g, w)  # (bit for bit: NaNs' signs, -0.0)


def test_long_rows_take_the_network_and_no_iree_sort():
    # (IREE 3.13's own sort of 64 rows of 4096 took seconds: its time grows with n ** 2)
    from pyjax._src.backends.iree.compile import module_text

    x = np.zeros((4, 4096), np.float32)
    text, _ = module_text(pyjax.make_jaxpr(lambda x: jnp.sort(x, axis=-1))(x).jaxpr, "f")
    assert "stablehlo.sort" not in text and "stablehlo.while" in text
    short, _ = module_text(pyjax.make_jaxpr(lambda x: jnp.sort(x, axis=-1))(x[:, :100]).jaxpr, "f")
    assert "stablehlo.sort" in short
