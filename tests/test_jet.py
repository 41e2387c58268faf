"""jax.experimental.jet: Taylor-mode autodiff against repeated forward mode,
its composition with jit/vmap/grad, its rule helpers and its errors (the
values JAX 0.11 gives are in tests/golden/programs_jet.py)."""

import math

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.experimental import jet as jet_module
from pyjax.experimental.jet import jet, jet2

UNARY = [
    ("sin", jnp.sin), ("cos", jnp.cos), ("tanh", jnp.tanh), ("exp", lambda v: jnp.exp(0.5 * v)),
    ("logistic", lax.logistic), ("square", lambda v: v * v), ("log", lambda v: jnp.log(1. + v * v)),
    ("sqrt", lambda v: jnp.sqrt(1. + v * v)), ("erf", lax.erf), ("sinh", lambda v: jnp.sinh(0.5 * v)),
    ("rsqrt", lambda v: lax.rsqrt(2. + jnp.cos(v))), ("div", lambda v: 1. / (2. + jnp.sin(v))),
    ("pow", lambda v: (1.5 + jnp.cos(v)) ** 1.3), ("cube", lambda v: v ** 3), ("log1p", lambda v: jnp.log1p(v * v)),
    ("atan2", lambda v: jnp.arctan2(v, 2. + jnp.cos(v))), ("expm1", lambda v: jnp.expm1(0.3 * v)),
]


def random_function(seed: int):
    """A random composition of unary ops, sums and products (smooth everywhere)."""
    rng = np.random.default_rng(seed)

    def build(depth):
        if depth == 0:
            return lambda v: v
        kind = rng.integers(3)
        if kind == 0:
            op = UNARY[rng.integers(len(UNARY))][1]
            inner = build(depth - 1)
            return lambda v: op(inner(v))
        a, b = build(depth - 1), build(depth - 1)
        if kind == 1:
            c = float(rng.uniform(-1, 1))
            return lambda v: a(v) + c * b(v)
        return lambda v: a(v) * b(v)

    return build(3)


def nested_derivatives(g, t0, order):
    """[g(t0), g'(t0), ..., g^(order)(t0)] by repeated jvp."""
    derivs = [g]
    for _ in range(order):
        prev = derivs[-1]
        derivs.append(lambda t, prev=prev: jax.jvp(prev, (t,), (jnp.ones_like(t),))[1])
    return [d(t0) for d in derivs]


@pytest.mark.parametrize("seed", range(12))
def test_jet_along_a_line_matches_repeated_jvp(seed):
    f = random_function(seed)
    x = jnp.array([0.3, -0.6, 1.1], jnp.float32)
    v = jnp.array([1.0, 0.5, -0.8], jnp.float32)
    order = 4
    primal, terms = jet(f, (x,), ((v,) + (jnp.zeros(3),) * (order - 1),))
    expected = nested_derivatives(lambda t: f(x + t * v), jnp.zeros(3), order)
    np.testing.assert_allclose(primal, expected[0], rtol=1e-5, atol=1e-5)
    for k in range(order):
        scale = 1 + float(jnp.max(jnp.abs(expected[k + 1])))
        np.testing.assert_allclose(terms[k], expected[k + 1], rtol=2e-3, atol=2e-3 * scale)


@pytest.mark.parametrize("seed", range(12, 18))
def test_jet_along_a_curve_is_faa_di_bruno(seed):
    # Input series (h1, h2, h3) are the derivatives of h(t) = x + t a + t^2 b / 2 + t^3 c / 6.
    f = random_function(seed)
    x, a = jnp.array([0.2, -0.4]), jnp.array([0.7, 1.0])
    b, c = jnp.array([-0.5, 0.3]), jnp.array([0.25, -0.6])
    h = lambda t: x + t * a + t * t * b / 2 + t ** 3 * c / 6
    _, terms = jet(f, (x,), ((a, b, c),))
    expected = nested_derivatives(lambda t: f(h(t)), jnp.zeros(2), 3)
    for k in range(3):
        scale = 1 + float(jnp.max(jnp.abs(expected[k + 1])))
        np.testing.assert_allclose(terms[k], expected[k + 1], rtol=2e-3, atol=2e-3 * scale)


