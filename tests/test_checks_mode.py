"""`jax_enable_checks` (issue 19): with it on, every primitive's output is
checked against its abstract value — eagerly, in compiled code, and inside
loop and branch bodies — and every jaxpr compiled is type-checked; off (the
default), none of that code exists.

The checks are proved by a deliberately wrong impl (an IMPLS entry
monkeypatched to return a wrong shape or dtype): caught with the mode on,
silently wrong with it off."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import config as config_lib
from pyjax._src import core, dispatch
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, JaxprTypeError, Var
from pyjax._src.lax import elementwise as ew

XS = jnp.arange(4.0)


def wrong_shape(x, **params):
    return np.sin(x)[None]  # one leading axis too many


def wrong_dtype(x, **params):
    return np.sin(x).astype(np.float64)  # float32 promised


@pytest.fixture
def checks():
    previous = config_lib.enable_checks.get_global()
    pyjax.config.update("jax_enable_checks", True)
    try:
        yield
    finally:
        pyjax.config.update("jax_enable_checks", previous)


@pytest.fixture
def no_checks():
    previous = config_lib.enable_checks.get_global()
    pyjax.config.update("jax_enable_checks", False)
    try:
        yield
    finally:
        pyjax.config.update("jax_enable_checks", previous)


@pytest.fixture
def bad_sin(request, monkeypatch):
    monkeypatch.setitem(IMPLS, ew.sin_p, request.param)
    core.clear_eager_plans()  # plans made before the patch hold the good impl
    yield request.param
    core.clear_eager_plans()


PROGRAMS = {
    "eager": lambda x: jnp.sin(x),
    "eager_lax": lambda x: lax.sin(x),
    "jit": lambda x: pyjax.jit(lambda x: jnp.sin(x) * 2)(x),
    "eager_scan_body": lambda x: lax.scan(lambda c, x: (c + jnp.sin(x), None), 0.0, x)[0],
    "jit_scan_body": lambda x: pyjax.jit(lambda x: lax.scan(lambda c, x: (c + jnp.sin(x), None), 0.0, x))(x)[0],
    "jit_scan_ys": lambda x: pyjax.jit(lambda x: lax.scan(lambda c, x: (c, jnp.sin(x)), 0.0, x))(x)[1],
    "while_body": lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))[1],
    "jit_while_body": lambda x: pyjax.jit(
        lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x)))(x)[1],
    "cond_branch": lambda x: lax.cond(True, jnp.sin, jnp.cos, x),
    "jit_cond_branch": lambda x: pyjax.jit(lambda x: lax.cond(x[0] < 1, jnp.sin, jnp.cos, x))(x),
    "jit_nested": lambda x: pyjax.jit(lambda x: lax.fori_loop(
        0, 2, lambda i, c: lax.cond(i < 5, lambda c: jnp.sin(c), lambda c: c, c), x))(x),
    "vmap": lambda x: pyjax.vmap(jnp.sin)(x[:, None]),
}


@pytest.mark.parametrize("bad_sin", [wrong_shape, wrong_dtype], indirect=True, ids=["shape", "dtype"])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_wrong_impl_caught(program, bad_sin, checks):
    with pytest.raises(dispatch.ImplCheckError) as info:
        PROGRAMS[program](XS)
    message = str(info.value)
    # The primitive, the params, the actual and the expected shape and dtype.
    assert "sin returned float" in message and "accuracy=None" in message
    assert "but its abstract evaluation gives float32[" in message
    if bad_sin is wrong_shape:
        assert "float32[1," in message or "float32[1]" in message
    else:
        assert "returned float64[" in message


@pytest.mark.parametrize("bad_sin", [wrong_shape], indirect=True)
def test_wrong_impl_not_caught_when_off(bad_sin, no_checks):
    # Off, no check runs: the wrong impl's result goes through unnoticed.
    assert type(core._default_trace[0]) is dispatch.EvalTrace
    assert np.shape(jnp.sin(XS)._value) == (1, 4)
    out = pyjax.jit(lambda x: jnp.sin(x) * 2)(XS)
    assert np.shape(out._value) == (1, 4)


def test_wrong_impl_caught_with_native_tier(checks, monkeypatch):
    # A loop whose native tier is forced: the checked Python loop runs first.
    if native.compiler() is None or not native_settings.ENABLED:
        pytest.skip("needs a C compiler")
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    monkeypatch.setitem(IMPLS, ew.sin_p, wrong_dtype)
    with pytest.raises(dispatch.ImplCheckError, match="sin returned float64"):
        pyjax.jit(lambda x: lax.scan(lambda c, x: (c + jnp.sin(x), None), 0.0, x))(XS)


def test_toggling_recompiles(monkeypatch):
    previous = config_lib.enable_checks.get_global()
    fn = lambda x: lax.scan(lambda c, x: (c * 2, jnp.sin(x)), 1.0, x)  # noqa: E731
    f = pyjax.jit(fn)
    try:
        pyjax.config.update("jax_enable_checks", False)
        good = f(XS)
        assert "_check" not in f.lower(XS).as_text("python")  # off: no check in the code
        original = IMPLS[ew.sin_p]
        monkeypatch.setitem(IMPLS, ew.sin_p, wrong_dtype)
        assert f(XS)[1].dtype == np.float32  # the program compiled with the good impl
        with pyjax.enable_checks(True):  # a new cache key: compiled again, checked
            assert type(core._default_trace[0]) is dispatch.CheckingEvalTrace
            with pytest.raises(dispatch.ImplCheckError):
                f(XS)
        assert type(core._default_trace[0]) is dispatch.EvalTrace
        monkeypatch.setitem(IMPLS, ew.sin_p, original)
        pyjax.clear_caches()  # (the checked program compiled above holds the wrong impl)
        pyjax.config.update("jax_enable_checks", True)
        assert "_check" in f.lower(XS).as_text("python")
        checked = f(XS)
        np.testing.assert_array_equal(np.asarray(checked[1]), np.asarray(good[1]))
        assert float(checked[0]) == float(good[0])
    finally:
        pyjax.config.update("jax_enable_checks", previous)


def test_correct_programs_pass(checks):
    # The checks accept what the impls rightly return (0-d NumPy scalars,
    # keys, multiple results, integer and bool outputs).
    x = jnp.arange(6.0).reshape(2, 3)
    assert float(jnp.sum(jnp.sin(x) @ x.T)) == pytest.approx(float(np.sum(np.sin(np.arange(6.0).reshape(2, 3)) @ np.arange(6.0).reshape(2, 3).T)), rel=1e-6)
    vals, idx = lax.top_k(jnp.array([3.0, 1.0, 2.0]), 2)
    assert idx.tolist() == [0, 2]
    key = pyjax.random.key(0)
    assert pyjax.random.split(key, 3).shape == (3,)
    assert pyjax.random.normal(key, (2,)).shape == (2,)
    assert pyjax.jit(lambda x: jnp.argmax(x) + (x > 1).sum())(x) == 5 + 4
    assert pyjax.grad(lambda x: jnp.sum(jnp.tanh(x) ** 2))(x).shape == (2, 3)


def test_compiled_jaxprs_are_typechecked(checks):
    # An equation whose declared output disagrees with its type rule.
    a = Var(core.get_aval(np.float32(1)) if hasattr(core, "get_aval") else pyjax.typeof(jnp.float32(1)))
    wrong = Var(pyjax.typeof(jnp.zeros(3)))
    bad = Jaxpr([], [a], [wrong], [JaxprEqn(ew.sin_p, [a], [wrong], {"accuracy": None})])
    with pytest.raises(JaxprTypeError, match="sin"):
        compile_jaxpr(bad, IMPLS)
    with pyjax.enable_checks(False):
        compile_jaxpr(bad, IMPLS)  # off: compiled unchecked


def _run_python(code: str, **env) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_CHECKS"}
    environ.update(env)
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True,
                          timeout=120).stdout.strip()


PROBE = """
import numpy as np, pyjax, pyjax.numpy as jnp
from pyjax._src import core
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.lax import elementwise as ew
IMPLS[ew.sin_p] = lambda x, **p: np.sin(x)[None]
try:
    jnp.sin(jnp.ones(2)); caught = False
