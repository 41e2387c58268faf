"""Event listeners for the library's own events (JAX's jax.monitoring).

pyjax records, with JAX's event names and keyword arguments: for each jit
compilation, the tracing, lowering and backend-compile phases
(`/jax/core/compile/jaxpr_trace_duration`, `.../jaxpr_to_mlir_module_duration`,
`.../backend_compile_duration`, each as a scalar at its start time, a
duration and a time span, with `fun_name=`), and once per process
`/jax/compilation_cache/task_disabled_cache` (or `.../tasks_using_cache`
and the cache's hit and miss events when the IREE backend uses the
persistent compilation cache: docs/compilation_cache.md). Users may record their own events the same way.
"""

from __future__ import annotations

import time
from typing import Any, Protocol


class EventListenerWithMetadata(Protocol):
    def __call__(self, event: str, **kwargs: str | int) -> None: ...


class EventDurationListenerWithMetadata(Protocol):
    def __call__(self, event: str, duration_secs: float, **kwargs: str | int) -> None: ...


class EventTimeSpanListenerWithMetadata(Protocol):
    def __call__(self, event: str, start_time: float, end_time: float, **kwargs: str | int) -> None: ...


class ScalarListenerWithMetadata(Protocol):
    def __call__(self, event: str, value: float | int, **kwargs: str | int) -> None: ...


_event_listeners: list = []
_event_duration_secs_listeners: list = []
_event_time_span_listeners: list = []
_scalar_listeners: list = []

JAXPR_TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
JAXPR_TO_MLIR_MODULE_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_DISABLED_EVENT = "/jax/compilation_cache/task_disabled_cache"


def record_event(event: str, **kwargs: str | int) -> None:
    """Record an event.

    If **kwargs are specified, all of the named arguments have to be passed in
    the same order across all invocations of this method for the same event.
    """
    for callback in _event_listeners:
        callback(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: str | int) -> None:
    """Record an event duration in seconds (float)."""
    for callback in _event_duration_secs_listeners:
        callback(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float, **kwargs: str | int) -> None:
    """Record an event start and end time in seconds (float)."""
    for callback in _event_time_span_listeners:
        callback(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs: str | int) -> None:
    """Record a scalar summary value."""
    for callback in _scalar_listeners:
        callback(event, value, **kwargs)


def register_event_listener(callback: EventListenerWithMetadata) -> None:
    """Register a callback to be invoked during record_event()."""
    _event_listeners.append(callback)


def register_event_time_span_listener(callback: EventTimeSpanListenerWithMetadata) -> None:
    """Register a callback to be invoked during record_event_time_span()."""
    _event_time_span_listeners.append(callback)


def register_event_duration_secs_listener(callback: EventDurationListenerWithMetadata) -> None:
    """Register a callback to be invoked during record_event_duration_secs()."""
    _event_duration_secs_listeners.append(callback)


def register_scalar_listener(callback: ScalarListenerWithMetadata) -> None:
    """Register a callback to be invoked during record_scalar()."""
    _scalar_listeners.append(callback)


def get_event_listeners() -> list:
    """Get event listeners."""
    return list(_event_listeners)


def get_event_duration_listeners() -> list:
    """Get event duration listeners."""
    return list(_event_duration_secs_listeners)


def get_event_time_span_listeners() -> list:
    """Get event time span listeners."""
    return list(_event_time_span_listeners)


def get_scalar_listeners() -> list:
    """Get scalar event listeners."""
    return list(_scalar_listeners)


def clear_event_listeners() -> None:
    """Clear event listeners (event, duration and time-span ones).

    As in JAX 0.11, scalar listeners stay registered: remove them with
    unregister_scalar_listener.
    """
    _event_listeners.clear()
    _event_duration_secs_listeners.clear()
    _event_time_span_listeners.clear()


def unregister_event_listener(callback: EventListenerWithMetadata) -> None:
    """Unregister an event listener by callback."""
    assert callback in _event_listeners
    _event_listeners.remove(callback)


def unregister_event_duration_listener(callback: EventDurationListenerWithMetadata) -> None:
    """Unregister an event duration listener by callback."""
    assert callback in _event_duration_secs_listeners
    _event_duration_secs_listeners.remove(callback)


def unregister_event_time_span_listener(callback: EventTimeSpanListenerWithMetadata) -> None:
    """Unregister an event time span listener by callback."""
    assert callback in _event_time_span_listeners
    _event_time_span_listeners.remove(callback)


def unregister_scalar_listener(callback: ScalarListenerWithMetadata) -> None:
    """Unregister a scalar event listener by callback."""
    assert callback in _scalar_listeners
    _scalar_listeners.remove(callback)


def any_listener() -> bool:
    """Whether anything listens to timed events (the compile phases are timed only then)."""
    return bool(_scalar_listeners or _event_duration_secs_listeners or _event_time_span_listeners)


class timed_event:
    """Context manager recording one phase as JAX's compile timers do: a scalar
    (the start time) on entry; a duration and a time span on exit."""

    __slots__ = ("event", "fun_name", "start")

    def __init__(self, event: str, fun_name: str):
        self.event = event
        self.fun_name = fun_name

    def __enter__(self) -> "timed_event":
        self.start = time.time()
        record_scalar(self.event, self.start, fun_name=self.fun_name)
        return self

    def __exit__(self, *exc: Any) -> None:
        end = time.time()
        record_event_duration_secs(self.event, end - self.start, fun_name=self.fun_name)
        record_event_time_span(self.event, self.start, end, fun_name=self.fun_name)


_cache_checked = [False]


def note_compile() -> None:
    """Called before each backend compilation: JAX's per-process cache event, once."""
    if not _cache_checked[0]:
        _cache_checked[0] = True
        record_event(CACHE_DISABLED_EVENT)


def record_compile_phases(fun_name: str, start: float, conversion_s: float, compilation_s: float) -> None:
    """Reports a finished backend compilation as JAX's two timed phases.

    The NumPy backend lowers (jaxpr to Python source) and compiles (source to
    code) in one call that measures both; they are reported after it, each as
    scalar, duration and span, in JAX's order.
    """
    lowered = start + conversion_s
    record_scalar(JAXPR_TO_MLIR_MODULE_EVENT, start, fun_name=fun_name)
    record_event_duration_secs(JAXPR_TO_MLIR_MODULE_EVENT, conversion_s, fun_name=fun_name)
    record_event_time_span(JAXPR_TO_MLIR_MODULE_EVENT, start, lowered, fun_name=fun_name)
    record_scalar(BACKEND_COMPILE_EVENT, lowered, fun_name=fun_name)
    note_compile()
    record_event_duration_secs(BACKEND_COMPILE_EVENT, compilation_s, fun_name=fun_name)
    record_event_time_span(BACKEND_COMPILE_EVENT, lowered, lowered + compilation_s, fun_name=fun_name)


def listening() -> bool:
    """Whether any listener is registered (events are assembled only then)."""
    return bool(_event_listeners or _scalar_listeners or _event_duration_secs_listeners or _event_time_span_listeners)