@pytest.mark.parametrize("name,fun", UNARY, ids=[n for n, _ in UNARY])
def test_each_rule_matches_repeated_jvp(name, fun):
    x = jnp.array([0.4, -0.7], jnp.float32)
    primal, terms = jet(fun, (x,), ((jnp.ones(2), jnp.zeros(2), jnp.zeros(2)),))
    expected = nested_derivatives(lambda t: fun(x + t), jnp.zeros(2), 3)
    np.testing.assert_allclose(primal, expected[0], rtol=1e-6)
    for k in range(3):
        np.testing.assert_allclose(terms[k], expected[k + 1], rtol=1e-3, atol=1e-4)


def test_unscaled_series_are_taylor_coefficients():
    x, s = jnp.array([0.3, 0.8]), (jnp.ones(2), jnp.full(2, 0.5), jnp.full(2, -0.25))
    _, scaled = jet(jnp.exp, (x,), (s,))
    _, plain = jet2(jnp.exp, (x,), ([t / math.factorial(k + 1) for k, t in enumerate(s)],))
    for k in range(3):
        np.testing.assert_allclose(plain[k] * math.factorial(k + 1), scaled[k], rtol=1e-5)


def test_bilinear_and_reduction_rules():
    W = jnp.array([[0.5, -1.0], [2.0, 0.1], [0.3, 0.3]])
    f = lambda v: jnp.sum(jnp.tanh(W @ v) * jnp.max(v))
    x, v = jnp.array([0.3, 0.9]), jnp.array([1.0, -0.5])
    _, terms = jet(f, (x,), ((v, jnp.zeros(2), jnp.zeros(2)),))
    expected = nested_derivatives(lambda t: f(x + t * v), 0., 3)
    np.testing.assert_allclose(jnp.stack(terms), jnp.stack(expected[1:]), rtol=1e-4, atol=1e-5)


def test_jit_body_is_jetted_as_one_jit_equation():
    f = jax.jit(lambda v: jnp.exp(v) * jnp.cos(v))
    x, s = jnp.array([0.1, 0.5]), (jnp.ones(2), jnp.zeros(2), jnp.zeros(2))
    jitted = jet(f, (x,), (s,))
    plain = jet(lambda v: jnp.exp(v) * jnp.cos(v), (x,), (s,))
    np.testing.assert_allclose(jnp.stack(jitted[1]), jnp.stack(plain[1]), rtol=1e-6)
    jaxpr = jax.make_jaxpr(lambda v, t: jet(f, (v,), ((t, t, t),)))(x, x).jaxpr
    calls = [e for e in jaxpr.eqns if e.primitive.name == "jit"]
    assert len(calls) == 1 and len(calls[0].invars) == 4 and len(calls[0].outvars) == 4
    assert calls[0].params["donated_invars"] == (False,) * 4


def test_vmap_and_jit_of_jet():
    f = lambda v, t: jet(jnp.sin, (v,), ((t, jnp.zeros_like(t)),))
    x, t = jnp.array([0.2, 0.4, 0.6]), jnp.array([1., 2., 3.])
    p, (t1, t2) = jax.vmap(f)(x, t)
    np.testing.assert_allclose(t1, jnp.cos(x) * t, rtol=1e-6)
    np.testing.assert_allclose(t2, -jnp.sin(x) * t * t, rtol=1e-5)
    pj, (tj1, tj2) = jax.jit(f)(x, t)
    np.testing.assert_allclose(tj2, t2, rtol=1e-6)


def test_custom_jvp_and_custom_vjp_run_their_bodies():
    # jet ignores custom rules (JAX's intent; JAX 0.11 itself leaks a tracer here).
    @jax.custom_jvp
    def f(v):
        return jnp.sin(v)

    f.defjvp(lambda p, t: (f(p[0]), 100. * t[0]))

    @jax.custom_vjp
    def g(v):
        return jnp.exp(v)

    g.defvjp(lambda v: (g(v), v), lambda r, ct: (100. * ct,))
    x, s = jnp.array([0.3]), (jnp.ones(1), jnp.zeros(1))
    np.testing.assert_allclose(jet(f, (x,), (s,))[1][1], -jnp.sin(x), rtol=1e-6)
    np.testing.assert_allclose(jet(g, (x,), (s,))[1][1], jnp.exp(x), rtol=1e-6)


