"""The NumPy backend's jaxpr compiler: compiled code against eval_jaxpr.

The oracle is `eval_jaxpr` under the eval trace with the same impl table:
every compiled output must have the value, shape and dtype it gives.
"""

from __future__ import annotations

import gc
import re
import time
import traceback
import tracemalloc
import weakref

import numpy as np
import pytest

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.codegen import compile as compile_mod
from pyjax._src.backends.numpy.codegen.compile import EMITTERS, compile_jaxpr
from pyjax._src.backends.numpy.codegen.kernels import UFUNCS, _inexact_ufunc
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.core import Primitive
from pyjax._src.dispatch import EvalTrace
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr
from pyjax._src.lax import dot as dot_lax
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import reductions as red
from pyjax._src.lax import shapes as sh

F32 = np.dtype("float32")
I32 = np.dtype("int32")
BOOL = np.dtype("bool")


def aval(shape, dtype=F32, weak=False):
    return ShapedArray(tuple(shape), np.dtype(dtype), weak)


def trace(fn, *avals) -> Jaxpr:
    jaxpr, _ = trace_to_jaxpr(lambda *xs: list(fn(*xs)), list(avals))
    return jaxpr


def reference(jaxpr: Jaxpr, args, impls=IMPLS) -> list:
    """eval_jaxpr's outputs as NumPy values (literal outputs typed by their aval)."""
    with core.set_current_trace(EvalTrace(impls)):
        outs = eval_jaxpr(jaxpr, jaxpr.consts, *args)
    result = []
    for out, var in zip(outs, jaxpr.outvars, strict=True):
        if isinstance(out, Array):
            result.append(np.asarray(out._value))
        elif type(var) is Literal or var in jaxpr.constvars:
            # eval_jaxpr hands literals and consts back untouched; their
            # avals say what a NumPy value of them must be (x64 off: f32).
            result.append(np.asarray(out, var.aval.dtype))
        else:
            result.append(np.asarray(out))
    return result


def assert_matches_eval(jaxpr: Jaxpr, args, impls=IMPLS, **options):
    compiled = compile_jaxpr(jaxpr, impls, **options)
    copies = [np.array(a, copy=True) for a in args]
    got = compiled(*args)
    want = reference(jaxpr, copies, impls)
    assert isinstance(got, list) and len(got) == len(want)
    for g, w, var in zip(got, want, jaxpr.outvars, strict=True):
        g = np.asarray(g)
        assert g.dtype == w.dtype == var.aval.dtype, (g.dtype, w.dtype, var.aval)
        assert g.shape == w.shape == var.aval.shape
        np.testing.assert_array_equal(g, w)
    for a, c in zip(args, copies, strict=True):  # inputs are never written
        np.testing.assert_array_equal(a, c)
    return compiled, got


def in_place(compiled) -> list[str]:
    """The generated lines whose ufunc writes into a dead buffer (passed as
    its positional output argument), written as `x = ufunc(a, b, out=c)`."""
    found = []
    for line in compiled.source.splitlines():
        match = re.fullmatch(r"\s*(\w+) = (\w+)\((.*)\)", line)
        if match is None:
            continue
        fn, args = compiled.func.__globals__.get(match[2]), match[3].split(", ")
        if isinstance(fn, np.ufunc) and len(args) == fn.nin + 1:
            found.append(f"{match[1]} = {match[2]}({', '.join(args[:-1])}, out={args[-1]})")
    return found


rng = np.random.default_rng(0)


def rand(shape, dtype=F32):
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-20, 20, shape).astype(dtype)
    return (rng.standard_normal(shape) + 0.1).astype(dtype)


# ---------------------------------------------------------------------------
# Correctness over many kinds of equations


