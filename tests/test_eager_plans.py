"""Eager plans (dispatch.py): an eager call on one or two Arrays is memoised
per primitive as (NumPy call, output aval, dtype-exact). These tests check
that a plan gives exactly what the general path gives (value, dtype, weak
type), that bad calls keep raising, and that plans are dropped with the
default trace."""

from __future__ import annotations

import ml_dtypes
import warnings

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.lax import elementwise as ew
from pyjax._src import dispatch
from pyjax._src.numpy import contractions, reductions
from pyjax._src.numpy import where as where_mod

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
    x = _array(np.float32, (7,))
    lax.sort((x, x), num_keys=1)  # a multiple-results primitive: its "no plan" is memoised
    built = []
    real = dispatch.EvalTrace.make_plan
    monkeypatch.setattr(dispatch.EvalTrace, "make_plan", lambda self, *a: built.append(a) or real(self, *a))
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


# --- jax.numpy's eager sites (dispatch.py) and the Array-with-scalar memo


def _site_plans(site):
    return [p for p in site.plans.values() if type(p) is dispatch.EagerProgram]


SMALL = {"f32": _array(np.float32, (4, 3)), "i8": _array(np.int8, (4, 3)), "bool": _array(np.bool_, (4, 3)),
         "f16": _array(np.float16, (4, 3)), "bf16": _array(ml_dtypes.bfloat16, (4, 3)),
         "c64": _array(np.complex64, (4, 3)), "weak": jnp.full((4, 3), 1.5)}


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("call", ["sum", "sum0", "prod1", "max", "min1", "mean0", "mean", "any", "all1", "argmax0"])
def test_specialised_reductions_match_jit(call, name):
    fn = getattr(jnp, call.rstrip("01"))
    axis = int(call[-1]) if call[-1] in "01" else None
    x = SMALL[name]
    try:
        expected = pyjax.jit(lambda a: fn(a, axis=axis))(x)
    except TypeError:
        return
    for _ in range(3):  # ordinary path, build (checked against the compiled program), replay
        _same(fn(x, axis=axis), expected)


def test_small_programs_run_as_direct_numpy_calls():
    x, m = _array(np.float32, (3,)), _array(np.float32, (4, 4))
    core.set_default_trace(core._default_trace[0])  # no plans of earlier tests
    for _ in range(2):
        jnp.sum(x), jnp.mean(m, axis=0), jnp.dot(m, m), jnp.where(x > 1, x, 0.0)
    sum_direct, = [p.direct for p in _site_plans(reductions._SUM_ALL)]
    assert sum_direct == np.add.reduce  # the full 1-D float sum is the bare ufunc reduce
    dot_direct, = [p.direct for p in _site_plans(contractions._DOT)]
    assert dot_direct is np.ndarray.dot
    # mean is reduce then divide; where folds its broadcast scalar: neither runs the compiled program
    for site in (reductions._SITES["mean"], where_mod._WHERE_SCALAR_Y):
        assert all(p.direct is not None for p in _site_plans(site))
    np.testing.assert_array_equal(np.asarray(jnp.where(x > 1, x, 0.0)), [0.0, 2.0, 3.0])


def test_large_programs_keep_the_compiled_program():
    x = jnp.ones((80, 80), np.float32)
    core.set_default_trace(core._default_trace[0])
    for _ in range(2):
        jnp.sum(x, axis=0)
    plans = [p for p in _site_plans(reductions._SITES["sum"]) if p.out_aval.shape == (80,)]
    assert plans and all(p.direct is None for p in plans)  # no direct call: the compiled program runs


def test_sites_follow_x64_after_warm_up():
    i, a, c = _array(np.int32, (3,)), jnp.full(3, 1.5), jnp.arange(3) > 0
    calls = [lambda: jnp.sum(i), lambda: jnp.where(c, i, 0.5), lambda: a + 1.0, lambda: jnp.maximum(a, 2.0),
             lambda: jnp.mean(i, axis=0)]
    for f in calls:
        for _ in range(3):
            f()
    with pyjax.enable_x64(True):
        assert [f().dtype for f in calls] == [np.int64, np.float64, np.float64, np.float64, np.float32]  # as JAX
        for f in calls:
            _same(f(), f())  # and the replayed call agrees with the first
    assert [f().dtype for f in calls] == [np.int32, np.float32, np.float32, np.float32, np.float32]


@pytest.mark.parametrize("scalar", [0, 0.0, False, 1j])
def test_where_scalar_branch_keys_on_its_type(scalar):
    c, i = jnp.arange(3) > 0, _array(np.int32, (3,))
    for s in (0, 0.0, False, 1j):  # equal values of other types warm up the cache first
        for _ in range(2):
            jnp.where(c, i, s)
    expected = pyjax.jit(lambda c, i: jnp.where(c, i, scalar))(c, i)
    for _ in range(2):
        _same(jnp.where(c, i, scalar), expected)
        _same(jnp.where(c, scalar, i), pyjax.jit(lambda c, i: jnp.where(c, scalar, i))(c, i))


