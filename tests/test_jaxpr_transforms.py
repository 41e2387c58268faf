"""The whole-jaxpr transformations of interpreters/: each exists once, and
jit, remat and the control-flow rules call it."""

import numpy as np

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
