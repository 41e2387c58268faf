"""jax.experimental.random: StatefulPRNG's draws are JAX's stateless ones of
(base key, counter), its counter lives in a jax.ref updated in place (also
under jit), split makes generators for vmap (the streams JAX 0.11 gives are
in tests/golden/programs_stateful_random.py)."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.experimental import random as srandom


def test_each_draw_folds_the_counter_into_the_base_key():
    rng = srandom.stateful_rng(42)
    base = jax.random.key(42)
    draws = [rng.uniform(size=3) for _ in range(3)]
    for i, d in enumerate(draws):
        np.testing.assert_array_equal(d, jax.random.uniform(jax.random.fold_in(base, i), (3,)))
    assert int(jax.freeze(rng._counter)) == 3


def test_counter_advances_under_jit_and_draws_differ():
    rng = srandom.stateful_rng(0)
    f = jax.jit(lambda: rng.normal(size=2))
    a, b = f(), f()
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(b, jax.random.normal(jax.random.fold_in(jax.random.key(0), 1), (2,)))
    assert int(jax.freeze(rng._counter)) == 2


def test_keys_and_split_generators_under_vmap():
    rng = srandom.stateful_rng(123)
    k = rng.key((2,))
    assert k.shape == (2,) and jax.dtypes.issubdtype(k.dtype, jax.dtypes.prng_key)
    children = rng.split(3)
    out = jax.vmap(lambda r: r.uniform())(children)
    assert out.shape == (3,) and len(set(np.asarray(out).tolist())) == 3
    with pytest.raises(ValueError, match="cannot operate on split stateful generator"):
        children.key()


def test_spawn_integers_and_bounds():
    rng = srandom.stateful_rng(7)
    kids = rng.spawn(2)
    assert all(isinstance(r, srandom.StatefulPRNG) for r in kids)
    ints = rng.integers(5, size=100)
    assert ints.dtype == jnp.int32 and int(ints.min()) >= 0 and int(ints.max()) < 5
    u = rng.uniform(2., 3., 50)
    assert float(u.min()) >= 2. and float(u.max()) < 3.
    assert rng.random((2, 2)).shape == (2, 2)


def test_errors():
    with pytest.raises(TypeError, match="requires an explicit seed"):
        jax.jit(lambda: srandom.stateful_rng().uniform())()
    with pytest.raises(ValueError, match="Expected base_key to be a typed PRNG key"):
        srandom.StatefulPRNG(jax.random.PRNGKey(0), jax.new_ref(0))
    with pytest.raises(ValueError, match="Expected counter to be a scalar integer ref"):
        srandom.StatefulPRNG(jax.random.key(0), 0)
    with pytest.raises(ValueError, match="at output tree path result._counter"):
        jax.jit(lambda: srandom.stateful_rng(3))()


def test_unseeded_generator_at_top_level():
    a, b = srandom.stateful_rng(), srandom.stateful_rng()
    assert a.uniform().shape == () and b.uniform().shape == ()
