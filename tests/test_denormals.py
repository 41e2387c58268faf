"""XLA:CPU's denormal mode (issue 19, item 6b), against JAX 0.11.0's recorded
answers (tests/golden/record_denormals.py).

- Arithmetic, comparisons, conversions, reductions and loops read a float32,
  bfloat16 or float64 denormal as zero and flush a denormal result, eager,
  jitted and vmapped; float16 keeps its denormals; data movement keeps bits.
- Both ways of setting the mode flush: the C extension's `flushed_call` and
  the ctypes fallback; the split pool's worker threads flush too.
- The user's own NumPy code keeps its mode and its floating-point error
  state between pyjax calls; pyjax itself never emits NumPy's RuntimeWarnings
  (XLA does not warn).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import fpenv

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN_DIR))
import record_denormals as rec  # noqa: E402

GOLDEN = json.loads((GOLDEN_DIR / "denormals.json").read_text())
GOLDEN_X64 = json.loads((GOLDEN_DIR / "denormals_x64.json").read_text())
CASES = rec.cases(pyjax, jnp, lax)

needs_flush = pytest.mark.skipif(not fpenv.supported, reason="no known way to set this FPU's denormal mode")


def test_golden_covers_every_case():
    assert set(CASES) == set(GOLDEN)


@needs_flush
@pytest.mark.parametrize("name", sorted(CASES))
def test_denormals_match_xla_bitwise(name):
    # Twice: the second call takes the cached eager plans / compiled programs.
    for _ in range(2):
        assert rec.bits(CASES[name]()) == GOLDEN[name], name


_SUBPROCESS = """
import sys, json
sys.path.insert(0, {golden_dir!r})
import pyjax, pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy import fpenv, native
from pyjax._src.backends.numpy.native import build as native_build
import record_denormals as rec
{setup}
golden = json.load(open({golden!r}))
cases = (rec.cases_x64 if {x64} else rec.cases)(pyjax, jnp, lax)
bad = [n for n, f in cases.items() for _ in range({reps}) if rec.bits(f()) != golden[n]]
print(json.dumps({{"bad": sorted(set(bad)), "run": getattr(fpenv.run, "__name__", str(fpenv.run))}}))
"""


def _run(setup: str, *, x64: bool = False, reps: int = 2, env: dict | None = None) -> dict:
    golden = GOLDEN_DIR / ("denormals_x64.json" if x64 else "denormals.json")
    script = _SUBPROCESS.format(golden_dir=str(GOLDEN_DIR), golden=str(golden), setup=setup, x64=x64, reps=reps)
    full_env = {**os.environ, **(env or {})}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=full_env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@needs_flush
def test_float64_denormals_match_xla():
    assert set(rec.cases_x64(pyjax, jnp, lax)) == set(GOLDEN_X64)
    result = _run("", x64=True, env={"JAX_ENABLE_X64": "1"})
    assert result["bad"] == []


@needs_flush
def test_ctypes_path_flushes():
    # No native tier: the mode is set through fegetenv/fesetenv.
    result = _run("", env={"PYJAX_NATIVE_LOOPS": "0"})
    assert result["run"] == "_run_ctypes"
    assert result["bad"] == []


@needs_flush
def test_c_path_flushes_with_native_tier_live():
    # The C extension built up front and bound; native loops built at once.
    setup = "assert native_build._native_call_type() is not None, 'no C compiler'"
    result = _run(setup, reps=6, env={"PYJAX_NATIVE_LOOPS_AFTER": "0"})
    assert result["run"] == "flushed_call"
    assert result["bad"] == []


@needs_flush
def test_users_numpy_mode_is_left_alone():
    tiny = np.float32(1e-40)
    assert tiny * np.float32(2) != 0  # IEEE before
    y = jnp.array([1e-40], jnp.float32) * 2
    assert np.asarray(y)[0] == 0  # flushed inside pyjax
    assert tiny * np.float32(2) != 0  # and IEEE again after
    assert np.array([tiny]) != 0
    pyjax.jit(lambda a: a * 2)(jnp.ones(3))
    assert tiny * np.float32(2) != 0


@needs_flush
def test_mode_restored_after_an_error():
    with pytest.raises(TypeError):
        pyjax.jit(lambda a: a.reshape(7))(jnp.ones(3))
    with pytest.raises(TypeError):
        lax.add(jnp.ones(3), jnp.ones(3, jnp.int32))
    assert np.float32(1e-40) * np.float32(2) != 0


@needs_flush
def test_split_pool_workers_flush():
    from pyjax._src.backends.numpy.parallel import split

    # A program big enough for the split pool, on denormals: the workers' results are flushed too.
    x = jnp.full((512, 512), 1e-40, jnp.float32)
    f = pyjax.jit(lambda a: (a * 2 + a) * 3)
    for _ in range(3):
        out = np.asarray(f(x))
    assert not np.any(out), "a worker computed with IEEE denormals"
    assert split is not None


_NUMPY_WARNINGS = {
    "log0": lambda: jnp.log(jnp.array([0.0, 1.0, -1.0])),
    "div0": lambda: jnp.array([0.0, 1.0, -1.0]) / 0.0,
    "overflow_exp": lambda: jnp.exp(jnp.array([1e3], jnp.float32)),
    "overflow_cast": lambda: jnp.array([1e30]).astype(jnp.float16),
    "nan_to_int": lambda: jnp.array([np.nan, np.inf]).astype(jnp.int32),
    "sqrt_neg": lambda: jnp.sqrt(jnp.array([-1.0])),
    "jit": lambda: pyjax.jit(lambda a: (jnp.log(a), a / 0.0, jnp.exp(a * 1e3)))(jnp.array([0.0, 1.0])),
    "vmap": lambda: pyjax.vmap(lambda a: jnp.log(a) * 0 / a)(jnp.array([0.0, 1.0])),
    "grad": lambda: pyjax.grad(lambda a: jnp.sqrt(a).sum())(jnp.array([0.0, 1.0])),
    "scan": lambda: lax.scan(lambda c, _: (c * 1e30, jnp.log(c - c)), jnp.float32(1e10), None, length=3)[1],
}


@pytest.mark.parametrize("name", sorted(_NUMPY_WARNINGS))
def test_no_numpy_floating_point_warnings(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):  # the first call and the cached ones
            np.asarray(_NUMPY_WARNINGS[name]())


def test_users_numpy_error_state_is_kept():
    with np.errstate(divide="raise"):
        jnp.log(jnp.array([0.0]))  # pyjax's own computation: no error
        with pytest.raises(FloatingPointError):
            np.log(np.array([0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jnp.log(jnp.array([0.0]))
        with pytest.raises(RuntimeWarning):
            np.log(np.array([0.0]))
