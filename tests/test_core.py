"""The tracing core: bind and the current trace, the staging trace, jaxpr
evaluation and checking, missing-rule errors, tracer errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.interpreters.staging import DynamicJaxprTracer
from pyjax._src.jaxpr import JaxprTypeError, check_jaxpr, eval_jaxpr
from pyjax._src.rules import NOT_LINEAR, unimplemented

from helpers import check_close


def test_eager_bind_runs_immediately_and_returns_array():
    out = lax.add(jnp.ones(3), 2.0)
    assert isinstance(out, jax.Array)
    check_close(out, np.full(3, 3.0, np.float32))


def test_staging_records_equations_in_order():
    jaxpr = jax.make_jaxpr(lambda x: lax.sin(lax.mul(x, 2.0)))(1.0)
    assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "sin"]
    assert jaxpr.in_avals[0].weak_type  # a Python float argument is weakly typed


def test_current_trace_is_restored_after_tracing():
    before = core.current_trace()
    jax.make_jaxpr(lambda x: x + 1)(1.0)
    assert core.current_trace() is before


def test_tracer_type_and_aval_inside_trace():
    seen = []
    jax.make_jaxpr(lambda x: seen.append((type(x), x.aval, x.shape, x.dtype, x.ndim)) or x)(jnp.ones((2, 3)))
    tracer_type, aval, shape, dtype, ndim = seen[0]
    assert tracer_type is DynamicJaxprTracer and tracer_type.__name__ == "DynamicJaxprTracer"
    assert str(aval) == "float32[2,3]" and shape == (2, 3) and dtype == np.float32 and ndim == 2


def test_pair_argument_gives_same_jaxpr_as_two_arguments():
    f_pair = lambda p: jnp.maximum(p[0] @ p[1], 0.0)  # noqa: E731
    f_two = lambda a, b: jnp.maximum(a @ b, 0.0)  # noqa: E731
    a, b = jnp.ones((2, 3)), jnp.ones((3, 4))
    assert str(jax.make_jaxpr(f_pair)((a, b))) == str(jax.make_jaxpr(f_two)(a, b))


def test_make_jaxpr_static_argnums_and_return_shape():
    jaxpr, shape = jax.make_jaxpr(lambda n, x: jnp.ones((n,)) * x, static_argnums=0, return_shape=True)(4, 2.0)
    assert shape.shape == (4,) and shape.dtype == np.float32
    assert len(jaxpr.invars) == 1


def test_make_jaxpr_pytree_outputs():
    jaxpr, shapes = jax.make_jaxpr(lambda d: {"s": d["a"].sum(), "t": (d["b"],)}, return_shape=True)(
        {"a": jnp.ones(3), "b": jnp.zeros(2)}
    )
    assert shapes["s"].shape == () and shapes["t"][0].shape == (2,)
    assert len(jaxpr.outvars) == 2


def test_closed_over_array_becomes_constvar_scalar_becomes_literal():
    c = jnp.arange(3.0)
    jaxpr = jax.make_jaxpr(lambda x: x * 2.0 + c)(jnp.ones(3))
    assert len(jaxpr.constvars) == 1 and jaxpr.consts[0] is c
    assert jaxpr.eqns[0].invars[1].val == 2.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["add", "mul", "sin", "max", "tanh", "sub"]), min_size=1, max_size=12),
       st.integers(1, 5))
def test_eval_jaxpr_of_make_jaxpr_equals_function(ops, n):
    def f(x):
        for op in ops:
            if op == "add":
                x = x + 1.5
            elif op == "mul":
                x = x * 0.5
            elif op == "sin":
                x = jnp.sin(x)
            elif op == "max":
                x = jnp.maximum(x, 0.25)
            elif op == "tanh":
                x = jnp.tanh(x)
            else:
                x = x - jnp.ones(n)
        return x

    x = jnp.asarray(np.linspace(-2, 2, n, dtype=np.float32))
    jaxpr = jax.make_jaxpr(f)(x)
    check_jaxpr(jaxpr)
    (out,) = eval_jaxpr(jaxpr, jaxpr.consts, x)
    check_close(out, f(x))


def test_check_jaxpr_rejects_a_wrong_output_type():
    jaxpr = jax.make_jaxpr(lambda x: x + 1.0)(jnp.ones(3))
    from pyjax._src.avals import ShapedArray
    from pyjax._src.jaxpr import Var

    bad_var = Var(ShapedArray((4,), np.float32))
    bad = jaxpr.replace(eqns=[jaxpr.eqns[0].replace(outvars=[bad_var])], outvars=[bad_var])
    with pytest.raises(JaxprTypeError, match="add"):
        check_jaxpr(bad)


def test_missing_rules_raise_jax_messages():
    p = Primitive("my_op")
    # Eagerly JAX calls the impl first, on an Array as on a NumPy value.
    with pytest.raises(NotImplementedError, match="^Evaluation rule for 'my_op' not implemented$"):
        p.bind(jnp.ones(2))
    with pytest.raises(NotImplementedError, match="^Evaluation rule for 'my_op' not implemented$"):
        p.bind(np.ones(2, np.float32))
    with pytest.raises(NotImplementedError, match="^Abstract evaluation for 'my_op' not implemented$"):
        jax.make_jaxpr(p.bind)(jnp.ones(2))
    p.def_abstract_eval(lambda x: x)
    with pytest.raises(NotImplementedError, match="^Evaluation rule for 'my_op' not implemented$"):
        p.bind(jnp.ones(2))
    with pytest.raises(NotImplementedError, match=r"^Differentiation rule for 'my_op' not implemented$"):
        p.rule("jvp")
    p.transpose = NOT_LINEAR
    with pytest.raises(NotImplementedError, match=r"^Transpose rule \(for reverse-mode differentiation\) for 'my_op' not implemented$"):
        p.rule("transpose")
    p.batch = unimplemented("needs a gather")
    with pytest.raises(NotImplementedError, match=r"^Batching rule for 'my_op' not implemented \(needs a gather\)$"):
        p.rule("batch")


def test_abstract_eval_is_memoised_per_avals_and_params():
    calls = []
    p = Primitive("counted")

    @p.def_abstract_eval
    def _(x, *, k):
        calls.append(k)
        return x

    jax.make_jaxpr(lambda x: p.bind(p.bind(x, k=1), k=1))(jnp.ones(2))
    assert calls == [1]
    jax.make_jaxpr(lambda x: p.bind(x, k=2))(jnp.ones(2))
    assert calls == [1, 2]


def test_tracer_errors_have_jax_classes():
    def uses_bool(x):
        return 1 if x > 0 else 0

    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        jax.make_jaxpr(uses_bool)(1.0)
    assert isinstance(info.value, jax.errors.ConcretizationTypeError)
    assert "depends on the value of the argument x" in str(info.value)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: int(x))(1.0)
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        jax.jit(lambda n: list(range(n)))(3)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(lambda x: np.asarray(x))(jnp.ones(2))


def test_escaped_tracer_raises_unexpected_tracer_error():
    leaked = []
    jax.make_jaxpr(lambda x: leaked.append(x) or x)(1.0)
    with pytest.raises(jax.errors.UnexpectedTracerError, match="Encountered an unexpected tracer"):
        leaked[0] + 1.0
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.jit(lambda y: y * leaked[0])(2.0)


def test_outer_tracer_closed_over_by_inner_jit_is_an_argument():
    def f(x):
        return jax.jit(lambda y: y * x)(2.0)

    jaxpr = jax.make_jaxpr(f)(3.0)
    (eqn,) = jaxpr.eqns
    assert eqn.primitive.name == "jit" and len(eqn.invars) == 2
    check_close(f(3.0), np.float32(6.0))


def test_unhashable_tracers_and_arrays():
    with pytest.raises(TypeError, match="unhashable type: 'ArrayImpl'"):
        hash(jnp.ones(2))
    with pytest.raises(TypeError, match="unhashable type: 'DynamicJaxprTracer'"):
        jax.make_jaxpr(lambda x: hash(x))(1.0)
