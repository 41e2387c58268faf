"""jax.monitoring on pyjax: the events JAX 0.11.0 fires for jit compiles and
make_jaxpr, with its names and keyword arguments (tests/golden/monitoring.json,
recorded by tests/golden/record_monitoring.py), and the listener registry."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import pyjax
from pyjax import monitoring

GOLDEN = Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN))
import monitoring_workloads  # noqa: E402

RECORD = json.loads((GOLDEN / "monitoring.json").read_text())


def _without_persistent_cache(events):
    # JAX consults its persistent compilation cache on each compile
    # (/jax/compilation_cache/...); pyjax has none (issue 27) and says so once
    # per process with task_disabled_cache instead.
    return [e for e in events if not e[1].startswith("/jax/compilation_cache/")]


@pytest.fixture(scope="module")
def results():
    return json.loads(json.dumps(monitoring_workloads.run(pyjax)))


@pytest.mark.parametrize("name", sorted(RECORD["results"]))
def test_events_match_jax(results, name):
    want = RECORD["results"][name]
    got = results[name]
    if isinstance(want, list):
        want, got = _without_persistent_cache(want), _without_persistent_cache(got)
    assert got == want


def test_the_compile_phases_fire_once_per_compile_and_not_on_a_hit():
    seen = []
    listener = lambda event, duration, **kw: seen.append((event, kw["fun_name"]))  # noqa: E731
    monitoring.register_event_duration_secs_listener(listener)
    try:
        def fresh(x):
            return x * 3

        f = pyjax.jit(fresh)
        f(1.0)
        f(2.0)
    finally:
        monitoring.unregister_event_duration_listener(listener)
    assert seen == [("/jax/core/compile/jaxpr_trace_duration", "fresh"),
                    ("/jax/core/compile/jaxpr_to_mlir_module_duration", "jit(fresh)"),
                    ("/jax/core/compile/backend_compile_duration", "jit(fresh)")]


def test_durations_are_nonnegative_floats_and_spans_ordered():
    durations, spans = [], []
    d = lambda event, duration, **kw: durations.append(duration)  # noqa: E731
    s = lambda event, start, end, **kw: spans.append((start, end))  # noqa: E731
    monitoring.register_event_duration_secs_listener(d)
    monitoring.register_event_time_span_listener(s)
    try:
        pyjax.jit(lambda x: x @ x)(pyjax.numpy.ones((3, 3)))
    finally:
        monitoring.unregister_event_duration_listener(d)
        monitoring.unregister_event_time_span_listener(s)
    assert len(durations) == 3 and all(isinstance(x, float) and x >= 0 for x in durations)
    assert len(spans) == 3 and all(a <= b for a, b in spans)
    assert spans[0][1] <= spans[1][0] + 1e-3  # tracing ends before lowering starts


def test_no_listener_no_cost_path():
    # With nothing registered the jit path does not assemble events.
    from pyjax._src import monitoring as impl

    assert not impl.listening()
