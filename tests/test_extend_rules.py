"""The rule dictionaries of jax.interpreters are views of the primitives'
own rule slots: one source of truth, whichever side writes."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.interpreters.batching import AxisData, not_mapped
from pyjax._src.rules import NOT_DIFFERENTIABLE
from pyjax.extend.core import Primitive
from pyjax.interpreters import ad, batching, mlir
from pyjax.interpreters import partial_eval as pe


@pytest.fixture
def prim():
    p = Primitive("scratch_ext")
    p.def_impl(lambda x: x * 3)
    p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    yield p
    core._all_primitives.remove(p)


def test_jvp_table_writes_the_slot_and_reads_it_back(prim):
    def rule(primals, tangents):
        return prim.bind(*primals), tangents[0] * 3
    ad.primitive_jvps[prim] = rule
    assert prim.jvp is rule and ad.primitive_jvps[prim] is rule and prim in ad.primitive_jvps
    assert float(jax.grad(lambda x: prim.bind(x))(2.0)) == 3.0
    del ad.primitive_jvps[prim]
    assert prim.jvp is None and prim not in ad.primitive_jvps
    with pytest.raises(KeyError):
        ad.primitive_jvps[prim]
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'scratch_ext' not implemented"):
        jax.grad(lambda x: prim.bind(x))(2.0)


def test_a_rule_set_on_the_slot_is_seen_by_the_table(prim):
    prim.def_transpose(lambda ct, x: [ct * 3])
    assert ad.primitive_transposes[prim] is prim.transpose
    assert ad.get_primitive_transpose(prim) is prim.transpose


def test_builtin_rules_read_through_the_tables():
    # A declared zero derivative reads back as a rule returning symbolic zeros.
    assert lax.lt_p.jvp is NOT_DIFFERENTIABLE
    out, t = ad.primitive_jvps[lax.lt_p]((np.float32(1), np.float32(2)), (ad.Zero(None), ad.Zero(None)))
    assert bool(out) and type(t) is ad.Zero and str(t.aval) == "float0[]"
    assert lax.sin_p in ad.primitive_jvps and lax.sin_p not in ad.primitive_transposes
    assert lax.neg_p in ad.primitive_transposes and lax.sin_p in list(ad.primitive_jvps)
    assert len(ad.primitive_jvps) > 100


def test_fancy_batcher_speaks_none_for_unbatched():
    # A built-in batching rule read through the table, called in JAX's convention.
    rule = batching.fancy_primitive_batchers[lax.add_p]
    x, y = jnp.ones((4, 3)), jnp.ones(3)
    axis_data = type("AxisData", (), {"name": None, "size": 4, "spmd_name": None})()
    out, d = rule(axis_data, [x, y], [0, None])
    assert d == 0 and out.shape == (4, 3)
    out, d = rule(axis_data, [y, y], [None, None])
    assert d is None and out.shape == (3,)


def test_fancy_batcher_registered_in_jax_convention(prim):
    seen = []

    def rule(axis_data, args, dims):
        seen.append((axis_data.size, list(dims)))
        return prim.bind(*args), dims[0]
    batching.fancy_primitive_batchers[prim] = rule
    assert batching.fancy_primitive_batchers[prim] is rule
    out = jax.vmap(lambda x: prim.bind(x))(jnp.arange(3.0))
    assert np.asarray(out).tolist() == [0.0, 3.0, 6.0]
    assert seen == [(3, [0])]
    # Stored as a pyjax rule: pyjax's BatchTrace calls it with not_mapped and gets not_mapped back.
    batching.fancy_primitive_batchers[prim] = lambda axis_data, args, dims: (prim.bind(*args), None)
    out, d = prim.batch(AxisData(None, 2), [jnp.ones(2)], [not_mapped])
    assert d is not_mapped


def test_primitive_batchers_proxy(prim):
    def batcher(args, dims):
        return prim.bind(*args), dims[0]
    batching.primitive_batchers[prim] = batcher
    assert batching.primitive_batchers[prim] is batcher and prim in batching.primitive_batchers
    assert prim in batching.fancy_primitive_batchers
    assert np.asarray(jax.vmap(prim.bind, in_axes=1)(jnp.ones((2, 3)))).shape == (3, 2)
    del batching.primitive_batchers[prim]
    assert prim.batch is None
    with pytest.raises(NotImplementedError, match="Batching rule for 'scratch_ext' not implemented"):
        jax.vmap(prim.bind)(jnp.ones(3))


def test_axis_primitive_batchers_see_size_and_name(prim):
    seen = []

    def batcher(size, name, trace_type, args, dims):
        seen.append((size, name))
        return prim.bind(*args), dims[0]
    batching.axis_primitive_batchers[prim] = batcher
    jax.vmap(prim.bind, axis_name="i")(jnp.ones(5))
    assert seen == [(5, "i")]


def test_defvectorized_and_defbroadcasting(prim):
    batching.defvectorized(prim)
    assert np.asarray(jax.vmap(prim.bind)(jnp.ones((2, 3)))).tolist() == [[3.0] * 3] * 2
    add2 = Primitive("scratch_add2")
    add2.def_impl(lambda x, y: x + y)
    add2.def_abstract_eval(lambda x, y: core.ShapedArray(np.broadcast_shapes(x.shape, y.shape), x.dtype))
    batching.defbroadcasting(add2)
    try:
        out = jax.vmap(add2.bind, in_axes=(0, None))(jnp.ones((2, 3)), jnp.arange(3.0))
        assert np.asarray(out).tolist() == [[1.0, 2.0, 3.0]] * 2
    finally:
        core._all_primitives.remove(add2)


def test_deflinear2_and_defbilinear(prim):
    ad.deflinear2(prim, lambda ct, x: [ct * 3])
    assert float(jax.grad(lambda x: prim.bind(x))(1.0)) == 3.0
    mul2 = Primitive("scratch_mul2")
    mul2.def_impl(lambda x, y: x * y)
    mul2.def_abstract_eval(lambda x, y: core.ShapedArray(x.shape, x.dtype))
    ad.defbilinear(mul2, lambda ct, x, y: ct * y, lambda ct, x, y: x * ct)
    try:
        gx, gy = jax.grad(lambda x, y: mul2.bind(x, y), (0, 1))(2.0, 5.0)
        assert (float(gx), float(gy)) == (5.0, 2.0)
    finally:
        core._all_primitives.remove(mul2)


def test_tables_refuse_what_is_not_a_rule(prim):
    with pytest.raises(TypeError, match="rules are registered for primitives"):
        ad.primitive_jvps["sin"] = lambda p, t: (p, t)
    with pytest.raises(TypeError, match="a rule must be callable"):
        ad.primitive_transposes[prim] = 3


def test_def_impl_runs_in_compiled_code_and_impl_attribute(prim):
    assert prim.impl(np.float32(2.0)) == 6.0
    assert float(jax.jit(lambda x: prim.bind(x) + 1)(2.0)) == 7.0
    # A built-in primitive's impl runs it eagerly.
    assert float(lax.sin_p.impl(np.float32(0.0))) == 0.0


def test_impl_returning_a_tracer_is_refused(prim):
    leaked = []
    bad = Primitive("scratch_bad_impl")
    bad.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    bad.def_impl(lambda x: leaked[0])
    try:
        jax.jit(lambda x: leaked.append(x) or x)(1.0)
        with pytest.raises(Exception, match="scratch_bad_impl"):
            bad.bind(np.float32(1.0))
    finally:
        core._all_primitives.remove(bad)


def test_register_lowering_with_lower_fun(prim):
    low = Primitive("scratch_lowered")
    low.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(low, mlir.lower_fun(lambda x: x - 1, multiple_results=False))
    try:
        assert float(jax.jit(low.bind)(3.0)) == 2.0 and float(low.bind(np.float32(3.0))) == 2.0
        # An MLIR-builder rule is recorded as in JAX (equinox registers one
        # beside def_impl at import); the primitive still evaluates as before.
        mlir.register_lowering(low, lambda ctx, x: [x])
        assert float(jax.jit(low.bind)(3.0)) == 2.0
    finally:
        core._all_primitives.remove(low)


def test_dce_rules_view_converts_conventions():
    # jit's own DCE rule, read in JAX's convention.
    closed = jax.make_jaxpr(lambda x: jax.jit(lambda y: (y * 2, y + 1))(x)[0])(1.0)
    eqn = closed.eqns[0]
    used_inputs, new_eqn = pe.dce_rules[eqn.primitive]([True, False], eqn)
    assert used_inputs == [True] and len(new_eqn.outvars) == 1


def test_trace_to_jaxpr_dynamic_and_nounits():
    from pyjax.extend import linear_util as lu

    fun = lu.wrap_init(lambda x, y: [jnp.sin(x) * y])
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(fun, [core.ShapedArray((3,), np.float32)] * 2)
    assert str(jaxpr) == "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = sin a; d:f32[3] = mul c b in (d,) }"
    assert out_avals == [core.ShapedArray((3,), np.float32)] and consts == []
    pvals = [pe.PartialVal.known(np.float32(2.0)), pe.PartialVal.unknown(core.ShapedArray((), np.float32))]
    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(lu.wrap_init(lambda x, y: [jnp.sin(x) * y, x * 2]), pvals)
    assert [p.is_known() for p in out_pvals] == [False, True]
    assert float(out_pvals[1].get_known()) == 4.0
    assert len(consts) == 1 and np.isclose(float(consts[0]), np.sin(2.0))
    assert [e.primitive.name for e in jaxpr.eqns] == ["mul"]


def test_apply_primitive_impl_defers_to_the_lowering():
    # Older libraries: def_impl(partial(xla.apply_primitive, p)) beside a lower_fun lowering.
    import functools

    from pyjax.interpreters import xla

    for order in ("impl_first", "lowering_first"):
        p = Primitive(f"scratch_apply_{order}")
        p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
        lowering = mlir.lower_fun(lambda x: x * 10, multiple_results=False)
        try:
            if order == "impl_first":
                p.def_impl(functools.partial(xla.apply_primitive, p))
                mlir.register_lowering(p, lowering)
            else:
                mlir.register_lowering(p, lowering)
                p.def_impl(functools.partial(xla.apply_primitive, p))
            assert float(p.bind(np.float32(2.0))) == 20.0
            assert float(jax.jit(p.bind)(2.0)) == 20.0
            assert float(xla.apply_primitive(p, np.float32(3.0))) == 30.0
        finally:
            core._all_primitives.remove(p)


def test_xla_and_pxla_names():
    from pyjax.interpreters import pxla, xla

    assert xla.Backend().platform == "cpu" and isinstance(xla.canonicalize_dtype_handlers, dict)
    with pytest.raises(NotImplementedError, match="issue 27"):
        pxla.create_compile_options(1, 1)
