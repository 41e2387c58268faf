"""custom_jvp and custom_vjp: values and derivatives (against finite
differences and closed forms), their compositions with jit/vmap/grad, the
staged equations, nondiff_argnums, symbolic zeros and JAX's errors."""

from functools import partial

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src.custom_derivatives import SymbolicZero, custom_vjp
from pyjax._src.custom_vjp import CustomVJPPrimal
from pyjax.test_util import check_grads

custom_vjp_public = getattr(jax, "custom_vjp", custom_vjp)


def prims(fun, *args):
    return [e.primitive.name for e in jax.make_jaxpr(fun)(*args).eqns]


# --- fixtures: a custom_jvp and a custom_vjp whose rules differ from the body
# (scaled by 10), so a test can tell which one was differentiated.


def make_jvp_fn():
    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        return f(x, y), 10.0 * (jnp.cos(x) * tx * y + jnp.sin(x) * ty)

    return f


def make_vjp_fn():
    @custom_vjp_public
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (10.0 * cos_x * g * y, 10.0 * sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    return f


def true_grads(x, y):
    return 10.0 * np.cos(x) * y, 10.0 * np.sin(x)


X = np.array([0.3, -1.2, 2.0], np.float32)
Y = np.array([1.5, 0.5, -2.0], np.float32)


# --- custom_jvp


def test_custom_jvp_rule_used_by_jvp_grad_and_linearize():
    f = make_jvp_fn()
    gx, gy = true_grads(1.0, 2.0)
    np.testing.assert_allclose(f(1.0, 2.0), np.sin(1.0) * 2.0, rtol=1e-6)
    _, t = jax.jvp(f, (1.0, 2.0), (1.0, 0.0))
    np.testing.assert_allclose(t, gx, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(f, argnums=(0, 1))(1.0, 2.0), (gx, gy), rtol=1e-6)
    _, f_lin = jax.linearize(f, 1.0, 2.0)
    np.testing.assert_allclose(f_lin(0.0, 1.0), gy, rtol=1e-6)


def test_custom_jvp_check_grads_with_true_rule():
    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))

    softplus.defjvps(lambda t, ans, x: t * jax.nn.sigmoid(x))
    check_grads(softplus, (X,), order=1, modes=["fwd", "rev"])
    check_grads(lambda x: jax.vmap(softplus)(x).sum(), (X,), order=1, modes=["rev"])


def test_custom_jvp_under_jit_vmap_and_their_compositions():
    f = make_jvp_fn()
    gx, _ = true_grads(X, Y)
    np.testing.assert_allclose(jax.jit(f)(X, Y), np.sin(X) * Y, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(X, Y), gx, rtol=1e-5)
    # grad outside the vmap must use the (batched) rule, not the body.
    np.testing.assert_allclose(jax.grad(lambda x: jax.vmap(f)(x, Y).sum())(X), gx, rtol=1e-5)
    np.testing.assert_allclose(jax.grad(lambda x: jax.jit(f)(x, Y).sum())(X), gx, rtol=1e-5)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda x: jax.vmap(f, in_axes=(0, None))(x, 2.0).sum()))(X),
                               10.0 * np.cos(X) * 2.0, rtol=1e-5)
    assert prims(jax.vmap(f), X, Y) == ["custom_jvp_call"]


def test_custom_jvp_vmap_in_axes_keeps_the_body_dims():
    f = make_jvp_fn()
    x2 = np.stack([X, X + 1.0])
    out = jax.vmap(f, in_axes=(1, None))(x2, 2.0)
    np.testing.assert_allclose(out, np.sin(x2.T) * 2.0, rtol=1e-6)
    g = jax.grad(lambda x: jax.vmap(f, in_axes=(1, None))(x, 2.0).sum())(x2)
    np.testing.assert_allclose(g, 10.0 * np.cos(x2) * 2.0, rtol=1e-5)


def test_custom_jvp_nondiff_argnums_kwargs_and_defaults():
    @partial(jax.custom_jvp, nondiff_argnums=(0,))
    def power(n, x, scale=1.0):
        return scale * x ** n

    @power.defjvp
    def power_jvp(n, primals, tangents):
        x, scale = primals
        tx, ts = tangents
        return power(n, x, scale), scale * n * x ** (n - 1) * tx + ts * x ** n

    assert float(jax.grad(lambda x: power(3, x))(2.0)) == 12.0
    assert float(jax.grad(lambda x: power(3, x, scale=2.0))(2.0)) == 24.0
    assert float(jax.grad(lambda s: power(2, 3.0, scale=s))(1.0)) == 9.0
    # The Python int stays static: the body sees integer_pow, not a traced pow.
    assert "integer_pow" in str(jax.make_jaxpr(lambda x: power(3, x))(1.0))


