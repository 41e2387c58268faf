"""Top-level names of JAX's API that pyjax provides as config guards and
utilities: the behaviours golden programs cannot pin (a leak check's
message, warnings for options that change nothing here, the profiler-free
paths). The JAX-recorded facts are in tests/golden/programs_toplevel.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp


def test_check_tracer_leaks_finds_a_tracer_kept_in_a_global():
    kept = []

    def f(x):
        kept.append(x * 2)
        return x

    with jax.check_tracer_leaks():
        with pytest.raises(Exception, match="Leaked trace DynamicJaxprTrace. Leaked tracer"):
            jax.jit(f)(1.0)
    kept.clear()
    # Without the option the same program runs (the leak is found only on use).
    assert float(jax.jit(f)(1.0)) == 1.0


def test_check_tracer_leaks_ignores_returned_tracers():
    with jax.check_tracer_leaks():
        out = jax.make_jaxpr(lambda x: (x, [x + 1]))(1.0)
    assert len(out.eqns) == 1


def test_no_execution_refuses_compiled_calls_but_not_tracing():
    f = jax.jit(lambda x: x + 1)
    f(1.0)
    with jax.no_execution(True):
        with pytest.raises(RuntimeError, match=r"JAX tried to execute function jit\(<lambda>\), but the "
                                               "no_execution config option is set"):
            f(2.0)
        assert jax.jit(lambda x: x * 2).lower(1.0) is not None
    assert float(f(2.0)) == 3.0


def test_no_tracing_refuses_make_jaxpr_too():
    with jax.no_tracing(True):
        with pytest.raises(RuntimeError, match="but 'no_tracing' is set"):
            jax.make_jaxpr(lambda x: x)(1.0)


def test_transfer_guard_warns_that_it_guards_nothing_here():
    from pyjax._src import config

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hook_state = config.transfer_guard_host_to_device
        # (The warning is given once per process; it may have been given already.)
        with jax.transfer_guard("disallow"):
            assert hook_state.value == "disallow"
            # Nothing is refused: host data goes into computations as before.
            np.testing.assert_array_equal(jnp.ones(2) + np.ones(2), [2.0, 2.0])
    assert all("no device transfers" in str(w.message) for w in caught if "transfer" in str(w.message))


def test_make_user_context_is_part_of_the_jit_key():
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x * 2

    ctx = jax.make_user_context(0)
    for value in (0, 1, 0, 2, 1):
        with ctx(value):
            f(1.0)
    assert len(traces) == 3


def test_softmax_custom_jvp_keeps_the_derivative_finite():
    x = jnp.array([0.0, -jnp.inf, 1.0])
    with jax.softmax_custom_jvp(True):
        g = jax.grad(lambda x: jax.nn.softmax(x)[0])(x)
    assert np.all(np.isfinite(np.asarray(g)))


def test_print_environment_info_prints(capsys):
    assert jax.print_environment_info() is None
    assert capsys.readouterr().out.startswith("jax:")


def test_allow_f16_reductions_false_refuses_half_sums():
    with jax.allow_f16_reductions(False):
        with pytest.raises(ValueError, match="jax_allow_f16_reductions=False"):
            jax.lax.reduce_sum(jnp.ones(4, jnp.bfloat16), (0,))
        assert jax.lax.reduce_sum(jnp.ones(4, jnp.float32), (0,)) == 4