except AssertionError:
    caught = True
print(pyjax.config.jax_enable_checks, type(core._default_trace[0]).__name__, caught)
"""


def test_off_by_default():
    assert _run_python(PROBE) == "False EvalTrace False"


def test_environment_variable_turns_it_on():
    assert _run_python(PROBE, JAX_ENABLE_CHECKS="1") == "True CheckingEvalTrace True"


# ---------------------------------------------------------------------------
# What the checking mode found in the eager path, fixed (dispatch.py,
# control_flow.py): impls handed Python scalars computed in 64 bits.

SCALARS = np.linspace(0.1, 100.0, 400).tolist()


def test_python_scalar_operands_compute_in_their_dtype():
    # JAX converts the scalar to float32 first; computing sin of the float64
    # value and rounding differed from that (and from jit) on most inputs.
    for v in SCALARS:
        as_f32 = np.float32(v)
        assert np.asarray(lax.sin(v)).tobytes() == np.asarray(lax.sin(jnp.float32(v))).tobytes()
        assert np.asarray(lax.sqrt(v)).tobytes() == np.sqrt(as_f32).tobytes()
        assert np.asarray(lax.sub(v, 0.3)).tobytes() == (as_f32 - np.float32(0.3)).tobytes()
    jitted = pyjax.jit(lax.sin)
    assert all(np.asarray(lax.sin(v)) == np.asarray(jitted(v)) for v in SCALARS[:50])


def test_python_int_operands_out_of_range_raise():
    # Wrapped around silently before (`lax.add(2**40, 1)` gave 1).
    with pytest.raises(OverflowError, match="Python int 1099511627776 too large to convert to int32"):
        lax.add(2**40, 1)
    with pytest.raises(OverflowError, match="too large to convert to int32"):
        lax.neg(2**40)
    assert lax.add(2**31 - 2, 1) == 2**31 - 1


def test_eager_loops_take_python_scalar_carries_in_their_dtype(checks):
    # A carry `0` reached the compiled body as a Python int: a broadcast of it
    # was int64 (caught by the checks; the result was cast back only at the end).
    out = lax.fori_loop(0, 3, lambda i, c: lax.broadcast_in_dim(c, (1,), ())[0] + 1, 0)
    assert int(out) == 3 and out.dtype == np.int32
    c, ys = lax.scan(lambda c, x: (c, lax.broadcast_in_dim(c, (2,), ())), 7, None, length=2)
    assert ys.dtype == np.int32 and ys.tolist() == [[7, 7], [7, 7]]
    assert lax.while_loop(lambda c: c < 5, lambda c: lax.broadcast_in_dim(c, (1,), ())[0] + 2, 0) == 6
    assert lax.cond(True, lambda c: lax.broadcast_in_dim(c, (1,), ()), lambda c: c + jnp.zeros(1, np.int32), 4).tolist() == [4]
