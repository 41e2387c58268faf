"""Loops that draw random numbers run natively (native/keys.py): keys as
their uint32 words, split / fold_in / random_bits over threefry's hash,
XLA's shifts, bitcasts and unstack as views, bit for bit the Python code's
(and so JAX's streams, which tests/random/ pin)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax, random
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.native import tiering as native_tiering

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")


@pytest.fixture
def eager_tier(monkeypatch):
    # Build at the first call and wait for it: the first call is the checked one.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)


def natives():
    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop)]


def live(made):
    return [n for n in made if n.state == native_tiering.LIVE]


def run_both(f, *args, monkeypatch):
    """(native outputs, Python outputs, the NativeLoops made) of jit(f), as
    test_native_loops.py: the checked call, a native one, the Python code alone."""
    held = natives()  # alive: an id alone could be reused by a new object
    old = {id(o) for o in held}
    jf = pyjax.jit(lambda *a: f(*a))
    first, second = jf(*args), jf(*args)
    made = [n for n in natives() if id(n) not in old]
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(lambda *a: f(*a))(*args)
    for a, b, c in zip(pyjax.tree.leaves(first), pyjax.tree.leaves(second), pyjax.tree.leaves(reference),
                       strict=True):
        a, b, c = map(np.asarray, (a, b, c))
        assert a.dtype == c.dtype and a.shape == c.shape
        assert a.tobytes() == c.tobytes() and b.tobytes() == c.tobytes()
    return second, reference, made


def test_fori_loop_split_and_uniform(eager_tier, monkeypatch):
    # The suite's mc_fori_random: split + uniform per step, a mean carried.
    def f(key):
        def body(i, carry):
            key, acc = carry
            key, sub = random.split(key)
            u = random.uniform(sub, (2, 64))
            inside = (u[0] * u[0] + u[1] * u[1] < 1.0).astype(jnp.float32)
            return key, acc + 4.0 * jnp.mean(inside) / 50
        return lax.fori_loop(0, 50, body, (key, jnp.float32(0.0)))

    _, _, made = run_both(f, random.PRNGKey(3), monkeypatch=monkeypatch)
    assert len(live(made)) == 1
    assert "pj_hash" in made[0].source


def test_scan_over_keys_bits_of_every_width(eager_tier, monkeypatch):
    # xs of raw keys; random_bits of 8, 16, 32 bits; fold_in by the step.
    def f(key):
        def step(c, k):
            k1, k2 = random.split(k)
            k3 = random.fold_in(k2, c[0])
            b8 = random.bits(k1, (5,), jnp.uint8).astype(jnp.uint32)
            b16 = random.bits(k3, (3, 2), jnp.uint16).astype(jnp.uint32)
            b32 = random.bits(k3, (7,), jnp.uint32)
            s = jnp.sum(b8) + jnp.sum(b16) + jnp.sum(b32 >> 3)
            return (c[0] + jnp.uint32(1), c[1] ^ s), random.key_data(random.wrap_key_data(k1))
        return lax.scan(step, (jnp.uint32(0), jnp.uint32(7)), random.split(key, 40))

    _, _, made = run_both(f, random.PRNGKey(11), monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_metropolis_scan_with_typed_keys_inside(eager_tier, monkeypatch):
    # The suite's mcmc_scan without the normal draw: uniform, log, select.
    x0 = jnp.asarray(np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))

    def f(key, x0):
        def step(x, key):
            k1, k2 = random.split(random.wrap_key_data(key))
            prop = x + 0.3 * (random.uniform(k1, x.shape) - 0.5)
            accept = jnp.log(random.uniform(k2, x.shape[:1])) < -jnp.sum(prop * prop, -1) + jnp.sum(x * x, -1)
            return jnp.where(accept[:, None], prop, x), jnp.mean(accept)
        return lax.scan(step, x0, random.split(key, 60))

    _, _, made = run_both(f, random.PRNGKey(5), x0, monkeypatch=monkeypatch)
    assert len(live(made)) == 1


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint32, np.int64])
def test_shifts_as_xla_shifts_out_of_range_amounts_included(dtype, eager_tier, monkeypatch):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    with pyjax.enable_x64(bits == 64):
        x = jnp.asarray(np.array([0, 1, info.max, info.min, 5, info.max // 3, 77, 2], dtype))
        amounts = np.array([0, 1, bits - 1, bits, bits + 3, 2, 3, 0], dtype)
        if info.min < 0:
            amounts[-1] = -1
        y = jnp.asarray(amounts)

        def f(x, y):
            def body(i, c):
                a, b, r = c
                return (lax.shift_left(a, y) ^ b, lax.shift_right_logical(b, y) | a,
                        r + lax.shift_right_arithmetic(a, y))
            return lax.fori_loop(0, 6, body, (x, x[::-1], jnp.zeros_like(x)))

        _, _, made = run_both(f, x, y, monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_threefry2x32_primitive_and_bitcasts(eager_tier, monkeypatch):
    from pyjax._src.random.threefry import threefry2x32_p

    def f(k, x):
        def body(c, _):
            a, b = threefry2x32_p.bind(k[0], k[1], c, c + jnp.uint32(1))
            f32 = lax.bitcast_convert_type(a, jnp.float32)
            back = lax.bitcast_convert_type(jnp.abs(f32), jnp.uint32)
            return a ^ back, (b, f32)
        return lax.scan(body, x, None, length=20)

    k = jnp.asarray(np.array([0x12345678, 0x9ABCDEF0], np.uint32))
    x = jnp.asarray(np.arange(6, dtype=np.uint32))
    _, _, made = run_both(f, k, x, monkeypatch=monkeypatch)
    assert len(live(made)) == 1


def test_key_arrays_sliced_broadcast_and_transposed(eager_tier, monkeypatch):
    # Shape ops on typed keys move whole keys: their views span the words.
    def f(key, x):
        def step(c, k):
            keys = random.split(random.wrap_key_data(k), 6).reshape(2, 3)
            picked = keys.T[1:, ::2][0, 1]  # transpose, strided slice, index
            many = jnp.broadcast_to(keys[:, 2:], (2, 2, 1))
            draws = pyjax.vmap(pyjax.vmap(jax_vmap_bits))(many)
            z = random.normal(picked, c.shape)  # erf_inv in C
            return c * 0.5 + z, jnp.sum(draws)
        return lax.scan(step, x, random.split(key, 30))

    x = jnp.asarray(np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32))
    _, _, made = run_both(f, random.PRNGKey(9), x, monkeypatch=monkeypatch)
    assert len(live(made)) == 1
    assert "pj_erf_inv_f32" in made[0].source


def jax_vmap_bits(keys):
    # random_bits of a batch of keys (a strided view here): one row per key.
    return pyjax.vmap(lambda k: random.bits(k, (4,), jnp.uint32))(keys)


def test_normal_draws_agree_with_xla_math_on_edges(eager_tier, monkeypatch):
    # erf_inv's C against the Python code on edge values (zeros, ±1, beyond,
    # subnormals, infinities, NaN) and on the normal sampler's grid.
    grid = np.nextafter(np.float32(-1), np.float32(0)) + np.arange(0, 1 << 23, 4099, dtype=np.float32) / np.float32(2**22)
    edges = np.array([0, -0.0, 1, -1, 1.5, -2, np.nan, np.inf, -np.inf, 1e-40, -1e-40, 1e-30, 0.5, -0.9999999], np.float32)
    x = jnp.asarray(np.concatenate([grid, edges, np.zeros(-(grid.size + edges.size) % 64, np.float32)]).reshape(-1, 64))

    def f(x):
        return lax.scan(lambda c, row: (c + 1.0, lax.erf_inv(row)), jnp.float32(0), x)

    _, _, made = run_both(f, x, monkeypatch=monkeypatch)
    assert len(live(made)) == 1
