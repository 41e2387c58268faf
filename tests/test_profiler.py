"""jax.profiler on pyjax: a trace is a Chrome trace-event JSON file that
Perfetto opens, holding the annotations, compile phases and Python calls;
memory profiles are pprof protobufs; the server functions refuse clearly."""

from __future__ import annotations

import glob
import gzip
import json
import os

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import profiler


def _load(log_dir):
    (path,) = glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "*.trace.json.gz"))
    with gzip.open(path) as f:
        return path, json.load(f)


def _complete(doc):
    return [e for e in doc["traceEvents"] if e["ph"] == "X"]


def test_trace_writes_a_trace_event_file_with_annotations_and_compiles(tmp_path):
    def compiled_here(x):
        return jnp.tanh(x) * 2

    with profiler.trace(str(tmp_path), create_perfetto_trace=True):
        with profiler.TraceAnnotation("outer", step=7):
            assert profiler.TraceAnnotation.is_enabled()
            with profiler.StepTraceAnnotation("train", step_num=3):
                pyjax.jit(compiled_here)(jnp.ones(4)).block_until_ready()
    path, doc = _load(str(tmp_path))
    assert os.path.basename(path).endswith(".trace.json.gz")
    assert os.path.exists(os.path.join(os.path.dirname(path), "perfetto_trace.json.gz"))
    events = _complete(doc)
    names = {e["name"] for e in events}
    outer = next(e for e in events if e["name"] == "outer")
    step = next(e for e in events if e["name"] == "train")
    assert outer["args"] == {"step": 7} and step["args"] == {"step_num": 3}
    # Nested spans nest in time.
    assert outer["ts"] <= step["ts"] and step["ts"] + step["dur"] <= outer["ts"] + outer["dur"] + 1e-3
    assert "jaxpr_trace_duration compiled_here" in names
    assert "backend_compile_duration jit(compiled_here)" in names
    # The Python tracer saw the user's function being traced.
    assert any(e["cat"] == "python" and e["name"].startswith("test_trace_writes_a_trace_event_file_with_annotations_and_compiles.<locals>.compiled_here") for e in events)
    for e in events:
        assert {"name", "ph", "ts", "dur", "pid", "tid"} <= set(e)
    assert not profiler.TraceAnnotation.is_enabled()


def test_python_tracer_off_records_only_annotations(tmp_path):
    options = profiler.ProfileOptions()
    options.python_tracer_level = 0
    profiler.start_trace(str(tmp_path), profiler_options=options)
    with profiler.TraceAnnotation("only"):
        jnp.ones(3) + 1
    profiler.stop_trace()
    _, doc = _load(str(tmp_path))
    events = _complete(doc)
    # No Python call events; an eager plan compiled on the way may add compile spans.
    assert [e["name"] for e in events if e["cat"] != "compile"] == ["only"]
    assert not any(e["cat"] == "python" for e in events)


def test_annotate_function_names_its_event(tmp_path):
    @profiler.annotate_function
    def work(x):
        return x + 1

    named = profiler.annotate_function(lambda x: x * 2, name="doubler", kind="lambda")
    assert work.__name__ == "work"
    options = profiler.ProfileOptions()
    options.python_tracer_level = 0
    with profiler.trace(str(tmp_path), profiler_options=options):
        assert work(1) == 2 and named(2) == 4
    _, doc = _load(str(tmp_path))
    events = {e["name"]: e for e in _complete(doc)}
    assert "test_annotate_function_names_its_event.<locals>.work" in events
    assert events["doubler"]["args"] == {"kind": "lambda"}


def test_one_trace_at_a_time_and_stop_without_start(tmp_path):
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    profiler.start_trace(str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match="Only one profile may be run at a time"):
            profiler.start_trace(str(tmp_path))
    finally:
        profiler.stop_trace()


def test_profile_data_reads_the_trace_back(tmp_path):
    options = profiler.ProfileOptions()
    options.python_tracer_level = 0
    with profiler.trace(str(tmp_path), profiler_options=options):
        with profiler.TraceAnnotation("marked"):
            pass
    path, _ = _load(str(tmp_path))
    data = profiler.ProfileData.from_file(path)
    plane = data.find_plane_with_name("/host:CPU")
    events = [e for line in plane.lines for e in line.events]
    assert [e.name for e in events] == ["marked"] and events[0].duration_ns >= 0


def _decode(buf):
    # A minimal protobuf reader: (field number, wire type, value) triples.
    out, i = [], 0
    while i < len(buf):
        key, i = _read_varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _read_varint(buf, i)
        else:
            n, i = _read_varint(buf, i)
            value, i = buf[i:i + n], i + n
        out.append((number, wire, value))
    return out


def _read_varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def test_device_memory_profile_is_a_pprof_of_live_buffers(tmp_path):
    keep = jnp.ones((100, 100), jnp.float32) + 0  # a 40000-byte buffer
    profile = gzip.decompress(profiler.device_memory_profile())
    fields = _decode(profile)
    strings = [v.decode() for n, w, v in fields if n == 6]
    assert strings[0] == ""
    sample_types = [[strings[v] for _, _, v in _decode(f)] for n, _, f in fields if n == 1]
    assert sample_types == [["allocations", "count"], ["space", "bytes"]]
    samples = [_decode(v) for n, _, v in fields if n == 2]
    sizes = []
    for sample in samples:
        values = bytes(next(v for n, _, v in sample if n == 2))
        count, j = _read_varint(values, 0)
        nbytes, _ = _read_varint(values, j)
        sizes.append(nbytes)
    assert 40000 in sizes and keep.shape == (100, 100)
    path = tmp_path / "memory.prof"
    profiler.save_device_memory_profile(str(path))
    assert gzip.decompress(path.read_bytes())[:2] == profile[:2]


def test_servers_refuse_with_a_reason():
    with pytest.raises(NotImplementedError, match="no profiler server"):
        profiler.start_server(9999)
    with pytest.raises(ValueError, match="No active profiler server."):
        profiler.stop_server()
    with pytest.raises(NotImplementedError, match="register_subprocess"):
        profiler.register_subprocess(1, 2)


def test_profile_options_have_jax_defaults():
    o = profiler.ProfileOptions()
    assert (o.host_tracer_level, o.python_tracer_level, o.duration_ms, o.enable_hlo_proto) == (2, 1, 0, True)
    assert np.isscalar(o.start_timestamp_ns)


def test_a_users_own_profiler_is_restored(tmp_path):
    import sys

    calls = []

    def mine(frame, event, arg):
        calls.append(event)

    sys.setprofile(mine)
    try:
        with profiler.trace(str(tmp_path)):
            pass
        assert sys.getprofile() is mine
    finally:
        sys.setprofile(None)


def test_facts_match_jax_0_11():
    # tests/golden/profiler.json, recorded by tests/golden/record_profiler.py.
    import sys
    from pathlib import Path

    golden = Path(__file__).parent / "golden"
    sys.path.insert(0, str(golden))
    import profiler_workloads

    record = json.loads((golden / "profiler.json").read_text())
    assert record["jax_version"] == "0.11.0"
    got = json.loads(json.dumps(profiler_workloads.run(pyjax)))
    assert got == record["results"]
