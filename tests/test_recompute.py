"""interpreters/recompute.py (the NumPy rows tier's `prepare`): cheap
elementwise values read past a barrier are recomputed there from operands
live there anyway; nothing else moves."""

from __future__ import annotations

import numpy as np

import pyjax
import pyjax.numpy as jnp
from pyjax._src.interpreters.recompute import recompute_past_barriers
from pyjax._src.jaxpr import Literal, eval_jaxpr


def fusible(eqn):
    return eqn.primitive.name != "dot_general"


def sized(v):
    return v.aval.shape == (64, 32)


def _rewrite(f, *args):
    jaxpr = pyjax.make_jaxpr(f)(*args).jaxpr
    return jaxpr, recompute_past_barriers(jaxpr, fusible, sized)


def _names(jaxpr):
    return [e.primitive.name for e in jaxpr.eqns]


x, w = np.ones((64, 32), np.float32), np.ones((32, 32), np.float32)


def test_a_cheap_value_read_past_a_matmul_is_computed_again_there():
    def f(x, w):
        t = jnp.tanh(x)
        r = 1.0 - t           # cheap, read only after the matmul
        y = (t @ w) * r * t   # (the tanh is read after it anyway)
        return y

    before, after = _rewrite(f, x, w)
    assert _names(before) == ["tanh", "sub", "dot_general", "mul", "mul"]
    assert _names(after) == ["tanh", "dot_general", "sub", "mul", "mul"]
    sub = after.eqns[2]
    assert sub.invars[1] is after.eqns[0].outvars[0]  # from the tanh itself
    assert after.eqns[3].invars[1] is sub.outvars[0]


def test_operands_dead_there_are_recomputed_too_when_cheap():
    def f(x, w):
        c = 3.0 * (x * x)     # x * x is read by nothing after the matmul
        return (x @ w) * c + x

    _, after = _rewrite(f, x, w)
    assert _names(after) == ["dot_general", "mul", "mul", "mul", "add"]


def test_nothing_moves_past_an_expensive_operand_that_died():
    def f(x, w):
        r = jnp.exp(x) + 1.0  # the exp is not read after the matmul
        return (x @ w) * r

    before, after = _rewrite(f, x, w)
    assert after is before


def test_a_value_a_barrier_reads_stays_where_it_is():
    def f(x, w):
        h = x * 2.0           # the matmul reads it: stored anyway
        return (h @ w) * h

    before, after = _rewrite(f, x, w)
    assert after is before


def test_the_rewritten_program_computes_the_same_bits():
    def f(x, w):
        t = jnp.tanh(x)
        r, c = 1.0 - t, 3.0 * (x * x)
        return ((t @ w) * r * c).sum()

    xs = np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)
    before, after = _rewrite(f, xs, w)
    assert after is not before
    a = eval_jaxpr(before, [], xs, w)
    b = eval_jaxpr(after, [], xs, w)
    assert all(np.asarray(u).tobytes() == np.asarray(v).tobytes() for u, v in zip(a, b))


def test_each_segment_past_a_barrier_recomputes_its_own_copy():
    def f(x, w):
        t = jnp.tanh(x)
        r = 1.0 - t
        a = (t @ w) * r * t      # read past the first matmul
        return (a @ w) * r * t   # and past the second (the tanh too)

    _, after = _rewrite(f, x, w)
    assert _names(after) == ["tanh", "dot_general", "sub", "mul", "mul", "dot_general", "sub", "mul", "mul"]
    first, second = after.eqns[2], after.eqns[6]
    assert after.eqns[3].invars[1] is first.outvars[0] and after.eqns[7].invars[1] is second.outvars[0]


def test_nothing_is_recomputed_where_one_later_segment_cannot_be():
    def f(x, w):
        t = jnp.tanh(x)
        r = 1.0 - t
        a = (t @ w) * r * t      # the tanh is read here,
        return (a @ w) * r       # not here: r must be stored for this one anyway

    before, after = _rewrite(f, x, w)
    assert after is before


def test_an_output_is_never_recomputed():
    def f(x, w):
        r = x * 2.0
        return (x @ w) * r, r

    before, after = _rewrite(f, x, w)
    assert after is before


def test_random_programs_keep_their_values_and_their_order():
    # Random runs of elementwise equations with products between them: the
    # rewritten program defines every value before reading it and computes
    # the same bits, whether or not something moved (about a third move).
    import random

    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, lambda a, b: jnp.maximum(a, b),
           lambda a, b: jnp.where(a > b, a, b * 2.0), lambda a, b: jnp.tanh(a), lambda a, b: -a,
           lambda a, b: a * 3.0, lambda a, b: jnp.exp(a * 0.1)]
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 32)).astype(np.float32)
    ws = (rng.standard_normal((32, 32)) / 4).astype(np.float32)
    moved = 0
    for trial in range(150):
        r = random.Random(trial)

        def f(x, w):
            vals = [x]
            for _ in range(r.randint(4, 14)):
                if r.random() < 0.2:
                    vals.append(vals[r.randrange(len(vals))] @ w)
                else:
                    vals.append(ops[r.randrange(len(ops))](vals[r.randrange(len(vals))], vals[r.randrange(len(vals))]))
            return tuple(vals[-r.randint(1, 3):])

        before, after = _rewrite(f, xs, ws)
        moved += after is not before
        defined = set(after.invars)
        for eqn in after.eqns:
            assert all(type(v) is Literal or v in defined for v in eqn.invars)
            defined.update(eqn.outvars)
        for a, b in zip(eval_jaxpr(before, [], xs, ws), eval_jaxpr(after, [], xs, ws), strict=True):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    assert moved > 20
