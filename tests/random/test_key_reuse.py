"""Key-reuse checking (jax.experimental.key_reuse, jax_debug_key_reuse),
pinned to JAX 0.11.0's recorded behaviour (tests/golden/key_reuse.json,
recorded by tests/golden/record_key_reuse.py from cases_key_reuse.py):
signatures of traced functions, the errors jit raises at trace time, and
the eager checks of each key Array's consumption.

One recorded difference is normalised away: JAX chains a
`JaxStackTraceBeforeTransformation` cause onto errors found in a traced
jaxpr (its traceback of where the equation was made); pyjax adds a note
naming that place instead."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
sys.path.insert(0, str(GOLDEN))
sys.path.insert(0, str(GOLDEN.parent))

from cases_key_reuse import CASES, PRELUDE, run_case  # noqa: E402
from test_extend_golden import as_pyjax  # noqa: E402

import pyjax as jax  # noqa: E402
from pyjax._src import core  # noqa: E402
from pyjax._src.dispatch import CheckingEvalTrace, EvalTrace  # noqa: E402
from pyjax._src.random import key_reuse as key_reuse_lib  # noqa: E402
from pyjax._src.random.key_reuse import KeyReuseEvalTrace  # noqa: E402
from pyjax.errors import KeyReuseError  # noqa: E402
from pyjax.experimental.key_reuse._core import (  # noqa: E402
    Forward, KeyReuseSignature, Sink, Source, check_key_reuse, function_type_signature)

RECORDED = json.loads((GOLDEN / "key_reuse.json").read_text())
_TRACED_CAUSE = " <- JaxStackTraceBeforeTransformation: "


@pytest.fixture(scope="module")
def namespace():
    ns: dict = {}
    exec(as_pyjax(PRELUDE), ns)
    return ns


def test_recording_is_current():
    assert RECORDED["meta"]["jax_version"] == "0.11.0"
    assert {k: v["expr"] for k, v in RECORDED["cases"].items()} == CASES, "re-record key_reuse.json"


def _without_traced_cause(text: str) -> str:
    # "['KeyReuseError: msg <- JaxStackTraceBeforeTransformation: ...']" -> "['KeyReuseError: msg']"
    while _TRACED_CAUSE in text:
        start = text.index(_TRACED_CAUSE)
        end = text.index("'", start)
        text = text[:start] + text[end:]
    return text


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_jax(namespace, name):
    want = RECORDED["cases"][name]
    got = run_case(namespace, CASES[name])
    if "error" in want:
        assert (got.get("error"), got.get("message")) == (want["error"], want["message"]), got
    else:
        assert got.get("text") == _without_traced_cause(want["text"]), got


def test_the_checking_trace_is_installed_only_while_the_option_is_on():
    plain = core._default_trace[0]
    checking = KeyReuseEvalTrace if type(plain) is EvalTrace else key_reuse_lib._checking_class(type(plain))
    assert not isinstance(plain, key_reuse_lib._KeyReuseChecks)
    with jax.debug_key_reuse(True):
        assert type(core._default_trace[0]) is checking
        with jax.debug_key_reuse(False):
            assert core._default_trace[0] is plain
        assert type(core._default_trace[0]) is checking
    assert core._default_trace[0] is plain


def test_key_reuse_is_checked_over_jax_enable_checks_trace():
    # jax_enable_checks installs its own eager trace (each impl's output
    # checked against its abstract value); key reuse goes on top of it.
    with jax.enable_checks(True):
        under_checks = core._default_trace[0]
        assert type(under_checks) is CheckingEvalTrace
        with jax.debug_key_reuse(True):
            trace = core._default_trace[0]
            assert isinstance(trace, CheckingEvalTrace) and isinstance(trace, key_reuse_lib._KeyReuseChecks)
            key = jax.random.key(0)
            jax.random.normal(key)
            with pytest.raises(KeyReuseError, match="Previously-consumed key"):
                jax.random.normal(key)
        assert core._default_trace[0] is under_checks


def test_a_function_jitted_before_the_option_is_checked_after():
    f = jax.jit(lambda k: jax.random.normal(k))
    k = jax.random.key(0)
    f(k), f(k)  # unchecked: the option is off
    with jax.debug_key_reuse(True):
        k = jax.random.key(0)
        f(k)
        with pytest.raises(KeyReuseError, match="Previously-consumed key passed to jit-compiled function at index 0"):
            f(k)


def test_another_thread_with_the_option_off_is_not_checked():
    results = []

    def draw_twice():
        k = jax.random.key(1)
        results.append(float(jax.random.uniform(k)) == float(jax.random.uniform(k)))

    with jax.debug_key_reuse(True):
        thread = threading.Thread(target=draw_twice)
        thread.start()
        thread.join()
    assert results == [True]


def test_eager_error_names_where_the_key_was_first_consumed():
    with jax.debug_key_reuse(True):
        k = jax.random.key(0)
        jax.random.split(k)
        with pytest.raises(KeyReuseError) as info:
            jax.random.split(k)
    cause = info.value.__cause__
    assert isinstance(cause, KeyReuseError)
    assert any(__file__ in note for note in cause.__notes__)


def test_traced_error_names_the_equation_that_reused_the_key():
    def f(k):
        a = jax.random.normal(k)
        return a + jax.random.uniform(k)  # this line reuses k

    with pytest.raises(KeyReuseError, match=r"In jit, argument 0 is already consumed\.") as info:
        check_key_reuse(f, jax.random.key(0))
    line = f.__code__.co_firstlineno + 2
    assert any(f"{__file__}:{line}" in note for note in info.value.__notes__)


def test_partly_consumed_key_arrays_keep_an_element_mask():
    with jax.debug_key_reuse(True):
        ks = jax.random.split(jax.random.key(0), 4)
        jax.random.normal(ks[1])
        np.testing.assert_array_equal(ks._consumed, [False, True, False, False])
        jax.random.normal(ks[2])
        np.testing.assert_array_equal(ks._consumed, [False, True, True, False])
        with pytest.raises(KeyReuseError, match="passed to slice at index 0"):
            ks[1:3]


def test_signature_values():
    s = KeyReuseSignature(Sink(0, np.array([True, True])), Source(1, np.array([False])), Forward(0, 1))
    assert s == KeyReuseSignature(Forward(0, 1), Sink(0), Source(1, False))
    assert hash(s) == hash(KeyReuseSignature(Forward(0, 1), Sink(0), Source(1, False)))
    assert s != KeyReuseSignature(Sink(0), Forward(0, 1))
    with pytest.raises(ValueError, match="Sink is immutable"):
        Sink(0).idx = 1
    with pytest.raises(TypeError, match="mask must be boolean"):
        Sink(0, np.array([1, 0]))


def test_signature_of_a_scan_that_splits_its_carried_key():
    def f(k):
        def body(c, _):
            c, s = jax.random.split(c)
            return c, jax.random.normal(s)
        return jax.lax.scan(body, k, None, length=3)

    assert function_type_signature(f, jax.random.key(0)) == KeyReuseSignature(Sink(0), Source(0))
