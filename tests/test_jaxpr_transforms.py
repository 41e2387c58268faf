"""The whole-jaxpr transformations of interpreters/: each exists once, and
jit, remat and the control-flow rules call it."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.jaxpr import eval_jaxpr


def _jaxpr(f, *args):
    return jax.make_jaxpr(f)(*args).jaxpr


def test_jvp_jaxpr_tangents_and_symbolic_zeros():
    jaxpr = _jaxpr(lambda x, y: (jnp.sin(x) * y, y * 0.0 + 1.0, jnp.float32(3.0) + 0 * x), 1.0, 2.0)
    new, out_nz = jvp_jaxpr(jaxpr, [True, False])
    # y's tangent is a symbolic zero: the second output has none.
    assert out_nz == [True, False, True]
    assert len(new.invars) == 3 and len(new.outvars) == 5
    outs = eval_jaxpr(new, new.consts, np.float32(0.5), np.float32(2.0), np.float32(1.0))
    np.testing.assert_allclose(np.asarray(outs[3]), np.cos(0.5) * 2.0, rtol=1e-6)


def test_jvp_jaxpr_instantiates_the_flagged_outputs():
    jaxpr = _jaxpr(lambda x, y: (x * 2.0, y + 1.0), 1.0, 2.0)
    natural, nz = jvp_jaxpr(jaxpr, [True, False])
    forced, forced_nz = jvp_jaxpr(jaxpr, [True, False], [False, True])
    assert nz == [True, False] and forced_nz == [True, True]
    assert len(natural.outvars) == 3 and len(forced.outvars) == 4
    outs = eval_jaxpr(forced, forced.consts, np.float32(1.0), np.float32(2.0), np.float32(1.0))
    assert float(outs[3]) == 0.0


def test_jvp_jaxpr_runs_the_body_through_evaluate():
    seen = []

    def evaluate(jaxpr, consts, *args):
        seen.append(len(jaxpr.eqns))
        return eval_jaxpr(jaxpr, consts, *args)

    jaxpr = _jaxpr(lambda x: jnp.exp(x), 1.0)
    jvp_jaxpr(jaxpr, [True], evaluate=evaluate)
    assert seen == [1]


def test_batch_jaxpr_instantiate_broadcasts_unbatched_outputs():
    from pyjax._src.interpreters.batching import AxisData, batch_jaxpr

    jaxpr = _jaxpr(lambda x, y: (x * 2.0, y + 1.0), np.zeros(3, np.float32), 1.0)
    axis = AxisData(None, 4)
    natural, out_b = batch_jaxpr(jaxpr, axis, [True, False], False)
    forced, forced_b = batch_jaxpr(jaxpr, axis, [True, False], [False, True])
    assert out_b == [True, False] and forced_b == [True, True]
    assert [v.aval.shape for v in natural.outvars] == [(4, 3), ()]
    assert [v.aval.shape for v in forced.outvars] == [(4, 3), (4,)]
    outs = eval_jaxpr(forced, forced.consts, np.ones((4, 3), np.float32), np.float32(2.0))
    np.testing.assert_array_equal(np.asarray(outs[1]), np.full(4, 3.0, np.float32))


def test_batch_jaxpr_axes_moves_keeps_or_chooses_out_dims():
    from pyjax._src.interpreters.batching import AxisData, batch_jaxpr_axes, not_mapped

    jaxpr = _jaxpr(lambda x, y: (jnp.sin(x), y * 2.0), np.zeros((2, 3), np.float32), 1.0)
    axis = AxisData(None, 5)
    x = np.arange(30, dtype=np.float32).reshape(2, 5, 3)
    kept, dims = batch_jaxpr_axes(jaxpr, axis, [1, not_mapped])
    assert dims == [1, not_mapped] and kept.outvars[0].aval.shape == (2, 5, 3)
    moved, dims = batch_jaxpr_axes(jaxpr, axis, [1, not_mapped], [0, 0])
    assert dims == [0, 0] and [v.aval.shape for v in moved.outvars] == [(5, 2, 3), (5,)]
    out, twice = eval_jaxpr(moved, moved.consts, x, np.float32(1.5))
    np.testing.assert_allclose(np.asarray(out), np.sin(x).transpose(1, 0, 2), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(twice), np.full(5, 3.0, np.float32))
    chosen, dims = batch_jaxpr_axes(jaxpr, axis, [1, not_mapped], lambda natural: [2, natural[1]])
    assert dims == [2, not_mapped] and chosen.outvars[0].aval.shape == (2, 3, 5)


def test_jit_and_remat_batch_through_the_one_batch_jaxpr():
    f = jax.jit(lambda x: jnp.sin(x).T)
    g = jax.checkpoint(lambda x: jnp.sin(x).T)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    xs = np.stack([x, x + 1])
    for fun in (f, g):
        np.testing.assert_allclose(np.asarray(jax.vmap(fun)(xs)), np.sin(xs).transpose(0, 2, 1), rtol=1e-6)


def test_partial_eval_custom_rules_are_declared_on_the_calls():
    from pyjax._src.custom_derivatives import custom_jvp_call_p
    from pyjax._src.interpreters.partial_eval import call_partial_eval_custom_rule
    from pyjax._src.jit import jit_p
    from pyjax._src.remat import remat_p

    import pyjax._src.jit as jit_lib

    # jit's: the generic call rule plus its sharding params split with the outputs.
    assert jit_p.partial_eval_custom is jit_lib._jit_pe_custom
    assert "call_partial_eval_custom_rule" in jit_lib._jit_pe_custom.__code__.co_names
    assert remat_p.partial_eval_custom.func is call_partial_eval_custom_rule
    assert remat_p.partial_eval_custom.keywords == {"differentiated": True}
    assert custom_jvp_call_p.inline_when_unknown == "call_jaxpr"


def test_partial_eval_jaxpr_custom_saves_or_recomputes_by_saveable():
    from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr_custom

    jaxpr = _jaxpr(lambda x, y: jnp.sin(x) * y, 1.0, 2.0)
    asked = []

    def save_nothing(primitive, *avals, **params):
        asked.append(primitive.name)
        return False

    known, staged, out_uk, out_inst, num_res = partial_eval_jaxpr_custom(jaxpr, [False, True], [True, True], save_nothing)
    assert asked == ["sin"] and out_uk == [True] and num_res == 0
    # Not saveable: the sin runs now and again in the staged jaxpr.
    assert [e.primitive.name for e in known.eqns] == ["sin"]
    assert [e.primitive.name for e in staged.eqns] == ["sin", "mul"]
    known, staged, _, _, num_res = partial_eval_jaxpr_custom(jaxpr, [False, True], [True, True], lambda *a, **k: True)
    assert num_res == 1 and [e.primitive.name for e in staged.eqns] == ["mul"]


def test_remat_policy_answers_reach_partial_eval():
    from pyjax._src.remat import saveable_by

    assert saveable_by(lambda *a, **k: True)(None) is True
    assert saveable_by(jax.checkpoint_policies.nothing_saveable)(None) is False
    with pytest.raises(TypeError, match="Value returned by a remat policy"):
        saveable_by(lambda *a, **k: "yes")(None)


def test_transpose_jaxpr_instantiated_or_nonzero_cotangents():
    from pyjax._src.avals import ShapedArray
    from pyjax._src.interpreters.transpose import transpose_jaxpr

    f32 = ShapedArray((), np.dtype(np.float32))
    # Linear in t and u; r is a residual; u's cotangent is a symbolic zero.
    jaxpr = _jaxpr(lambda r, t, u: (jnp.sin(r) * t, u * 0.0 + t), 1.0, 2.0, 3.0)
    full, nz = transpose_jaxpr(jaxpr, [None, f32, f32], [f32], [True, False], [f32])
    assert nz == [True, True] and len(full.invars) == 2 and len(full.outvars) == 2
    ct_t, ct_u = eval_jaxpr(full, full.consts, np.float32(0.5), np.float32(2.0))
    np.testing.assert_allclose(np.asarray(ct_t), np.sin(np.float32(0.5)) * 2.0, rtol=1e-6)
    assert float(ct_u) == 0.0
    only, nz = transpose_jaxpr(jaxpr, [None, f32, f32], [f32], [True, False], [f32], instantiate_cts=False)
    assert nz == [True, False] and len(only.outvars) == 1
    flagged, nz = transpose_jaxpr(jaxpr, [None, f32, f32], [f32], [True, False], [f32], instantiate_cts=[False, True])
    assert nz == [False, True] and len(flagged.outvars) == 1
    (zero,) = eval_jaxpr(flagged, flagged.consts, np.float32(0.5), np.float32(2.0))
    assert float(zero) == 0.0


def test_transpose_jaxpr_recomputes_the_non_linear_part():
    from pyjax._src.avals import ShapedArray
    from pyjax._src.interpreters.transpose import transpose_jaxpr

    f32 = ShapedArray((), np.dtype(np.float32))
    jaxpr = _jaxpr(lambda r, t: jnp.sin(r) * t, 1.0, 2.0)
    body, nz = transpose_jaxpr(jaxpr, [None, f32], [f32], [True], [f32], instantiate_cts=False, recompute=True)
    assert nz == [True] and [e.primitive.name for e in body.eqns] == ["sin", "mul"]
    (ct,) = eval_jaxpr(body, body.consts, np.float32(0.5), np.float32(3.0))
    np.testing.assert_allclose(np.asarray(ct), np.sin(np.float32(0.5)) * 3.0, rtol=1e-6)
