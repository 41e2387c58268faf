"""Numerics that match XLA CPU (issue 19, item 6), against JAX 0.11.0's
recorded answers (tests/golden/record_numerics_reliability.py).

- max/min of signed zeros: XLA orders -0.0 below +0.0 in every max/min
  (reductions, cumulative, windowed, scatter, elementwise), eager and jitted,
  with the native tier off and forced on.
- NumPy arrays in non-native byte order: JAX refuses them with a TypeError
  where they enter; they never become Arrays.
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent / "golden"))
import record_numerics_reliability as rec  # noqa: E402

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "numerics_reliability.json").read_text())
CASES = rec.cases(pyjax, jnp, lax)


def test_golden_covers_every_case():
    assert set(CASES) == set(GOLDEN["values"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_signed_zero_extrema_match_xla_bitwise(name):
    # Twice: the second call takes the cached eager plans / compiled programs.
    for _ in range(2):
        assert rec.bits(CASES[name]()) == GOLDEN["values"][name], name


def test_signed_zero_extrema_with_native_tier_forced():
    # Every reduction case, in a process whose native tier builds at once
    # (PYJAX_NATIVE_LOOPS_AFTER=0), called often enough to be live.
    script = f"""
import sys, json
sys.path.insert(0, {str(pathlib.Path(__file__).parent / "golden")!r})
import numpy as np, pyjax, pyjax.numpy as jnp
from pyjax import lax
import record_numerics_reliability as rec
golden = json.load(open({str(pathlib.Path(__file__).parent / "golden" / "numerics_reliability.json")!r}))["values"]
cases = rec.cases(pyjax, jnp, lax)
bad = []
for name, f in cases.items():
    for _ in range(6):
        if rec.bits(f()) != golden[name]:
            bad.append(name)
            break
# A scan body reducing rows (native code runs it): zeros of both signs per row.
rows = np.array([[0., -0., -1.], [-0., 0., -2.], [-0., -0., -3.], [1., 0., -0.]] * 50, np.float32)
scan = pyjax.jit(lambda xs: lax.scan(lambda c, x: (c, (jnp.max(x), jnp.min(x[1:]))), 0.0, xs)[1])
for _ in range(8):
    mx, mn = scan(rows)
want_max = [max_bits for max_bits in rec.bits(np.array([0., 0., -0., 1.] * 50, np.float32))]
want_min = rec.bits(np.array([-1., -2., -3., -0.] * 50, np.float32))
if rec.bits(mx) != want_max or rec.bits(mn) != want_min:
    bad.append("scan")
print(json.dumps(bad))
"""
    env = {"PYJAX_NATIVE_LOOPS_AFTER": "0"}
    import os
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                         env={**os.environ, **env})
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def _normalise(message: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", "", message)


@pytest.mark.parametrize("key", sorted(GOLDEN["errors"]))
def test_non_native_byte_order_is_refused_as_jax_does(key):
    want = GOLDEN["errors"][key]
    if key == "scalar_of_big_endian":
        assert ["ok", str(jnp.asarray(np.arange(3).astype(">f4")[0]).dtype)] == want
        return
    order, name = key.split(":", 1)
    f = rec.byte_order_cases(pyjax, jnp, lax)[name]
    x = np.arange(3).astype(order)
    if want[0] == "ok":
        assert str(f(x).dtype) == want[1]
        return
    with pytest.raises(Exception) as info:
        f(x)
    assert type(info.value).__name__ == want[0]
    # JAX's words where pyjax has them (the entry points that name themselves).
    if name in ("asarray", "array", "device_put", "jit", "zeros_like", "dtype_arg", "astype"):
        assert _normalise(str(info.value)) == _normalise(want[1]).replace("<function <lambda>", "<function <lambda>")


def test_big_endian_never_becomes_an_array():
    for order in (">f4", ">i8"):
        x = np.arange(3).astype(order)
        for f in (jnp.asarray, jnp.array, pyjax.device_put, lambda v: lax.add(v, v)):
            with pytest.raises(TypeError):
                f(x)
        # The same values in native order enter, narrowed as x64 says.
        assert jnp.asarray(x.astype(x.dtype.newbyteorder("="))).dtype == {">f4": jnp.float32, ">i8": jnp.int32}[order]


@pytest.mark.parametrize("case", ["where_float", "where_int", "jit_product"])
def test_python_scalars_bound_to_a_call_compute_in_their_weak_dtype(case):
    # A jit call bound from under grad/vmap with Python scalars beside an
    # array ran its body on the raw Python numbers: `jnp.where(c, 1/3, 0.0)`
    # gave a float64 buffer under a float32 aval (and float64 arithmetic).
    body = {
        "where_float": lambda c: jnp.where(c, 1.0 / 3, 0.0),
        "where_int": lambda c: jnp.where(c, 7, 0),
        "jit_product": lambda c: pyjax.jit(lambda c, a: jnp.where(c, a * 3.0, a))(c, 0.1),
    }[case]
    seen = []

    def g(x):
        r = body(jnp.asarray(1) > 0)
        seen.append((r.dtype, np.asarray(r._value).dtype, np.asarray(r._value).item()))
        return x * r.astype(jnp.float32)

    pyjax.vmap(pyjax.grad(g))(jnp.ones(3))
    dtype, buffer_dtype, value = seen[0]
    assert buffer_dtype == dtype
    assert value == np.asarray(body(np.bool_(True))).item()


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn"])
@pytest.mark.parametrize("precision", [None, "highest"])
def test_jitted_narrow_float_matmul_returns_a_buffer_of_its_dtype(dtype, precision):
    # ml_dtypes' matmul of bfloat16/float8 returns float32: compiled code
    # kept that float32 buffer under a bfloat16 aval.
    x = jnp.asarray(np.linspace(-2, 2, 12).reshape(3, 4), dtype)
    f = pyjax.jit(lambda a: jnp.dot(a, a.T, precision=precision))
    out = f(x)
    assert np.asarray(out._value).dtype == out.dtype == jnp.dtype(dtype)
    expected = (np.asarray(x, np.float32) @ np.asarray(x, np.float32).T).astype(jnp.dtype(dtype))
    np.testing.assert_array_equal(np.asarray(out, np.float32), expected.astype(np.float32))


@pytest.mark.parametrize("name", ["tanh", "sin", "cos", "tan", "exp", "exp2", "expm1", "log", "log1p",
                                  "arcsin", "arctan", "sinh", "cosh", "arcsinh", "arctanh"])
def test_float16_transcendentals_are_computed_in_float32(name):
    # XLA computes float16 in float32 and rounds once; NumPy's own float16
    # loops differ (before NumPy 2.4 by many ulps: tanh(-6) = -0.9985).
    x = np.unique(np.linspace(-12, 12, 40001).astype(np.float16))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x.astype(np.float32)).astype(np.float16)
    for fn in (getattr(jnp, name), pyjax.jit(getattr(jnp, name))):
        got = np.asarray(fn(jnp.asarray(x)))
        assert got.dtype == np.float16
        np.testing.assert_array_equal(got, want)