def test_custom_jvp_symbolic_zeros():
    seen = []

    @jax.custom_jvp
    def f(x, y):
        return x * y

    @partial(f.defjvp, symbolic_zeros=True)
    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        seen.append((type(tx) is SymbolicZero, type(ty) is SymbolicZero))
        out = tx * y if type(tx) is not SymbolicZero else SymbolicZero.from_primal_value(x * y)
        return f(x, y), out

    assert float(jax.grad(f)(3.0, 4.0)) == 4.0
    assert seen[-1] == (False, True)
    jax.jvp(f, (3.0, 4.0), (0.0, 1.0))
    assert seen[-1] == (False, False)


def test_custom_jvp_closed_over_values_become_operands():
    c = jnp.arange(3.0)

    @jax.custom_jvp
    def scale(x):
        return x * c

    scale.defjvp(lambda p, t: (scale(*p), 2.0 * t[0] * c))
    eqn = jax.make_jaxpr(scale)(jnp.ones(3)).eqns[0]
    assert eqn.params["num_consts"] == 1 and len(eqn.invars) == 2
    np.testing.assert_allclose(jax.grad(lambda x: scale(x).sum())(jnp.ones(3)), 2.0 * np.arange(3.0))


def test_custom_jvp_pytrees():
    @jax.custom_jvp
    def f(d):
        return {"s": jnp.sin(d["a"]), "p": d["a"] * d["b"]}

    @f.defjvp
    def f_jvp(p, t):
        (d,), (td,) = p, t
        return f(d), {"s": jnp.cos(d["a"]) * td["a"], "p": td["a"] * d["b"] + d["a"] * td["b"]}

    g = jax.grad(lambda d: sum(f(d).values()))({"a": 1.0, "b": 2.0})
    np.testing.assert_allclose([g["a"], g["b"]], [np.cos(1.0) + 2.0, 1.0], rtol=1e-6)


def test_custom_jvp_runs_on_the_numpy_jit_backend():
    f = make_jvp_fn()
    compiled = jax.jit(f).lower(X, Y).compile()
    np.testing.assert_allclose(compiled(X, Y), np.sin(X) * Y, rtol=1e-6)


@pytest.mark.parametrize("rule, error, match", [
    (lambda p, t: (1, 2, 3), TypeError, "must produce a pair"),
    (lambda p, t: (jnp.sin(p[0]), (t[0],)), TypeError, "equal container"),
    (lambda p, t: (jnp.sin(p[0]), jnp.ones(3)), TypeError, r"Expected float32\[\] \(tangent type of float32\[\]\) but got float32\[3\]"),
    (lambda p, t: (jnp.sin(p[0]), jnp.zeros((), jnp.float16)), TypeError, r"but got float16\[\]"),
])
def test_custom_jvp_rule_errors(rule, error, match):
    @jax.custom_jvp
    def h(x):
        return jnp.sin(x)

    h.defjvp(rule)
    with pytest.raises(error, match=match):
        jax.jvp(h, (1.0,), (1.0,))


def test_custom_jvp_missing_rule_and_unresolvable_kwargs():
    h = jax.custom_jvp(lambda x: x)
    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function <lambda> using defjvp."):
        h(1.0)

    def v(*args, **kwargs):
        return args[0]

    v = jax.custom_jvp(v)
    v.defjvp(lambda p, t: (p[0], t[0]))
    with pytest.raises(TypeError, match="could not be resolved to positions: z"):
        v(1.0, z=2.0)


# --- custom_vjp


def test_custom_vjp_plain_call_and_staged_equation():
    f = make_vjp_fn()
    np.testing.assert_allclose(f(X, Y), np.sin(X) * Y, rtol=1e-6)
    jaxpr = jax.make_jaxpr(f)(1.0, 2.0)
    (eqn,) = jaxpr.eqns
    assert eqn.primitive.name == "custom_vjp_call"
    assert "fwd=f_fwd" in str(jaxpr) and "bwd=f_bwd" in str(jaxpr)


def test_custom_vjp_grad_uses_bwd():
    f = make_vjp_fn()
    gx, gy = true_grads(1.0, 2.0)
    np.testing.assert_allclose(jax.grad(f, argnums=(0, 1))(1.0, 2.0), (gx, gy), rtol=1e-6)
    _, vjp_fun = jax.vjp(f, 1.0, 2.0)
    np.testing.assert_allclose(vjp_fun(1.0), (gx, gy), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(1.0, 2.0), gx, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.jit(f))(1.0, 2.0), gx, rtol=1e-6)


def test_custom_vjp_check_grads_with_true_rule():
    @custom_vjp_public
    def f(x):
        return jnp.sin(x) * x

    f.defvjp(lambda x: (f(x), x), lambda x, g: (g * (jnp.cos(x) * x + jnp.sin(x)),))
    check_grads(f, (X,), order=1, modes=["rev"])
    check_grads(lambda x: jax.vmap(f)(x), (X,), order=1, modes=["rev"])


