"""The NumPy backend's compiled control flow: loop and branch bodies inlined
into the jitted function's source, and the per-iteration shortcuts that go
with them (ndarray.dot for matrix/vector products, direct float division, in-place
reuse of dead temporaries, iterating the xs).

Each optimisation is checked where it could go wrong: results are compared
bitwise with a plain NumPy loop running the same operations (or with the
eager path, which calls separately compiled bodies), and the generated source
is checked for the shape the optimisation promises.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr
from pyjax._src.backends.numpy.xla.fma import fma_f32
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.lax import dot as dot_lax

rng = np.random.default_rng(7)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def source_of(f, *args) -> str:
    return pyjax.jit(f).lower(*args).as_text("python")


def jit_and_eager(f, *args):
    """f under jit, checked bitwise against the eager path (separately
    compiled bodies called once per iteration); returns the jit result."""
    copies = [np.array(a, copy=True) for a in pyjax.tree_util.tree_leaves(args)]
    jitted = pyjax.jit(f)(*args)
    eager = f(*args)
    for j, e in zip(pyjax.tree_util.tree_leaves(jitted), pyjax.tree_util.tree_leaves(eager), strict=True):
        assert np.asarray(j).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(np.asarray(j), np.asarray(e))
    for a, c in zip(pyjax.tree_util.tree_leaves(args), copies, strict=True):  # inputs never written
        np.testing.assert_array_equal(np.asarray(a), c)
    return jitted


# ---------------------------------------------------------------------------
# scan: the body is straight-line code inside the loop


def rnn(W, xs, h):
    return lax.scan(lambda h, x: (jnp.tanh(W @ h + x), None), h, xs)[0]


def test_scan_body_is_inlined_into_the_loop():
    W, xs, h = f32(8, 8), f32(20, 8), f32(8)
    source = source_of(rnn, W, xs, h)
    loop = source[source.index("for "):]
    assert not re.search(r"_scan_body\w*\(", source)  # no call per iteration
    assert "for e in b:" in loop  # the xs are iterated, not indexed
    assert "a.dot(d)" in loop and "_np_tanh" in loop
    want = h
    for x in xs:
        want = np.tanh(np.add(np.dot(W, want), x))
    np.testing.assert_array_equal(np.asarray(jit_and_eager(rnn, W, xs, h)), want)


def test_scan_rnn_step_reuses_the_dot_result_in_place():
    source = source_of(rnn, f32(8, 8), f32(5, 8), f32(8))
    # add writes into the dot's fresh result, tanh into the sum: one allocation per step.
    assert re.search(r"(\w+) = a\.dot\(d\)", source)
    assert re.search(r"(\w+) = _np_add_\d+\((\w+), e, \2\)", source)
    assert re.search(r"(\w+) = _np_tanh_\d+\((\w+), \2\)", source)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", [1, 3])
def test_scan_with_ys_reverse_and_unroll(reverse, unroll):
    def f(c, xs, ws):
        def body(c, xw):
            x, w = xw
            new = c * w + x
            return new, (new - c, jnp.sum(new))
        return lax.scan(body, c, (xs, ws), reverse=reverse, unroll=unroll)

    c, xs, ws = f32(3), f32(7, 3), f32(7, 3)
    carry, (d, s) = jit_and_eager(f, c, xs, ws)
    want_c, want_d, want_s = c, np.empty_like(xs), np.empty(7, np.float32)
    for i in (range(6, -1, -1) if reverse else range(7)):
        new = fma_f32(want_c, ws[i], xs[i])  # XLA contracts c * w + x into one fused multiply-add
        want_d[i], want_s[i] = new - want_c, np.sum(new)
        want_c = new
    np.testing.assert_array_equal(np.asarray(carry), want_c)
    np.testing.assert_array_equal(np.asarray(d), want_d)
    np.testing.assert_array_equal(np.asarray(s), want_s)


def test_scan_of_length_zero_returns_its_init_and_empty_ys():
    f = lambda c, xs: lax.scan(lambda c, x: (c + x, c * 2), c, xs)
    carry, ys = jit_and_eager(f, np.float32(3.0), np.zeros((0,), np.float32))
    assert np.asarray(carry) == 3.0 and np.asarray(carry).dtype == np.float32
    assert np.asarray(ys).shape == (0,) and np.asarray(ys).dtype == np.float32
    # A weakly typed Python init: the loop never runs, the result is still a typed buffer.
    carry, ys = pyjax.jit(lambda: lax.scan(lambda c, x: (c + 1.5, c), 0.0, None, length=0))()
    assert np.asarray(carry).dtype == np.float32 and np.asarray(ys).shape == (0,)


def test_scan_without_xs():
    f = lambda c: lax.scan(lambda c, _: (c * 1.5 + 1, c), c, None, length=6)
    carry, ys = jit_and_eager(f, np.float32(1.0))
    want, c = [], np.float32(1.0)
    for _ in range(6):
        want.append(c)
        c = c * np.float32(1.5) + np.float32(1)
    np.testing.assert_array_equal(np.asarray(ys), np.array(want, np.float32))
    assert np.asarray(carry) == c


def test_scan_with_pytree_carry_and_consts():
    W = f32(4, 4)

    def f(carry, xs):
        def body(c, x):
            h, (n, acc) = c["h"], c["rest"]
            h2 = jnp.tanh(W @ h + x)
            return {"h": h2, "rest": (n + 1, acc + jnp.sum(h2))}, h2 @ W
        return lax.scan(body, carry, xs)

    init = {"h": f32(4), "rest": (np.int32(0), np.float32(0))}
    out, ys = jit_and_eager(f, init, f32(5, 4))
    assert int(out["rest"][0]) == 5 and np.asarray(ys).shape == (5, 4)


@pytest.mark.parametrize("which", ["new", "old"])
def test_ys_aliasing_the_carry_are_copies(which):
    # The body returns the carry (new or old) also as y: every row must keep
    # its own step's value, and the final carry must not alias the ys.
    def f(c, xs):
        def body(c, x):
            new = jnp.exp(c) * x
            return new, (new if which == "new" else c)
        return lax.scan(body, c, xs)

    c, xs = f32(3), f32(6, 3)
    carry, ys = jit_and_eager(f, c, xs)
    want_c, want_ys = c, []
    for x in xs:
        new = np.multiply(np.exp(want_c), x)
        want_ys.append(new if which == "new" else want_c)
        want_c = new
    np.testing.assert_array_equal(np.asarray(ys), np.stack(want_ys))
    np.testing.assert_array_equal(np.asarray(carry), want_c)
    assert not np.shares_memory(np.asarray(carry), np.asarray(ys))


def test_swapped_carries_are_assigned_simultaneously():
    f = lambda a, b: lax.scan(lambda c, _: ((c[1], c[0] + c[1]), c[0]), (a, b), None, length=5)
    (a, b), ys = jit_and_eager(f, np.float32(0), np.float32(1))
    assert (float(a), float(b)) == (5.0, 8.0)
    np.testing.assert_array_equal(np.asarray(ys), np.array([0, 1, 1, 2, 3], np.float32))


def test_in_place_reuse_never_clobbers_a_value_still_needed():
    # t is read by three later equations; only its last reader may write into it.
    def body(c, x):
        t = jnp.exp(c + x)
        u = t * 2.0
        v = jnp.sin(t) + u
        return jnp.tanh(v - t), (t, u)

    f = lambda c, xs: lax.scan(body, c, xs)
    c, xs = f32(5) * 0.1, f32(4, 5) * 0.1
    carry, (ts, us) = jit_and_eager(f, c, xs)
    want_c = c
    for i, x in enumerate(xs):
        t = np.exp(want_c + x)
        u = t * np.float32(2.0)
        np.testing.assert_array_equal(np.asarray(ts)[i], t)
        np.testing.assert_array_equal(np.asarray(us)[i], u)
        want_c = np.tanh((np.sin(t) + u) - t)
    np.testing.assert_array_equal(np.asarray(carry), want_c)


def test_loop_invariant_values_survive_the_loop():
    # W is read inside the loop and again after it: the body must not delete it.
    def f(W, h, xs):
        h = lax.scan(lambda h, x: (jnp.tanh(W @ h + x), None), h, xs)[0]
        return W @ h, W.sum()

    W, h, xs = f32(4, 4), f32(4), f32(3, 4)
    _, total = jit_and_eager(f, W, h, xs)
    assert np.asarray(total) == np.sum(W)


def test_cond_and_while_inside_scan_and_nested_scans():
    def f(c, xs):
        def body(c, x):
            c = lax.cond(x > 0, lambda v: v * 2.0, lambda v: v - 1.0, c)
            c = lax.while_loop(lambda v: v < 100.0, lambda v: v * 3.0 + 1.0, c)
            inner = lax.scan(lambda a, b: (a + b * c, a), jnp.float32(0), jnp.arange(3, dtype=jnp.float32))
            return c * 0.5, inner[0] + jnp.sum(inner[1])
        return lax.scan(body, c, xs)

    xs = np.array([1.0, -2.0, 3.0, -0.5], np.float32)
    carry, ys = jit_and_eager(f, np.float32(1.0), xs)
    c, want = np.float32(1.0), []
    for x in xs:
        c = c * np.float32(2.0) if x > 0 else c - np.float32(1.0)
        while c < 100.0:
            c = c * np.float32(3.0) + np.float32(1.0)
        a, seen = np.float32(0), []
        for b in np.arange(3, dtype=np.float32):
            seen.append(a)
            a = a + b * c
        want.append(a + np.sum(np.array(seen, np.float32)))
        c = c * np.float32(0.5)
    np.testing.assert_array_equal(np.asarray(ys), np.array(want, np.float32))
    assert np.asarray(carry) == c
    source = source_of(f, np.float32(1.0), xs)
    assert source.count("for ") == 2 and "while True:" in source and "if _k" in source


# ---------------------------------------------------------------------------
# while_loop and cond


def newton(a):
    def cond(c):
        i, _, d = c
        return (i < 50) & (d > 1e-6)

    def body(c):
        i, y, _ = c
        yn = 0.5 * (y + a / y)
        return i + 1, yn, jnp.max(jnp.abs(yn - y) / yn)

    return lax.while_loop(cond, body, (jnp.int32(0), a, jnp.float32(np.inf)))


def test_while_with_carried_arrays_matches_a_numpy_loop():
    a = rng.uniform(0.5, 100.0, 1000).astype(np.float32)
    i, y, _ = jit_and_eager(newton, a)
    n, want, dd = 0, a, np.float32(np.inf)
    while n < 50 and dd > 1e-6:
        yn = np.float32(0.5) * (want + a / want)
        n, want, dd = n + 1, yn, np.max(np.abs(yn - want) / yn)
    assert int(i) == n
    np.testing.assert_array_equal(np.asarray(y), want)
    source = source_of(newton, a)
    assert "while True:" in source and not re.search(r"_while_(body|cond)\w*\(", source)
    assert "_np_divide" in source  # float division is the ufunc itself


def test_while_that_never_runs_returns_its_init():
    f = lambda x: lax.while_loop(lambda c: c[0] > 10, lambda c: (c[0] + 1, c[1] * 2), (0, x))
    i, _ = jit_and_eager(f, f32(3))
    assert int(i) == 0 and np.asarray(i).dtype == np.int32


def test_while_body_returning_a_literal_and_a_const():
    k = np.arange(3, dtype=np.float32)
    f = lambda x: lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, k, 2.0 + c[2] * 0), (0, x, 1.0))
    _, x, z = jit_and_eager(f, f32(3))
    np.testing.assert_array_equal(np.asarray(x), k)
    assert float(z) == 2.0 and np.asarray(z).dtype == np.float32


def test_batched_while_still_freezes_finished_lanes():
    f = pyjax.vmap(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))
    x = np.array([1.0, 3.0, 20.0], np.float32)
    np.testing.assert_array_equal(np.asarray(pyjax.jit(f)(x)), [16.0, 12.0, 20.0])


def test_cond_branches_are_inlined_and_read_operands_in_place():
    def f(p, x, y):
        z = lax.cond(p, lambda a, b: jnp.sin(a) * b, lambda a, b: a - b, x, y)
        return z, x + y  # x and y are read again after the cond

    x, y = f32(4), f32(4)
    for p in (True, False):
        z, s = jit_and_eager(f, p, x, y)
        np.testing.assert_array_equal(np.asarray(z), np.sin(x) * y if p else x - y)
        np.testing.assert_array_equal(np.asarray(s), x + y)
    source = source_of(f, True, x, y)
    assert not re.search(r"_cond_branch\w*\(", source) and "_np_sin" in source


def test_switch_with_an_out_of_range_index_runs_the_last_branch_inlined():
    f = pyjax.jit(lambda i, x: lax.switch(i, [lambda v: v + 1, lambda v: v * 2, lambda v: -v], x))
    assert [float(f(i, np.float32(3))) for i in (0, 1, 2, 7, -3)] == [4.0, 6.0, -3.0, -3.0, 4.0]


# ---------------------------------------------------------------------------
# ndarray.dot for matrix/vector products


def _dot_jaxpr(lhs_shape, rhs_shape, dims, dtype=np.float32, preferred=None):
    lhs, rhs = np.ones(lhs_shape, dtype), np.ones(rhs_shape, dtype)
    return pyjax.make_jaxpr(
        lambda a, b: dot_lax.dot_general(a, b, (dims, ((), ())), preferred_element_type=preferred))(lhs, rhs)


@pytest.mark.parametrize("lhs_shape, rhs_shape, dims", [
    ((5, 7), (7,), ((1,), (0,))),     # matvec
    ((7,), (7, 3), ((0,), (0,))),     # vecmat
    ((5, 7), (7, 3), ((1,), (0,))),   # matmul
    ((7, 5), (7, 3), ((0,), (0,))),   # transposed lhs
    ((5, 7), (3, 7), ((1,), (1,))),   # transposed rhs
    ((7, 5), (3, 7), ((0,), (1,))),   # both
    ((7,), (7,), ((0,), (0,))),       # inner product
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_direct_dot_is_bitwise_the_impl(lhs_shape, rhs_shape, dims, dtype):
    jaxpr = _dot_jaxpr(lhs_shape, rhs_shape, dims, dtype)
    compiled = compile_jaxpr(jaxpr, IMPLS)
    assert ".dot(" in compiled.source
    for _ in range(5):
        a = (rng.standard_normal(lhs_shape) + 1j * rng.standard_normal(lhs_shape)).astype(dtype) \
            if np.dtype(dtype).kind == "c" else rng.standard_normal(lhs_shape).astype(dtype)
        b = rng.standard_normal(rhs_shape).astype(dtype)
        got = np.asarray(compiled(a, b)[0])
        want = IMPLS[dot_lax.dot_general_p](a, b, **jaxpr.eqns[0].params)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", ["int", "preferred", "batch", "3d"])
def test_dot_general_keeps_its_impl_where_np_dot_differs(case):
    if case == "int":
        jaxpr = _dot_jaxpr((3, 4), (4,), ((1,), (0,)), np.int32)
    elif case == "preferred":
        jaxpr = _dot_jaxpr((3, 4), (4,), ((1,), (0,)), np.float16, preferred=np.float32)
    elif case == "batch":
        jaxpr = pyjax.make_jaxpr(lambda a, b: jnp.einsum("bij,bj->bi", a, b))(np.ones((2, 3, 4), np.float32),
                                                                           np.ones((2, 4), np.float32))
    else:
        jaxpr = pyjax.make_jaxpr(lambda a, b: jnp.tensordot(a, b, 1))(np.ones((2, 3, 4), np.float32),
                                                                      np.ones((4,), np.float32))
    assert ".dot(" not in compile_jaxpr(jaxpr, IMPLS).source


def test_a_dead_dot_result_still_raises_nothing_and_is_released():
    def f(W, h):
        _ = W @ h  # unused: the equation is dropped by tracing or runs and is deleted
        return jnp.tanh(W @ h)

    W, h = f32(4, 4), f32(4)
    np.testing.assert_array_equal(np.asarray(jit_and_eager(f, W, h)), np.tanh(np.dot(W, h)))


# ---------------------------------------------------------------------------
# float division


def test_float_division_is_the_ufunc_and_integer_division_keeps_xla_rounding():
    x = np.array([1.0, -1.0, 0.0, np.inf, 7.0], np.float32)
    y = np.array([0.0, 0.0, 0.0, 2.0, -2.0], np.float32)
    with np.errstate(all="ignore"):
        got = np.asarray(pyjax.jit(lambda a, b: a / b)(x, y))
        np.testing.assert_array_equal(got, np.true_divide(x, y))
    assert "_np_divide" in source_of(lambda a, b: a / b, x, y)
    i, j = np.array([7, -7, 5], np.int32), np.array([2, 2, 0], np.int32)
    assert "_np_divide" not in source_of(lax.div, i, j)
    np.testing.assert_array_equal(np.asarray(pyjax.jit(lax.div)(i, j)), [3, -3, -1])
    np.testing.assert_array_equal(np.asarray(pyjax.jit(lax.rem)(x[4:], y[4:])), np.fmod(x[4:], y[4:]))


# ---------------------------------------------------------------------------
# ys written in place by the ufunc computing them


def test_a_ufunc_computing_a_y_writes_its_row_directly():
    f = lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) + x, (c * 2.0, jnp.exp(x), c)), c, xs, reverse=True)
    c, xs = f32(3), f32(4, 3)
    source = source_of(f, c, xs)
    assert re.search(r"_np_multiply_\d+\(c, _lit\d+, (_ys\d+_0)\[(_i\d+)\]\)", source)
    assert re.search(r"_np_exp_\d+\(d, _ys\d+_1\[_i\d+\]\)", source)
    assert re.search(r"_ys\d+_2\[_i\d+\] = c\n", source)  # a y that is the old carry is copied
    carry, (a, b, old) = jit_and_eager(f, c, xs)
    want_c = c
    for i in range(3, -1, -1):
        np.testing.assert_array_equal(np.asarray(a)[i], want_c * np.float32(2.0))
        np.testing.assert_array_equal(np.asarray(b)[i], np.exp(xs[i]))
        np.testing.assert_array_equal(np.asarray(old)[i], want_c)
        want_c = np.sin(want_c) + xs[i]
    np.testing.assert_array_equal(np.asarray(carry), want_c)


@pytest.mark.parametrize("case", ["carry_is_a_view_of_y", "y_twice", "y_is_the_carry"])
def test_ys_sharing_memory_with_other_outputs_are_copied(case):
    def body(c, x):
        t = jnp.exp(c * x)  # f32[2, 3]
        if case == "carry_is_a_view_of_y":
            return jnp.reshape(t, (6,)), t
        if case == "y_twice":
            return c, (t, t)
        return jnp.reshape(t, (6,)), jnp.reshape(t, (6,))

    def f(c, xs):
        if case == "y_twice":
            return lax.scan(lambda c, x: body(c, x), c, xs)
        return lax.scan(lambda c, x: body(jnp.reshape(c, (2, 3)), x), c, xs)

    c = f32(2, 3) * 0.1 if case == "y_twice" else f32(6) * 0.1
    xs = f32(5, 2, 3) * 0.1
    carry, ys = jit_and_eager(f, c, xs)
    assert re.search(r"_ys\d+_\d+\[_i\d+\] = ", source_of(f, c, xs))  # copied, not written in place
    for y in pyjax.tree_util.tree_leaves(ys):
        assert not np.shares_memory(np.asarray(carry), np.asarray(y))
    if case == "y_twice":
        np.testing.assert_array_equal(np.asarray(ys[0]), np.asarray(ys[1]))
        assert not np.shares_memory(np.asarray(ys[0]), np.asarray(ys[1]))


# ---------------------------------------------------------------------------
# Eager execution runs the same compiled loop


def test_eager_scan_and_while_compile_the_equation_once(monkeypatch):
    from pyjax._src.backends.numpy.codegen import compile as compile_mod
    from pyjax._src.backends.numpy.codegen import control_flow as cf

    scan_jaxpr = pyjax.make_jaxpr(rnn)(f32(4, 4), f32(6, 4), f32(4))
    while_jaxpr = pyjax.make_jaxpr(newton)(np.ones(8, np.float32))
    compiles = []
    real = compile_mod.compile_jaxpr
    monkeypatch.setattr(compile_mod, "compile_jaxpr", lambda *a, **k: compiles.append(1) or real(*a, **k))
    W, xs, h = f32(4, 4), f32(6, 4), f32(4)
    a = rng.uniform(1.0, 9.0, 8).astype(np.float32)
    for _ in range(3):
        (scan_eqn,), (while_eqn,) = scan_jaxpr.eqns, while_jaxpr.eqns
        (got,) = cf.IMPLS[scan_eqn.primitive](W, h, xs, **scan_eqn.params)
        _, y, _ = cf.IMPLS[while_eqn.primitive](*([a] * len(while_eqn.invars[:-3])), np.int32(0), a,
                                                np.float32(np.inf), **while_eqn.params)
    assert len(compiles) == 2  # one program per equation, reused by later calls
    want = h
    for x in xs:
        want = np.tanh(np.add(np.dot(W, want), x))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(y, np.asarray(pyjax.jit(newton)(a)[1]))


# ---------------------------------------------------------------------------
# 0-d arithmetic as Python operators (NumPy scalar math)

_OPERATOR_CASES = {
    "add": (lax.add, "+"), "sub": (lax.sub, "-"), "mul": (lax.mul, "*"), "div": (lax.div, "/"),
    "lt": (lax.lt, "<"), "le": (lax.le, "<="), "gt": (lax.gt, ">"), "ge": (lax.ge, ">="),
    "eq": (lax.eq, "=="), "ne": (lax.ne, "!="),
}
_SPECIAL = np.array([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 3e38, 1e-45, 7.0], np.float64)


@pytest.mark.parametrize("name", sorted(_OPERATOR_CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scalar_operators_are_bitwise_the_ufuncs(name, dtype):
    fn, symbol = _OPERATOR_CASES[name]
    x0 = np.zeros((), dtype)
    jaxpr = pyjax.make_jaxpr(fn)(x0, x0)
    compiled = compile_jaxpr(jaxpr, IMPLS)
    assert f"c = a {symbol} b" in compiled.source
    impl = IMPLS[jaxpr.eqns[0].primitive]
    values = _SPECIAL.astype(dtype)
    with np.errstate(all="ignore"):
        for a in values:
            for b in values:
                for x, y in ((a, b), (np.asarray(a), b), (a, np.asarray(b))):  # scalars and 0-d arrays
                    got, want = compiled(x, y)[0], impl(x, y)
                    assert np.asarray(got).dtype == np.asarray(want).dtype
                    np.testing.assert_array_equal(got, want)
                    assert np.signbit(got) == np.signbit(want)


def test_scalar_operators_only_where_numpy_scalar_math_agrees():
    f = lambda i, x, v, p, q: (i + 1, i < 3, x * 2.0, -x, v * 2.0, p & q, x.astype(np.float16) * 2)
    args = (np.int32(2), np.float32(1.5), np.ones(3, np.float32), np.bool_(True), np.bool_(False))
    source = source_of(f, *args)
    assert "_np_add" in source  # int32 add: scalar math would warn where XLA wraps silently
    assert re.search(r"= \w+ < _lit", source) and re.search(r"= \w+ \* _lit", source)
    assert re.search(r"= -\w+\n", source) and re.search(r"= \w+ & \w+\n", source)
    assert "_np_multiply" in source  # the f32[3] product and the float16 one stay ufuncs
    outs = pyjax.jit(f)(*args)
    assert [np.asarray(o).dtype for o in outs] == [np.int32, np.bool_, np.float32, np.float32, np.float32,
                                                    np.bool_, np.float16]


def test_int32_wraparound_stays_silent(recwarn):
    # The wrap happens in the second step, on the NumPy scalar the first made.
    start = np.int32(2**31 - 2)
    out = pyjax.jit(lambda i: lax.fori_loop(0, 3, lambda k, c: c + np.int32(1), i))(start)
    assert int(out) == -(2**31) + 1
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_cond_results_keep_their_dtypes_without_conversion():
    k = np.arange(3, dtype=np.float32)

    def f(p, x, y):
        return lax.cond(p, lambda a, b: (a + b, 1.0, k, b), lambda a, b: (a * b, 2.0, k * 2, a), x, y)

    x, y = np.float32(1.5), np.float32(2.0)
    for p in (True, False):
        s, lit, arr, passed = pyjax.jit(f)(p, x, y)
        assert [np.asarray(o).dtype for o in (s, lit, arr, passed)] == [np.float32] * 4
        assert float(s) == (3.5 if p else 3.0) and float(lit) == (1.0 if p else 2.0)
        assert float(passed) == (2.0 if p else 1.5)


# ---------------------------------------------------------------------------
# Exact casts without the impl's checks

_CASTS = [  # (source, target, direct)
    ("bool", "int32", True), ("bool", "uint8", True), ("bool", "float32", True), ("bool", "float64", True),
    ("int8", "int32", True), ("int32", "int64", True), ("uint8", "uint32", True), ("float32", "float64", True),
    ("int32", "int8", False), ("int32", "uint32", False), ("float32", "int32", False),
    ("float64", "float32", False), ("int32", "bool", False), ("bool", "float16", False),
    ("int32", "float32", False),
]


@pytest.mark.parametrize("src, dst, direct", _CASTS)
@pytest.mark.parametrize("shape", [(), (5,)])
def test_exact_casts_skip_the_impl_and_agree_with_it(src, dst, direct, shape):
    if src == "bool":
        x = np.array([True, False, True, True, False])
    elif np.dtype(src).kind == "f":
        x = np.array([1.5, -2.7, np.nan, 3e38, -np.inf])
    else:
        x = np.array([0, 1, -1, 127, 100]) if np.dtype(src).kind == "i" else np.array([0, 1, 255, 7, 128])
    x = x.astype(src)
    x = x[1] if not shape else x
    with pyjax.enable_x64(True):
        jaxpr = pyjax.make_jaxpr(lambda v: lax.convert_element_type(v, np.dtype(dst)))(x)
    compiled = compile_jaxpr(jaxpr, IMPLS)
    assert ("_convert_element_type" not in compiled.source) == direct
    with np.errstate(all="ignore"):
        got, want = compiled(x)[0], IMPLS[jaxpr.eqns[0].primitive](x, **jaxpr.eqns[0].params)
    assert np.asarray(got).dtype == np.asarray(want).dtype == np.dtype(dst)
    np.testing.assert_array_equal(got, want)


def test_cond_index_cast_is_a_scalar_constructor():
    f = lambda c, xs: lax.scan(lambda c, x: (lax.cond(x > 0, lambda v: v + x, lambda v: v - x, c), c), c, xs)
    xs = np.linspace(-1, 1, 9).astype(np.float32)
    source = source_of(f, np.float32(0), xs)
    assert re.search(r"= _np_int32_\d+\(\w+\)", source) and "_convert_element_type" not in source
    carry, ys = jit_and_eager(f, np.float32(0), xs)
    c, want = np.float32(0), []
    for x in xs:
        want.append(c)
        c = c + x if x > 0 else c - x
    np.testing.assert_array_equal(np.asarray(ys), np.array(want, np.float32))
    assert np.asarray(carry) == c
