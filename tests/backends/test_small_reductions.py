"""Sums of products over short rows and tiny dots as XLA's CPU loops compute
them: one fused multiply-add per element, in order (backends/numpy/xla/rewrite.py
`_small_reductions`, `_tiny_dots`; fma.py `row_dot`, `tiny_dot`). Compared bit
for bit with JAX 0.11.0 (tests/golden/small_reductions.json, recorded by
tests/golden/record_small_reductions.py)."""

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy.xla import rewrite
from helpers import assert_same_bits, load_recording, recorded_bits, run_recorded

record, RECORDED = load_recording("small_reductions")
CASES = {name: (expr, x64) for name, expr, x64 in record.CASES}
INPUTS = record.inputs(np)

# What NumPy computes without the rewrites (products rounded; BLAS/einsum):
# each case must differ there, so each comparison can fail.
def _einsum(F, z):
    return np.einsum("ij,...j->...i", INPUTS[F], INPUTS[z])


PLAIN = {
    "row_mul_3": lambda: np.sum(INPUTS["x3"] * INPUTS["y3"], axis=-1),
    "row_square_3": lambda: np.sum(INPUTS["x3"] * INPUTS["x3"], axis=-1),
    "row_pow_3": lambda: np.sum(INPUTS["x3"] ** 2, axis=-1),
    "row_mul_9": lambda: np.sum(INPUTS["x9"] * INPUTS["y9"], axis=-1),
    "row_square_9": lambda: np.sum(INPUTS["x9"] ** 2, axis=-1),
    "row_mul_3_f64": lambda: np.sum(INPUTS["x364"] * INPUTS["y364"], axis=-1),
    "row_square_3_f64": lambda: np.sum(INPUTS["x364"] ** 2, axis=-1),
    "norm_3": lambda: np.sqrt(np.sum(INPUTS["x3"] ** 2, axis=-1)),
    "matvec_3": lambda: _einsum("F3", "v3"),
    "rows_2": lambda: _einsum("F2", "z2"),
    "rows_3": lambda: _einsum("F3", "z3"),
    "rows_3_f64": lambda: _einsum("F364", "z364"),
}


def _bits(name):
    return recorded_bits(RECORDED[name])


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax_bit_for_bit(name):
    assert_same_bits(name, run_recorded(record, *CASES[name]), _bits(name))


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_numpy_differs(name):
    plain = PLAIN[name]()
    expected = _bits(name)
    assert not np.array_equal(plain.astype(expected.dtype), expected)


def _eqn_names(f, *args):
    return [e.primitive.name for e in rewrite.simplify(pyjax.make_jaxpr(f)(*args).jaxpr).eqns]


def test_rewrite_keeps_unmeasured_shapes():
    x = np.ones((5, 6), np.float32)  # rows of 6: vectorised by XLA, left alone
    assert "row_dot" not in _eqn_names(lambda a: jnp.sum(a * a, axis=-1), x)
    big = np.ones((2000, 3), np.float32)  # 6000 elements: another order
    assert "row_dot" not in _eqn_names(lambda a: jnp.sum(a * a, axis=-1), big)
    assert "row_dot" in _eqn_names(lambda a: jnp.sum(a * a, axis=-1), big[:1000])
    # The product is an output too: computed on its own, read back rounded.
    assert "row_dot" not in _eqn_names(lambda a: (a * a, jnp.sum(a * a, axis=-1)), x[:, :3])
    # A square of exp: computed otherwise inside XLA's fusion; left alone.
    assert "row_dot" not in _eqn_names(lambda a: jnp.sum(jnp.exp(a) ** 2, axis=-1), x[:, :3])
    F, z = np.ones((3, 3), np.float32), np.ones((8, 3), np.float32)  # 8 rows: vectorised
    assert "tiny_dot" not in _eqn_names(lambda F, z: jnp.einsum("ij,...j->...i", F, z), F, z)
    assert "tiny_dot" in _eqn_names(lambda F, z: jnp.einsum("ij,...j->...i", F, z), F, z[:6])


def test_rewrite_leaves_matmul_results_to_numpy():
    # A loss's row sums over logits from a matmul: BLAS never gives XLA's
    # bits there, so the in-order fma chain would only cost time.
    x, w = np.ones((8, 16), np.float32), np.ones((16, 3), np.float32)
    assert "row_dot" not in _eqn_names(lambda x, w: jnp.sum((x @ w) * (x @ w), axis=-1), x, w)
    assert "row_dot" in _eqn_names(lambda y: jnp.sum(y * y, axis=-1), np.ones((8, 3), np.float32))
