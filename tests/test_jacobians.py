"""jacfwd, jacrev, jacobian, hessian, linear_transpose, closure_convert and
grad's options: values against finite differences and analytic Jacobians,
forward against reverse mode, pytree structure, compositions with jit and
vmap, and JAX's errors."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src import dtypes

RNG = np.random.default_rng(0)


def _numerical_jacobian(f, x: np.ndarray, eps: float = 1e-3) -> np.ndarray:
    """Central differences in float64: shape out.shape + x.shape."""
    x = np.asarray(x, np.float64)
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        dx = np.zeros_like(x)
        dx[idx] = eps
        jac[(...,) + idx] = (np.asarray(f(x + dx), np.float64) - np.asarray(f(x - dx), np.float64)) / (2 * eps)
    return jac


# f(x) in pyjax, and the same function in NumPy for finite differences.
FUNCTIONS = {
    "sin_times_x": (lambda x: jnp.sin(x) * x, lambda x: np.sin(x) * x),
    "exp_cumsum": (lambda x: jnp.cumsum(jnp.exp(x)), lambda x: np.cumsum(np.exp(x))),
    "matmul_tanh": (lambda x: jnp.tanh(jnp.arange(12.).reshape(4, 3) / 10 @ x),
                    lambda x: np.tanh(np.arange(12.).reshape(4, 3) / 10 @ x)),
    "outer": (lambda x: jnp.outer(x, jnp.sin(x)), lambda x: np.outer(x, np.sin(x))),
    "softmax": (jax.nn.softmax, lambda x: np.exp(x) / np.exp(x).sum()),
    "scalar_out": (lambda x: jnp.sum(x ** 3), lambda x: np.sum(x ** 3)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("mode", ["jacfwd", "jacrev"])
def test_jacobian_matches_finite_differences(name, mode):
    f, f_np = FUNCTIONS[name]
    x = RNG.normal(size=3).astype(np.float32)
    jac = getattr(jax, mode)(f)(jnp.asarray(x))
    expected = _numerical_jacobian(f_np, x)
    assert jac.shape == expected.shape
    assert jac.dtype == np.float32
    np.testing.assert_allclose(np.asarray(jac), expected, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacfwd_equals_jacrev(name):
    f, _ = FUNCTIONS[name]
    x = jnp.asarray(RNG.normal(size=3).astype(np.float32))
    np.testing.assert_allclose(np.asarray(jax.jacfwd(f)(x)), np.asarray(jax.jacrev(f)(x)), rtol=1e-5, atol=1e-6)


def test_matrix_input_jacobian_shape_and_values():
    m = jnp.asarray(RNG.normal(size=(2, 3)).astype(np.float32))
    f = lambda m: m @ m.T  # (2, 2) from (2, 3): jacobian (2, 2, 2, 3)
    jf, jr = jax.jacfwd(f)(m), jax.jacrev(f)(m)
    assert jf.shape == jr.shape == (2, 2, 2, 3)
    expected = _numerical_jacobian(lambda a: a @ a.T, np.asarray(m))
    np.testing.assert_allclose(np.asarray(jf), expected, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(np.asarray(jr), expected, rtol=2e-3, atol=2e-3)


def test_linear_map_jacobian_is_the_matrix():
    A = jnp.asarray(RNG.normal(size=(4, 3)).astype(np.float32))
    for mode in (jax.jacfwd, jax.jacrev, jax.jacobian):
        np.testing.assert_allclose(np.asarray(mode(lambda x: A @ x)(jnp.ones(3))), np.asarray(A), rtol=1e-6)


def test_hessian_of_quadratic_form():
    A = np.array([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]], np.float32)
    h = jax.hessian(lambda x: x @ jnp.asarray(A) @ x)(jnp.ones(3))
    np.testing.assert_allclose(np.asarray(h), A + A.T, rtol=1e-6)


def test_hessian_matches_jacrev_of_jacfwd_and_analytic():
    g = lambda x: x[0] ** 3 - 2 * x[0] * x[1] - x[1] ** 6
    x = jnp.array([1., 2.])
    expected = np.array([[6., -2.], [-2., -480.]])
    np.testing.assert_allclose(np.asarray(jax.hessian(g)(x)), expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jacrev(jax.jacfwd(g))(x)), expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jacfwd(jax.jacfwd(g))(x)), expected, rtol=1e-6)


def test_pytree_output_outer_input_inner():
    f = lambda d: {"p": d["x"] * d["y"], "q": (jnp.sum(d["x"]), d["y"] * 2.)}
    d = {"x": jnp.array([1., 2.]), "y": jnp.array([3., 4., 5.])[:2]}
    for mode in (jax.jacfwd, jax.jacrev):
        jac = mode(f)(d)
        assert set(jac) == {"p", "q"}
        assert set(jac["p"]) == {"x", "y"} and isinstance(jac["q"], tuple)
        np.testing.assert_allclose(np.asarray(jac["p"]["x"]), np.diag([3., 4.]))
        np.testing.assert_allclose(np.asarray(jac["p"]["y"]), np.diag([1., 2.]))
        np.testing.assert_allclose(np.asarray(jac["q"][0]["x"]), [1., 1.])
        assert jac["q"][0]["y"].shape == (2,) and not np.asarray(jac["q"][0]["y"]).any()
        np.testing.assert_allclose(np.asarray(jac["q"][1]["y"]), 2 * np.eye(2))


def test_argnums_tuple_gives_tuple_of_blocks():
    f = lambda x, y: x * jnp.exp(y)
    x, y = jnp.array([1., 2.]), jnp.array([0.5, -0.5])
    for mode in (jax.jacfwd, jax.jacrev):
        jx, jy = mode(f, argnums=(0, 1))(x, y)
        np.testing.assert_allclose(np.asarray(jx), np.diag(np.exp([0.5, -0.5])), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(jy), np.diag([1., 2.] * np.exp([0.5, -0.5])), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(mode(f, argnums=-1)(x, y)), np.asarray(jy))


def test_hessian_argnums_tuple_blocks():
    f = lambda x, y: jnp.sum(x ** 2) * jnp.sum(y)
    h = jax.hessian(f, argnums=(0, 1))(jnp.array([1., 2.]), jnp.array([3., 4., 5.]))
    assert h[0][0].shape == (2, 2) and h[0][1].shape == (2, 3) and h[1][1].shape == (3, 3)
    np.testing.assert_allclose(np.asarray(h[0][0]), 2 * 12. * np.eye(2))
    np.testing.assert_allclose(np.asarray(h[0][1]), np.repeat([[2.], [4.]], 3, axis=1))
    assert not np.asarray(h[1][1]).any()


def test_has_aux_returns_aux_as_plain_values():
    f = lambda x: (jnp.sin(x), {"c": jnp.cos(x), "tag": "aux"})
    x = jnp.array([0.1, 0.2])
    for mode in (jax.jacfwd, jax.jacrev):
        jac, aux = mode(f, has_aux=True)(x)
        np.testing.assert_allclose(np.asarray(jac), np.diag(np.cos([0.1, 0.2])), rtol=1e-6)
        assert aux["tag"] == "aux" and type(aux["c"]) is jax.Array
        np.testing.assert_allclose(np.asarray(aux["c"]), np.cos([0.1, 0.2]), rtol=1e-6)


def test_kwargs_are_not_differentiated():
    jac = jax.jacfwd(lambda x, *, s: x * s)(jnp.array([1., 2.]), s=3.)
    np.testing.assert_allclose(np.asarray(jac), 3 * np.eye(2))


def test_output_dtypes_follow_jax():
    # jacfwd casts to the output leaf's dtype, jacrev to the input leaf's.
    f = lambda x: (x * 2.).astype(jnp.float16)
    assert jax.jacfwd(f)(jnp.ones(2)).dtype == np.float16
    assert jax.jacrev(f)(jnp.ones(2)).dtype == np.float32
    assert jax.typeof(jax.jacfwd(lambda x: x * 2.)(1.0)).weak_type


def test_holomorphic_jacobians():
    z = jnp.array([1. + 1j, 2. - 1j], jnp.complex64)
    expected = np.diag(2 * np.asarray(z))
    for mode in (jax.jacfwd, jax.jacrev):
        jac = mode(lambda z: z * z, holomorphic=True)(z)
        assert jac.dtype == np.complex64
        np.testing.assert_allclose(np.asarray(jac), expected, rtol=1e-6)


def test_jacrev_allow_int_gives_float0_block():
    jx, jn = jax.jacrev(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(jnp.ones(2), jnp.arange(2))
    np.testing.assert_allclose(np.asarray(jx), np.diag([0., 1.]))
    assert jn.shape == (2, 2) and jn.dtype == np.int32 and not np.asarray(jn).any()


def test_compositions_with_jit_and_vmap():
    f = lambda x: jnp.sin(x) * x
    xs = jnp.asarray(RNG.normal(size=(5, 3)).astype(np.float32))
    per_example = np.stack([np.asarray(jax.jacfwd(f)(x)) for x in xs])
    np.testing.assert_allclose(np.asarray(jax.vmap(jax.jacfwd(f))(xs)), per_example, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.vmap(jax.jacrev(f))(xs)), per_example, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jit(jax.jacrev(f))(xs[0])), per_example[0], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jacfwd(jax.jit(f))(xs[0])), per_example[0], rtol=1e-6)
    hess = jax.jit(jax.hessian(lambda x: jnp.sum(jnp.sin(x))))(xs[0])
    np.testing.assert_allclose(np.asarray(hess), np.diag(-np.sin(np.asarray(xs[0]))), rtol=1e-5, atol=1e-6)


def test_grad_of_jacobian_entry():
    # d/dx of d/dx (x^3) summed = 6x: jacrev inside grad.
    g = jax.grad(lambda x: jnp.sum(jax.jacrev(lambda y: y ** 3)(x)))
    np.testing.assert_allclose(np.asarray(g(jnp.array([1., 2.]))), [6., 12.], rtol=1e-6)


def test_jacfwd_of_bfloat16_input_is_not_zero():
    # the tangent of convert_element_type from bfloat16 must survive.
    f = lambda x: x.astype(jnp.float32) * 3.
    jac = jax.jacfwd(f)(jnp.ones(2, jnp.bfloat16))
    np.testing.assert_allclose(np.asarray(jac, np.float32), 3 * np.eye(2))


# --- errors -------------------------------------------------------------------


@pytest.mark.parametrize("call, error, message", [
    (lambda: jax.jacfwd(lambda x: x)(jnp.arange(3)), TypeError, "jacfwd requires real-valued inputs"),
    (lambda: jax.jacfwd(lambda x: x)(jnp.ones(2, jnp.complex64)), TypeError, "but got complex64. For holomorphic"),
    (lambda: jax.jacfwd(lambda x: x, holomorphic=True)(jnp.ones(2)), TypeError,
     "jacfwd with holomorphic=True requires inputs with complex dtype, but got float32."),
    (lambda: jax.jacrev(lambda x: x * 2.)(jnp.arange(3)), TypeError,
     "jacrev requires real- or complex-valued inputs"),
    (lambda: jax.jacrev(lambda x: x * 1j)(jnp.ones(2)), TypeError,
     "jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64."),
    (lambda: jax.jacrev(lambda x, y: x, argnums=2)(1., 2.), ValueError, "but got value 2 for len(args) == 2."),
    (lambda: jax.jacfwd(3), TypeError, "Expected a callable value, got 3"),
    (lambda: jax.grad(lambda x: x, reduce_axes=("i",)), NotImplementedError, "reduce_axes argument to grad is deprecated"),
    (lambda: jax.vjp(lambda x: x, 1., reduce_axes=("i",)), NotImplementedError, "reduce_axes argument to vjp is deprecated"),
    (lambda: jax.grad(lambda z: z * 1j)(1.), TypeError,
     ("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64. "
      "For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions "
      "involving complex outputs, use jax.vjp directly.")),
    (lambda: jax.grad(lambda z: z, holomorphic=True)(1.), TypeError,
     "grad with holomorphic=True requires inputs with complex dtype, but got float32."),
    (lambda: jax.grad(lambda a, b: a, argnums=-3)(1., 2.), ValueError, "but got value -3 for len(args) == 2."),
    (lambda: jax.grad(lambda a, b: a, argnums=(0, 3))(1., 2.), TypeError, "requires at least 4 positional arguments"),
    (lambda: jax.grad(lambda z: None)(1.), TypeError, "Gradient only defined for scalar-output functions. Output was None."),
    (lambda: jax.grad(lambda z: 1.)("a"), TypeError, "Argument 'a' of type <class 'str'> is not a valid JAX type."),
    (lambda: jax.grad(lambda z: z, has_aux=True)(1.), TypeError,
     "expected function with aux output to return a two-element tuple"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


# --- grad's options ---------------------------------------------------------------


def test_grad_allow_int_returns_float0_numpy_zeros():
    gz, gy = jax.grad(lambda z, y: z * y, argnums=(0, 1), allow_int=True)(3, 2.)
    assert isinstance(gz, np.ndarray) and gz.dtype == dtypes.float0
    assert float(gy) == 3.


def test_grad_holomorphic_and_aux():
    g = jax.grad(lambda z: z * z + 1j * z, holomorphic=True)(1. + 2j)
    assert complex(g) == pytest.approx(2 * (1 + 2j) + 1j)
    grad_val, aux = jax.grad(lambda x: (jnp.sum(x * x), "tag"), has_aux=True)(jnp.array([1., 2.]))
    np.testing.assert_allclose(np.asarray(grad_val), [2., 4.])
    assert aux == "tag"


def test_grad_docstring_names_function_and_argnums():
    def loss(a, b):
        return a * b

    assert jax.grad(loss, argnums=(0, 1)).__doc__.startswith("Gradient of loss with respect to positional argument(s) (0, 1).")
    assert jax.jacrev(loss).__name__ == "loss"


# --- linear_transpose -------------------------------------------------------------


def test_linear_transpose_is_the_matrix_transpose():
    A = jnp.asarray(RNG.normal(size=(4, 3)).astype(np.float32))
    t = jax.linear_transpose(lambda x: A @ x, jax.ShapeDtypeStruct((3,), np.float32))
    ct = jnp.asarray(RNG.normal(size=4).astype(np.float32))
    (out,) = t(ct)
    np.testing.assert_allclose(np.asarray(out), np.asarray(A).T @ np.asarray(ct), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out), np.asarray(jax.vjp(lambda x: A @ x, jnp.ones(3))[1](ct)[0]), rtol=1e-6)


def test_linear_transpose_pytrees_and_unused_inputs():
    f = lambda d: {"s": d["a"] + d["b"], "d": d["a"] * 2.}
    x = jnp.arange(3.)
    (out,) = jax.linear_transpose(f, {"a": x, "b": x})({"s": x, "d": x})
    np.testing.assert_allclose(np.asarray(out["a"]), 3 * np.arange(3.))
    np.testing.assert_allclose(np.asarray(out["b"]), np.arange(3.))
    _, oy = jax.linear_transpose(lambda x, y: 2 * x, x, x)(x)
    assert oy.shape == (3,) and not np.asarray(oy).any()


def test_linear_transpose_is_a_pytree_through_jit():
    t = jax.linear_transpose(lambda x: jnp.cumsum(x) * 2., jnp.ones(3))
    out = jax.jit(lambda t, c: t(c)[0])(t, jnp.array([1., 2., 3.]))
    np.testing.assert_allclose(np.asarray(out), [12., 10., 6.])


@pytest.mark.parametrize("call, message", [
    (lambda: jax.linear_transpose(lambda x: x.astype(jnp.int32), jnp.ones(3)), "linear_transpose only supports"),
    (lambda: jax.linear_transpose(lambda x: 2 * x, jnp.ones(3))(jnp.arange(3)), "cotangent type does not match"),
    (lambda: jax.linear_transpose(lambda x: 2 * x, jnp.ones(3))(jnp.ones(4)), "cotangent type does not match"),
    (lambda: jax.linear_transpose(lambda x: 2 * x, jnp.ones(3))((jnp.ones(3),)), "cotangent tree does not match"),
])
def test_linear_transpose_errors(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_linear_transpose_of_nonlinear_function_fails():
    with pytest.raises(NotImplementedError, match="Transpose rule .* for 'sin' not implemented"):
        jax.linear_transpose(jnp.sin, jnp.ones(3))(jnp.ones(3))


# --- closure_convert -----------------------------------------------------------------


def test_closure_convert_keeps_concrete_constants_closed():
    c = jnp.arange(3.)
    f, consts = jax.closure_convert(lambda x: x * c, jnp.ones(3))
    assert consts == []
    np.testing.assert_allclose(np.asarray(f(jnp.ones(3))), [0., 1., 2.])


def test_closure_convert_hoists_differentiated_values():
    def outer(y):
        f, consts = jax.closure_convert(lambda x: jnp.sin(x) * y, 1.0)
        assert len(consts) == 1
        return f(2.0, *consts)

    np.testing.assert_allclose(float(jax.grad(outer)(3.0)), np.sin(2.0), rtol=1e-6)


def test_closure_convert_checks_argument_structure():
    f, _ = jax.closure_convert(lambda x: x[0] * 2., (1.0, 2.0))
    with pytest.raises(TypeError, match="must have the same Pytree structure"):
        f(1.0)
