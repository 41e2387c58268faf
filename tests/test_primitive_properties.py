"""Primitive properties: each primitive declares them once, where it is
defined (core.Primitive.declare), and the NumPy backend derives its tables
from them. These tests fail when a primitive lacks a declaration a backend
needs, and pin the derived tables to the hand-kept lists they replaced (so
the native tier's, the tiler's and the fusion analysis's choices are
unchanged)."""

import contextlib
import re

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src import core
from pyjax._src.backends.numpy.xla import rewrite
from pyjax._src.backends.numpy.parallel import tile
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.lax import _standard

# The lists the backend kept by hand before the declarations (minus names no
# primitive has): the derived ones must equal them.
_TILE_ELEMENTWISE = frozenset({
    "neg", "sign", "abs", "floor", "ceil", "round", "is_finite", "square", "not", "conj", "real",
    "imag", "exp", "exp2", "log", "log1p", "expm1", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "logistic", "erf",
    "erfc", "lgamma", "digamma", "integer_pow", "add", "sub", "mul", "div", "rem", "pow",
    "max", "min", "atan2", "nextafter", "and", "or", "xor", "eq", "ne", "lt", "le", "gt", "ge",
    "select_n", "convert_element_type", "clamp", "stop_gradient", "copy",
    "shift_left", "shift_right_logical", "shift_right_arithmetic", "population_count", "clz",
    "bitcast_convert_type", "fma",
    "multiple_of", "reciprocal",  # (Pallas's elementwise primitives, declared with them)
    "add_any",  # (a backward pass's sum of cotangents, declared elementwise since)
})
# (tile.py's list of broadcasting ones; only operands of several matter.)
_TILE_BROADCASTING_NARY = frozenset({
    "add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter", "and", "or", "xor",
    "eq", "ne", "lt", "le", "gt", "ge", "shift_left", "shift_right_logical", "shift_right_arithmetic", "fma",
})
_FUSIBLE = frozenset({
    "neg", "sign", "abs", "floor", "ceil", "round", "is_finite", "square", "not", "conj", "real",
    "imag", "exp", "exp2", "log", "log1p", "expm1", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "logistic", "erf",
    "erfc", "erf_inv", "integer_pow", "add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2",
    "nextafter", "and", "or", "xor", "eq", "ne", "lt", "le", "gt", "ge", "select_n",
    "convert_element_type", "bitcast_convert_type", "clamp", "shift_left", "shift_right_logical",
    "shift_right_arithmetic", "stop_gradient", "copy", "fma",
    "broadcast_in_dim", "reshape", "transpose", "squeeze", "slice", "rev", "pad", "concatenate",
})
_EXPENSIVE = frozenset({
    "exp", "exp2", "log", "log1p", "expm1", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "logistic", "erf", "erfc",
    "erf_inv", "div", "rem", "pow", "atan2",
})


def _primitives() -> list:
    pyjax.numpy.zeros(1)  # (everything imported)
    return list(core._all_primitives)


def missing_declarations(primitive: core.Primitive) -> list[str]:
    """The declarations the NumPy backend needs that `primitive` lacks."""
    missing = []
    # rewrite.py's fusion analysis needs both for every elementwise op, and
    # the cost of every fusible one.
    if (primitive.elementwise or primitive.fusible) and primitive.cost not in ("cheap", "expensive"):
        missing.append("cost")
    if primitive.elementwise and not isinstance(primitive.fusible, bool):
        missing.append("fusible")
    return missing


def test_every_primitive_declares_what_the_backend_needs():
    holes = {p.name: m for p in _primitives() if (m := missing_declarations(p))}
    assert not holes, f"primitives lacking declarations: {holes}"


@contextlib.contextmanager
def _scratch(primitive):
    # A primitive made for one test, kept out of the registry afterwards.
    try:
        yield primitive
    finally:
        core._all_primitives.remove(primitive)
        IMPLS.pop(primitive, None)


