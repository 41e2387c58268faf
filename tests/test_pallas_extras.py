"""Pallas's cost estimator, debug checks, run_state and its deprecated
names (`pl.dot`, `pl.debug_checks_enabled`), pinned to JAX 0.11.0's recorded
behaviour in interpret mode (tests/golden/pallas_extras.json, recorded by
tests/golden/record_pallas_extras.py from cases_pallas_extras.py)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

import pyjax as jax  # noqa: E402
import pyjax.numpy as jnp  # noqa: E402
from pyjax.experimental import pallas as pl  # noqa: E402

CASES = case_set.load("pallas_extras")


namespace, test_recording_is_current, test_case_matches_jax = case_set.standard_tests(CASES)


def test_the_options_are_jax_config_options():
    assert jax.config.jax_pallas_enable_debug_checks is False
    with pl.enable_debug_checks(True):
        assert jax.config.jax_pallas_enable_debug_checks is True
    jax.config.update("jax_pallas_poison_buffers", True)
    try:
        assert pl.enable_poison_buffers.value is True
    finally:
        jax.config.update("jax_pallas_poison_buffers", False)


def test_debug_check_is_checked_under_checkify():
    from pyjax.experimental import checkify

    def f(x):
        pl.debug_check(x > 0, "must be positive")
        return x

    err, _ = checkify.checkify(f)(jnp.float32(-1))
    with pytest.raises(checkify.JaxRuntimeError, match="must be positive"):
        err.throw()


def test_run_state_refuses_a_function_returning_a_value():
    with pytest.raises(TypeError, match="run_state: the function must return None"):
        pl.run_state(lambda refs: 1)(jnp.ones(2))


def test_other_names_are_still_missing():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
            pl.no_such_name  # noqa: B018


@pytest.mark.parametrize("name, call", [
    ("kernel", lambda: pl.kernel(lambda o: None, (), mesh=None)),
    ("core_map", lambda: pl.core_map(None)(lambda: None)()),
    ("semaphore_read", lambda: pl.semaphore_read(None)),
    ("semaphore_signal", lambda: pl.semaphore_signal(None, device_id_type=pl.DeviceIdType.LOGICAL)),
    ("semaphore_wait", lambda: pl.semaphore_wait(None)),
    ("get_global", lambda: pl.get_global(pl.semaphore)),
    ("delay", lambda: pl.delay(10)),
    ("select_ref", lambda: pl.select_ref(0, jnp.ones(2), jnp.zeros(2))),
])
def test_device_only_names_say_why_they_cannot_run(name, call):
    with pytest.raises(NotImplementedError, match=rf"pl\.{name} needs .*interpret mode"):
        call()
