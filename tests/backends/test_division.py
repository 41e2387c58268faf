"""Float division as XLA computes it (backends/numpy/xla/rewrite.py, impls.py
`_div`): by a broadcast or constant divisor, a product with the reciprocal
rounded in the dtype; elementwise, a division. Compared bit for bit with
JAX 0.11.0's results (tests/golden/division.json, recorded by
tests/golden/record_division.py)."""

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src import core
from pyjax._src.backends.numpy.impls import standard as impls_lib
from pyjax._src.backends.numpy.xla import rewrite
from pyjax._src.dispatch import EvalTrace
from pyjax._src.lax import elementwise as ew
from helpers import assert_same_bits, load_recording, recorded_bits, run_recorded

record, RECORDED = load_recording("division")
CASES = {name: (expr, x64) for name, expr, x64 in record.CASES}

# The cases where XLA multiplies by the reciprocal (the others divide).
MULTIPLIED = {
    "jit_by_python_scalar", "eager_by_python_scalar", "jit_by_scalar_argument", "eager_by_0d_array",
    "eager_lax_div_by_0d", "jit_by_row", "jit_by_broadcast_to", "jit_by_full_constant",
    "jit_by_keepdims_sum", "eager_mean", "jit_mean", "float16_by_scalar", "float64_by_scalar",
    "while_body_by_constant", "scalar_by_constant",
}


def _run(name):
    return run_recorded(record, *CASES[name])


def _bits(name):
    return recorded_bits(RECORDED[name])


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)
    assert MULTIPLIED < set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_division_matches_jax_bit_for_bit(name):
    assert RECORDED[name]["expr"] == CASES[name][0], "stale recording: re-run record_division.py"
    assert_same_bits(name, _run(name), _bits(name))


@pytest.fixture
def plain_division(monkeypatch):
    """pyjax with true division everywhere (the behaviour before XLA's rewrite was reproduced)."""
    monkeypatch.setattr(rewrite, "_reciprocal_division", lambda *args: None)
    monkeypatch.setitem(impls_lib.IMPLS, ew.div_p, lambda x, y: np.true_divide(*impls_lib._operands(x, y)[0]))
    core.set_default_trace(EvalTrace(impls_lib.IMPLS))
    yield
    monkeypatch.undo()
    core.set_default_trace(EvalTrace(impls_lib.IMPLS))


def test_the_recorded_cases_tell_division_from_the_reciprocal(plain_division):
    # On these inputs a plain division gives other bits wherever XLA
    # multiplies: the comparison above would fail without the rewrite.
    for name in sorted(MULTIPLIED):
        assert _run(name).tobytes() != _bits(name).tobytes(), name


def test_rewrite_keeps_elementwise_division_and_bfloat16():
    x = np.ones((4, 3), np.float32)
    jaxpr = pyjax.make_jaxpr(lambda a, b: a / b)(x, x).jaxpr
    assert rewrite.simplify(jaxpr) is jaxpr
    b16 = np.ones((4, 3), jnp.bfloat16)
    jaxpr = pyjax.make_jaxpr(lambda a: a / 3.0)(b16).jaxpr
    assert rewrite.simplify(jaxpr) is jaxpr


def test_rewrite_takes_the_reciprocal_before_the_broadcast():
    x, row = np.ones((4, 3), np.float32), np.ones(3, np.float32)
    jaxpr = pyjax.make_jaxpr(lambda a, r: a / jnp.broadcast_to(r, a.shape))(x, row).jaxpr
    names = [(e.primitive.name, e.outvars[0].aval.shape) for e in rewrite.simplify(jaxpr).eqns]
    assert names[-3:] == [("div", (3,)), ("broadcast_in_dim", (4, 3)), ("mul", (4, 3))], names


def test_eager_division_by_another_ops_broadcast_divides():
    # Eager jax.numpy runs op by op: the broadcast is its own computation,
    # so JAX divides (recorded: eager_by_broadcast_to); a fused program only
    # rewrites inside jit bodies.
    x = np.ones((4, 3), np.float32)
    jaxpr = pyjax.make_jaxpr(lambda a, r: a / jnp.broadcast_to(r, a.shape))(x, x[0]).jaxpr
    assert rewrite.simplify(jaxpr, fused=False) is jaxpr
