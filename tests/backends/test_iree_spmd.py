"""shard_map on the IREE backend (backends/iree/spmd.py): per device, with
each device's program between collectives compiled by IREE, the collectives
exchanged by the lockstep runtime. Results equal the NumPy backend's and are
placed as out_specs says."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends import iree as iree_backend
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.skipif(not iree_backend.available(),
                                reason="IREE is not installed (pip install -e '.[iree]')")

MESH = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
A = np.random.RandomState(0).randn(16, 8).astype(np.float32)
W = np.random.RandomState(1).randn(8, 6).astype(np.float32)


def _body(a, w):
    h = jnp.tanh(a @ w) * 2.0 + 1.0
    s = lax.psum(h.sum(0), "x")
    return jnp.exp(-s) * 3.0 + jnp.sin(s), h


F = jax.shard_map(_body, mesh=MESH, in_specs=(P("x", None), P(None, "y")), out_specs=(P("y"), P("x", "y")))


@pytest.fixture
def compiled_runs(monkeypatch):
    """The per-device programs IREE compiles (their jaxprs), in order."""
    from pyjax._src.backends.iree import spmd

    seen: list = []
    real = spmd.compile_run

    def recording(jaxpr):
        seen.append(jaxpr)
        return real(jaxpr)

    monkeypatch.setattr(spmd, "compile_run", recording)
    return seen


def _check_runs(runs: list) -> None:
    # The body's runs of equations between collectives (the lockstep runtime's plan: before and
    # after the psum, split where a value every device shares is computed once), each compiled
    # by IREE into one module called per device; no collective inside any.
    names = [e.primitive.name for run in runs for e in run.eqns]
    assert len(runs) >= 2 and {"dot_general", "tanh", "reduce_sum", "exp", "sin"} <= set(names)
    assert not {"psum", "pvary"} & set(names)


@pytest.mark.parametrize("placed", [False, True])
def test_a_jitted_shard_map_runs_per_device_with_iree_programs(compiled_runs, placed):
    args = (A, W) if not placed else (jax.device_put(A, NamedSharding(MESH, P("x"))),
                                      jax.device_put(W, NamedSharding(MESH, P(None, "y"))))
    want = jax.jit(F, backend="cpu")(*args)
    got = jax.jit(F, backend="iree")(*args)
    _check_runs(compiled_runs)
    for w, g in zip(want, got, strict=True):
        assert g.sharding == w.sharding and g.sharding.spec in (P("y"), P("x", "y"))
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_a_shard_map_inside_a_larger_program(compiled_runs):
    def g(a, w):
        return [t * 2.0 for t in F(a + 1.0, w)]

    want, got = jax.jit(g, backend="cpu")(A, W), jax.jit(g, backend="iree")(A, W)
    _check_runs(compiled_runs)
    for w, r in zip(want, got, strict=True):
        np.testing.assert_allclose(np.asarray(r), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_a_run_iree_cannot_lower_raises_naming_the_primitive():
    # (Never interpreted on NumPy in silence, as the backend's other programs.)
    f = jax.shard_map(lambda m: lax.psum(jnp.linalg.cholesky(m @ m.mT + 4.0 * jnp.eye(4)) * 2.0, "x"), mesh=MESH,
                      in_specs=P("x"), out_specs=P())
    with pytest.raises(iree_backend.IreeUnsupportedError, match="primitive 'cholesky'"):
        jax.jit(f, backend="iree")(np.ones((4, 4, 4), np.float32))