def test_an_undeclared_cost_is_reported():
    with _scratch(_standard.standard_unop("scratch_undeclared", None)) as primitive:
        assert missing_declarations(primitive) == ["cost"]
    with _scratch(_standard.standard_unop("scratch_declared", None, cost="cheap")) as primitive:
        assert missing_declarations(primitive) == []


def test_declare_refuses_unknown_properties_and_costs():
    with _scratch(core.Primitive("scratch")) as primitive:
        with pytest.raises(TypeError, match="unknown primitive property 'elementwize'"):
            primitive.declare(elementwize=True)
        with pytest.raises(ValueError, match="cost must be one of"):
            primitive.declare(cost="pricey")
        assert primitive.declare(body_params=["jaxpr"]).body_params == ("jaxpr",)


def test_builders_register_batching():
    # standard_unop and standard_naryop give a new primitive JAX's vectorized
    # and broadcast batchers: vmap works with no other registration.
    with _scratch(_standard.standard_unop("scratch_negate", None, cost="cheap")) as unop, \
            _scratch(_standard.standard_naryop("scratch_plus", (None, None), cost="cheap")) as naryop:
        IMPLS[unop] = lambda x: np.negative(x)
        IMPLS[naryop] = lambda x, y: np.add(x, y)
        xs = jnp.arange(6.0).reshape(2, 3)
        np.testing.assert_array_equal(pyjax.vmap(unop.bind)(xs), -np.arange(6.0).reshape(2, 3))
        out = pyjax.vmap(naryop.bind, in_axes=(1, None))(xs, jnp.float32(1))
        np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3).T + 1)
        ys = jnp.arange(6.0).reshape(3, 2) * 10
        out = pyjax.vmap(naryop.bind, in_axes=(1, 0))(xs, ys)
        np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3).T + np.arange(6.0).reshape(3, 2) * 10)


def test_builders_declare_elementwise_fusible():
    assert pyjax.lax.sin_p.elementwise and pyjax.lax.sin_p.fusible and pyjax.lax.sin_p.cost == "expensive"
    assert pyjax.lax.add_p.broadcasting and pyjax.lax.add_p.cost == "cheap"
    assert not pyjax.lax.select_n_p.broadcasting
    assert pyjax.lax.reshape_p.fusible and not pyjax.lax.reshape_p.elementwise


def test_tile_tables_derive_from_declarations():
    primitives = _primitives()
    assert {p.name for p in primitives if tile.elementwise(p)} == _TILE_ELEMENTWISE
    nary = {p.name for p in primitives if tile.elementwise(p) and p.broadcasting}
    assert nary == _TILE_BROADCASTING_NARY


def test_untiled_names_are_elementwise_primitives():
    # tile.py's only list of names: each must still name an elementwise primitive.
    by_name = {p.name: p for p in _primitives()}
    assert all(by_name[name].elementwise for name in tile._UNTILED)


def test_fusion_tables_derive_from_declarations():
    primitives = _primitives()
    assert {p.name for p in primitives if p.fusible} == _FUSIBLE
    assert {p.name for p in primitives if rewrite._expensive(p)} == _EXPENSIVE


def _higher_order_program(x):
    @pyjax.custom_jvp
    def f(y):
        return jnp.sin(y)

    f.defjvp(lambda primals, tangents: (f(primals[0]), tangents[0]))

    @pyjax.custom_vjp
    def g(y):
        return jnp.cos(y)

    g.defvjp(lambda y: (g(y), y), lambda residual, ct: (ct,))
    y = pyjax.checkpoint(lambda z: z * 2)(x)
    y = pyjax.lax.scan(lambda c, a: (c + a, a), y, jnp.ones(3))[0]
    y = pyjax.lax.while_loop(lambda c: c < 3, lambda c: c + 1, y)
    y = pyjax.lax.cond(y > 0, lambda a: a, lambda a: -a, y)
    return pyjax.jit(lambda a: a + 1)(f(y) + g(y))


