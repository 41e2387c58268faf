"""Cache keys carry types, entries are stored only after success, and jit is
as strict as JAX 0.11.0 about its own arguments (issue 19, items 1, 2, 7).

Expected messages were read off JAX 0.11.0 (CPU)."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import config, core
from pyjax._src.cache_key import params_storable, remember_after, typed_key
from pyjax._src import dispatch


# --- typed_key itself

@pytest.mark.parametrize("a, b", [(1, True), (1, 1.0), (True, 1.0), (0.0, -0.0), (0, False), (1, 1 + 0j),
                                  ((1,), (True,)), ((0.0,), (-0.0,)), (frozenset([1]), frozenset([True])),
                                  (np.float32(0.0), np.float32(-0.0)), (np.int32(1), 1), ((1, 2), [1, 2])])
def test_typed_key_tells_equal_values_of_other_types_apart(a, b):
    ka, kb = typed_key(a), typed_key(b)
    assert ka != kb
    if type(a) is not list and type(b) is not list:
        hash(ka), hash(kb)


def test_typed_key_equal_values_of_one_type_share_a_key():
    nan = float("nan")
    assert typed_key(nan) == typed_key(float("nan"))
    assert typed_key((1, "a", None)) == typed_key((1, "a", None))
    assert typed_key((1.5, (True, 2))) == typed_key((1.5, (True, 2)))
    assert hash(typed_key(-0.0)) == hash(typed_key(-0.0))


def test_params_storable_and_remember_after():
    assert params_storable([(0, 1), None, True, "x"])
    assert not params_storable([(0, 1.0)])
    assert not params_storable([np.int32(2)])
    memo = {}
    with pytest.raises(ZeroDivisionError):
        remember_after(memo, "k", "v", lambda: 1 / 0)
    assert memo == {}
    assert remember_after(memo, "k", "v", lambda: 3) == 3 and memo == {"k": "v"}


# --- every public cache site: a later call whose value equals an earlier one's
# but differs in type (or in the sign of zero) gets its own answer, the one a
# fresh process gives.

_COND_BODY = lambda v: v  # noqa: E731  (one function object: the body trace cache is keyed on it)


def _filled(x, v):
    return jnp.full_like(x, v)


_FAST = dispatch.fast_path(_filled)
_JIT_POS = jax.jit(lambda x, v: jnp.asarray(v), static_argnums=1)
_JIT_KW = jax.jit(lambda x, *, v: jnp.asarray(v), static_argnames="v")
_JIT_NESTED = jax.jit(lambda x, v: jnp.asarray(v[0]), static_argnums=1)

_SITES = {
    "jit static_argnums": lambda v: _JIT_POS(jnp.ones(2), v),
    "jit static_argnames": lambda v: _JIT_KW(jnp.ones(2), v=v),
    "jit static in a tuple": lambda v: _JIT_NESTED(jnp.ones(2), (v,)),
    "jnp.where scalar (int32 x)": lambda v: jnp.where(jnp.array([False, True]), jnp.zeros(2, "int32"), v),
    "jnp.where scalar (float32 x)": lambda v: jnp.where(jnp.array([False, True]), jnp.ones(2), v),
    "jnp.where scalar x": lambda v: jnp.where(jnp.array([True, False]), v, jnp.ones(2)),
    "eager fast_path option": lambda v: _FAST(jnp.ones(2), v),
    "jnp.sum axis option": lambda v: jnp.sum(jnp.ones((2, 3)), axis=v),
    "jnp.full_like fill": lambda v: jnp.full_like(jnp.ones(2), v),
    "lax.cond body": lambda v: lax.cond(True, _COND_BODY, _COND_BODY, v),
    "lax.full": lambda v: lax.full((2,), v),
    "pinv hermitian": lambda v: jnp.linalg.pinv(jnp.eye(2), hermitian=v),
}


def _outcome(site, v):
    try:
        out = site(v)
    except Exception as e:  # noqa: BLE001  (the error is part of the outcome)
        return ("raises", type(e), str(e))
    out = np.asarray(out)
    return (out.dtype, out.shape, out.tobytes())


@pytest.mark.parametrize("first, then", [(1, True), (True, 1), (2, 2.0), (2.0, 2), (0.0, -0.0), (-0.0, 0.0),
                                         (1, 1.0), (False, 0), (0j, complex(0, -0.0))])
@pytest.mark.parametrize("name", list(_SITES))
def test_cache_sites_key_by_type(name, first, then):
    site = _SITES[name]
    jax.clear_caches()
    fresh = _outcome(site, then)
    jax.clear_caches()
    for _ in range(3):  # first sight, second sight (builds), a hit
        _outcome(site, first)
    assert _outcome(site, then) == fresh


# --- item 1: jit's static arguments are keyed by type

def test_jit_static_bool_is_not_int():
    h = jax.jit(lambda x, flag: x * 10 if flag is True else x - 1, static_argnums=1)
    assert float(h(5.0, 1)) == 4.0
    assert float(h(5.0, True)) == 50.0
    g = jax.jit(lambda x, s: x * s if type(s) is float else x + s, static_argnums=1)
    assert float(g(5.0, 2)) == 7.0
    assert float(g(5.0, 2.0)) == 10.0


def test_jit_static_signed_zero_and_nan():
    calls = []
    f = jax.jit(lambda x, s: (calls.append(s), jnp.full((), s))[1], static_argnums=1)
    f(1.0, 0.0)
    assert np.signbit(np.asarray(f(1.0, -0.0)))
    f(1.0, float("nan")), f(1.0, float("nan"))
    assert len(calls) == 3  # NaN keys equal by their bits: one trace for both


# --- item 2: a failed call leaves no plan behind

def test_failed_random_split_does_not_poison_later_calls():
    k = jax.random.key(0)
    with pytest.raises(TypeError):
        jax.random.split(k, 2.0)
    assert jax.random.split(k, 2).shape == (2,)
    assert jax.random.split(k, 3).shape == (3,)


def _toy_primitive(name, abstract_eval, impl):
    p = core.Primitive(name)
    p.def_abstract_eval(abstract_eval)
    core._default_trace[0].impls[p] = impl
    return p


def test_eager_plan_stored_only_after_its_call_succeeded():
    fail = [True]

    def impl(x, *, k):
        if fail[0]:
            raise RuntimeError("transient")
        return x * k

    p = _toy_primitive("toy_flaky", lambda x, *, k: x, impl)
    x = jnp.ones(3)
    with pytest.raises(RuntimeError, match="transient"):
        p.bind(x, k=2)
    assert not p.eager_plans  # nothing remembered from the failed call
    fail[0] = False
    np.testing.assert_array_equal(p.bind(x, k=2), 2 * np.ones(3))
    assert len(p.eager_plans) == 1


def test_float_params_never_answer_for_int_ones():
    # An abstract evaluation and impl that depend on the param's type: the
    # memo and the eager plans must not hand the float call's result to the
    # int call (2.0 == 2), nor +0.0's to -0.0's.
    def abstract_eval(x, *, k):
        return x.update(dtype=np.dtype("float32") if type(k) is float else np.dtype("int32"))

    def impl(x, *, k):
        return np.full(x.shape, k, np.float32 if type(k) is float else np.int32)

    p = _toy_primitive("toy_typed", abstract_eval, impl)
    x = jnp.ones(3)
    assert p.bind(x, k=2.0).dtype == np.float32
    assert p.bind(x, k=2.0).dtype == np.float32
    assert p.bind(x, k=2).dtype == np.int32
    p.bind(x, k=0.0), p.bind(x, k=0.0)
    assert np.signbit(np.asarray(p.bind(x, k=-0.0))).all()


def test_site_program_stored_only_after_its_first_run():
    fail = [False]

    def callback(v):
        if fail[0]:
            raise RuntimeError("callback failed")
        return v

    def fn(x):
        return jax.pure_callback(callback, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1

    site = dispatch.Site("toy", fn)
    x = jnp.ones(2)
    assert site.one(x) is None  # first sight: the ordinary path
    fail[0] = True
    with pytest.raises(Exception, match="callback failed"):
        site.one(x)  # second sight builds the program; its run raises
    assert type(site.plans[(x.aval, config.trace_context_id())]) is not dispatch.EagerProgram
    fail[0] = False
    np.testing.assert_array_equal(site.one(x), 2 * np.ones(2))


# --- item 7: jit's own arguments

@pytest.mark.parametrize("bad", [5, None, "s", [1]])
def test_jit_of_a_non_callable(bad):
    with pytest.raises(TypeError, match=r"^Expected a callable value, got " + __import__("re").escape(str(bad)) + "$"):
        jax.jit(bad)


def test_jit_without_a_function_is_a_decorator():
    deco = jax.jit(static_argnums=1)
    assert float(deco(lambda x, n: x * n)(2.0, 3)) == 6.0


def test_jit_unknown_argnames():
    with pytest.raises(ValueError, match=r"^Jitted function has invalid argnames \{'y'\} in static_argnames\. "
                                         r"Function does not take these args\.$"):
        jax.jit(lambda x: x, static_argnames="y")
    with pytest.raises(ValueError, match=r"invalid argnames \{'y'\} in donate_argnames\. Function does not"):
        jax.jit(lambda x: x, donate_argnames=("y",))

    def positional_only(a, /, b):
        return a

    with pytest.raises(ValueError, match=r"^Jitted function has invalid argnames \{'a'\} in static_argnames\. "
                                         r"These are positional-only$"):
        jax.jit(positional_only, static_argnames="a")
    # A function taking **kwargs takes any name; one without a signature too.
    jax.jit(lambda x, **kw: x, static_argnames="y")
    jax.jit(max, static_argnames="y")


def test_jit_argnums_out_of_range_and_overlap():
    with pytest.raises(ValueError, match=r"^Jitted function has donate_argnums=\(3,\), but only accepts 1 "
                                         r"positional arguments\.$"):
        jax.jit(lambda x: x, donate_argnums=3)
    with pytest.raises(ValueError, match=r"static_argnums=\(-3,\), but only accepts 1 positional"):
        jax.jit(lambda x: x, static_argnums=-3)
    with pytest.raises(ValueError, match=r"^static_argnames and donate_argnames cannot intersect\. Argument names "
                                         r"\{'x'\} appear in both static_argnames and donate_argnames$"):
        jax.jit(lambda x: x, static_argnums=0, donate_argnums=0)


def test_static_argument_whose_eq_raises():
    class Bad:
        def __hash__(self):
            return 1

        def __eq__(self, other):
            raise RuntimeError("boom eq")

    f = jax.jit(lambda x, b: x, static_argnums=1)
    f(1.0, Bad())
    with pytest.raises(ValueError) as info:
        f(1.0, Bad())
    message = str(info.value)
    assert message.startswith("static arguments should be comparable using __eq__.The following error was raised "
                              f"when comparing two objects of types {Bad} and {Bad}. The error was:\n")
    assert message.endswith("RuntimeError: boom eq")


def test_static_argument_whose_hash_raises_reaches_the_caller():
    class Bad:
        def __hash__(self):
            raise RuntimeError("boom hash")

    with pytest.raises(RuntimeError, match="^boom hash$"):  # as JAX: not wrapped
        jax.jit(lambda x, b: x, static_argnums=1)(1.0, Bad())


@pytest.mark.parametrize("how", ["argnames by keyword", "argnames by position", "argnums by keyword"])
def test_donated_arguments_are_deleted(how):
    if how.startswith("argnames"):
        f = jax.jit(lambda x, y: x * y, donate_argnames="y")
    else:
        f = jax.jit(lambda x, y: x * y, donate_argnums=1)
    x, y = jnp.ones(3), jnp.ones(3)
    f(x, y) if how.endswith("position") else f(x, y=y)
    assert y.is_deleted() and not x.is_deleted()
    with pytest.raises(RuntimeError, match=r"^Array has been deleted with shape=float32\[3\]\.$"):
        y + 1


def test_clear_caches_clears_abstract_eval_memo_and_body_traces():
    x = jnp.ones(3)
    jnp.sin(x)
    from pyjax._src.lax import elementwise

    assert elementwise.sin_p._abstract_eval_cache
    traced = []

    def body(c, _):
        traced.append(1)
        return c + 1, None

    lax.scan(body, 0.0, None, length=2)
    lax.scan(body, 0.0, None, length=2)
    assert len(traced) == 1
    jax.clear_caches()
    assert not elementwise.sin_p._abstract_eval_cache
    lax.scan(body, 0.0, None, length=2)
    assert len(traced) == 2  # as JAX 0.11.0: clear_caches drops staging caches too



def test_clear_caches_drops_compilations_of_functions_whose_wrapper_is_gone():
    # The per-function cache outlives a jit wrapper (jit(f) of the same f
    # shares it); clear_caches() must empty it too, or a retrace the user
    # asked for (a changed global) silently reuses the old compilation.
    import gc

    scale = [1.0]

    def f(x):
        return x * scale[0]

    assert float(jax.jit(f)(1.0)) == 1.0
    gc.collect()
    scale[0] = 2.0
    jax.clear_caches()
    assert float(jax.jit(f)(1.0)) == 2.0
