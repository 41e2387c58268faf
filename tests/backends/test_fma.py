"""Multiply-add contraction as XLA's CPU compiler does it
(backends/numpy/xla/rewrite.py `_contract_multiply_adds`, backends/numpy/xla/fma.py):
inside one computation, an add or subtract of a multiply that XLA fuses into
it alone is one fused multiply-add, rounded once. Compared bit for bit with
JAX 0.11.0's results (tests/golden/fma.json, recorded by
tests/golden/record_fma.py), plus the impl's exactness and the rewrite's
structure."""

import json
from fractions import Fraction

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy.xla import fma as fma_lib
from pyjax._src.backends.numpy.xla import rewrite
from pyjax._src.backends.numpy.xla import xla_math

from helpers import GOLDEN, assert_same_bits, load_recording, recorded_bits, run_recorded

record, RECORDED = load_recording("fma")
CASES = {name: (expr, x64, fused) for name, expr, x64, fused in record.CASES}
FUSED = sorted(name for name, (_, _, fused) in CASES.items() if fused)
# Not contracted by XLA although a contracting rewrite that ignored fusion
# (or the op-by-op scope) would contract them.
# What contracting the pair would give where XLA does not, for the cases a
# rewrite contracting every pair in one jaxpr would still leave alone.
CONTRACTED = {
    "broadcast_product": lambda i: fma_lib.fma_f32(*np.broadcast_arrays(i["a"][:16, None], i["b"][:16, None], i["w"])),
    "product_outside_cond": lambda i: fma_lib.fma_f32(i["a"], i["b"], i["c"]),
    "eager": lambda i: fma_lib.fma_f32(i["a"], i["b"], i["c"]),
    "float16": lambda i: fma_lib.fma_f32(*(i[k].astype(np.float16) for k in "ab"), i["c"]).astype(np.float16),
    "bfloat16": lambda i: fma_lib.fma_f32(*(i[k].astype(jnp.bfloat16) for k in "abc")).astype(jnp.bfloat16),
}
UNFUSED = sorted(name for name, (_, _, fused) in CASES.items() if not fused and name not in CONTRACTED)


def _run(name):
    expr, x64, _ = CASES[name]
    return run_recorded(record, expr, x64)


def _bits(name):
    return recorded_bits(RECORDED[name])


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)
    assert all(RECORDED[name]["fused"] == CASES[name][2] for name in CASES), "stale recording: re-run record_fma.py"


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax_bit_for_bit(name):
    assert RECORDED[name]["expr"] == CASES[name][0], "stale recording: re-run record_fma.py"
    assert_same_bits(name, _run(name), _bits(name))


def test_without_contraction_the_fused_cases_differ(monkeypatch):
    # Rounding the product first gives other bits on these inputs wherever
    # XLA contracts: the comparison above fails without the rewrite.
    monkeypatch.setattr(rewrite, "_contract_multiply_adds", lambda eqns, outvars: eqns)
    pyjax.clear_caches()
    try:
        for name in FUSED:
            assert _run(name).tobytes() != _bits(name).tobytes(), name
    finally:
        monkeypatch.undo()
        pyjax.clear_caches()


def test_contracting_every_pair_breaks_the_unfused_cases(monkeypatch):
    # A rewrite that contracted every multiply read by an add, whatever
    # XLA's fusion makes of it (and in op-by-op code too), would fail the
    # cases where XLA rounds the product first.
    def everywhere(self, v, eqn):
        return type(v) is rewrite.Var and self.var(v) in self.producers

    monkeypatch.setattr(rewrite._Fusions, "only_use", everywhere)
    original = rewrite.simplify
    monkeypatch.setattr(rewrite, "simplify", lambda jaxpr, fused=True: original(jaxpr, fused=True))
    pyjax.clear_caches()
    try:
        for name in UNFUSED:
            assert _run(name).tobytes() != _bits(name).tobytes(), name
    finally:
        monkeypatch.undo()
        pyjax.clear_caches()


@pytest.mark.parametrize("name", sorted(CONTRACTED))
def test_the_other_unfused_cases_differ_from_one_rounding(name):
    # A product broadcast into the add (computed once, outside the loop), a
    # product made outside a cond branch, op-by-op code, and float16/bfloat16
    # (XLA computes them in float32 rounding after each operation): one
    # rounding of a * b + c would give other bits on these inputs.
    assert not CASES[name][2]
    contracted = np.asarray(CONTRACTED[name](record.inputs(np)))
    assert contracted.shape == _bits(name).shape and contracted.tobytes() != _bits(name).tobytes()


# --- the impl: one rounding, exactly ---------------------------------------------------------------

def _exact_f32(a, b, c):
    # Python's correctly rounded float(Fraction) gives float64; float32's
    # rounding from the exact rational is done by hand on the integer scale.
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        out.append(_round_fraction_to_f32(exact))
    return np.array(out, np.float32)


def _round_fraction_to_f32(q: Fraction) -> float:
    if q == 0:
        return 0.0
    sign, q = (-1 if q < 0 else 1), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, -126)  # float32's subnormal spacing below its smallest normal
    scaled = q / Fraction(2) ** (e - 23)  # 24 significant bits left of the point
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest > scaled.denominator or (2 * rest == scaled.denominator and whole % 2):
        whole += 1
    return sign * float(Fraction(whole) * Fraction(2) ** (e - 23))