def test_axis_keys_on_its_type():
    x = _array(np.float32, (2, 3))
    for _ in range(3):
        jnp.sum(x, axis=0), jnp.sum(x, axis=(0, 1))
    for bad in (0.0, (0.0, 1)):
        with pytest.raises(TypeError):
            jnp.sum(x, axis=bad)  # equal to a cached int axis, but JAX raises
    assert jnp.sum(x, axis=False).shape == (3,)  # JAX reads a bool axis as an int


def test_a_new_key_after_warm_up_raises_as_before():
    a = _array(np.float32, (2, 3))
    for _ in range(3):
        jnp.dot(a, a.T)
    for _ in range(2):
        with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to have the same shape"):
            jnp.dot(a, a)


def test_set_default_trace_drops_site_and_scalar_plans():
    x = _array(np.float32, (5,))
    for _ in range(2):
        jnp.sum(x), x > 0
    assert _site_plans(reductions._SUM_ALL)
    core.set_default_trace(core._default_trace[0])
    assert not reductions._SUM_ALL.plans
    _same(jnp.sum(x), pyjax.jit(jnp.sum)(x))
    _same(x > 0, pyjax.jit(lambda a: a > 0)(x))


def test_sites_do_not_apply_under_a_trace():
    x = _array(np.float32, (3,))
    for _ in range(3):
        jnp.where(x > 1, x, 0.0), jnp.sum(x)
    text = str(pyjax.make_jaxpr(lambda a: jnp.sum(jnp.where(a > 1, a, 0.0)))(x))
    assert "select_n" in text and "reduce_sum" in text and "gt" in text
    np.testing.assert_array_equal(np.asarray(pyjax.grad(lambda a: jnp.sum(jnp.where(a > 1, a, 0.0)))(x)), [0, 1, 1])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.bool_, np.float16], ids=str)
@pytest.mark.parametrize("scalar", [0, 1, 2.5, True])
def test_comparison_dunders_with_scalars_match_jit(dtype, scalar):
    x = jnp.asarray(np.array([0, 1, 3], dtype))
    for op in ("__gt__", "__lt__", "__ge__", "__eq__", "__ne__", "__le__"):
        f = lambda a: getattr(a, op)(scalar)
        try:
            expected = pyjax.jit(f)(x)
        except TypeError:
            continue
        for _ in range(3):
            _same(f(x), expected)


# --- dispatch.fast_path: jax.numpy functions that run a compiled program eagerly

def _plans(fn):
    # The plans of a function wrapped by dispatch.fast_path.
    (plans,) = [c.cell_contents for c in fn.__closure__ if isinstance(c.cell_contents, dict)]
    return plans


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


_ZEROS_NANS = jnp.asarray(np.array([[0.0, -0.0], [np.nan, -1.0], [-0.0, 0.0], [-np.nan, np.inf]], np.float32))

FAST_CALLS = [
    ("reshape", lambda x, m: jnp.reshape(m, (2, 6))),
    ("method reshape", lambda x, m: m.reshape(3, 4)),
    ("transpose", lambda x, m: jnp.transpose(m)),
    (".T", lambda x, m: m.T),
    ("astype", lambda x, m: m.astype(jnp.int32)),
    ("astype np dtype", lambda x, m: jnp.astype(m, np.int16)),
    ("concatenate", lambda x, m: jnp.concatenate([x, x * 2.0])),
    ("stack kw", lambda x, m: jnp.stack((x, x), axis=1)),
    ("zeros", lambda x, m: jnp.zeros((2, 3), jnp.float32)),
    ("full -0.0", lambda x, m: jnp.full(3, -0.0)),
    ("full 0.0", lambda x, m: jnp.full(3, 0.0)),
    ("arange", lambda x, m: jnp.arange(1, 7, 2)),
    ("linspace", lambda x, m: jnp.linspace(0.0, 1.0, 5)),
    ("std", lambda x, m: jnp.std(m, axis=0)),
    ("var ddof", lambda x, m: jnp.var(x, ddof=1)),
    ("cumsum", lambda x, m: jnp.cumsum(m, axis=1)),
    ("sort", lambda x, m: jnp.sort(x)),
    ("sort zeros and nans", lambda x, m: jnp.sort(_ZEROS_NANS, axis=0)),
    ("sort int64 rows", lambda x, m: jnp.sort(m.astype(jnp.int32), axis=1)),
    ("argsort descending", lambda x, m: jnp.argsort(x, descending=True)),
    ("abs", lambda x, m: jnp.abs(x)),
    ("softmax", lambda x, m: pyjax.nn.softmax(m, axis=-1)),
    ("log_softmax", lambda x, m: pyjax.nn.log_softmax(x)),
    ("expand_dims", lambda x, m: jnp.expand_dims(x, (0, 2))),
    ("at set -0.0", lambda x, m: x.at[1].set(-0.0)),
    ("at add negative index", lambda x, m: m.at[-1, 1:].add(2.0)),
    ("at multiply array index", lambda x, m: x.at[jnp.array([0, 2])].multiply(3.0)),
    ("at set array value", lambda x, m: m.at[0].set(x)),
    ("at max clip", lambda x, m: x.at[5].max(9.0, mode="clip")),
]


