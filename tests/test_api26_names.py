"""Issue 26 names: jax.ad, lax.dce_sink/stage/rng_uniform, select_and_scatter_p,
jax.experimental.xla_metadata, jax.default_prng_impl (values and jaxprs
against JAX 0.11.0 are in tests/golden/programs_api26.py)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.lax.select_and_scatter import _select_and_scatter
from pyjax.experimental import xla_metadata as xm


def test_ad_sentinels():
    assert set(vars(jax.ad)) == {"DontWant", "DidntWant", "GradRef", "GradValue"}
    assert jax.ad.DontWant() == jax.ad.DontWant()
    assert jax.tree.leaves(jax.ad.DidntWant()) == [] and jax.tree.leaves(jax.ad.GradRef()) == []
    assert jax.tree.leaves(jax.ad.GradValue()) == [jax.ad.GradValue()]
    with pytest.raises((dataclasses.FrozenInstanceError, TypeError)):  # (slots: TypeError)
        jax.ad.DontWant().x = 1


def test_default_prng_impl_is_the_config_state():
    with jax.default_prng_impl("unsafe_rbg"):
        assert jax.config.jax_default_prng_impl == "unsafe_rbg"
        assert str(jax.random.key_impl(jax.random.key(1))) == "unsafe_rbg"
    assert jax.config.jax_default_prng_impl == "threefry2x32"


def test_dce_sink_keeps_its_operand_through_dce():
    def f(x):
        lax.dce_sink(jnp.exp(x))
        return x + 1

    jaxpr = jax.make_jaxpr(jax.jit(f))(1.0).eqns[0].params["jaxpr"]
    assert [e.primitive.name for e in jaxpr.eqns] == ["exp", "dce_sink", "add"]
    assert jaxpr.eqns[1].effects
    assert float(jax.jit(f)(1.0)) == 2.0


def test_rng_uniform_draws_vary_and_respect_bounds():
    a = np.asarray(lax.rng_uniform(jnp.float32(-1), jnp.float32(1), (1000,)))
    b = np.asarray(lax.rng_uniform(jnp.float32(-1), jnp.float32(1), (1000,)))
    assert a.dtype == np.float32 and ((a >= -1) & (a < 1)).all() and not np.array_equal(a, b)
    i = np.asarray(jax.jit(lambda lo, hi: lax.rng_uniform(lo, hi, (500,)))(jnp.int32(3), jnp.int32(7)))
    assert i.dtype == np.int32 and set(np.unique(i)) <= {3, 4, 5, 6}


def test_stage_lifts_and_binds_no_equation():
    assert type(lax.stage(np.float32(2))) is jax.Array
    assert jax.make_jaxpr(lambda x: lax.stage(x) * lax.stage_p.bind(x))(1.0).eqns[0].primitive.name == "mul"
    assert lax.stage_p.abstract_eval is not None and lax.stage_p.transpose is not None


def _oracle(x, select, window, strides, padding, source, init, scatter):
    # XLA's semantics, one window at a time in source order.
    out = np.full(x.shape, init, x.dtype)
    for w in itertools.product(*map(range, source.shape)):
        best = None
        for tap in itertools.product(*map(range, window)):
            pos = tuple(wi * s + t - lo for wi, s, t, (lo, _) in zip(w, strides, tap, padding))
            if any(p < 0 or p >= n for p, n in zip(pos, x.shape)):
                continue
            if best is None or not select(x[best], x[pos]):
                best = pos
        if best is not None:
            out[best] = scatter(out[best], source[w])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_select_and_scatter_matches_xla_semantics(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (5, 6)).astype(np.float32)  # ties: the first of equals is kept
    window, strides, padding = (2, 3), (1, 2), ((1, 0), (0, 2))
    shape = tuple((n + lo + hi - w) // s + 1 for n, w, s, (lo, hi) in zip(x.shape, window, strides, padding))
    source = rng.normal(size=shape).astype(np.float32)
    for sel, np_sel, scat, np_scat, init in [(lax.ge, np.greater_equal, lax.add, np.add, 0.5),
                                             (lax.lt, np.less, lax.max, np.maximum, -1.0)]:
        got = _select_and_scatter(x, sel, window, strides, padding, source, jnp.float32(init), scat)
        want = _oracle(x, np_sel, window, strides, padding, source, np.float32(init), np_scat)
        np.testing.assert_array_equal(np.asarray(got), want)
        np.testing.assert_array_equal(np.asarray(jax.jit(lambda a, s: _select_and_scatter(
            a, sel, window, strides, padding, s, jnp.float32(init), scat))(x, source)), want)


def test_xla_metadata_context_records_and_restores():
    from pyjax._src.xla_metadata import current_xla_metadata

    with xm.set_xla_metadata(a=1):
        with xm.fuse_limit():
            assert current_xla_metadata() == {"a": 1, "FUSE_LIMIT": True}
        assert current_xla_metadata() == {"a": 1}
    assert current_xla_metadata() == {}
    seen = []
    decorated = xm.set_xla_metadata(k="v")(lambda: seen.append(current_xla_metadata()))
    decorated()
    assert seen == [{"k": "v"}]


def test_xla_metadata_call_closing_over_a_tracer():
    def f(x, y):
        return xm.xla_metadata_call(lambda v: v * y, a=1)(x)

    eqn = jax.make_jaxpr(f)(1.0, 2.0).eqns[0]
    assert eqn.primitive.name == "xla_metadata_call" and len(eqn.invars) == 2
    assert float(jax.grad(f, argnums=1)(3.0, 2.0)) == 3.0
