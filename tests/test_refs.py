"""jax.ref (mutable array references) beyond the recorded programs
(tests/golden/programs_refs.py): the names, the primitives' rules, repeated
jitted calls (the compiled code's tiers), and the gaps declared."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.extend.core import primitives


def test_names():
    assert jax.ref.new_ref is jax.new_ref and jax.ref.freeze is jax.freeze and jax.Ref is jax.ref.Ref
    assert primitives.get_p.name == "get" and primitives.swap_p.name == "swap"
    aval = jax.ref.AbstractRef(jax.core.ShapedArray((3,), jnp.float32))
    assert str(aval) == "Ref{float32[3]}" and aval.inner_aval.shape == (3,)
    assert repr(jax.ds(1, 2)) == "Slice(start=1, size=2, stride=1)"
    assert repr(jax.ds(3)) == "Slice(start=0, size=3, stride=1)" and jax.ds(None, 2) == slice(None)


def test_ref_is_updated_in_place_by_repeated_jitted_calls():
    r = jax.new_ref(jnp.zeros(64, jnp.float32))

    @jax.jit
    def step(r, x):
        r[...] = r[...] * 0.5 + x
        jax.ref.addupdate(r, jax.ds(0, 4), jnp.ones(4, jnp.float32))

    expected = np.zeros(64, np.float32)
    for k in range(12):  # past the calls at which compiled code tiers up
        x = jnp.full(64, float(k), jnp.float32)
        step(r, x)
        expected = expected * np.float32(0.5) + np.float32(k)
        expected[:4] += 1
    np.testing.assert_allclose(np.asarray(jax.freeze(r)), expected, rtol=1e-6)


def test_swap_with_used_old_value_prints_both_sides():
    def f(x):
        r = jax.new_ref(x)
        old = jax.ref.swap(r, 1, 7.0)
        return old
    text = str(jax.make_jaxpr(f)(jnp.arange(3.0)))
    assert "c:f32[], b[1] <- b[1], 7.0:f32[]" in text


def test_traced_ref_metadata():
    seen = {}

    def f(x):
        r = jax.new_ref(x)
        seen.update(shape=r.shape, dtype=r.dtype, n=len(r), aval=str(jax.typeof(r)))
        return r[...]
    jax.jit(f)(jnp.ones((2, 5)))
    assert seen == {"shape": (2, 5), "dtype": jnp.float32, "n": 2, "aval": "Ref{float32[2,5]}"}


def test_freeze_copies():
    r = jax.new_ref(jnp.arange(3.0))
    frozen = jax.freeze(r)
    r[0] = 9.0
    assert float(frozen[0]) == 0.0


def test_empty_ref_and_free_ref():
    r = jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.int32))
    assert str(jax.typeof(r)) == "Ref{int32[2]}"
    r[...] = jnp.array([1, 2], jnp.int32)
    assert r[1] == 2
    jax.free_ref(r)


def test_reverse_mode_is_declared_not_implemented():
    def g(x):
        r = jax.new_ref(x)
        r[...] = r[...] * x
        return jax.freeze(r)
    with pytest.raises(NotImplementedError, match="mutable array references"):
        jax.grad(g)(1.0)


def test_batched_indices_are_declared_not_implemented():
    def g(i):
        r = jax.new_ref(jnp.arange(4.0))
        return r[i]
    with pytest.raises(NotImplementedError, match="batched indices"):
        jax.vmap(g)(jnp.arange(2))


def test_writes_survive_dead_code_elimination_under_jit_of_grad_free_programs():
    def f(x):
        r = jax.new_ref(x)
        r[0] = 3.0  # no output depends on the swap's result: its effect keeps it
        return jax.freeze(r)
    assert jax.jit(f)(jnp.zeros(2)).tolist() == [3.0, 0.0]
