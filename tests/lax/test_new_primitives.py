"""Behaviour of stack/unstack/tile, optimization_barrier, device_put,
pure_callback, jax.debug and custom_linear_solve: NumPy numerics, jit vs
eager, JVP/VJP against finite differences or closed forms, vmap vs a loop,
and errors."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.test_util import check_grads

RNG = np.random.default_rng(0)


def _eqn_names(jaxpr):
    return [e.primitive.name for e in jaxpr.eqns]


# --- stack / unstack / tile ---------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_matches_numpy_eager_and_jit(axis):
    xs = [RNG.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    expected = np.stack(xs, axis=axis)
    np.testing.assert_array_equal(lax.stack(xs, axis=axis), expected)
    np.testing.assert_array_equal(jax.jit(lambda *a: jnp.stack(a, axis=axis))(*xs), expected)
    assert _eqn_names(jax.make_jaxpr(lambda *a: jnp.stack(a, axis=axis))(*xs)) == ["stack"]


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_unstack_matches_numpy(axis):
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    outs = jax.jit(lambda a: jnp.unstack(a, axis=axis))(x)
    expected = [np.take(x, i, axis=axis) for i in range(x.shape[axis])]
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("reps", [2, (2, 3), (1, 1), (3, 1, 2)])
def test_tile_matches_numpy(reps):
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(jnp.tile(x, reps), np.tile(x, reps))
    np.testing.assert_array_equal(jax.jit(lambda a: jnp.tile(a, reps))(x), np.tile(x, reps))


def test_stack_unstack_tile_gradients():
    x = RNG.normal(size=(2, 3)).astype(np.float32)
    check_grads(lambda a: jnp.stack([a, jnp.sin(a)], axis=1), (x,), order=2, modes=["fwd", "rev"])
    check_grads(lambda a: jnp.unstack(a, axis=1)[2] * 3.0, (x,), order=2, modes=["fwd", "rev"])
    check_grads(lambda a: jnp.tile(a, (2, 3)) ** 2, (x,), order=2, modes=["fwd", "rev"])
    # tile's transpose sums the copies: d/dx sum(tile(x, (2, 3))) = 6
    np.testing.assert_array_equal(jax.grad(lambda a: jnp.tile(a, (2, 3)).sum())(x), np.full((2, 3), 6.0))


@pytest.mark.parametrize("in_axes", [(0, 0), (1, 0), (0, None), (None, 1)])
def test_stack_vmap_matches_loop(in_axes):
    per_example = RNG.normal(size=(2, 4, 3)).astype(np.float32)  # (operand, example, features)

    def batched(k):
        if in_axes[k] is None:
            return per_example[k, 0]
        return np.moveaxis(per_example[k], 0, in_axes[k])

    def example(k, i):
        return per_example[k, 0] if in_axes[k] is None else per_example[k, i]

    f = lambda u, v: jnp.stack([u, v], axis=1)
    out = jax.vmap(f, in_axes=in_axes)(batched(0), batched(1))
    np.testing.assert_array_equal(out, np.stack([np.stack([example(0, i), example(1, i)], axis=1) for i in range(4)]))


def test_unstack_and_tile_vmap_match_loop():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    f = lambda a: jnp.tile(jnp.unstack(a, axis=1)[1], (2, 1))
    out = jax.vmap(f, in_axes=2, out_axes=1)(x)
    np.testing.assert_allclose(out, np.stack([f(x[:, :, i]) for i in range(4)], axis=1))


def test_stack_errors():
    with pytest.raises(ValueError, match="All input arrays must have the same shape"):
        lax.stack([jnp.ones(2), jnp.ones(3)])
    with pytest.raises(ValueError, match="different numbers of dimensions"):
        lax.stack([jnp.ones(2), jnp.ones((2, 1))])
    with pytest.raises(TypeError, match="stack requires arguments to have the same dtypes|same dtypes"):
        lax.stack([jnp.ones(2), jnp.ones(2, jnp.int32)])
    with pytest.raises(ValueError, match="unstack requires arrays with rank > 0"):
        lax.unstack_p.bind(jnp.float32(1.0), axis=0)
    with pytest.raises(TypeError, match=r"reps length must be equal to the ndim of x, got len\(reps\)=1 and x.ndim=2"):
        lax.tile(jnp.ones((2, 3)), (2,))


# --- optimization_barrier / device_put ----------------------------------------

def test_optimization_barrier_is_identity_with_gradients():
    x = RNG.normal(size=(3,)).astype(np.float32)
    tree = {"a": x, "b": (x * 2, 3)}
    out = jax.jit(lax.optimization_barrier)(tree)
    np.testing.assert_array_equal(out["a"], x)
    assert int(out["b"][1]) == 3
    check_grads(lambda a: jnp.sin(lax.optimization_barrier(a * 2)), (x,), order=2, modes=["fwd", "rev"])
    assert _eqn_names(jax.make_jaxpr(jax.grad(lambda a: lax.optimization_barrier(a).sum()))(x)).count("optimization_barrier") == 2
    np.testing.assert_array_equal(jax.vmap(lambda a: lax.optimization_barrier((a, 1.0))[1])(x), np.ones(3))


def test_device_put_identity_grad_and_params():
    x = RNG.normal(size=(3,)).astype(np.float32)
    y = jax.device_put(x)
    assert isinstance(y, jax.Array)
    np.testing.assert_array_equal(y, x)
    assert jax.device_put(1.0).weak_type
    np.testing.assert_array_equal(jax.grad(lambda a: (jax.device_put(a) ** 2).sum())(x), 2 * x)
    (eqn,) = jax.make_jaxpr(lambda a: jax.device_put(a, jax.devices()[0], may_alias=False))(x).eqns
    assert eqn.params["devices"] == (jax.devices()[0],) and str(eqn.params["copy_semantics"][0]) == "ArrayCopySemantics.ALWAYS_COPY"
    np.testing.assert_array_equal(jax.vmap(jax.device_put)(np.ones((2, 3))), np.ones((2, 3)))
    with pytest.raises(ValueError, match="may_alias and donate cannot be True at the same time"):
        jax.device_put(x, donate=True, may_alias=True)


# --- pure_callback ------------------------------------------------------------

def test_pure_callback_runs_at_jit_run_time():
    calls = []

    def host(a):
        calls.append(type(a).__name__)
        return np.sin(a)

    f = jax.jit(lambda a: jax.pure_callback(host, jax.ShapeDtypeStruct(a.shape, a.dtype), a) * 2)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(f(x), 2 * np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(f(x + 1), 2 * np.sin(x + 1), rtol=1e-6)
    assert len(calls) == 2  # once per run, not only at trace time
    assert calls[0] == "Array"  # the callback sees arrays on the host device, as in JAX


@pytest.mark.parametrize("method,expected_shapes", [
    ("sequential", [((3,), (3,))] * 2),
    ("expand_dims", [((2, 3), (1, 3))]),
    ("broadcast_all", [((2, 3), (2, 3))]),
    ("legacy_vectorized", [((2, 3), (3,))]),
])
def test_pure_callback_vmap_methods(method, expected_shapes):
    seen = []

    def host(a, b):
        seen.append((np.shape(a), np.shape(b)))
        return a * b

    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(3, dtype=np.float32)
    f = lambda a, b: jax.pure_callback(host, jax.ShapeDtypeStruct((3,), jnp.float32), a, b, vmap_method=method)
    np.testing.assert_array_equal(jax.vmap(f, in_axes=(0, None))(x, y), x * y)
    assert seen == expected_shapes


def test_pure_callback_errors():
    sds = jax.ShapeDtypeStruct((3,), jnp.float32)
    x = jnp.ones(3)
    with pytest.raises(NotImplementedError, match="vmap is only supported for the pure_callback primitive"):
        jax.vmap(lambda a: jax.pure_callback(np.sin, sds, a))(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jax.grad(lambda a: jax.pure_callback(np.sin, sds, a).sum())(x)
    with pytest.raises(RuntimeError, match=r"Incorrect output shape for return value #0: Expected: \(3,\), Actual: \(2,\)"):
        jax.pure_callback(lambda a: a[:2], sds, x)
    with pytest.raises(RuntimeError, match="Incorrect output dtype for return value #0: Expected: float32, Actual: int32"):
        jax.jit(lambda a: jax.pure_callback(lambda b: b.astype(np.int32), sds, a))(x)
    with pytest.raises(RuntimeError, match="Mismatched number of outputs from callback. Expected: 1, Actual: 2"):
        jax.pure_callback(lambda a: (a, a), sds, x)


# --- jax.debug ----------------------------------------------------------------

def test_debug_print_eager_jit_vmap_grad(capsys):
    x = jnp.arange(3.0)
    jax.debug.print("eager {x}", x=x)
    f = jax.jit(lambda a: (jax.debug.print("jit {}", a), a + 1)[1])
    f(x)
    f(x + 1)
    jax.vmap(lambda a: jax.debug.print("vm {}", a))(jnp.arange(4.0).reshape(2, 2))
    jax.grad(lambda a: (jax.debug.print("grad {}", a), (a * a).sum())[1])(x)
    assert capsys.readouterr().out.splitlines() == [
        "eager [0. 1. 2.]", "jit [0. 1. 2.]", "jit [1. 2. 3.]", "vm [0. 1.]", "vm [2. 3.]", "grad [0. 1. 2.]"]


def test_debug_equations_are_kept_by_dce():
    # An equation with no outputs survives partial evaluation (linearize).
    jaxpr = jax.make_jaxpr(lambda a: jax.linearize(lambda b: (jax.debug.print("{}", b), jnp.sin(b))[1], a)[1](a))(jnp.ones(2))
    assert "debug_print" in _eqn_names(jaxpr)
    assert str(jaxpr.eqns[0].effects and next(iter(jaxpr.eqns[0].effects))) == "Debug"


def test_debug_callback_static_args_and_two_call_form(capsys):
    got = []
    jax.debug.callback(lambda a, s, k=None: got.append((np.asarray(a).tolist(), s, int(k))), jnp.arange(2), "static", k=3)
    jax.jit(lambda a: jax.debug.callback(ordered=True)(lambda b: got.append(np.asarray(b).tolist()), a))(jnp.ones(2))
    assert got == [([0, 1], "static", 3), [1.0, 1.0]]
    with pytest.raises(TypeError, match="first argument to jax.debug.callback must be callable"):
        jax.debug.callback(3, jnp.ones(2))
    with pytest.raises(ValueError, match="Unused positional arguments to `jax.debug.print`"):
        jax.debug.print("x", jnp.ones(2))


# --- custom_linear_solve ------------------------------------------------------

def _solve_fns(A):
    matvec = lambda x: A @ x
    solve = lambda mv, r: jnp.linalg.solve(A, r)
    transpose_solve = lambda vm, r: jnp.linalg.solve(A.T, r)
    return matvec, solve, transpose_solve


def test_custom_linear_solve_value_and_gradients():
    A = (RNG.normal(size=(3, 3)) + 3 * np.eye(3)).astype(np.float32)
    b = RNG.normal(size=(3,)).astype(np.float32)

    def f(A, b):
        matvec, solve, transpose_solve = _solve_fns(A)
        return lax.custom_linear_solve(matvec, b, solve, transpose_solve)

    np.testing.assert_allclose(f(A, b), np.linalg.solve(A, b), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(f)(A, b), np.linalg.solve(A, b), rtol=1e-5)
    check_grads(f, (A, b), order=1, modes=["fwd", "rev"], atol=1e-2, rtol=1e-2)
    # d/db sum(A^-1 b) = A^-T 1
    np.testing.assert_allclose(jax.grad(lambda b: f(A, b).sum())(b), np.linalg.solve(A.T, np.ones(3)), rtol=1e-4)


def test_custom_linear_solve_vmap_matches_loop():
    As = (RNG.normal(size=(4, 2, 2)) + 3 * np.eye(2)).astype(np.float32)
    bs = RNG.normal(size=(4, 2)).astype(np.float32)
    f = lambda A, b: lax.custom_linear_solve(lambda x: A @ x, b, lambda mv, r: jnp.linalg.solve(A, r), symmetric=True)
    np.testing.assert_allclose(jax.vmap(f)(As, bs), np.stack([np.linalg.solve(a, v) for a, v in zip(As, bs)]), rtol=1e-5)
    np.testing.assert_allclose(jax.vmap(f, in_axes=(None, 0))(As[0], bs), np.linalg.solve(As[0], bs.T).T, rtol=1e-5)


def test_custom_linear_solve_errors():
    b = jnp.ones(2)
    with pytest.raises(TypeError, match="transpose_solve required for backwards mode"):
        jax.grad(lambda b: lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda m, r: r / 2.0).sum())(b)
    with pytest.raises(ValueError, match=r"solve\(\) output shapes must match b"):
        lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda m, r: r[:1])