@pytest.mark.parametrize("name, call", FAST_CALLS, ids=[n for n, _ in FAST_CALLS])
def test_fast_path_calls_agree_with_the_ordinary_path(name, call, monkeypatch):
    x = jnp.asarray(np.array([1.5, -2.25, 3.0], np.float32))
    m = jnp.asarray(np.linspace(-3, 4, 12, dtype=np.float32).reshape(4, 3))
    core.set_default_trace(core._default_trace[0])  # no plans of earlier tests
    call(x, m)  # (arrays the call makes itself get their own plans first)
    core.set_default_trace(core._default_trace[0])
    built = []
    build = dispatch._build
    monkeypatch.setattr(dispatch, "_build", lambda fn, args: built.append(1) or build(fn, args))
    results = [call(x, m) for _ in range(4)]  # ordinary, build, then the compiled program twice
    assert built  # the function's compiled program ran
    first = results[0]
    for r in results[1:]:
        assert isinstance(r, pyjax.Array) and r.weak_type == first.weak_type
        assert _bits(r) == _bits(first)


def test_fast_path_keys_tell_minus_zero_and_types_apart():
    core.set_default_trace(core._default_trace[0])
    for _ in range(3):
        neg, pos = jnp.full(2, -0.0), jnp.full(2, 0.0)
        assert np.signbit(np.asarray(neg)).all() and not np.signbit(np.asarray(pos)).any()
        i, f, b = jnp.full(2, 1), jnp.full(2, 1.0), jnp.full(2, True)
        assert (i.dtype, f.dtype, b.dtype) == (jnp.int32, jnp.float32, jnp.bool_)


def test_fast_path_raises_and_warns_as_the_ordinary_path():
    m = jnp.ones((2, 3))
    for _ in range(3):
        with pytest.raises(TypeError, match="cannot reshape|total size|size"):
            jnp.reshape(m, (4, 4))
    for _ in range(3):
        with pytest.raises(TypeError, match="different numbers of dimensions"):
            jnp.concatenate([jnp.ones(2), jnp.ones((2, 2))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            jnp.astype(jnp.ones(3, jnp.complex64), jnp.float32)  # complex to real: it warns on every call
    assert len(caught) == 3 and all(issubclass(w.category, DeprecationWarning) for w in caught)


def test_fast_path_uses_its_compiled_program_and_follows_config():
    from pyjax._src.numpy import shape_ops

    core.set_default_trace(core._default_trace[0])
    m = jnp.ones((4, 3))
    for _ in range(3):
        jnp.reshape(m, (3, 4))
    assert any(type(p) is dispatch.EagerProgram for p in _plans(shape_ops.reshape).values())
    for _ in range(2):
        assert jnp.arange(3).dtype == jnp.int32
    with pyjax.enable_x64(True):
        assert jnp.arange(3).dtype == jnp.int64  # a new configuration: a new plan
    assert jnp.arange(3).dtype == jnp.int32


def test_fast_path_passes_tracers_and_non_arrays_through():
    # Under a trace, and for NumPy arrays or Python lists, the function runs as it is.
    for _ in range(3):
        out = pyjax.jit(lambda a: jnp.reshape(a, (3, 2)))(jnp.ones(6))
        assert out.shape == (3, 2)
        assert jnp.reshape(np.ones(6, np.float32), (2, 3)).shape == (2, 3)
        assert jnp.concatenate([np.ones(2), jnp.ones(2)]).shape == (4,)
    jaxpr = pyjax.make_jaxpr(lambda a: jnp.std(a))(jnp.ones(3))
    assert "sqrt" in str(jaxpr)


def test_fast_path_keeps_a_jitted_functions_stages_api():
    # jnp.cumsum is jitted in JAX: .lower/.trace/.eval_shape stay available.
    x = jnp.ones(3)
    assert "cumsum" in jnp.cumsum.lower(x).as_text("python")
    assert jnp.sort.eval_shape(x).shape == (3,)
    assert jnp.clip.trace(x, 0.0, 1.0).jaxpr is not None


def test_asarray_of_a_numpy_array_copies_into_its_canonical_dtype():
    a = np.ones(3, np.float32)
    x = jnp.asarray(a)
    a[0] = 5.0  # JAX copies: the Array does not see later writes
    assert np.asarray(x).tolist() == [1.0, 1.0, 1.0] and not x.weak_type
    assert jnp.asarray(np.arange(3)).dtype == jnp.int32 and jnp.array(np.ones(2)).dtype == jnp.float32
    with pyjax.enable_x64(True):
        assert jnp.asarray(np.arange(3)).dtype == jnp.int64 and jnp.asarray(np.ones(2)).dtype == jnp.float64
    assert jnp.asarray(np.arange(3)).dtype == jnp.int32
    with pytest.raises(TypeError, match="dtype object"):
        jnp.asarray(np.array([object()]))
    # Under a trace it stays a constant of the jaxpr.
    jaxpr = pyjax.make_jaxpr(lambda v: v + jnp.asarray(np.ones(3, np.float32)))(jnp.ones(3))
    assert len(jaxpr.consts) == 1