def test_missing_rule_raises_keyerror_naming_the_primitive():
    with pytest.raises(KeyError, match="tan"):
        jet(jnp.tan, (jnp.ones(2),), ((jnp.ones(2),),))
    with pytest.raises(KeyError, match="scan"):  # (a fori_loop of fixed trip count is a scan)
        jet(lambda v: lax.fori_loop(0, 2, lambda i, c: c * v, v), (jnp.ones(2),), ((jnp.ones(2),),))
    # Explicit zero terms are live series: the rule is still needed.
    with pytest.raises(KeyError, match="tan"):
        jet(lambda a, b: jnp.tan(b) + a, (1., 0.5), ((1.,), (0.,)))
    # A value with no series (a constant) is bound as it is: no rule needed.
    out, terms = jet(lambda a: jnp.tan(jnp.float32(0.5)) + a, (1.,), ((1.,),))
    np.testing.assert_allclose(terms[0], 1.0)


def test_ill_formed_series():
    with pytest.raises(ValueError, match="inconsistent lengths"):
        jet(jnp.multiply, (1., 2.), ((1.,), (1., 2.)))
    with pytest.raises(ValueError, match="primal value at position 0 is not an array"):
        jet(lambda p: p[0], ((1., 2.),), ((1.,),))
    with pytest.raises(ValueError, match="term 0 for argument 0 is not an array"):
        jet(jnp.sin, (1.,), (((1., 2.),),))


def test_rule_helpers_register_rules_for_new_primitives():
    from pyjax.extend.core import Primitive

    cube_p = Primitive("test_jet_cube")
    cube_p.def_impl(lambda v: v ** 3)
    cube_p.def_abstract_eval(lambda a: a)
    x = jnp.array([0.5])
    with pytest.raises(KeyError):
        jet(cube_p.bind, (x,), ((jnp.ones(1),),))
    jet_module.def_comp(cube_p, lambda v: v * v * v)
    _, terms = jet(cube_p.bind, (x,), ((jnp.ones(1), jnp.zeros(1)),))
    np.testing.assert_allclose(terms[1], 6 * x, rtol=1e-6)
    jet_module.def_deriv(cube_p, lambda v: 3. * v * v)
    _, terms = jet(cube_p.bind, (x,), ((jnp.ones(1), jnp.zeros(1)),))
    np.testing.assert_allclose(terms[1], 6 * x, rtol=1e-6)
    jet_module.deflinear(cube_p)  # (a false claim, to see the linear rule)
    _, terms = jet(cube_p.bind, (x,), ((jnp.ones(1),),))
    np.testing.assert_allclose(terms[0], 1.0)
    jet_module.defzero(cube_p)
    _, terms = jet(cube_p.bind, (x,), ((jnp.ones(1),),))
    np.testing.assert_allclose(terms[0], 0.0)
    del jet_module.jet_rules[cube_p]


def test_module_names_and_pytrees():
    from pyjax._src import core
    from pyjax.tree_util import tree_flatten

    assert issubclass(jet_module.JetTracer, core.Tracer) and issubclass(jet_module.JetTrace, core.Trace)
    assert tree_flatten(jet_module.zero_series)[0] == [] and tree_flatten(jet_module.zero_term)[0] == []
    assert isinstance(jet_module.zero_series, jet_module.ZeroSeries)
    np.testing.assert_allclose(jet_module.fact(4), 24.0, rtol=1e-6)
    seen = []

    def spy(v):
        seen.append(type(v).__name__)
        return jnp.sin(v)

    jet(spy, (1.,), ((1.,),))
    assert seen == ["JetTracer"]


def test_constant_and_integer_outputs_get_zero_terms():
    out, terms = jet(lambda v: (jnp.float32(3.), v.astype(jnp.int32)), (1.5,), ((1., 2.),))
    assert float(terms[0][0]) == 0.0 and float(terms[0][1]) == 0.0
    assert len(terms[1]) == 2