def test_float32_fma_rounds_once_on_float64_ties():
    # a * b = 1 + 2**-11 + 2**-24 is a float32 tie; 2**-80 breaks it upwards,
    # but the float64 sum drops it and ties to even: two roundings go down.
    a = b = np.array([1 + 2.0**-12] * 4, np.float32)
    c = np.array([2.0**-80, -(2.0**-80), 0.0, 2.0**-30], np.float32)
    got = fma_lib.fma_f32(a, b, c)
    assert got.tobytes() == _exact_f32(a, b, c).tobytes()
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert got[0] != naive[0]  # the case the correction is for


def test_float32_fma_is_exact_on_random_and_tie_heavy_inputs():
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(3000).astype(np.float32) for _ in range(3))
    # Whole numbers with small addends land on float32 ties often.
    a[:1000] = rng.integers(1, 1 << 12, 1000)
    b[:1000] = rng.integers(1 << 11, 1 << 12, 1000) + 0.5
    c[:1000] = np.ldexp(rng.choice([-1.0, 1.0], 1000), -rng.integers(20, 60, 1000))
    assert fma_lib.fma_f32(a, b, c).tobytes() == _exact_f32(a, b, c).tobytes()


def test_impl_signs_literals_and_scalars():
    a, b, c = np.float32(1.5), np.array([2.0, -3.0], np.float32), np.float32(0.25)
    out = fma_lib.fused_multiply_add(a, b, c, negate_product=True, negate_addend=True)
    assert out.dtype == np.float32 and out.tolist() == [-3.25, 4.25]
    scalar = fma_lib.fused_multiply_add(np.float32(2), np.float32(3), np.float32(1))
    assert type(scalar) is np.float32 and scalar == 7
    f64 = fma_lib.fused_multiply_add(np.array([0.1]), np.array([10.0]), np.array([-1.0]))
    assert f64.dtype == np.float64 and f64[0] == xla_math.fma_f64(0.1, 10.0, -1.0) != 0.1 * 10.0 - 1.0


# --- XLA's complex multiply (a helper the mul impl does not use yet) ------------------------------

COMPLEX_RECORDED = json.loads((GOLDEN / "fma.json").read_text(encoding="utf-8"))["complex"]


@pytest.mark.parametrize(("name", "x", "y"), [case[:3] for case in record.COMPLEX_CASES])
def test_complex_multiply_matches_jax_bit_for_bit(name, x, y):
    case = COMPLEX_RECORDED[name]
    assert (case["x"], case["y"]) == (x, y), "stale recording: re-run record_fma.py"
    dtype = np.dtype(case["dtype"])
    expected = np.array(case["bits"], f"u{dtype.itemsize // 2}").view(dtype).reshape(case["shape"])
    left, right = record.complex_operands(x, y, np)
    assert left.dtype == right.dtype == dtype
    got = fma_lib.complex_multiply(left, right)
    assert got.dtype == dtype and got.tobytes() == expected.tobytes()
    assert (left * right).tobytes() != expected.tobytes()  # NumPy's product rounds each term


# --- the rewrite's structure -------------------------------------------------------------------------

def _names(jaxpr):
    return [e.primitive.name for e in jaxpr.eqns]


def _simplified(f, *args, fused=True):
    return rewrite.simplify(pyjax.make_jaxpr(f)(*args), fused=fused)


X = np.ones(8, np.float32)


def test_rewrite_replaces_the_pair_by_one_fma():
    out = _simplified(lambda a, b, c: c - a * b, X, X, X)
    assert _names(out) == ["fma"]
    (eqn,) = out.eqns
    assert eqn.params == {"negate_product": True, "negate_addend": False}


def test_rewrite_keeps_a_product_that_is_also_an_output():
    assert _names(_simplified(lambda a, b, c: (a * b + c, a * b), X, X, X)) == ["mul", "add", "mul"]


def test_rewrite_copies_a_product_into_separate_fusions():
    out = _simplified(lambda a, b, c, d: (a * b + c, a * b * d), X, X, X, X)
    assert _names(out) == ["fma", "mul", "mul"]


def test_rewrite_leaves_op_by_op_code_and_other_dtypes():
    assert _names(_simplified(lambda a, b, c: a * b + c, X, X, X, fused=False)) == ["mul", "add"]
    h = X.astype(np.float16)
    assert _names(_simplified(lambda a, b, c: a * b + c, h, h, h)) == ["mul", "add"]
    i = X.astype(np.int32)
    assert _names(_simplified(lambda a, b, c: a * b + c, i, i, i)) == ["mul", "add"]


def test_rewrite_types_weak_literals_in_the_result_dtype():
    (eqn,) = _simplified(lambda a: a * 0.1 + 0.3, X).eqns
    literals = [v for v in eqn.invars if type(v) is rewrite.Literal]
    assert len(literals) == 2 and all(type(v.val) is np.float32 for v in literals)


def test_arithmetic_on_matmul_results_is_not_contracted():
    # BLAS never gives XLA's bits for a product: contracting the SGD update
    # of a gradient would cost ~5x for no fidelity (rewrite.py `_from_blas`).
    W = np.ones((8, 8), np.float32)
    out = _simplified(lambda p, x, W: p - 0.01 * (x @ W), X, X, W)
    assert "fma" not in _names(out)
    assert "fma" in _names(_simplified(lambda p, g: p - 0.01 * g, X, X))
