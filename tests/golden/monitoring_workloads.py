"""jax.monitoring event sequences, run by JAX 0.11.0 (record_monitoring.py
writes monitoring.json) and by pyjax (tests/test_monitoring.py).

`run(jax)` registers one listener of each kind and returns, per workload,
the list of (kind, event, sorted kwargs names and their string values)
that fired. Durations and times are left out (they are the machine's);
their types are checked by the test.
"""

from __future__ import annotations

import importlib


def run(jax) -> dict:
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    monitoring = importlib.import_module(jax.__name__ + ".monitoring")
    seen: list = []
    listeners = [
        (monitoring.register_event_listener, monitoring.unregister_event_listener,
         lambda event, **kw: seen.append(["event", event, sorted(kw.items())])),
        (monitoring.register_event_duration_secs_listener, monitoring.unregister_event_duration_listener,
         lambda event, duration, **kw: seen.append(["duration", event, sorted(kw.items()), type(duration).__name__])),
        (monitoring.register_event_time_span_listener, monitoring.unregister_event_time_span_listener,
         lambda event, start, end, **kw: seen.append(["span", event, sorted(kw.items()), end >= start])),
        (monitoring.register_scalar_listener, monitoring.unregister_scalar_listener,
         lambda event, value, **kw: seen.append(["scalar", event, sorted(kw.items()), type(value).__name__])),
    ]
    x = jnp.ones(3)
    x + 1  # (warm: JAX compiles eager ops; pyjax does not)
    for register, _, callback in listeners:
        register(callback)
    out = {}

    def workload(name, fn):
        seen.clear()
        fn()
        # Eager ops compile in JAX only; keep the events of jit/make_jaxpr.
        out[name] = [e for e in seen if "fun_name" not in dict(e[2]) or dict(e[2])["fun_name"] in
                     ("my_fun", "jit(my_fun)", "other", "jit(other)", "<lambda>", "method", "jit(method)")]

    def my_fun(x):
        return x * 2

    f = jax.jit(my_fun)
    workload("first_compile", lambda: f(x))
    workload("cache_hit", lambda: f(x))
    workload("new_shape_recompile", lambda: f(jnp.ones(4)))

    def other(x):
        return jnp.sin(x)

    workload("make_jaxpr", lambda: jax.make_jaxpr(other)(x))
    workload("lower_compile", lambda: jax.jit(other).lower(x).compile())

    class A:
        def method(self, x):
            return x + 1

    workload("bound_method", lambda: jax.jit(A().method)(x))
    workload("user_events", lambda: (monitoring.record_event("/my/event", phase="a"),
                                     monitoring.record_event_duration_secs("/my/duration", 0.5, phase="b"),
                                     monitoring.record_event_time_span("/my/span", 1.0, 2.0),
                                     monitoring.record_scalar("/my/scalar", 3, unit="n")))
    # Unregistering stops delivery.
    for _, unregister, callback in listeners:
        unregister(callback)
    workload("after_unregister", lambda: (monitoring.record_event("/my/event"), jax.jit(lambda x: x - 1)(x)))
    try:
        monitoring.unregister_event_listener(lambda e: None)
    except AssertionError:
        out["unregister_unknown"] = "AssertionError"
    # clear_event_listeners leaves scalar listeners registered (JAX 0.11).
    for register, _, callback in listeners:
        register(callback)
    monitoring.clear_event_listeners()
    workload("after_clear", lambda: (monitoring.record_event("/my/event"), monitoring.record_scalar("/my/s", 1.5)))
    monitoring.unregister_scalar_listener(listeners[3][2])
    return out