def test_custom_vjp_under_vmap():
    f = make_vjp_fn()
    gx, gy = true_grads(X, Y)
    np.testing.assert_allclose(jax.vmap(f)(X, Y), np.sin(X) * Y, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(X, Y), gx, rtol=1e-5)
    np.testing.assert_allclose(jax.grad(lambda x: jax.vmap(f)(x, Y).sum())(X), gx, rtol=1e-5)
    # The cotangent of an unbatched input is summed over the batch.
    g = jax.grad(lambda y: jax.vmap(f, in_axes=(0, None))(X, y).sum())(2.0)
    np.testing.assert_allclose(g, gy.sum(), rtol=1e-5)
    assert prims(jax.vmap(f), X, Y) == ["custom_vjp_call"]


def test_custom_vjp_grad_of_grad_differentiates_bwd():
    @custom_vjp_public
    def s(x):
        return jnp.sin(x)

    s.defvjp(lambda x: (s(x), jnp.cos(x)), lambda c, g: (3.0 * c * g,))
    # d/dx [3 cos x] = -3 sin x: the outer grad differentiates fwd and bwd.
    np.testing.assert_allclose(jax.grad(jax.grad(s))(0.5), -3.0 * np.sin(0.5), rtol=1e-6)


def test_custom_vjp_nondiff_argnums_pytrees_and_none():
    @partial(custom_vjp_public, nondiff_argnums=(0,))
    def app(fn, d, s):
        return fn(d["a"]) * s + d["b"]

    def app_fwd(fn, d, s):
        return app(fn, d, s), (d["a"], s)

    def app_bwd(fn, res, g):
        _, s = res
        return {"a": 7.0 * g * s, "b": None}, None

    app.defvjp(app_fwd, app_bwd)
    g = jax.grad(lambda d, s: app(jnp.sin, d, s), argnums=(0, 1))({"a": 1.0, "b": 2.0}, 3.0)
    assert float(g[0]["a"]) == 21.0 and float(g[0]["b"]) == 0.0 and float(g[1]) == 0.0


def test_custom_vjp_symbolic_zeros():
    seen = []

    @custom_vjp_public
    def m(x, y):
        return x * y, x + y

    def m_fwd(x, y):
        seen.append((type(x) is CustomVJPPrimal, x.perturbed, y.perturbed))
        return m(x.value, y.value), (x.value, y.value)

    def m_bwd(res, g):
        x, y = res
        g1, g2 = g
        seen.append(type(g2) is SymbolicZero)
        return g1 * y, g1 * x

    m.defvjp(m_fwd, m_bwd, symbolic_zeros=True)
    assert float(jax.grad(lambda x: m(x, 4.0)[0])(3.0)) == 4.0
    assert seen == [(True, True, False), True]


def test_custom_vjp_runs_on_the_numpy_jit_backend():
    f = make_vjp_fn()
    np.testing.assert_allclose(jax.jit(f)(X, Y), np.sin(X) * Y, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(X, Y), np.sin(X) * Y, rtol=1e-6)


def test_custom_vjp_forward_mode_raises():
    f = make_vjp_fn()
    msg = r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function."
    with pytest.raises(TypeError, match=msg):
        jax.jvp(f, (1.0, 2.0), (1.0, 1.0))
    with pytest.raises(TypeError, match=msg):
        jax.jit(lambda x, y: jax.jvp(f, (x, y), (x, y)))(1.0, 2.0)
    _, f_lin = jax.linearize(f, 1.0, 2.0)
    with pytest.raises(TypeError, match=msg):
        f_lin(1.0, 1.0)


@pytest.mark.parametrize("bwd, error, match", [
    (lambda r, g: (g,), TypeError, (r"bwd output structure PyTreeDef\(\(\*,\)\) for primal input structure "
                                    r"PyTreeDef\(\(\*, \*\)\)")),
    (lambda r, g: g, TypeError, "must produce an output with the same container"),
    (lambda r, g: (jnp.ones(3), g), ValueError, (r"at output\[0\] the bwd rule produced an output of type "
                                                 r"float32\[3\] corresponding to an input of type float32\[\], "
                                                 "so the shapes do not match")),
])
def test_custom_vjp_bwd_errors(bwd, error, match):
    @custom_vjp_public
    def m(x, y):
        return x * y

    m.defvjp(lambda x, y: (m(x, y), (x, y)), bwd)
    with pytest.raises(error, match=match):
        jax.grad(m)(1.0, 2.0)


def test_custom_vjp_fwd_and_definition_errors():
    m = custom_vjp_public(lambda x: x)
    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function <lambda> using defvjp."):
        jax.make_jaxpr(m)(1.0)
    m.defvjp(lambda x: x, lambda r, g: (g,))
    with pytest.raises(TypeError, match="must produce a pair"):
        jax.grad(m)(1.0)

    @partial(custom_vjp_public, nondiff_argnums=(1,))
    def h(x, n):
        return x * n

    h.defvjp(lambda x, n: (h(x, n), None), lambda n, r, g: (g * n,))
    with pytest.raises(jax.errors.UnexpectedTracerError, match="nondiff_argnums"):
        jax.grad(lambda x: h(x, x))(2.0)
    assert float(jax.grad(lambda x: h(x, 3.0))(2.0)) == 3.0