PROGRAMS = {
    "elementwise_chain": (
        lambda x, y: [ew.tanh(ew.add(ew.mul(x, y), ew.sin(x))), ew.sub(ew.exp(x), ew.max(x, y))],
        [aval((4, 5)), aval((4, 5))],
    ),
    "float32_literal": (lambda x: [ew.mul(x, np.float32(0.1)), ew.add(x, 0.1)], [aval((3,))]),
    "reductions": (
        lambda x: [red.reduce_sum(x, (0,)), red.reduce_max(x, (1,)), red.argmax(x, 1, np.int32)],
        [aval((4, 5))],
    ),
    "broadcast_then_ufunc": (
        lambda x, s: [ew.add(sh.broadcast_in_dim(s, (3, 4), ()), x), ew.neg(sh.broadcast_in_dim(s, (3, 4), ()))],
        [aval((3, 4)), aval(())],
    ),
    "shapes": (
        lambda x: [sh.transpose(x, (1, 0)), sh.reshape(ew.exp(x), (6, 2)), sh.squeeze(sh.reshape(x, (1, 12)), (0,))],
        [aval((3, 4))],
    ),
    "dot_and_select": (
        lambda a, b, p: [ew.select_n(p, dot_lax.dot(a, b), ew.neg(dot_lax.dot(a, b)))],
        [aval((3, 4)), aval((4, 3)), aval((3, 3), BOOL)],
    ),
    "integer_ops": (
        lambda i, j: [ew.div(i, j), ew.rem(i, j), ew.integer_pow(i, 3), ew.shift_left(i, 2), ew.lt(i, j)],
        [aval((6,), I32), aval((6,), I32)],
    ),
    "casts_and_bools": (
        lambda x: [ew.convert_element_type(x, np.int32), ew.bitwise_not(ew.gt(x, 0.0)), ew.round(x)],
        [aval((5,))],
    ),
    "scalars_only": (lambda x, y: [ew.add(ew.mul(x, y), 1.0), ew.exp(x)], [aval(()), aval(())]),
    "no_inputs_iota": (lambda: [ew.add(sh.iota(np.int32, 5), 1)], []),
    "no_outputs": (lambda x: [], [aval((2,))]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("reuse", [True, False])
def test_compiled_matches_eval_jaxpr(name, reuse):
    fn, avals = PROGRAMS[name]
    jaxpr = trace(fn, *avals)
    args = [rand(a.shape, a.dtype) for a in avals]
    if name == "integer_ops":
        args[1] = np.where(args[1] == 0, 3, args[1]).astype(I32)
    assert_matches_eval(jaxpr, args, reuse_buffers=reuse)


def _primitives_by_name() -> dict:
    return {p.name: p for p in IMPLS}


def test_every_direct_ufunc_agrees_with_its_impl():
    primitives = _primitives_by_name()
    assert set(UFUNCS) <= set(primitives), "UFUNCS names a primitive impls.py does not have"
    for name, ufunc in UFUNCS.items():
        primitive = primitives[name]
        nin = ufunc.nin
        for dtype in (F32, I32, BOOL, np.dtype("complex64")):
            in_avals = [aval((4,), dtype)] * nin
            try:
                primitive.out_avals(tuple(in_avals), {})
            except TypeError:
                continue  # dtype not accepted by the primitive
            var_ins = [Var(a) for a in in_avals]
            out = Var(primitive.out_avals(tuple(in_avals), {}))
            jaxpr = Jaxpr([], var_ins, [out], [JaxprEqn(primitive, var_ins, [out], {})])
            args = [rand((4,), dtype) for _ in range(nin)]
            compiled = compile_jaxpr(jaxpr, IMPLS)
            with np.errstate(all="ignore"):
                try:
                    want = IMPLS[primitive](*args)
                except TypeError as error:  # e.g. no complex loop: the same error
                    with pytest.raises(type(error), match=str(error)[:20]):
                        compiled(*args)
                    continue
                got = compiled(*args)[0]
            impl = IMPLS[primitive]
            if impl is ufunc or getattr(impl, "ufunc", None) is ufunc or _inexact_ufunc(name, dtype) is ufunc:
                assert f"_np_{ufunc.__name__}" in compiled.source, name
            else:  # a specialised impl: the compiler must call it, not the ufunc
                assert f"_np_{ufunc.__name__}" not in compiled.source, name
            assert got.dtype == want.dtype, (name, dtype)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {dtype}")


def test_custom_impl_table_is_honoured_over_direct_ufuncs():
    calls = []

    def traced_add(x, y):
        calls.append(1)
        return np.add(x, y)

    impls = {**IMPLS, ew.add_p: traced_add}
    jaxpr = trace(lambda x: [ew.add(x, x)], aval((3,)))
    compiled = compile_jaxpr(jaxpr, impls)
    compiled(np.ones(3, F32))
    assert calls == [1]
    assert "_np_add" not in compiled.source
    # ... while the default table gets the direct call.
    assert "_np_add" in compile_jaxpr(jaxpr, IMPLS).source


def test_an_impl_that_is_a_ufunc_is_called_directly_with_out():
    impls = {**IMPLS, ew.add_p: np.subtract}  # any table: its ufunc is what runs
    jaxpr = trace(lambda x: [ew.add(ew.exp(x), x)], aval((3,)))
    compiled = compile_jaxpr(jaxpr, impls)
    assert in_place(compiled) == ["c = _np_subtract_1(b, a, out=b)"]
    x = rand((3,))
    np.testing.assert_array_equal(compiled(x)[0], np.exp(x) - x)


def test_params_are_passed_as_keywords_with_non_literal_values_in_the_namespace():
    jaxpr = trace(lambda x: [ew.convert_element_type(x, np.int32), red.reduce_sum(x, (0, 1))], aval((2, 3)))
    compiled, _ = assert_matches_eval(jaxpr, [rand((2, 3))])
    assert "axes=(0, 1)" in compiled.source  # tuples are written as source literals
    assert "new_dtype=_p" in compiled.source  # a dtype object comes from the namespace
    assert compiled.fn.__globals__[compiled.source.split("new_dtype=")[1].split(",")[0]] == I32


def test_params_whose_names_are_not_identifiers_go_through_a_dict():
    odd_p = Primitive("odd")
    x = Var(aval((2,)))
    out = Var(aval((2,)))
    jaxpr = Jaxpr([], [x], [out], [JaxprEqn(odd_p, [x], [out], {"not-an-identifier": 3})])
    impls = {odd_p: lambda x, **params: x * params["not-an-identifier"]}
    np.testing.assert_array_equal(compile_jaxpr(jaxpr, impls)(np.ones(2, F32)), [[3, 3]])


# ---------------------------------------------------------------------------
# Outputs, literals, consts, dropped outputs


def test_outputs_that_are_inputs_literals_consts_and_duplicates():
    const = np.arange(3.0)  # float64: the trace types it f32 (x64 off), the compiler casts it
    jaxpr = trace(lambda x: [x, 2.0, const, ew.add(x, const), x], aval((3,)))
    assert jaxpr.consts and type(jaxpr.outvars[1]) is Literal
    x = rand((3,))
    compiled, got = assert_matches_eval(jaxpr, [x])
    assert got[0] is x and got[4] is x
    assert got[1].dtype == F32 and got[1].shape == () and not got[1].flags.writeable
    assert got[2].dtype == F32  # hoisted and cast once, at compile time
    assert compiled(x)[2] is got[2]


def test_array_consts_are_unwrapped_and_hoisted():
    buffer = np.array([1.0, 2.0, 3.0], F32)
    const = Array(buffer, aval((3,)))
    jaxpr = trace(lambda x: [ew.mul(x, const)], aval((3,)))
    compiled, _ = assert_matches_eval(jaxpr, [rand((3,))])
    assert any(v is buffer for v in compiled.fn.__globals__.values())


def test_float32_literal_object_is_used_as_is():
    lit = np.float32(0.1)
    x = Var(aval((1,)))
    out = Var(aval((1,)))
    jaxpr = Jaxpr([], [x], [out], [JaxprEqn(ew.add_p, [x, Literal(lit, aval(()))], [out], {})])
    compiled = compile_jaxpr(jaxpr, IMPLS)
    assert any(v is lit for v in compiled.fn.__globals__.values())
    assert compiled(np.zeros(1, F32))[0][0] == np.float32(0.1)


split_p = Primitive("split_halves", multiple_results=True)
split_p.def_abstract_eval(lambda x: [aval((x.shape[0] // 2,), x.dtype)] * 2)


def _split_impl(x):
    half = x.shape[0] // 2
    return [x[:half].copy(), x[half:].copy()]


def test_dropped_and_unused_outputs_of_multiple_result_equations():
    impls = {**IMPLS, split_p: _split_impl}
    x = Var(aval((4,)))
    lo, hi, lo2, hi2 = (Var(aval((2,))) for _ in range(4))
    eqns = [
        JaxprEqn(split_p, [x], [DropVar(aval((2,))), hi], {}),  # a dropped output
        JaxprEqn(split_p, [x], [lo, Var(aval((2,)))], {}),  # an output nobody reads
        JaxprEqn(split_p, [x], [lo2, hi2], {}),  # both unused: still executed
    ]
    jaxpr = Jaxpr([], [x], [ew_add_var(eqns, hi, lo)], eqns)
    compiled, got = assert_matches_eval(jaxpr, [np.arange(4, dtype=F32)], impls)
    np.testing.assert_array_equal(got[0], [2.0, 4.0])
    lines = [line.strip() for line in compiled.source.splitlines()]
    assert lines[1:7] == [
        "_, c = _split_halves_0(a)", "del _",  # (b is the dropped output's unused name)
        "d, _ = _split_halves_0(a)", "del _",
        "_split_halves_0(a)", "del a",
    ]


def ew_add_var(eqns, a, b):
    out = Var(aval((2,)))
    eqns.append(JaxprEqn(ew.add_p, [a, b], [out], {}))
    return out


def test_unused_equations_still_run_and_errors_propagate_unchanged():
    error = ValueError("boom from an impl")
    fail_p = Primitive("fail")
    fail_p.def_abstract_eval(lambda x: x)

    def fail(x):
        raise error

    impls = {**IMPLS, fail_p: fail}
    x = Var(aval((2,)))
    unused = Var(aval((2,)))
    jaxpr = Jaxpr([], [x], [x], [JaxprEqn(fail_p, [x], [unused], {})])
    compiled = compile_jaxpr(jaxpr, impls)
    with pytest.raises(ValueError) as info:
        compiled(np.ones(2, F32))
    assert info.value is error
    # The traceback shows the generated line that failed.
    assert "_fail_0(a)" in "".join(traceback.format_exception(info.value))


# ---------------------------------------------------------------------------
# Releasing buffers


def test_dead_buffers_are_deleted_after_their_last_use(monkeypatch):
    from pyjax._src.backends.numpy import native
    from pyjax._src.backends.numpy.native import settings as native_settings

    monkeypatch.setattr(native_settings, "ENABLED", False)  # the Python code alone, without the native tier's call
    jaxpr = trace(lambda x, y: [ew.exp(ew.tanh(ew.add(x, y)))], aval((3,)), aval((3,)))
    source = compile_jaxpr(jaxpr, IMPLS, reuse_buffers=False).source
    lines = [line.strip() for line in source.splitlines()]
    assert lines[1:] == [
        "c = _np_add_0(a, b)", "del a, b",
        "d = _np_tanh_1(c)", "del c",
        "e = _np_exp_2(d)", "del d",
        "return [e]",
    ]


fresh_p = Primitive("fresh")
fresh_p.def_abstract_eval(lambda x: x)
probe_p = Primitive("probe")
probe_p.def_abstract_eval(lambda x: x)


def test_a_buffer_is_freed_before_the_next_equation_runs():
    made = []
    seen_alive = []

    def fresh(x):
        buffer = np.array(x, copy=True)
        made.append(weakref.ref(buffer))
        return buffer

    def probe(x):
        seen_alive.append(made[0]() is not None)
        return x

    impls = {**IMPLS, fresh_p: fresh, probe_p: probe}
    jaxpr = trace(lambda x: [probe_p.bind(ew.neg(fresh_p.bind(x)))], aval((3,)))
    compile_jaxpr(jaxpr, impls, reuse_buffers=False)(np.ones(3, F32))
    assert seen_alive == [False]


@pytest.mark.parametrize("reuse,tiled", [(True, False), (False, False), (True, True)])
def test_peak_memory_of_a_long_chain_stays_a_few_buffers(reuse, tiled, monkeypatch):
    # Op by op: one buffer reused in place. Tiled (tile.py, two cores): the
    # region's output plus each core's block of intermediates.
    from pyjax._src.backends.numpy.parallel import split as split_lib
    from pyjax._src.backends.numpy.parallel import tile as tile_lib

    monkeypatch.setitem(split_lib._state, "workers", 2)
    monkeypatch.setattr(tile_lib, "MIN_ELEMENTS", 1 if tiled else 1 << 62)

    def chain(x):
        for _ in range(30):
            x = ew.sin(ew.mul(x, 1.01))
        return [x]

    n = 1 << 20  # 4 MiB of float32
    jaxpr = trace(chain, aval((n,)))
    compiled = compile_jaxpr(jaxpr, IMPLS, reuse_buffers=reuse)
    x = np.ones(n, F32)
    gc.collect()
    tracemalloc.start()
    try:
        compiled(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    buffers = peak / x.nbytes
    assert ("_tiled_region" in compiled.source) == tiled
    assert buffers < (2.5 if tiled else 1.5 if reuse else 2.5), buffers  # 60 intermediates without release


# ---------------------------------------------------------------------------
# Reusing dead intermediates in place


def test_dead_intermediates_are_reused_through_out():
    jaxpr = trace(lambda x: [ew.exp(ew.mul(ew.add(x, x), 2.0))], aval((8,)))
    compiled, _ = assert_matches_eval(jaxpr, [rand((8,))])
    assert in_place(compiled) == ["c = _np_multiply_2(b, _lit1, out=b)", "d = _np_exp_3(c, out=c)"]


def test_no_reuse_of_inputs_consts_scalars_or_broadcast_views():
    const = np.ones(4, F32)

    def fn(x, s):
        b = sh.broadcast_in_dim(s, (4,), ())  # a read-only view
        return [ew.neg(b), ew.add(ew.mul(x, const), 1.0), ew.exp(ew.neg(s))]

    compiled, _ = assert_matches_eval(trace(fn, aval((4,)), aval(())), [rand((4,)), rand(())])
    assert in_place(compiled) == ["f = _np_add_5(e, _lit4, out=e)"]  # e = mul(x, const) is the only buffer of ours


def test_no_reuse_while_a_view_of_the_buffer_is_still_live():
    def fn(x):
        e = ew.exp(x)
        view = sh.reshape(e, (2, 3))  # aliases e's buffer
        return [ew.neg(e), view]  # e dies at neg, but the view is returned

    compiled, _ = assert_matches_eval(trace(fn, aval((6,))), [rand((6,))])
    assert in_place(compiled) == []


def test_reuse_after_the_view_dies():
    def fn(x):
        e = ew.exp(x)
        total = red.reduce_sum(sh.reshape(e, (2, 3)), (0, 1))
        return [ew.add(ew.neg(e), total)]

    compiled, _ = assert_matches_eval(trace(fn, aval((6,))), [rand((6,))])
    assert in_place(compiled) == ["f = _np_add_4(e, d, out=e)"]


def test_reuse_when_a_dying_view_of_the_buffer_is_read_by_the_same_ufunc():
    # e and its transpose both die at the add; NumPy's ufuncs handle the
    # overlap of out= with an input view, so writing into e stays correct.
    def fn(x):
        e = ew.exp(x)
        return [ew.add(e, sh.transpose(e, (1, 0)))]

    x = rand((16, 16))
    compiled, got = assert_matches_eval(trace(fn, aval((16, 16))), [x])
    assert in_place(compiled) == ["d = _np_add_2(b, c, out=b)"]
    np.testing.assert_allclose(got[0], np.exp(x) + np.exp(x).T, rtol=1e-6)


def test_no_reuse_across_shape_or_dtype_changes():
    def fn(x, m):
        e = ew.exp(x)  # f32[3]
        wide = ew.add(ew.exp(m), sh.broadcast_in_dim(e, (2, 3), (1,)))  # f32[2,3] from f32[3]
        return [ew.lt(e, 1.0), wide]  # e dies at lt, whose output is bool

    compiled, _ = assert_matches_eval(trace(fn, aval((3,)), aval((2, 3))), [rand((3,)), rand((2, 3))])
    assert in_place(compiled) == ["f = _np_add_2(d, e, out=d)"]  # only exp(m) -> the f32[2,3] sum


# ---------------------------------------------------------------------------
# jit inlining and the emitter hook

jit_p = Primitive("jit", multiple_results=True)
jit_p.def_abstract_eval(lambda *avals, jaxpr, name: [v.aval for v in jaxpr.outvars])


def jit_bind(fn, *args, name="inner"):
    inner = trace(fn, *(core.get_aval(a) for a in args))
    return jit_p.bind(*args, jaxpr=inner, name=name)


def _refuse(*args, **params):
    raise AssertionError("jit should have been inlined")


def _eval_jit(*args, jaxpr, name):
    outs = eval_jaxpr(jaxpr, jaxpr.consts, *args)
    return [np.asarray(getattr(o, "_value", o), v.aval.dtype) for o, v in zip(outs, jaxpr.outvars, strict=True)]


def test_jit_is_inlined_with_renamed_variables_and_hoisted_consts():
    const = np.full(3, 5.0, F32)

    def inner(x, y):
        return [ew.mul(ew.add(x, y), const), x, 1.5]

    def outer(a, b):
        first = jit_bind(inner, a, b)
        second = jit_bind(inner, first[0], a)  # the same kind of body, inlined again
        nested = jit_bind(lambda z: jit_bind(lambda w: [ew.neg(w)], z), second[0])
        return [*first, *second, *nested]

    jaxpr = trace(outer, aval((3,)), aval((3,)))
    assert [e.primitive.name for e in jaxpr.eqns] == ["jit", "jit", "jit"]
    compiled = compile_jaxpr(jaxpr, {**IMPLS, jit_p: _refuse})
    args = [rand((3,)), rand((3,))]
    got = compiled(*args)
    want = reference(jaxpr, args, {**IMPLS, jit_p: _eval_jit})
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == w.dtype
    assert "jit" not in compiled.source
    assert compiled.num_eqns == 5  # add, mul, add, mul, neg
    assert got[1] is args[0]


def test_jit_body_reading_the_same_jaxpr_twice_keeps_values_apart():
    inner = trace(lambda x: [ew.exp(x)], aval((2,)))
    a = Var(aval((2,)))
    o1, o2 = Var(aval((2,))), Var(aval((2,)))
    eqns = [
        JaxprEqn(jit_p, [a], [o1], {"jaxpr": inner, "name": "f"}),
        JaxprEqn(jit_p, [o1], [o2], {"jaxpr": inner, "name": "f"}),
    ]
    jaxpr = Jaxpr([], [a], [o1, o2], eqns)
    x = rand((2,))
    got = compile_jaxpr(jaxpr, {**IMPLS, jit_p: _refuse})(x)
    np.testing.assert_allclose(got[0], np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.exp(np.exp(x)), rtol=1e-6)


def test_nested_pyjax_jit_is_inlined():
    import pyjax
    import pyjax.numpy as jnp
    from pyjax._src.jit import jit_p as real_jit_p

    inner = pyjax.jit(lambda x, y: jnp.sin(x) * y + 1.0)
    outer = lambda x, y: (inner(x, y) + inner(y, x), jnp.sum(x))
    x, y = rand((3,)), rand((3,))
    jaxpr = pyjax.make_jaxpr(outer)(x, y)
    assert [e.primitive.name for e in jaxpr.eqns].count("jit") == 2
    compiled = compile_jaxpr(jaxpr, {**IMPLS, real_jit_p: _refuse})
    assert "jit" not in compiled.source
    got = compiled(x, y)
    for g, w in zip(got, reference(jaxpr, [x, y]), strict=True):  # eval runs jit's own impl
        assert np.asarray(g).dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_a_registered_emitter_generates_custom_code(monkeypatch):
    choose_p = Primitive("choose_branch")
    choose_p.def_abstract_eval(lambda p, x: x)
    true_body = trace(lambda x: [ew.exp(x)], aval((3,)))

    def emit_choose(builder, eqn, ins):
        body = builder.compile_sub(true_body, "true_body")

        def render(in_names, out_names):
            p, x = in_names
            return [f"if {p}:", f"    {out_names[0]}, = {body}({x})", "else:", f"    {out_names[0]} = {x}"]

        return builder.statement(render, ins, [eqn.outvars[0].aval])

    monkeypatch.setitem(EMITTERS, "choose_branch", emit_choose)
    jaxpr = trace(lambda p, x: [ew.neg(choose_p.bind(p, x))], aval((), BOOL), aval((3,)))
    compiled = compile_jaxpr(jaxpr, IMPLS)
    assert "if a:" in compiled.source
    x = rand((3,))
    original = x.copy()
    np.testing.assert_allclose(compiled(np.True_, x)[0], -np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(compiled(np.False_, x)[0], -x)
    np.testing.assert_array_equal(x, original)  # the statement's output may be x: never written


def test_custom_statement_outputs_are_treated_as_aliases():
    ident_p = Primitive("ident_stmt")
    ident_p.def_abstract_eval(lambda x: x)
    emitters = {"ident_stmt": lambda b, eqn, ins: b.statement(lambda i, o: [f"{o[0]} = {i[0]}"], ins, [ins[0].aval])}

    def fn(x):
        e = ew.exp(x)
        alias = ident_p.bind(e)
        return [ew.neg(e), alias]  # e dies at neg, but alias is the same buffer

    jaxpr = trace(fn, aval((3,)))
    original = dict(EMITTERS)
    EMITTERS.update(emitters)
    try:
        compiled = compile_jaxpr(jaxpr, IMPLS)
    finally:
        EMITTERS.clear()
        EMITTERS.update(original)
    x = rand((3,))
    _, alias = compiled(x)
    np.testing.assert_array_equal(alias, np.exp(x))
    assert in_place(compiled) == []


def test_stop_gradient_costs_nothing():
    jaxpr = trace(lambda x: [ew.stop_gradient(ew.exp(x))], aval((3,)))
    compiled, _ = assert_matches_eval(jaxpr, [rand((3,))])
    assert compiled.num_eqns == 1 and "stop_gradient" not in compiled.source


# ---------------------------------------------------------------------------
# Compile time


def _chain(n: int) -> Jaxpr:
    def fn(x):
        for i in range(n // 2):
            x = ew.tanh(ew.add(x, 0.5)) if i % 2 else ew.mul(ew.sin(x), 0.5)
        return [x]

    return trace(fn, aval((4,)))


def test_a_5000_equation_chain_compiles_quickly():
    jaxpr = _chain(5000)
    assert len(jaxpr.eqns) == 5000
    start = time.perf_counter()
    compiled = compile_jaxpr(jaxpr, IMPLS)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, elapsed
    assert compiled.num_eqns == 5000
    x = rand((4,))
    np.testing.assert_array_equal(compiled(x)[0], reference(jaxpr, [x])[0])


def test_compile_needs_a_closed_jaxpr():
    x = Var(aval((2,)))
    c = Var(aval((2,)))
    out = Var(aval((2,)))
    jaxpr = Jaxpr([c], [x], [out], [JaxprEqn(ew.add_p, [x, c], [out], {})])
    with pytest.raises(ValueError, match="closed jaxpr"):
        compile_jaxpr(jaxpr, IMPLS)


def test_missing_impl_names_the_primitive():
    mystery_p = Primitive("mystery")
    x = Var(aval((2,)))
    out = Var(aval((2,)))
    jaxpr = Jaxpr([], [x], [out], [JaxprEqn(mystery_p, [x], [out], {})])
    with pytest.raises(NotImplementedError, match="mystery"):
        compile_jaxpr(jaxpr, IMPLS)


def test_generated_names_skip_python_keywords():
    names = compile_mod._local_names()
    generated = [names() for _ in range(26 * 30)]
    assert "as" not in generated and "if" not in generated and "in" not in generated
    assert len(set(generated)) == len(generated)


# ---------------------------------------------------------------------------
# Random programs: the reuse analysis against the oracle


def _random_program(seed: int):
    """A random f32[4,4] program mixing owned ufunc results with views
    (transpose, reshape round trips, broadcasts), identities, reductions,
    selects and inlined jit bodies, returning a random subset of values."""
    r = np.random.default_rng(seed)
    unary = [ew.neg, ew.sin, ew.tanh, ew.exp, lambda v: ew.mul(v, 0.5)]
    binary = [ew.add, ew.sub, ew.mul, ew.max, ew.min]
    views = [
        lambda v: sh.transpose(v, (1, 0)),
        lambda v: sh.reshape(sh.reshape(v, (16,)), (4, 4)),
        lambda v: sh.broadcast_in_dim(red.reduce_sum(v, (0,)), (4, 4), (1,)),
        ew.stop_gradient,
        lambda v: ew.select_n(ew.gt(v, 0.0), v, ew.neg(v)),
    ]

    def body(*xs):
        pool = list(xs)
        for _ in range(int(r.integers(3, 14))):
            kind = r.integers(4)
            pick = lambda: pool[int(r.integers(len(pool)))]
            if kind == 0:
                pool.append(unary[int(r.integers(len(unary)))](pick()))
            elif kind == 1:
                pool.append(binary[int(r.integers(len(binary)))](pick(), pick()))
            elif kind == 2:
                pool.append(views[int(r.integers(len(views)))](pick()))
            else:
                pool.append(jit_bind(lambda a, b: [ew.add(ew.tanh(a), b), a], pick(), pick())[0])
        count = int(r.integers(1, 4))
        return [pool[int(i)] for i in r.integers(len(pool), size=count)]

    return trace(body, aval((4, 4)), aval((4, 4)))


def test_random_programs_match_eval_jaxpr_with_buffer_reuse():
    reused = 0
    for seed in range(150):
        jaxpr = _random_program(seed)
        args = [rand((4, 4)), rand((4, 4))]
        compiled = compile_jaxpr(jaxpr, {**IMPLS, jit_p: _refuse})
        reused += len(in_place(compiled))
        copies = [a.copy() for a in args]
        with np.errstate(all="ignore"):
            got = compiled(*args)
            want = reference(jaxpr, copies, {**IMPLS, jit_p: _eval_jit})
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"seed {seed}\n{compiled.source}")
        for a, c in zip(args, copies, strict=True):
            np.testing.assert_array_equal(a, c)
    assert reused > 50  # the programs do exercise in-place reuse


def test_a_dot_general_result_is_reused_in_place_and_inputs_are_untouched():
    import pyjax
    import pyjax.numpy as jnp

    rng = np.random.default_rng(5)
    q = jnp.asarray(rng.standard_normal((4, 8, 3)).astype(np.float32))
    k = jnp.asarray(rng.standard_normal((4, 8, 3)).astype(np.float32))
    q_before, k_before = np.asarray(q).copy(), np.asarray(k).copy()
    f = pyjax.jit(lambda q, k: jnp.exp(jnp.einsum("bqd,bkd->bqk", q, k) / 2.0))
    source = f.lower(q, k).as_text("python")
    # The batched product's fresh buffer takes the result of the division
    # (a product with 1/2, as XLA computes it: rewrite.py):
    # `g = _np_multiply_5(e, f, e)`, the output buffer last.
    line = next(l for l in source.splitlines() if "multiply" in l)
    args = line[line.index("(") + 1:line.rindex(")")].split(", ")
    assert len(args) == 3 and args[0] == args[-1], source
    expected = np.exp(np.einsum("bqd,bkd->bqk", q_before, k_before) / np.float32(2.0))
    np.testing.assert_allclose(np.asarray(f(q, k)), expected, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(q), q_before)
    np.testing.assert_array_equal(np.asarray(k), k_before)


def test_slices_are_subscripts_with_their_index_built_once():
    # jnp.roll's slices and concatenate, strides, and a slice of a buffer a
    # later ufunc may not write into while the view is read.
    def f(x):
        a = sh.slice(x, (1, 0), (4, 3), (2, 1))
        b = sh.slice(x, (0, 1), (4, 3))
        c = ew.exp(x)
        d = sh.slice(c, (0, 0), (4, 2))
        e = ew.add(c, c)  # c is dead after this: may be written in place only if no view of it is live
        return [sh.concatenate([b, d], 0), a, ew.add(d, d), e]

    jaxpr = trace(f, aval((4, 3)))
    compiled, _ = assert_matches_eval(jaxpr, [rand((4, 3))])
    assert "_slice" not in compiled.source and "[_index" in compiled.source
    index = compiled.fn.__globals__[compiled.source.split("[")[1].split("]")[0]]
    assert index == (slice(1, 4, 2), slice(0, 3, 1))
