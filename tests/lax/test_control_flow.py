"""Control flow: cond, switch, while_loop, fori_loop, scan, map, associative_scan.

Every construct is run eagerly and under jit and compared with a plain
Python/NumPy loop; the jaxprs are checked for the primitive JAX uses (one
equation, bodies traced once, both branches traced); errors carry JAX
0.11's messages (recorded from the reference). Autodiff and vmap are in
test_control_flow_ad.py; golden jaxprs in tests/golden/programs_control_flow.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax
import pyjax.numpy as jnp
from pyjax import lax


def _eager_and_jit(f, *args):
    """f(*args) eagerly and under jit (they must agree); returns the eager result."""
    eager = f(*args)
    jitted = pyjax.jit(f)(*args)
    for e, j in zip(pyjax.tree_util.tree_leaves(eager), pyjax.tree_util.tree_leaves(jitted), strict=True):
        check_close(j, np.asarray(e))
    return eager


def _primitives(jaxpr) -> list[str]:
    return [e.primitive.name for e in jaxpr.eqns]


# ---------------------------------------------------------------------------
# scan


def _python_scan(f, init, xs, reverse=False):
    carry, ys = init, []
    steps = range(len(xs))
    for i in (reversed(steps) if reverse else steps):
        carry, y = f(carry, xs[i])
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, np.stack(ys)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", [1, 2, 3, True, False])
def test_scan_matches_python_loop(reverse, unroll):
    xs = np.arange(1.0, 8.0, dtype=np.float32)
    body = lambda c, x: (c * 0.5 + x, c * x)
    want_c, want_ys = _python_scan(body, np.float32(1.0), xs, reverse)
    c, ys = _eager_and_jit(lambda c, xs: lax.scan(body, c, xs, reverse=reverse, unroll=unroll), jnp.float32(1.0), xs)
    check_close(c, np.float32(want_c))
    check_close(ys, want_ys.astype(np.float32))


def test_scan_pytrees_consts_and_matrices():
    w = np.arange(9.0, dtype=np.float32).reshape(3, 3) / 10
    xs = {"a": np.ones((4, 3), np.float32), "b": np.arange(4, dtype=np.int32)}

    def body(carry, x):
        h, n = carry
        h = jnp.tanh(jnp.asarray(w) @ h + x["a"])
        return (h, n + x["b"]), {"h": h, "double": (x["b"] * 2,)}

    (h, n), ys = _eager_and_jit(lambda h0, xs: lax.scan(body, (h0, jnp.int32(0)), xs), np.zeros(3, np.float32), xs)
    ref_h = np.zeros(3, np.float32)
    hs = []
    for i in range(4):
        ref_h = np.tanh(w @ ref_h + 1.0)
        hs.append(ref_h)
    check_close(h, ref_h)
    check_close(n, np.int32(6))
    check_close(ys["h"], np.stack(hs))
    check_close(ys["double"][0], np.arange(4, dtype=np.int32) * 2)


def test_scan_without_xs_uses_length():
    c, ys = _eager_and_jit(lambda c: lax.scan(lambda c, _: (c * 2, c), c, None, length=5), jnp.float32(1.0))
    check_close(c, np.float32(32.0))
    check_close(ys, np.array([1, 2, 4, 8, 16], np.float32))


def test_scan_zero_length_returns_init_and_empty_ys():
    c, ys = _eager_and_jit(lambda c, xs: lax.scan(lambda c, x: (c + x, c), c, xs), jnp.float32(3.0),
                           np.zeros((0,), np.float32))
    check_close(c, np.float32(3.0))
    assert ys.shape == (0,) and ys.dtype == np.float32


def test_scan_invariant_carry_becomes_const_and_comes_back_unchanged():
    # JAX returns the initial value itself for a carry the body passes through.
    (c0, c1), _ = lax.scan(lambda c, x: ((c[0] + x, c[1]), None), (0.0, 1.0), jnp.ones(3))
    assert c1 == 1.0 and type(c1) is float
    check_close(c0, np.float32(3.0))
    jaxpr = pyjax.make_jaxpr(lambda xs: lax.scan(lambda c, x: ((c[0] + x, c[1]), None), (0.0, 1.0), xs))(jnp.ones(3))
    (eqn,) = jaxpr.eqns
    assert str(eqn.params["ft_in"]) == "((None,), (None,), (None,))"


def test_scan_y_that_is_an_x_is_forwarded_not_stacked():
    xs = jnp.arange(4.0)
    jaxpr = pyjax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c + x, (x, c)), 0.0, xs))(xs)
    (eqn,) = jaxpr.eqns
    assert str(eqn.params["ft_out"]) == "((None,), (RightsOnly(Left(None)), RightsOnly(Right(None))))"
    assert jaxpr.outvars[1] is jaxpr.invars[0]
    _, (ys_x, ys_c) = lax.scan(lambda c, x: (c + x, (x, c)), 0.0, xs)
    check_close(ys_x, np.arange(4.0, dtype=np.float32))
    check_close(ys_c, np.array([0, 0, 1, 3], np.float32))


def test_scan_weakly_typed_init_takes_the_body_dtype_after_a_second_trace():
    traces = []

    def body(c, x):
        traces.append(c.dtype)
        return c + x, None

    c, _ = lax.scan(body, 0, jnp.arange(3.0))
    assert traces == [np.dtype("int32"), np.dtype("float32")]
    check_close(c, np.float32(3.0))


def test_scan_body_is_traced_once():
    traces = []

    def body(c, x):
        traces.append("body")
        return c + x, c

    pyjax.make_jaxpr(lambda xs: lax.scan(body, 0.0, xs))(jnp.ones(1000))
    assert traces == ["body"]
    jaxpr = pyjax.make_jaxpr(lambda xs: lax.scan(body, jnp.float32(0.0), xs))(jnp.ones(1000))
    assert _primitives(jaxpr) == ["scan"]


def test_nested_scans_and_control_flow_inside_scan():
    def inner(c, x):
        return lax.cond(x > 2, lambda v: v + x, lambda v: v - x, c), lax.fori_loop(0, 3, lambda i, a: a + i, x)

    def outer(c, row):
        c, ys = lax.scan(inner, c, row)
        return c, ys.sum()

    xs = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    c, ys = _eager_and_jit(lambda c, xs: lax.scan(outer, c, xs), jnp.float32(0.0), xs)
    ref_c, ref_ys = 0.0, []
    for row in xs:
        total = 0.0
        for x in row:
            ref_c = ref_c + x if x > 2 else ref_c - x
            total += x + 3
        ref_ys.append(total)
    check_close(c, np.float32(ref_c))
    check_close(ys, np.array(ref_ys, np.float32))


def test_scan_errors_match_jax():
    with pytest.raises(TypeError, match="lax.scan: f argument should be a callable."):
        lax.scan(1, 0.0, jnp.arange(3.0))
    with pytest.raises(ValueError, match=r"scan got `length` argument of 4 which disagrees with leading axis sizes \[3\]\."):
        lax.scan(lambda c, x: (c, x), 0.0, jnp.arange(3.0), length=4)
    with pytest.raises(ValueError, match="scan got values with different leading axis sizes: 3, 4."):
        lax.scan(lambda c, x: (c, x), 0.0, (jnp.arange(3.0), jnp.arange(4.0)))
    with pytest.raises(ValueError, match="scan got no values to scan over and `length` not provided."):
        lax.scan(lambda c, x: (c, x), 0.0, None)
    with pytest.raises(ValueError, match="scan got value with no leading axis to scan over: 1.0."):
        lax.scan(lambda c, x: (c, x), 0.0, 1.0)
    with pytest.raises(TypeError, match=r"scan body output must be a pair, got ~float32\[\]\."):
        lax.scan(lambda c, x: c, 0.0, jnp.arange(3.0))
    with pytest.raises(ValueError, match="`unroll` must be a `bool` or a non-negative `int`."):
        lax.scan(lambda c, x: (c, x), 0.0, jnp.arange(3.0), unroll=-1)
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match="The `length` argument to `scan` expects a concrete"):
        pyjax.jit(lambda n: lax.scan(lambda c, x: (c, x), 0.0, None, length=n))(3)


CARRY_MESSAGES = [
    (lambda c, x: (c.astype(jnp.int32), x), jnp.float32(0.0),
     ("scan body function carry input and carry output must have equal types, but they differ:\n\n"
      "The input carry c has type float32[] but the corresponding output carry component has type int32[], so the "
      "dtypes do not match.\n\nRevise the function so that all output types match the corresponding input types.")),
    (lambda c, x: (jnp.ones(2), x), jnp.float32(0.0),
     ("scan body function carry input and carry output must have equal types, but they differ:\n\n"
      "The input carry c has type float32[] but the corresponding output carry component has type float32[2], so "
      "the shapes do not match.\n\nRevise the function so that all output types match the corresponding input types.")),
    (lambda c, x: ({"a": c["a"], "b": c["b"].astype(jnp.int32)}, x), {"a": 1.0, "b": jnp.float32(0.0)},
     ("scan body function carry input and carry output must have equal types, but they differ:\n\n"
      "The input carry component c['b'] has type float32[] but the corresponding output carry component has type "
      "int32[], so the dtypes do not match.\n\nRevise the function so that all output types match the corresponding "
      "input types.")),
    (lambda c, x: ((c[0].astype(jnp.int32), jnp.ones(3, jnp.int32)), x), (jnp.float32(0.0), jnp.float32(1.0)),
     ("scan body function carry input and carry output must have equal types, but they differ:\n\n"
      "  * the input carry component c[0] has type float32[] but the corresponding output carry component has type "
      "int32[], so the dtypes do not match;\n"
      "  * the input carry component c[1] has type float32[] but the corresponding output carry component has type "
      "int32[3], so the dtypes do not match, and the shapes do not match.\n\n"
      "Revise the function so that all output types match the corresponding input types.")),
    (lambda c, x: ((c, c), x), jnp.float32(0.0),
     ("scan body function carry input and carry output must have the same pytree structure, but they differ:\n\n"
      "The input carry c is a <class 'pyjax._src.avals.ShapedArray'> but the corresponding component of the carry "
      "output is a <class 'tuple'>, so their Python types differ.\n\nRevise the function so that the carry output "
      "has the same pytree structure as the carry input.")),
]


@pytest.mark.parametrize("body,init,message", CARRY_MESSAGES)
def test_scan_carry_type_errors(body, init, message):
    with pytest.raises(TypeError) as info:
        lax.scan(body, init, jnp.arange(3.0))
    assert str(info.value) == message


# ---------------------------------------------------------------------------
# while_loop and fori_loop


def test_while_loop_matches_python_loop():
    def cond_fun(c):
        return c[0] < 10

    def body_fun(c):
        return c[0] + 1, c[1] * 1.5

    i, x = _eager_and_jit(lambda x: lax.while_loop(cond_fun, body_fun, (0, x)), jnp.float32(1.0))
    check_close(i, np.int32(10))
    check_close(x, np.float32(1.5 ** 10))


def test_while_loop_runs_zero_times_when_cond_starts_false():
    out = _eager_and_jit(lambda x: lax.while_loop(lambda c: c > 100.0, lambda c: c * 2, x), jnp.float32(3.0))
    check_close(out, np.float32(3.0))


def test_while_loop_closes_over_values_and_keeps_invariant_carries():
    def f(x, y):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + y, c[1], c[2] * x), (0.0, jnp.float32(7.0), x))

    a, b, c = _eager_and_jit(f, jnp.float32(2.0), jnp.float32(1.0))
    check_close(a, np.float32(5.0))
    check_close(b, np.float32(7.0))
    check_close(c, np.float32(64.0))
    jaxpr = pyjax.make_jaxpr(f)(jnp.float32(2.0), jnp.float32(1.0))
    (eqn,) = jaxpr.eqns
    assert eqn.params["body_nconsts"] == 3  # y, x and the invariant carry


def test_while_loop_weak_init_promoted():
    out = lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0)
    check_close(out, np.float32(3.0))


def test_while_loop_traces_each_function_once():
    traces = []

    def cond_fun(c):
        traces.append("cond")
        return c < 10.0

    def body_fun(c):
        traces.append("body")
        return c * 2

    pyjax.make_jaxpr(lambda x: lax.while_loop(cond_fun, body_fun, x))(jnp.float32(1.0))
    assert traces == ["cond", "body"]


def test_while_loop_errors_match_jax():
    with pytest.raises(TypeError, match=r"cond_fun must return a boolean scalar, but got output type\(s\) "
                                        r"\[ShapedArray\(float32\[\], weak_type=True\)\]\."):
        lax.while_loop(lambda c: c, lambda c: c, 1.0)
    with pytest.raises(TypeError, match=r"cond_fun must return a boolean scalar, but got pytree PyTreeDef\(\(\*, \*\)\)\."):
        lax.while_loop(lambda c: (c < 1, c < 2), lambda c: c, 1.0)
    with pytest.raises(TypeError) as info:
        lax.while_loop(lambda c: c < 3, lambda c: (c + 1.5).astype(jnp.int32).astype(jnp.float32), jnp.int32(0))
    assert str(info.value) == (
        "while_loop body function carry input and carry output must have equal types, but they differ:\n\n"
        "The input carry c has type int32[] but the corresponding output carry component has type float32[], so the "
        "dtypes do not match.\n\nRevise the function so that all output types match the corresponding input types.")
    with pytest.raises(TypeError, match="lax.while_loop: body_fun and cond_fun arguments should be callable."):
        lax.while_loop(1, lambda c: c, 1.0)


@pytest.mark.parametrize("lower,upper", [(0, 5), (2, 7), (5, 2), (-3, 3)])
def test_fori_loop_static_bounds_is_a_scan(lower, upper):
    f = lambda x: lax.fori_loop(lower, upper, lambda i, c: c * 2 + i, x)
    out = _eager_and_jit(f, jnp.float32(1.0))
    ref = np.float32(1.0)
    for i in range(lower, upper):
        ref = ref * 2 + i
    check_close(out, np.float32(ref))
    assert _primitives(pyjax.make_jaxpr(f)(jnp.float32(1.0))) == ["scan"]


def test_fori_loop_traced_bounds_is_a_while():
    f = lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x)
    check_close(pyjax.jit(f)(jnp.float32(0.5), 4), np.float32(6.5))
    jaxpr = pyjax.make_jaxpr(f)(jnp.float32(0.5), 4)
    assert _primitives(jaxpr) == ["while"]
    assert len(jaxpr.eqns[0].outvars) == 3  # (i, upper, x)


def test_fori_loop_errors_and_mixed_index_dtypes():
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have equal types, got int8 and int16"):
        lax.fori_loop(jnp.int8(0), jnp.int16(3), lambda i, c: c + i, 0.0)
    with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop` if the loop bounds are statically known."):
        pyjax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0.0, unroll=2))(3)
    with pytest.raises(TypeError, match="lax.fori_loop: body_fun argument should be callable."):
        lax.fori_loop(0, 3, 1, 0.0)
    # A weak Python int bound takes the other bound's dtype.
    out = pyjax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + i.astype(jnp.float32), 0.0))(jnp.int8(4))
    check_close(out, np.float32(6.0))


# ---------------------------------------------------------------------------
# cond and switch


@pytest.mark.parametrize("pred,want", [(True, 3.0), (False, -1.0), (1, 3.0), (0, -1.0), (2.5, 3.0), (0.0, -1.0)])
def test_cond_predicates(pred, want):
    f = lambda p, x: lax.cond(p, lambda v: v + 2, lambda v: v - 2, x)
    check_close(_eager_and_jit(f, pred, jnp.float32(1.0)), np.float32(want))


def test_cond_pytrees_multiple_operands_and_operand_keyword():
    def true_fun(a, b):
        return {"sum": a + b["x"], "pair": (a, b["y"])}

    def false_fun(a, b):
        return {"sum": a - b["x"], "pair": (b["x"], b["y"] * 0)}

    out = _eager_and_jit(lambda p, a, b: lax.cond(p, true_fun, false_fun, a, b), False, jnp.float32(1.0),
                         {"x": jnp.float32(5.0), "y": jnp.int32(2)})
    check_close(out["sum"], np.float32(-4.0))
    check_close(out["pair"][0], np.float32(5.0))
    check_close(out["pair"][1], np.int32(0))
    check_close(lax.cond(True, lambda v: v * 3, lambda v: v, operand=jnp.float32(2.0)), np.float32(6.0))
    check_close(lax.cond(False, lambda: 1.0, lambda: 2.0), np.float32(2.0))
    # The deprecated five-argument form.
    check_close(lax.cond(True, jnp.float32(2.0), lambda x: x + 1, jnp.float32(5.0), lambda x: x - 1), np.float32(3.0))


def test_cond_traces_both_branches_once_and_runs_one():
    traces, runs = [], []

    def true_fun(x):
        traces.append("true")
        return x + 1

    def false_fun(x):
        traces.append("false")
        return x - 1

    jaxpr = pyjax.make_jaxpr(lambda x: lax.cond(x > 0, true_fun, false_fun, x))(jnp.float32(1.0))
    assert traces == ["true", "false"]
    assert _primitives(jaxpr) == ["gt", "convert_element_type", "cond"]
    traces.clear()
    # As JAX (recorded from 0.11.0): the same functions on the same types
    # reuse their traces; new types trace both branches again.
    check_close(lax.cond(False, true_fun, false_fun, jnp.float32(1.0)), np.float32(0.0))
    assert traces == [] and not runs
    check_close(lax.cond(False, true_fun, false_fun, jnp.ones(2)), np.zeros(2, np.float32))
    assert traces == ["true", "false"] and not runs


def test_bodies_are_traced_once_per_function_and_types_as_in_jax():
    # JAX's trace cache, recorded from JAX 0.11.0 (tests/golden/record_trace_cache.py):
    # three eager scans of one body trace it once, a later jit and make_jaxpr
    # zero times, another length of the same step types zero times, new types
    # once more; a global rebound between calls is not seen.
    import json
    import sys
    from pathlib import Path

    golden = Path(__file__).resolve().parents[1] / "golden"
    sys.path.insert(0, str(golden))
    try:
        from record_trace_cache import scenario
    finally:
        sys.path.remove(str(golden))
    expected = json.loads((golden / "trace_cache.json").read_text())
    expected.pop("jax_version")
    assert scenario(pyjax, jnp, lax) == expected


def test_a_body_closing_over_an_outer_tracer_is_traced_each_time():
    calls = []

    def outer(y):
        def body(c, x):
            calls.append(1)
            return c + x * y, c
        return lax.scan(body, 0.0, jnp.arange(3.0))[0]

    for v in (1.0, 2.0):
        assert float(pyjax.jit(lambda y: outer(y))(v)) == 3.0 * v
    assert len(calls) == 2


def test_cond_output_passed_through_by_both_branches_is_not_an_output():
    jaxpr = pyjax.make_jaxpr(lambda p, x, y: lax.cond(p, lambda a, b: (a, b * 2), lambda a, b: (a, b), x, y))(
        True, jnp.float32(1.0), jnp.float32(2.0))
    cond_eqn = jaxpr.eqns[-1]
    assert len(cond_eqn.outvars) == 1 and jaxpr.outvars[0] is jaxpr.invars[1]


@pytest.mark.parametrize("index,want", [(-5, 1.0), (0, 1.0), (1, 2.0), (2, 3.0), (7, 3.0)])
def test_switch_clamps_its_index(index, want):
    branches = [lambda x: x, lambda x: x * 2, lambda x: x * 3]
    check_close(_eager_and_jit(lambda i, x: lax.switch(i, branches, x), index, jnp.float32(1.0)), np.float32(want))


def test_switch_single_branch_is_called_directly():
    jaxpr = pyjax.make_jaxpr(lambda i, x: lax.switch(i, [jnp.sin], x))(1, jnp.float32(1.0))
    assert _primitives(jaxpr) == ["sin"]


def test_cond_impl_runs_the_last_branch_for_an_out_of_range_index():
    # XLA's Conditional semantics, which cond_p keeps when bound directly.
    branches = pyjax.make_jaxpr(lambda i, x: lax.switch(i, [lambda v: v, lambda v: v * 2, lambda v: v * 3], x))(
        0, jnp.float32(1.0)).eqns[-1].params["branches"]
    for index, want in [(0, 1.0), (1, 2.0), (2, 3.0), (3, 3.0), (-1, 3.0)]:
        (out,) = lax.cond_p.bind(np.int32(index), jnp.float32(1.0), branches=branches)
        check_close(out, np.float32(want))


def test_cond_and_switch_errors_match_jax():
    with pytest.raises(TypeError, match=r"Pred must be a scalar, got \[ True  True\] of shape \(2,\)\."):
        lax.cond(jnp.ones(2) > 0, lambda x: x, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="cond predicate is None"):
        lax.cond(None, lambda x: x, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="lax.cond: true_fun and false_fun arguments should be callable."):
        lax.cond(True, 2, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="Index type must be an integer, got 1.0 as float32"):
        lax.switch(1.0, [lambda x: x], 1.0)
    with pytest.raises(TypeError, match=r"Branch index must be scalar, got \[1 1\] of shape \(2,\)\."):
        lax.switch(jnp.ones(2, jnp.int32), [lambda x: x], 1.0)
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(1, [], 1.0)
    with pytest.raises(TypeError, match="lax.switch: branches argument should be a sequence of callables."):
        lax.switch(1, [1, 2], 1.0)


def test_branch_output_mismatch_messages():
    def true_fun(x):
        return x

    def false_fun(x):
        return x.astype(jnp.int32)

    def tuple_fun(x):
        return x, x

    with pytest.raises(TypeError) as info:
        lax.cond(True, true_fun, false_fun, 1.0)
    here = __file__
    line_true, line_false = true_fun.__code__.co_firstlineno, false_fun.__code__.co_firstlineno
    assert str(info.value) == (
        "cond branches must have equal output types but they differ.\n\n"
        f"true_fun is true_fun at {here}:{line_true}\nfalse_fun is false_fun at {here}:{line_false}\n\n"
        "The output of true_fun has type float32[] but the corresponding output of false_fun has type int32[], so "
        "the dtypes do not match.\n\nRevise true_fun and/or false_fun so that all output types match.")
    with pytest.raises(TypeError) as info:
        lax.cond(True, tuple_fun, false_fun, 1.0)
    assert "tuple_fun output is a <class 'tuple'> but false_fun output is a pytree leaf, so their Python types " \
           "differ.\n" in str(info.value).replace("true_fun output", "tuple_fun output")
    with pytest.raises(TypeError) as info:
        lax.switch(1, [true_fun, true_fun, lambda x: jnp.ones(3)], 1.0)
    message = str(info.value)
    assert message.startswith("switch branches must have equal output types but they differ.\n\nbranch 0 is true_fun")
    assert "\nbranch2 is <lambda> at " in message
    assert ("The output of branch 0 has type float32[] but the corresponding output of branch2 has type float32[3], "
            "so the shapes do not match.") in message


# ---------------------------------------------------------------------------
# map and associative_scan


@pytest.mark.parametrize("batch_size", [None, 0, 1, 2, 3, 5, 8])
def test_map_with_and_without_batches(batch_size):
    xs = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    out = _eager_and_jit(lambda xs: lax.map(lambda x: (x * 2).sum(), xs, batch_size=batch_size), xs)
    check_close(out, (xs * 2).sum(axis=1))


def test_map_pytree():
    xs = {"a": np.arange(4.0, dtype=np.float32), "b": np.arange(4, dtype=np.int32)}
    out = _eager_and_jit(lambda xs: lax.map(lambda d: (d["a"] + 1, d["b"] * d["b"]), xs), xs)
    check_close(out[0], xs["a"] + 1)
    check_close(out[1], xs["b"] ** 2)


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_matches_cumulative_ops(n, reverse):
    xs = np.arange(1.0, n + 1, dtype=np.float32)
    want = np.cumsum(xs[::-1])[::-1] if reverse else np.cumsum(xs)
    check_close(_eager_and_jit(lambda x: lax.associative_scan(jnp.add, x, reverse=reverse), xs), want.astype(np.float32))
    want = np.cumprod(xs[::-1])[::-1] if reverse else np.cumprod(xs)
    check_close(lax.associative_scan(jnp.multiply, xs, reverse=reverse), want.astype(np.float32), rtol=1e-5)


def test_associative_scan_pytrees_axes_and_bools():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    out = lax.associative_scan(lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])), (x, -x), axis=1)
    check_close(out[0], np.cumsum(x, axis=1))
    check_close(out[1], np.maximum.accumulate(-x, axis=1))
    flags = np.array([False, True, False, False, True])
    check_close(lax.associative_scan(lambda a, b: a | b, flags), np.logical_or.accumulate(flags))
    with pytest.raises(TypeError, match="lax.associative_scan: fn argument should be callable."):
        lax.associative_scan(1, x)


# ---------------------------------------------------------------------------
# Compilation: loops over compiled bodies


def test_jit_source_is_a_python_loop_over_a_compiled_body():
    f = pyjax.jit(lambda c, xs: lax.scan(lambda c, x: (c * x, c), c, xs))
    source = f.lower(jnp.float32(1.0), jnp.ones(4)).as_text("python")
    assert "for " in source and "(inlined)" in source
    w = pyjax.jit(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2, x))
    assert "while True:" in w.lower(jnp.float32(1.0)).as_text("python")
    c = pyjax.jit(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))
    assert "if _k" in c.lower(True, jnp.float32(1.0)).as_text("python")


def test_disable_jit_runs_python_control_flow():
    with pyjax.disable_jit():
        calls = []

        def body(c, x):
            calls.append(x)
            return c + x, c

        _, ys = lax.scan(body, 0.0, jnp.arange(3.0))
        assert len(calls) == 3
        check_close(ys, np.array([0, 0, 1], np.float32))
        branch = []
        lax.cond(True, lambda: branch.append("t"), lambda: branch.append("f"))
        assert branch == ["t"]
        assert lax.while_loop(lambda c: c < 5, lambda c: c + 2, 0) == 6
