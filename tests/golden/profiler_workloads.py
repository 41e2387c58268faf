"""jax.profiler facts, run by JAX 0.11.0 (record_profiler.py writes profiler.json)
and by pyjax (tests/test_profiler.py): the files a trace writes, the errors,
ProfileOptions' defaults, whether annotations are enabled, what decorators keep."""

from __future__ import annotations

import gzip
import importlib
import json
import os
import socket
import tempfile


def run(jax) -> dict:
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    profiler = importlib.import_module(jax.__name__ + ".profiler")
    out: dict = {}
    host = socket.gethostname()

    def files(log_dir):
        found = []
        for root, _, names in os.walk(log_dir):
            rel = os.path.relpath(root, log_dir).split(os.sep)
            if rel[:2] == ["plugins", "profile"] and len(rel) == 3:
                found += [n.replace(host, "<host>") for n in names]
        return sorted(found)

    with tempfile.TemporaryDirectory() as d:
        with profiler.trace(d):
            out["enabled_inside"] = profiler.TraceAnnotation.is_enabled()
            jnp.ones(3).block_until_ready()
        out["files"] = [f for f in files(d) if not f.endswith(".xplane.pb")]
        out["writes_trace_json"] = any(f.endswith(".trace.json.gz") for f in files(d))
        (trace_file,) = [os.path.join(r, n) for r, _, ns in os.walk(d) for n in ns if n.endswith(".trace.json.gz")]
        with gzip.open(trace_file) as f:
            doc = json.load(f)
        out["trace_json_keys"] = sorted(k for k in doc if k in ("traceEvents", "displayTimeUnit"))
        out["complete_event_fields"] = sorted({"name", "ph", "ts", "dur", "pid", "tid"} & set(
            next(e for e in doc["traceEvents"] if e.get("ph") == "X")))
    with tempfile.TemporaryDirectory() as d:
        with profiler.trace(d, create_perfetto_trace=True):
            pass
        out["files_with_perfetto"] = [f for f in files(d) if not f.endswith(".xplane.pb")]
    out["enabled_outside"] = profiler.TraceAnnotation.is_enabled()
    try:
        profiler.stop_trace()
    except Exception as e:  # noqa: BLE001
        out["stop_without_start"] = [type(e).__name__, str(e)]
    with tempfile.TemporaryDirectory() as d:
        profiler.start_trace(d)
        try:
            profiler.start_trace(d)
        except Exception as e:  # noqa: BLE001
            out["start_twice"] = [type(e).__name__, str(e)]
        profiler.stop_trace()
    try:
        profiler.stop_server()
    except Exception as e:  # noqa: BLE001
        out["stop_server"] = [type(e).__name__, str(e)]
    o = profiler.ProfileOptions()
    out["profile_options"] = {k: getattr(o, k) for k in (
        "advanced_configuration", "duration_ms", "enable_hlo_proto", "host_tracer_level", "include_dataset_ops",
        "python_tracer_level", "raise_error_on_start_failure", "repository_path", "session_id",
        "start_timestamp_ns")}

    @profiler.annotate_function
    def annotated(x, y=2):
        """Doc."""
        return x * y

    out["annotate_function"] = [annotated.__name__, annotated.__doc__, annotated(3), annotated(3, y=4)]
    out["annotate_function_named"] = profiler.annotate_function(lambda: 5, name="five", tag=1)()
    with profiler.TraceAnnotation("label", a=1) as t:
        out["trace_annotation_enter"] = t is None or type(t).__name__
    with profiler.StepTraceAnnotation("step", step_num=3):
        out["step_annotation"] = True
    profile = profiler.device_memory_profile()
    out["memory_profile"] = [type(profile).__name__, profile[:2].hex(), gzip.decompress(profile)[:2].hex()]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "memory.prof")
        profiler.save_device_memory_profile(path)
        with open(path, "rb") as f:
            out["saved_memory_profile_magic"] = f.read(2).hex()
    return out
