"""Common subexpressions computed once (xla/rewrite.py `_common_subexpressions`,
XLA's CSE): the same bits, repeated autodiff masks and solves merged, program
outputs and effects left alone."""

from __future__ import annotations

import numpy as np

import pyjax
import pyjax.numpy as jnp
import pyjax.scipy.linalg as sl
from pyjax._src.backends.numpy.xla import rewrite


def _source(f, *args):
    return pyjax.jit(f).lower(*args).compile().as_text("python")


def _without_cse(f, args, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(rewrite, "_common_subexpressions", lambda eqns, outvars: eqns)
        pyjax.clear_caches()
        return [np.asarray(v) for v in pyjax.tree.leaves(pyjax.jit(f)(*args))], _source(f, *args)


def test_repeated_work_is_computed_once(monkeypatch):
    x = jnp.asarray(np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32))

    def f(x):
        return jnp.sin(x) * 2.0 + jnp.sin(x) @ jnp.ones((7, 7)) * jnp.exp(x) + jnp.exp(x)

    pyjax.clear_caches()
    got = [np.asarray(v) for v in pyjax.tree.leaves(pyjax.jit(f)(x))]
    merged = _source(f, x)
    want, unmerged = _without_cse(f, (x,), monkeypatch)
    assert merged.count("sin") == 1 and unmerged.count("sin") == 2
    assert merged.count("exp") < unmerged.count("exp")
    assert [g.tobytes() for g in got] == [w.tobytes() for w in want]


def test_gp_gradient_solves_and_masks_once(monkeypatch):
    # The suite's GP likelihood: autodiff repeats a triangular solve and the
    # triangle masks (iota, add, compare) of every Cholesky/solve transpose.
    n = 16
    rng = np.random.default_rng(1)
    X = jnp.asarray(rng.uniform(-2, 2, (n, 3)).astype(np.float32))
    y = jnp.asarray(rng.standard_normal(n).astype(np.float32))

    def nll(theta, X, y):
        d2 = jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        K = jnp.exp(theta[1]) * jnp.exp(-0.5 * d2 / jnp.exp(theta[0]) ** 2) + 0.1 * jnp.eye(n)
        L = sl.cholesky(K, lower=True)
        alpha = sl.solve_triangular(L.T, sl.solve_triangular(L, y, lower=True), lower=False)
        return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(L)))

    f = pyjax.value_and_grad(nll)
    theta = jnp.asarray(np.array([0.1, -0.2], np.float32))
    pyjax.clear_caches()
    got = [np.asarray(v) for v in pyjax.tree.leaves(pyjax.jit(f)(theta, X, y))]
    merged = _source(f, theta, X, y)
    want, unmerged = _without_cse(f, (theta, X, y), monkeypatch)
    assert merged.count("_triangular_solve") < unmerged.count("_triangular_solve")
    assert merged.count("_iota") < unmerged.count("_iota")
    assert [g.tobytes() for g in got] == [w.tobytes() for w in want]


def test_outputs_stay_distinct_buffers():
    x = jnp.arange(6.0, dtype=jnp.float32)
    a, b = pyjax.jit(lambda x: (jnp.sin(x), jnp.sin(x)))(x)
    assert not np.shares_memory(np.asarray(a), np.asarray(b))
    assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_effects_are_not_merged():
    seen = []

    def note(v):
        seen.append(1)

    def f(x):
        pyjax.debug.callback(note, x)
        pyjax.debug.callback(note, x)  # (the same equation twice)
        return x + 1

    pyjax.jit(f)(jnp.float32(1.0)).block_until_ready()
    assert len(seen) == 2


def test_a_stateful_generator_draws_anew():
    # rng_uniform is XLA's stateful generator (declared `stateful`): two equal
    # draws are two draws, directly or inside equal calls.
    from pyjax import lax

    draw = pyjax.jit(lambda: lax.rng_uniform(0.0, 1.0, (16,)))
    outs = pyjax.jit(lambda: (lax.rng_uniform(0.0, 1.0, (16,)) * 2, lax.rng_uniform(0.0, 1.0, (16,)) * 2,
                              draw() * 2, draw() * 2))()
    values = [np.asarray(v).tobytes() for v in outs]
    assert len(set(values)) == 4
