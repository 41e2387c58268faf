"""Lowering bugs found by running the suite under `PYJAX_BACKEND=iree`
(docs/iree.md, "Running the suite on IREE"): a zero-length scan lost its
stacked outputs, `checkpoint_name` had no rule, and forward mode of a
custom_vjp under jit raised the lowering's "not found" error instead of
JAX's TypeError. The module text is checked on any install; running it on
IREE needs the `[iree]` extra."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends import iree as iree_backend

needs_iree = pytest.mark.skipif(not iree_backend.available(), reason="IREE is not installed (pip install -e '.[iree]')")


def _zero_length_scan(c, xs):
    return lax.scan(lambda c, x: (c + x, c), c, xs)


@pytest.mark.parametrize("unroll", [1, 2, True])
def test_zero_length_scan_lowers_with_its_empty_outputs(unroll):
    f = lambda c, xs: lax.scan(lambda c, x: (c + x, c), c, xs, unroll=unroll)
    text = pyjax.jit(f).lower(jnp.float32(3.0), np.zeros((0,), np.float32)).as_text()
    assert "tensor<0xf32>" in text.split("func.func public @main", 1)[1].split("{", 1)[0]


def test_checkpoint_name_lowers_as_the_identity():
    f = lambda x: pyjax.ad_checkpoint.checkpoint_name(jnp.sin(x), "a") * 2.0
    text = pyjax.jit(f).lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo.sine" in text


def test_jvp_of_custom_vjp_under_jit_lowering_raises_jax_type_error():
    @pyjax.custom_vjp
    def f(x):
        return x * 2.0

    f.defvjp(lambda x: (x * 2.0, None), lambda r, g: (g * 2.0,))
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function"):
        pyjax.jit(lambda x: pyjax.jvp(f, (x,), (x,))).lower(1.0).as_text()


@needs_iree
def test_zero_length_scan_and_checkpoint_name_run_on_iree():
    c, ys = pyjax.jit(_zero_length_scan, backend="iree")(jnp.float32(3.0), np.zeros((0,), np.float32))
    assert float(c) == 3.0 and ys.shape == (0,) and ys.dtype == np.float32
    g = pyjax.jit(lambda x: pyjax.ad_checkpoint.checkpoint_name(x * 3.0, "a"), backend="iree")
    np.testing.assert_allclose(np.asarray(g(np.ones(2, np.float32))), [3.0, 3.0])


def test_random_bits_of_several_axes_and_random_seed_lower():
    from pyjax import random

    text = pyjax.jit(lambda s: random.normal(random.key(s), (2, 3))).lower(5).as_text()
    assert "stablehlo.iota dim = 1 : tensor<2x3xui64>" in text


@needs_iree
def test_random_draws_of_several_axes_and_seeding_run_on_iree():
    from pyjax import random

    k = random.key(1)
    for shape in [(), (2, 3), (2, 0, 4)]:
        got = pyjax.jit(lambda k: random.normal(k, shape), backend="iree")(k)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(random.normal(k, shape)))
    for seed in [0, 7, -1, 2**31 - 1]:
        got = pyjax.jit(lambda s: random.key_data(random.key(s)), backend="iree")(seed)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(random.key_data(random.key(seed))))


def test_select_of_booleans_prints_both_types():
    f = lambda p, a, b: lax.select(p, a, b)
    bools = np.array([True, False, True])
    text = pyjax.jit(f).lower(bools, bools, ~bools).as_text()
    assert "stablehlo.select %arg0, %arg1, %arg2 : tensor<3xi1>, tensor<3xi1>" in text


@needs_iree
def test_select_of_booleans_runs_on_iree():
    p, a = np.array([True, False, True]), np.array([True, True, False])
    got = pyjax.jit(lambda p, a, b: lax.select(p, a, b), backend="iree")(p, a, ~a)
    np.testing.assert_array_equal(np.asarray(got), np.where(p, a, ~a))


def test_splits_of_different_sizes_in_one_module_get_their_own_functions():
    from pyjax import random

    def f(k):
        a, b = random.split(k)
        return random.key_data(random.split(a, 3)), random.key_data(random.split(b))

    k = random.key(0)
    text = pyjax.jit(f).lower(k).as_text()
    assert "-> tensor<3x2xui32>" in text and "-> tensor<2x2xui32>" in text
    if iree_backend.available():
        for got, want in zip(pyjax.jit(f, backend="iree")(k), f(k)):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_random_bits_of_every_width_match_the_numpy_backend(dtype):
    from pyjax import random

    k = random.key(4)
    f = lambda k: random.bits(k, (3, 2), dtype)
    assert "stablehlo.xor" in pyjax.jit(f).lower(k).as_text()
    if iree_backend.available():
        np.testing.assert_array_equal(np.asarray(pyjax.jit(f, backend="iree")(k)), np.asarray(f(k)))


@needs_iree
def test_random_bits_of_64_bits_and_half_precision_draws_run_on_iree():
    from pyjax import random

    k = random.key(4)
    for dtype in (jnp.float16, jnp.bfloat16):
        f = lambda k: random.uniform(k, (5,), dtype)
        np.testing.assert_array_equal(np.asarray(pyjax.jit(f, backend="iree")(k)), np.asarray(f(k)))
    with pyjax.enable_x64(True):
        f = lambda k: random.bits(k, (4,), np.uint64)
        np.testing.assert_array_equal(np.asarray(pyjax.jit(f, backend="iree")(k)), np.asarray(f(k)))


POOLS = [((3, 3), (2, 2), "SAME"), ((3, 3), (1, 1), "VALID"), ((2, 2), (2, 2), "VALID"), ((3, 2), (1, 2), "SAME")]


@needs_iree
@pytest.mark.parametrize("window,strides,padding", POOLS)
@pytest.mark.parametrize("init,op", [(-np.inf, lax.max), (np.inf, lax.min)])
def test_pool_gradients_with_ties_and_overlapping_windows_match_the_numpy_backend(window, strides, padding, init, op):
    # IREE's own select_and_scatter rejects overlapping windows and sends a tie to the last equal element;
    # the IREE lowering spells it out instead. Half the inputs are tied.
    x = np.round(np.random.default_rng(0).standard_normal((5, 7)), 0).astype(np.float32)
    loss = lambda x: jnp.sum(lax.reduce_window(x, init, op, window, strides, padding) ** 2)
    got = pyjax.jit(pyjax.grad(loss), backend="iree")(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(pyjax.jit(pyjax.grad(loss), backend="cpu")(x)))


def test_the_iree_lowering_spells_out_select_and_scatter():
    from pyjax._src.backends.iree.compile import module_text

    loss = lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (3, 3), (2, 2), "SAME"))
    closed = pyjax.make_jaxpr(pyjax.grad(loss))(np.ones((5, 7), np.float32))
    text, _ = module_text(closed.jaxpr, "pool")
    assert "select_and_scatter" not in text and "stablehlo.pad" in text
    assert "stablehlo.select_and_scatter" in pyjax.jit(pyjax.grad(loss)).lower(np.ones((5, 7), np.float32)).as_text()


@needs_iree
def test_a_closed_over_mutable_array_is_refused_by_name():
    r = pyjax.new_ref(jnp.zeros(3))
    f = pyjax.jit(lambda x: (r.__setitem__(..., r[...] + x), r[...] * 2)[1], backend="iree")
    with pytest.raises(iree_backend.IreeUnsupportedError, match="closes over a mutable array reference"):
        f(1.0)
    np.testing.assert_array_equal(np.asarray(r[...]), np.zeros(3))


@needs_iree
def test_modules_compile_without_const_eval_and_fold_constants_at_load():
    from pyjax._src.backends.iree import runtime

    # (const-eval compiles and runs a second program inside each compile: docs/iree.md "Compile time")
    assert "--iree-opt-const-eval=false" in runtime.target().flags
    table = np.linspace(0.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
    f = pyjax.jit(lambda x: x @ jnp.exp(jnp.asarray(table)).T + jnp.sin(jnp.arange(3.0)), backend="iree")
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(np.asarray(f(x)), x @ np.exp(table).T + np.sin(np.arange(3.0)), rtol=1e-6)


def _diagonal_solve(A, b):
    # (a solve without LAPACK: IREE cannot run jnp.linalg.solve's lu)
    return lax.custom_linear_solve(lambda x: A @ x, b, lambda mv, r: r / jnp.diag(A), symmetric=True)


def test_custom_linear_solve_lowers_its_solve_in_line():
    args = np.eye(2, dtype=np.float32), np.ones(2, np.float32)
    text = pyjax.jit(_diagonal_solve).lower(*args).as_text()
    direct = pyjax.jit(lambda A, b: b / jnp.diag(A)).lower(*args).as_text()
    assert text.split("{", 1)[1] == direct.split("{", 1)[1]  # (all but the module's name)


@needs_iree
def test_custom_linear_solve_and_its_gradients_run_on_iree():
    A = np.diag([4.0, 2.0, 5.0]).astype(np.float32)
    b = np.array([1.0, 2.0, 3.0], np.float32)
    for fn in (_diagonal_solve, pyjax.grad(lambda A, b: _diagonal_solve(A, b).sum(), argnums=(0, 1))):
        got, want = pyjax.jit(fn, backend="iree")(A, b), pyjax.jit(fn, backend="cpu")(A, b)
        for g, w in zip(pyjax.tree_util.tree_leaves(got), pyjax.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
