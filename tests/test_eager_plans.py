"""Eager plans (dispatch.py): an eager call on one or two Arrays is memoised
per primitive as (NumPy call, output aval, dtype-exact). These tests check
that a plan gives exactly what the general path gives (value, dtype, weak
type), that bad calls keep raising, and that plans are dropped with the
default trace."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.lax import elementwise as ew

DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.uint32, np.int32, np.complex64, np.bool_]


def _array(dtype, shape=(3,)):
    return jnp.asarray(np.arange(1, 1 + int(np.prod(shape))).reshape(shape).astype(dtype))


def _same(a, b):
    assert a.dtype == b.dtype and a.weak_type == b.weak_type and a.shape == b.shape
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["add", "mul", "eq", "lt", "max", "bitwise_and", "exp", "neg", "sign"])
def test_plan_matches_jit(op, dtype):
    fn = getattr(lax, op)
    x, y = _array(dtype), _array(dtype)[::-1]
    unary = op in ("exp", "neg", "sign")
    try:
        expected = pyjax.jit(fn)(x) if unary else pyjax.jit(fn)(x, y)
    except TypeError as e:  # not defined for this dtype: the plan path raises the same, every time
        for _ in range(2):
            with pytest.raises(TypeError, match=str(e).split("\n")[0][:40].replace("[", r"\[").replace("(", r"\(")):
                fn(x) if unary else fn(x, y)
        return
    for _ in range(3):  # the first call makes the plan, later ones use it
        _same(fn(x) if unary else fn(x, y), expected)


def test_plans_are_memoised_and_exact_for_ufuncs():
    x = _array(np.float32, (2, 5))
    lax.add(x, x)
    call, out_aval, exact = ew.add_p.eager_plans[(x.aval, x.aval)]
    assert call is np.add and out_aval is x.aval and exact
    lax.exp(x)
    call, _, exact = ew.exp_p.eager_plans[(x.aval, None)]  # the accuracy param is part of the key
    assert call is np.exp and exact


def test_a_bad_call_keeps_raising_and_makes_no_plan():
    x, i = _array(np.float32, (4,)), _array(np.int32, (4,))
    for _ in range(2):
        with pytest.raises(TypeError, match="add requires arguments to have the same dtypes"):
            lax.add(x, i)
    assert (x.aval, i.aval) not in ew.add_p.eager_plans


def test_set_default_trace_drops_plans():
    x = _array(np.float32, (6,))
    lax.mul(x, x)
    assert ew.mul_p.eager_plans
    trace = core._default_trace[0]
    core.set_default_trace(trace)
    assert not ew.mul_p.eager_plans
    _same(lax.mul(x, x), pyjax.jit(lax.mul)(x, x))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64, np.int32, np.bool_], ids=str)
@pytest.mark.parametrize("scalar", [2, 2.5, True, 0, -0.0])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "greater", "equal", "maximum", "minimum", "true_divide"])
def test_array_with_python_scalar_matches_jit(op, dtype, scalar):
    fn = getattr(jnp, op)
    x = jnp.asarray(np.array([-1, 0, 2], dtype))
    for f in (lambda a: fn(a, scalar), lambda a: fn(scalar, a)):
        try:
            expected = pyjax.jit(f)(x)
        except TypeError as e:
            for _ in range(2):
                with pytest.raises(TypeError) as info:
                    f(x)
                assert str(info.value) == str(e)
            continue
        for _ in range(2):  # the second call runs on the memoised plans
            _same(f(x), expected)


def test_max_keeps_xla_signed_zeros_on_the_plan_path():
    x = jnp.asarray(np.array([0.0, -0.0], np.float32))
    for _ in range(2):
        assert np.signbit(np.asarray(jnp.maximum(x, -0.0))).tolist() == [False, True]
        assert not np.signbit(np.asarray(jnp.maximum(x, 0.0))).any()
        assert np.signbit(np.asarray(jnp.minimum(x, 0.0))).tolist() == [False, True]
        assert np.signbit(np.asarray(jnp.minimum(x, -0.0))).all()


def test_a_call_without_a_plan_is_not_replanned_every_time(monkeypatch):
    from pyjax._src import dispatch

    x = _array(np.float32, (7,))
    lax.sort((x, x), num_keys=1)  # a multiple-results primitive: its "no plan" is memoised
    built = []
    real = dispatch.EvalTrace._plan
    monkeypatch.setattr(dispatch.EvalTrace, "_plan", lambda self, *a: built.append(a) or real(self, *a))
    for _ in range(3):
        lax.sort((x, x), num_keys=1)
    assert built == []


def test_an_unhashable_param_takes_the_general_path():
    from pyjax._src.core import Primitive
    from pyjax._src.backends.numpy.impls import IMPLS

    scale_p = Primitive("scale_by_list")
    scale_p.def_abstract_eval(lambda aval, *, factors: aval)
    IMPLS[scale_p] = lambda x, *, factors: x * factors[0]
    try:
        x = _array(np.float32, (3,))
        out = scale_p.bind(x, factors=[2.0])  # a list: no memo key, but it runs
        np.testing.assert_array_equal(np.asarray(out), np.asarray(x) * 2)
    finally:
        del IMPLS[scale_p]
