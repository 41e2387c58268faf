"""Tokens (issue 24): `lax.create_token`, `lax.after_all`, their primitives
and the token type, eagerly, under jit, vmap and autodiff. The jaxprs and
messages JAX 0.11 prints are golden programs (`token_*` in
tests/golden/programs_debugging.py); these tests cover what the goldens
cannot: types, compiled calls, the backends' tables."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.extend.core import AbstractToken, Token
from pyjax.extend.core import primitives


def test_names_and_primitives():
    assert primitives.create_token_p is lax.create_token_p
    assert primitives.after_all_p is lax.after_all_p
    assert lax.create_token_p.name == "create_token" and lax.after_all_p.name == "after_all"


def test_eager_tokens_are_tokens_not_arrays():
    t = lax.create_token()
    assert type(t) is Token and type(lax.after_all(t, t)) is Token
    assert not isinstance(t, jax.Array)
    assert isinstance(jax.typeof(t), AbstractToken) and repr(jax.typeof(t)) == "AbstractToken()"
    assert jax.typeof(t).str_short() == "Tok"
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        lax.after_all(t, jnp.ones(2))


def test_jit_takes_and_returns_tokens():
    calls = []

    @jax.jit
    def f(t, x):
        calls.append(1)
        return lax.after_all(t, lax.create_token()), x * 2

    t = lax.create_token()
    for _ in range(2):
        tok, y = f(t, 3.0)
        assert type(tok) is Token and float(y) == 6.0
    assert len(calls) == 1  # (a token argument keys the cache like any aval)
    out = jax.jit(lambda t: t)(t)
    assert type(out) is Token


def test_token_results_of_eager_control_flow_calls_are_tokens():
    # A jit called eagerly under vmap runs as an eager jit equation.
    x, tok = jax.vmap(jax.jit(lambda x: (x * 2, lax.create_token(x))), out_axes=(0, None))(jnp.ones(3))
    assert type(tok) is Token and np.array_equal(x, [2, 2, 2])


def test_vmap_leaves_tokens_unmapped():
    t = lax.create_token()
    f = jax.vmap(lambda x, t: (x * 2.0, lax.after_all(t)), in_axes=(0, None), out_axes=(0, None))
    y, tok = f(jnp.ones(3), t)
    assert type(tok) is Token and np.array_equal(y, [2, 2, 2])
    with pytest.raises(TypeError, match="vmap cannot give a token a batch axis"):
        jax.vmap(lambda x: (x, lax.create_token()))(jnp.ones(3))


def test_autodiff_through_token_programs():
    f = lambda x, t: (lax.after_all(t, lax.create_token(x)), jnp.sin(x))  # noqa: E731
    t = lax.create_token()
    assert float(jax.grad(lambda x: f(x, t)[1])(1.0)) == pytest.approx(np.cos(1.0))
    # Beyond JAX (a KeyError there): a token output's tangent is a zero of float0.
    (tok, y), (dtok, dy) = jax.jvp(lambda x: f(x, t), (1.0,), (1.0,))
    assert type(tok) is Token and dtok.dtype == jax.dtypes.float0
    tok2, y2 = jax.vjp(lambda x: f(x, t), 1.0)[0]
    assert type(tok2) is Token


def test_tokens_in_loops_under_jit():
    def f(t, n):
        return lax.while_loop(lambda c: c[1] < n, lambda c: (lax.after_all(c[0]), c[1] + 1), (t, 0))

    tok, i = jax.jit(f)(lax.create_token(), 4)
    assert type(tok) is Token and int(i) == 4


def test_unused_token_is_dead_code_in_compiled_code():
    jaxpr = jax.jit(lambda x: (lax.create_token(), x + 1)[1]).trace(1.0).jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == ["create_token", "add"]  # JAX keeps it in the trace
    from pyjax._src.interpreters.dce import dce_jaxpr

    assert [e.primitive.name for e in dce_jaxpr(jaxpr.jaxpr, [True])[0].eqns] == ["add"]


def test_backend_tables_cover_tokens():
    from pyjax.tools.coverage import lowering_cell, lowering_reasons, sharding_cell

    for p in (lax.create_token_p, lax.after_all_p):  # (StableHLO: the !stablehlo.token ops, rules/calls.py)
        assert sharding_cell(p) == "rule" and lowering_cell(p) == "rule"
        assert p.name not in lowering_reasons()