def _jaxpr_params(eqn) -> set:
    from pyjax._src.jaxpr import Jaxpr

    return {key for key, value in eqn.params.items()
            if isinstance(value, Jaxpr) or (type(value) is tuple and value and isinstance(value[0], Jaxpr))}


def test_params_holding_jaxprs_are_declared():
    # Every param holding a jaxpr (or a tuple of them) is in body_params.
    jaxpr = pyjax.make_jaxpr(_higher_order_program)(1.0)
    seen = set()
    for eqn in jaxpr.eqns:
        seen.add(eqn.primitive.name)
        assert _jaxpr_params(eqn) == set(eqn.primitive.body_params), eqn.primitive.name
        if eqn.primitive.call_body is not None:
            assert eqn.primitive.call_body in eqn.primitive.body_params
    assert {"jit", "remat2", "custom_jvp_call", "custom_vjp_call", "scan", "while", "cond"} <= seen


def test_call_primitives_derive_from_declarations():
    # native.py's and windowed.py's call tables are the call_body declarations
    # (native.py's former list).
    calls = {p.name: p.call_body for p in _primitives() if p.call_body is not None}
    former = {"jit": "jaxpr", "remat2": "jaxpr", "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr"}
    assert {name: calls.get(name) for name in former} == former


def test_native_tables_name_existing_primitives():
    # native.py's emitter tables are keyed by primitive name: a key naming no
    # primitive is a table out of date.
    from pyjax._src.backends.numpy import native
    from pyjax._src.backends.numpy.native import ops as native_ops
    from pyjax._src.backends.numpy.native import plans as native_plans

    names = {p.name for p in _primitives()}
    keys = set(native_plans._NATIVE_NAMES) | set(native_ops._VIEWS) | set(native_plans._IMPL_UFUNCS)
    assert keys <= names, sorted(keys - names)


# add_any is XLA's add, but the fusion analysis and the tiler never took it
# as elementwise; declaring it would change their choices (item 1 moves
# ad_util; its declaration is left for then).
_UFUNC_IMPLS_NOT_DECLARED: set = set()


def test_primitives_with_ufunc_impls_are_declared_elementwise():
    # A ufunc acts elementwise: a primitive whose NumPy impl is one and that
    # is not declared elementwise is left out of tiling, row loops and fusion.
    from pyjax._src.backends.numpy.codegen import kernels as compile_lib

    undeclared = {p.name for p, impl in IMPLS.items()
                  if compile_lib._direct_ufunc(impl) is not None and not p.elementwise}
    assert undeclared == _UFUNC_IMPLS_NOT_DECLARED


def test_reductions_derive_from_declarations():
    # tile.py's former _REDUCTIONS; its _ORDER_FREE and rows.py's reductions
    # must name declared reductions.
    from pyjax._src.backends.numpy.native import rows

    reductions = {p.name for p in _primitives() if p.reduction}
    assert reductions == {"reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or",
                          "reduce_xor", "argmax", "argmin"}
    assert tile._ORDER_FREE <= reductions and rows._REDUCTIONS <= reductions


def test_a_new_unary_primitive_needs_only_its_builder_and_impl():
    # The worked example of docs/architecture.md: a builder call and an impl
    # table entry, and vmap, jit (calling the ufunc directly), the tiler and
    # the fusion analysis all take the primitive.
    from pyjax._src.backends.numpy.impls import standard as impls
    from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr

    with _scratch(_standard.standard_unop("scratch_exp2", None, cost="expensive")) as primitive:
        IMPLS[primitive] = impls._dropping_params(np.exp2)
        xs = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
        np.testing.assert_array_equal(pyjax.vmap(primitive.bind)(xs), np.exp2(np.asarray(xs)))
        np.testing.assert_array_equal(pyjax.jit(primitive.bind)(xs), np.exp2(np.asarray(xs)))
        source = compile_jaxpr(pyjax.make_jaxpr(primitive.bind)(xs), IMPLS).source
        assert re.search(r"= _np_exp2\w*\(a\)", source), source
        assert tile.elementwise(primitive) and primitive.fusible and rewrite._expensive(primitive)
