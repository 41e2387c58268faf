"""Typed keys, the key primitives and threefry2x32 (behaviour beyond the
recorded goldens: transformations, configs, the hash's known answers)."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import random
from pyjax._src.random import prng, threefry

# --- threefry2x32 ---------------------------------------------------------------

# Known-answer vectors of Threefry-2x32 with 20 rounds (Random123's kat_vectors).
KNOWN_ANSWERS = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize("key,count,expected", KNOWN_ANSWERS)
def test_threefry_known_answers(key, count, expected):
    out = threefry.threefry2x32_numpy(np.uint32(key[0]), np.uint32(key[1]), np.uint32(count[0]), np.uint32(count[1]))
    assert tuple(int(v) for v in out) == expected


def test_threefry_vectorised_equals_elementwise():
    rng = np.random.default_rng(0)
    k0, k1, x0, x1 = (rng.integers(0, 2**32, size=40_000, dtype=np.uint32) for _ in range(4))
    y0, y1 = threefry.threefry2x32_numpy(k0, k1, x0, x1)  # crosses chunk boundaries
    for i in (0, 1, 16383, 16384, 39_999):
        z0, z1 = threefry.threefry2x32_numpy(k0[i], k1[i], x0[i], x1[i])
        assert (y0[i], y1[i]) == (z0, z1)


def test_threefry_primitive_staged_and_run():
    key = jnp.asarray(np.array([0x13198A2E, 0x03707344], np.uint32))
    count = jnp.asarray(np.array([0x243F6A88, 0x85A308D3], np.uint32))
    jaxpr = jax.make_jaxpr(threefry.threefry_2x32)(key, count)
    assert "threefry2x32" in str(jaxpr)
    assert [int(v) for v in threefry.threefry_2x32(key, count)] == [0xC4923A9C, 0x483DF7A0]
    odd = threefry.threefry_2x32(key, jnp.arange(3, dtype=jnp.uint32))
    assert odd.shape == (3,) and odd.dtype == np.uint32


def test_threefry_abstract_eval_rejects_non_uint32():
    with pytest.raises(TypeError, match="must have uint32 type"):
        jax.make_jaxpr(lambda x: threefry.threefry2x32_p.bind(x, x, x, x))(jnp.ones(2, jnp.int32))


# --- keys ---------------------------------------------------------------------------


def test_key_dtype_and_aval():
    k = random.key(0)
    assert str(k.dtype) == "key<fry>" and k.shape == () and str(jax.typeof(k)) == "key<fry>[]"
    assert jnp.issubdtype(k.dtype, jax.dtypes.prng_key) and jnp.issubdtype(k.dtype, jax.dtypes.extended)
    assert k.dtype == random.key_dtype("threefry2x32") and hash(k.dtype) == hash(random.key_dtype())
    assert k.itemsize == 8 and k.nbytes == 8
    assert random.split(k, (2, 3)).shape == (2, 3)


def test_partitionable_default_and_impl_default():
    assert jax.config.jax_threefry_partitionable is True
    assert jax.config.jax_default_prng_impl == "threefry2x32"
    assert random.default_prng_impl().name == "threefry2x32"


def test_partitionable_switch_changes_bits():
    k = random.key(0)
    on = np.asarray(random.bits(k, (4,)))
    with jax.config.jax_threefry_partitionable(False) if callable(getattr(jax.config, "jax_threefry_partitionable", None)) else _flag(False):
        off = np.asarray(random.bits(k, (4,)))
    assert not np.array_equal(on, off)


class _flag:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        self.old = jax.config.jax_threefry_partitionable
        jax.config.update("jax_threefry_partitionable", self.value)

    def __exit__(self, *exc):
        jax.config.update("jax_threefry_partitionable", self.old)


def test_keys_are_pytree_leaves_and_roundtrip():
    k = random.key(7)
    leaves, tree = jax.tree_util.tree_flatten([k, {"a": k}])
    assert len(leaves) == 2 and all(leaf.dtype == k.dtype for leaf in leaves)
    back = jax.tree_util.tree_unflatten(tree, leaves)
    np.testing.assert_array_equal(random.key_data(back[1]["a"]), random.key_data(k))
    data = random.key_data(random.split(k, 4))
    np.testing.assert_array_equal(random.key_data(random.wrap_key_data(data)), data)


def test_key_shape_operations_move_whole_keys():
    keys = random.split(random.key(1), 6)
    data = np.asarray(random.key_data(keys))
    np.testing.assert_array_equal(random.key_data(keys.reshape(2, 3)), data.reshape(2, 3, 2))
    np.testing.assert_array_equal(random.key_data(keys[1:4]), data[1:4])
    np.testing.assert_array_equal(random.key_data(keys[::-1]), data[::-1])
    np.testing.assert_array_equal(random.key_data(keys.reshape(2, 3).T), data.reshape(2, 3, 2).transpose(1, 0, 2))
    _, second = keys[:2]
    np.testing.assert_array_equal(random.key_data(second), data[1])


def test_key_numpy_conversion_refused():
    with pytest.raises(TypeError, match="cannot be converted to a NumPy array"):
        np.asarray(random.key(0))


def test_jit_of_key_functions_matches_eager():
    k = random.key(3)
    np.testing.assert_array_equal(random.key_data(jax.jit(random.split)(k)), random.key_data(random.split(k)))
    np.testing.assert_array_equal(random.key_data(jax.jit(random.fold_in)(k, 5)), random.key_data(random.fold_in(k, 5)))
    np.testing.assert_array_equal(jax.jit(lambda k: random.bits(k, (9,)))(k), random.bits(k, (9,)))
    # a key made inside jit, and a key returned by jit
    out = jax.jit(lambda s: random.split(random.key(s)))(3)
    assert out.dtype == k.dtype
    np.testing.assert_array_equal(random.key_data(out), random.key_data(random.split(random.key(3))))


def test_grad_through_sampler_with_key_argument():
    k = random.key(0)
    u = np.asarray(random.uniform(k, (3,)))
    g = jax.grad(lambda w, k: jnp.sum(w * random.uniform(k, (3,))))(jnp.ones(3), k)
    np.testing.assert_array_equal(g, u)
    # keys have float0 tangents: differentiating with respect to one is refused
    with pytest.raises(TypeError):
        jax.grad(lambda k: jnp.sum(random.uniform(k, (3,))))(k)


def test_vmap_over_keys_matches_loop():
    keys = random.split(random.key(2), 4)
    batched = jax.vmap(lambda k: random.bits(k, (3,)))(keys)
    looped = np.stack([np.asarray(random.bits(keys[i], (3,))) for i in range(4)])
    np.testing.assert_array_equal(batched, looped)
    split = jax.vmap(random.split)(keys)
    np.testing.assert_array_equal(random.key_data(split),
                                  np.stack([np.asarray(random.key_data(random.split(keys[i]))) for i in range(4)]))
    folded = jax.vmap(random.fold_in, in_axes=(0, None))(keys, 7)
    np.testing.assert_array_equal(random.key_data(folded),
                                  np.stack([np.asarray(random.key_data(random.fold_in(keys[i], 7))) for i in range(4)]))
    data = jax.vmap(random.key_data)(keys)
    np.testing.assert_array_equal(data, random.key_data(keys))


def test_batched_primitives_directly():
    # random_bits / random_split / random_fold_in map over leading key axes.
    keys = random.split(random.key(5), (2, 3))
    bits = prng.random_bits(keys, 32, (4,))
    assert bits.shape == (2, 3, 4)
    np.testing.assert_array_equal(bits[1, 2], random.bits(keys[1, 2], (4,)))
    folded = prng.random_fold_in(keys, jnp.arange(3, dtype=jnp.uint32).reshape(1, 3))
    np.testing.assert_array_equal(random.key_data(folded[0, 1]), random.key_data(random.fold_in(keys[0, 1], 1)))


def test_raw_keys_in_raw_keys_out():
    raw = random.PRNGKey(0)
    assert raw.dtype == np.uint32 and raw.shape == (2,)
    out = random.split(raw)
    assert out.dtype == np.uint32 and out.shape == (2, 2)
    np.testing.assert_array_equal(out, random.key_data(random.split(random.key(0))))
    assert random.fold_in(raw, 1).dtype == np.uint32
    np.testing.assert_array_equal(random.uniform(raw, (3,)), random.uniform(random.key(0), (3,)))


def test_legacy_key_config_warns_and_errors():
    raw = random.PRNGKey(0)
    jax.config.update("jax_legacy_prng_key", "warn")
    try:
        with pytest.warns(UserWarning, match="Legacy uint32 key array"):
            random.uniform(raw)
        jax.config.update("jax_legacy_prng_key", "error")
        with pytest.raises(ValueError, match="Legacy uint32 key array"):
            random.uniform(raw)
    finally:
        jax.config.update("jax_legacy_prng_key", "allow")


def test_clone_is_identity():
    k = random.key(9)
    np.testing.assert_array_equal(random.key_data(random.clone(k)), random.key_data(k))


def test_unknown_impl():
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "nope"'):
        random.key(0, impl="nope")
    with pytest.raises(TypeError, match="unrecognized type"):
        random.key(0, impl=3.5)
