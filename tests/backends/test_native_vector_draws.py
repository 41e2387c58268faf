"""Random draws in native loops through the vectorised helpers: threefry's
hashes of one key's counters (threefry.py `pj_hash_pairs`/`pj_hash_xor`)
and erf_inv over contiguous floats (special.py `pj_erf_inv_f32_n`, its first
polynomial without branches, the rest through the scalar function): bit
for bit the Python code's."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import native_tiers_made

import pyjax
import pyjax.numpy as jnp
from pyjax import lax, random
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import tiering as native_tiering

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")


@pytest.fixture(autouse=True)
def eager_tier(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)  # build at the first call and wait: it is the checked one


def _native_and_python(f, args, monkeypatch):
    jf = pyjax.jit(f)
    (first, second), made = native_tiers_made(lambda: (jf(*args), jf(*args)))
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(lambda *a: f(*a))(*args)
    for a, b, c in zip(pyjax.tree.leaves(first), pyjax.tree.leaves(second), pyjax.tree.leaves(reference),
                       strict=True):
        assert np.asarray(a).tobytes() == np.asarray(c).tobytes() == np.asarray(b).tobytes()
    assert made and all(n.state == native_tiering.LIVE for n in made), [n.failure for n in made]
    return made


def _edge_floats():
    # Every class erf_inv's paths treat apart: zeros, subnormals (flushed),
    # the bound of the vector path (0.99), log1p's cut (|u| = 0.6436),
    # the second polynomial (|u| > 0.9966), +-1, beyond 1, NaNs, infinities.
    bound, cut = np.float32(0.99), np.float32(np.sqrt(np.float32(0.41421357)))
    near = [np.nextafter(v, w, dtype=np.float32) for v in (bound, cut) for w in (0, 2)]
    values = [0.0, -0.0, 1e-40, -1e-39, 1e-30, bound, cut, *near, 0.5, 0.9966, 0.99663, 0.9999, 1.0, 1.0000001,
              2.0, np.inf, np.nan, 1e-7, 0.3]
    values += [-v for v in values]
    nan_payload = np.array([0x7FA00001], np.uint32).view(np.float32)[0]
    rng = np.random.default_rng(5)
    return np.concatenate([np.array(values, np.float32), [nan_payload],
                           rng.uniform(-1, 1, 700).astype(np.float32)])


def test_erf_inv_of_contiguous_floats(monkeypatch):
    x = jnp.asarray(_edge_floats()[:744].reshape(-1, 8))
    made = _native_and_python(lambda x: lax.erf_inv(x) * 2.0 + lax.erf_inv(x[::-1]), (x,), monkeypatch)
    source = "".join(n.source for n in made)
    assert "pj_erf_inv_f32_n(" in source.split("#pragma GCC pop_options")[-1]  # (called, not only defined)


def test_erf_inv_in_a_loop_in_place(monkeypatch):
    # A scan whose carry goes through erf_inv each step (its scratch reused).
    x = jnp.asarray(_edge_floats()[:64])

    def f(x):
        return lax.scan(lambda c, _: (lax.erf_inv(c * 0.5), jnp.sum(c)), x, None, length=5)

    made = _native_and_python(f, (x,), monkeypatch)
    assert any("pj_erf_inv_f32_n(" in n.source.split("#pragma GCC pop_options")[-1] for n in made)


def test_normal_and_split_draws_through_the_vector_hashes(monkeypatch):
    # The suite's mcmc_scan step: split, normal (bits, shifts, erf_inv), uniform.
    def f(key, x0):
        def step(x, k):
            k1, k2 = random.split(k)
            prop = x + 0.3 * random.normal(k1, x.shape)
            accept = random.uniform(k2, x.shape[:1]) < 0.5
            return jnp.where(accept[:, None], prop, x), jnp.mean(accept)
        return lax.scan(step, x0, random.split(key, 20))

    made = _native_and_python(f, (random.PRNGKey(4), jnp.zeros((8, 33), jnp.float32)), monkeypatch)
    body = "".join(n.source.split("#pragma GCC pop_options")[-1] for n in made)
    assert "pj_hash_pairs(" in body and "pj_hash_xor(" in body and "pj_erf_inv_f32_n(" in body
