"""What pyjax shows for rbg/unsafe_rbg keys and lax.rng_bit_generator, and
the errors it raises, against JAX 0.11.0 (tests/golden/rbg_texts.json, from
tests/golden/record_rbg_texts.py): jaxpr text, reprs, dtype names,
key_impl answers, error classes and messages. Plus what no recording can
show: the JAX_DEFAULT_PRNG_IMPL variable, pickled keys, the impl objects."""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax, random

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
_spec = importlib.util.spec_from_file_location("record_rbg_texts", GOLDEN / "record_rbg_texts.py")
cases_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases_module)
RECORDED = json.loads((GOLDEN / "rbg_texts.json").read_text(encoding="utf-8"))["cases"]
NAMESPACE = {"jax": jax, "jnp": jnp, "lax": lax, "random": random, "np": np}


def _message(text: str) -> str:
    # A PRNGImpl's repr names its functions and their addresses: JAX's and
    # pyjax's differ there, so the message is compared up to it.
    return text.split(" for impl=PRNGImpl(")[0]


@pytest.mark.parametrize("name", sorted(cases_module.CASES))
def test_matches_jax(name):
    expr, record = cases_module.CASES[name], RECORDED[name]
    assert record["expr"] == expr, "stale recording: re-run record_rbg_texts.py"
    if "error" in record:
        with pytest.raises(Exception) as info:
            eval(expr, NAMESPACE)
        assert type(info.value).__name__ == record["error"]
        assert _message(str(info.value)) == _message(record["message"])
        return
    assert str(eval(expr, NAMESPACE)) == record["text"]


def test_every_recorded_case_is_listed():
    assert set(RECORDED) == set(cases_module.CASES)


def test_bad_generator_state_is_refused_clearly():
    # JAX fails an assertion in its lowering; pyjax names the problem.
    for key in (np.zeros(3, np.uint32), np.zeros(4, np.int32), np.zeros((2, 4), np.uint32)):
        with pytest.raises(TypeError, match=r"the key \(generator state\) must be a uint32\[4\] or uint64\[2\]"):
            lax.rng_bit_generator(key, (3,))
    with pytest.raises(TypeError, match="algorithm must be a lax.RandomAlgorithm"):
        lax.rng_bit_generator(np.zeros(4, np.uint32), (3,), algorithm=5)
    with pytest.raises(TypeError, match="nonnegative"):
        lax.rng_bit_generator(np.zeros(4, np.uint32), (-1,))


def test_default_impl_from_the_environment():
    code = ("import pyjax as jax; from pyjax import random; k = random.PRNGKey(3); "
            "print(k.shape, random.key(1).dtype, random.key_data(random.split(random.key(1))).tolist())")
    env = {**os.environ, "JAX_DEFAULT_PRNG_IMPL": "unsafe_rbg"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    with _impl("unsafe_rbg"):
        want = f"(4,) key<urbg> {random.key_data(random.split(random.key(1))).tolist()}"
    assert out.strip() == want


class _impl:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.previous = jax.config.jax_default_prng_impl
        jax.config.update("jax_default_prng_impl", self.name)

    def __exit__(self, *exc):
        jax.config.update("jax_default_prng_impl", self.previous)


@pytest.mark.parametrize("impl", ["rbg", "unsafe_rbg"])
def test_keys_pickle_and_keep_their_impl(impl):
    keys = random.split(random.key(5, impl=impl), 3)
    back = pickle.loads(pickle.dumps(keys))
    assert back.dtype == keys.dtype and str(back.dtype) == str(keys.dtype)
    assert (random.key_data(back) == random.key_data(keys)).all()
    assert random.key_impl(back) == impl
    np.testing.assert_array_equal(random.bits(back[1], (4,)), random.bits(keys[1], (4,)))


def test_impl_objects_name_themselves():
    from pyjax._src.random.rbg import rbg_prng_impl, unsafe_rbg_prng_impl
    from pyjax._src.random.threefry import threefry_prng_impl

    assert (str(rbg_prng_impl), str(unsafe_rbg_prng_impl), str(threefry_prng_impl)) == ("rbg", "urbg", "fry")
    assert rbg_prng_impl.key_shape == unsafe_rbg_prng_impl.key_shape == (4,)
    # An impl object names its PRNG as well as its name does.
    k = random.key(4, impl=unsafe_rbg_prng_impl)
    assert k.dtype == random.key(4, impl="unsafe_rbg").dtype
    assert (random.key_data(k) == random.key_data(random.key(4, impl="unsafe_rbg"))).all()


def test_jit_retraces_when_the_default_impl_changes():
    f = jax.jit(lambda s: random.key_data(random.key(s)))
    assert f(1).shape == (2,)
    with _impl("rbg"):
        assert f(1).shape == (4,)
    assert f(1).shape == (2,)
