"""Warnings as errors for pyjax's own modules (issue 24).

JAX computes silently where NumPy would warn ("invalid value encountered in
log", "overflow encountered in cast", ComplexWarning). With
`PYJAX_WARNINGS_AS_ERRORS=1` the test configuration (tests/conftest.py)
turns every RuntimeWarning attributed to a pyjax module into an error; CI
runs the eager and jit numerics suites that way (.ci/run):

    PYJAX_WARNINGS_AS_ERRORS=1 python -m pytest -q -p no:cacheprovider tests/lax tests/numpy tests/test_golden.py

These tests check the mechanism: the filter catches what pyjax raises and
only that, and the code pyjax generates is attributed to pyjax."""

import importlib.util
import pathlib
import warnings

import numpy as np
import pytest
from _pytest.config import parse_warning_filter

import pyjax as jax
import pyjax.numpy as jnp

# (tests/conftest.py by path: tests/ecosystem has a conftest module of its own)
_spec = importlib.util.spec_from_file_location("_tests_conftest", pathlib.Path(__file__).with_name("conftest.py"))
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
WARNINGS_AS_ERRORS = _conftest.WARNINGS_AS_ERRORS


def _overflow_in(module_name: str) -> None:
    # A NumPy warning raised by a frame whose module is `module_name`.
    exec(compile("np.float32(1e30) * np.float32(1e30)", "<test>", "exec"), {"__name__": module_name, "np": np})


def _filtered():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore")
    for line in WARNINGS_AS_ERRORS:  # (as pytest reads an ini `filterwarnings` line)
        action, message, category, module, lineno = parse_warning_filter(line, escape=False)
        warnings.filterwarnings(action, message, category, module, lineno)
    return ctx


def test_filter_turns_pyjax_runtime_warnings_into_errors_and_only_those():
    ctx = _filtered()
    try:
        for name in ("pyjax._src.lax.elementwise", "pyjax._src.backends.numpy.compiled"):
            with pytest.raises(RuntimeWarning, match="overflow"):
                _overflow_in(name)
        _overflow_in("__main__")  # a user's (or a test's NumPy oracle's) warning stays a warning
        _overflow_in("pyjaxlike")
    finally:
        ctx.__exit__(None, None, None)


def test_generated_code_is_attributed_to_pyjax():
    # jit's compiled Python, and an eager program's generated nest of NumPy calls.
    from pyjax._src.backends.numpy import compile_jaxpr
    from pyjax._src.backends.numpy.codegen import eager

    compiled = compile_jaxpr(jax.make_jaxpr(lambda x: jnp.log(x) * 2)(1.0))
    assert compiled.func.__globals__["__name__"].startswith("pyjax.")
    run = eager._function(eager._Call(np.add, (eager._Call(np.negative, (eager._ARG[1],)), eager._ARG[0])), 2)
    assert run.__globals__["__name__"].startswith("pyjax."), run.__globals__["__name__"]
    assert run(np.float32(1), np.float32(2)) == -1


def test_numerics_with_nan_and_overflow_are_silent_under_the_filter():
    ctx = _filtered()
    try:
        x = jnp.array([-1.0, 0.0, 1e30, np.nan], jnp.float32)
        for f in (jnp.log, jnp.sqrt, lambda v: v.astype(jnp.int32), lambda v: v * v, lambda v: 1 / v,
                  lambda v: jnp.arccos(v), lambda v: (v + 1j).astype(jnp.float32).sum()):
            np.asarray(f(x))
            np.asarray(jax.jit(f)(x))
    finally:
        ctx.__exit__(None, None, None)


def test_leaks_found_by_the_run_are_fixed():
    from pyjax import lax
    from pyjax.scipy import stats
    from pyjax._src.backends.numpy.xla import xla_math

    u = np.linspace(-0.99, 0.99, 1 << 20, dtype=np.float32)
    u[::7] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every warning, wherever attributed
        # Blocks on the pool's threads (erf_inv's table lookup over 1M values).
        assert np.isnan(np.asarray(lax.erf_inv(u))[0])
        assert np.isnan(np.asarray(jax.jit(lax.erf_inv)(u))[0])
        # Host values in jax.scipy.stats (pareto's y ** -b below its support).
        x = np.array([-1.5, 0.4, 6.0])
        assert np.asarray(stats.pareto.cdf(x, 2.5, -0.5, 1.2))[0] == 0
        assert np.isnan(np.asarray(stats.pareto.ppf(np.array([2.0]), 2.5))[0])
        # XLA's float functions called on infinities.
        assert np.array_equal(xla_math.erf_f32(np.array([np.inf, -np.inf], np.float32)), [1, -1])
