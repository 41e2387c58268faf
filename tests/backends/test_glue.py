"""Runs of small-value equations amid a large program as native programs (native/glue.py)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

rng = np.random.default_rng(7)


def arr(*shape, dtype=np.float32):
    return jnp.asarray(rng.standard_normal(shape).astype(dtype))


def natives():
    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop)]


def log_softmax(x):
    m = jnp.max(x, axis=-1, keepdims=True)
    s = x - m
    return s - jnp.log(jnp.sum(jnp.exp(s), axis=-1, keepdims=True))


def train_step(params, x, y):
    # A network whose products and activations are large (128 x 512 float32:
    # 256 KB) and whose loss over ten classes is some forty small equations.
    def loss(params):
        w1, w2, b2 = params
        h = jnp.maximum(x @ w1, 0.0)
        logits = h @ w2 + b2
        onehot = (y[:, None] == jnp.arange(10)[None, :]).astype(jnp.float32)
        return -jnp.mean(jnp.sum(onehot * log_softmax(logits), axis=-1))

    value, grads = pyjax.value_and_grad(loss)(params)
    return value, tuple(p - 0.1 * g for p, g in zip(params, grads))


def step_inputs():
    params = (arr(64, 512) * 0.1, arr(512, 10) * 0.05, arr(10))
    return params, arr(128, 64), jnp.asarray(rng.integers(0, 10, 128).astype(np.int32))


def python_outputs(f, *args, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        return [np.asarray(leaf) for leaf in pyjax.tree.leaves(pyjax.jit(f)(*args))]


def test_a_loss_amid_large_products_runs_as_native_programs_bitwise(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    params, x, y = step_inputs()
    text = pyjax.jit(train_step).lower(params, x, y).as_text("python")
    assert "_native_glue" in text and "equations on small values" in text
    assert "_native_program" not in text  # (a product of 256 KB: no program tier for the whole)
    before = {id(o) for o in natives()}
    f = pyjax.jit(lambda *a: train_step(*a))
    outs = [f(params, x, y) for _ in range(3)]  # the checked call, then native
    made = [o for o in natives() if id(o) not in before and o.kind == "program"]
    assert made and all(o.live for o in made), [o.failure for o in made]
    assert max(o.steps_per_call for o in made) >= 30  # the loss and its gradient: one program
    want = python_outputs(train_step, params, x, y, monkeypatch=monkeypatch)
    for out in outs:
        assert [np.asarray(leaf).tobytes() for leaf in pyjax.tree.leaves(out)] == [w.tobytes() for w in want]


def test_a_run_of_small_values_stops_at_a_large_one(monkeypatch):
    # The large product splits the small equations into two runs: the one
    # before it (a scale's arithmetic) and the one after (a sum's).
    def f(s, x, w):
        t = jnp.tanh(s) * 2.0 + jnp.sin(s) - 1.0
        big = (x * t[0]) @ w
        v = jnp.sum(big, axis=0)[:8]
        return jnp.exp(v) * 3.0 + jnp.cos(v) - v * v

    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    args = (arr(8), arr(256, 128), arr(128, 256))
    text = pyjax.jit(f).lower(*args).as_text("python")
    assert text.count("equations on small values") == 2
    before = {id(o) for o in natives()}
    jf = pyjax.jit(lambda *a: f(*a))
    got = [np.asarray(jf(*args)) for _ in range(3)]
    made = [o for o in natives() if id(o) not in before]
    assert len(made) == 2 and all(o.live for o in made), [o.failure for o in made]
    (want,) = python_outputs(f, *args, monkeypatch=monkeypatch)
    assert all(g.tobytes() == want.tobytes() for g in got)


def test_small_programs_stay_with_the_program_tier_and_short_runs_with_python():
    # Every value small: the program tier takes the whole; no glue inside.
    small = pyjax.jit(lambda x: jnp.tanh(x) * 2.0 + jnp.sin(x) - 1.0).lower(arr(16)).as_text("python")
    assert "_native_glue" not in small
    # Fewer than MIN_EQNS (3) calls after the large values: left to NumPy;
    # one more, and they are a glue program.
    args = (arr(256, 128), arr(128, 256))
    short = pyjax.jit(lambda x, w: jnp.tanh(jnp.sum(x @ w, axis=0)) * 2.0).lower(*args)
    assert "_native_glue" not in short.as_text("python")
    longer = pyjax.jit(lambda x, w: jnp.tanh(jnp.sum(x @ w, axis=0)) * 2.0 + 1.0).lower(*args)
    assert "3 equations on small values" in longer.as_text("python")


def test_a_glue_program_wrong_on_a_recheck_is_dropped_and_the_python_code_stays(monkeypatch):
    # A live glue program re-checked on call 2 against the Python code: a
    # difference drops it, and the calls after return the Python code's bits.
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    params, x, y = step_inputs()
    before = {id(o) for o in natives()}
    f = pyjax.jit(lambda *a: train_step(*a))
    f(params, x, y)
    made = [o for o in natives() if id(o) not in before and o.kind == "program"]
    assert made and all(o.live for o in made)
    tier = max(made, key=lambda o: o.steps_per_call)
    real = tier._run

    def wrong(inputs):
        outs = real(inputs)
        outs[0] = outs[0] + 1.0
        return outs

    # (A re-check runs the native code through `_run`, as a live call
    # through ctypes does; through native_call.c a live call does not.)
    monkeypatch.setattr(tier, "_run", wrong)
    for _ in range(3):  # calls 2..4: 2 re-checked
        got = f(params, x, y)
    assert tier.dead and "differ" in tier.failure
    want = python_outputs(train_step, params, x, y, monkeypatch=monkeypatch)
    assert [np.asarray(leaf).tobytes() for leaf in pyjax.tree.leaves(got)] == [w.tobytes() for w in want]
