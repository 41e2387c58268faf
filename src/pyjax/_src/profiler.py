"""jax.profiler on pyjax: traces in the Chrome trace-event format.

A trace (`start_trace`/`stop_trace`, or the `trace` context manager) records,
while it runs:

- every `TraceAnnotation` / `StepTraceAnnotation` / `annotate_function` span;
- the compile phases pyjax reports through jax.monitoring (tracing, lowering,
  backend compilation of each jit), as spans named by their event;
- with `ProfileOptions.python_tracer_level >= 1` (the default), every Python
  call and return on the threads that run during the trace (which includes
  executing compiled computations: pyjax's backend runs as Python), the way
  JAX's Python tracer does.

`stop_trace` writes `<log_dir>/plugins/profile/<run>/<host>.trace.json.gz`
(gzipped JSON `{"traceEvents": [...]}`), which Perfetto (ui.perfetto.dev),
chrome://tracing and TensorBoard's profile plugin open;
`create_perfetto_trace=True` also writes `perfetto_trace.json.gz` beside it,
as JAX does. There is no XLA device to trace, so there are no device planes
and no `.xplane.pb`.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import gc
import gzip
import json
import os
import socket
import sys
import threading
import time
from typing import Any, Callable

from pyjax._src import monitoring

__all__ = ["ProfileData", "ProfileEvent", "ProfileOptions", "ProfilePlane", "StepTraceAnnotation", "TraceAnnotation",
           "annotate_function", "device_memory_profile", "register_subprocess", "save_device_memory_profile",
           "start_server", "start_trace", "stop_server", "stop_trace", "trace"]

# Events beyond this many are dropped (and counted): a Python trace of a long
# run would otherwise grow without bound.
_MAX_EVENTS = 2_000_000


class ProfileOptions:
    """Profiler options (JAX's fields and defaults).

    Only `python_tracer_level` changes what pyjax records (0: no Python
    call events); the others are accepted for compatibility.
    """

    def __init__(self) -> None:
        self.advanced_configuration: dict = {}
        self.duration_ms = 0
        self.enable_hlo_proto = True
        self.host_tracer_level = 2
        self.include_dataset_ops = True
        self.python_tracer_level = 1
        self.raise_error_on_start_failure = False
        self.repository_path = ""
        self.session_id = ""
        self.start_timestamp_ns = 0


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.session: _Session | None = None


_state = _State()


class _Session:
    def __init__(self, log_dir: str, create_perfetto_link: bool, create_perfetto_trace: bool,
                 options: ProfileOptions) -> None:
        self.log_dir = log_dir
        self.create_perfetto_link = create_perfetto_link
        self.create_perfetto_trace = create_perfetto_trace
        self.options = options
        self.events: list[dict] = []
        self.dropped = 0
        self.pid = os.getpid()
        self.t0 = time.perf_counter_ns()
        self.epoch_offset_us = time.time() * 1e6 - self.t0 / 1e3
        self.python = options.python_tracer_level >= 1
        self.stacks: dict[int, list] = {}
        self.previous_profilers: tuple = (None, None)

    def now_us(self) -> float:
        return time.perf_counter_ns() / 1e3 + self.epoch_offset_us

    def add(self, event: dict) -> None:
        if len(self.events) < _MAX_EVENTS:
            self.events.append(event)
        else:
            self.dropped += 1

    def complete(self, name: str, start_us: float, end_us: float, tid: int, args: dict | None = None,
                 cat: str = "annotation") -> None:
        event = {"name": name, "cat": cat, "ph": "X", "ts": start_us, "dur": max(end_us - start_us, 0.0),
                 "pid": self.pid, "tid": tid}
        if args:
            event["args"] = {k: _jsonable(v) for k, v in args.items()}
        self.add(event)

    # -- the compile phases, from jax.monitoring's time spans
    def on_time_span(self, event: str, start_time: float, end_time: float, **kwargs: Any) -> None:
        self.complete(event.rsplit("/", 1)[-1] + (f" {kwargs['fun_name']}" if "fun_name" in kwargs else ""),
                      start_time * 1e6, end_time * 1e6, threading.get_ident(), kwargs, cat="compile")

    # -- the Python tracer (sys.setprofile)
    def profile_hook(self, frame, event: str, arg) -> None:
        tid = threading.get_ident()
        stack = self.stacks.setdefault(tid, [])
        if event == "call" or event == "c_call":
            if event == "call":
                code = frame.f_code
                name = f"{code.co_qualname if hasattr(code, 'co_qualname') else code.co_name} " \
                       f"({os.path.basename(code.co_filename)}:{frame.f_lineno})"
            else:
                name = f"{getattr(arg, '__qualname__', getattr(arg, '__name__', repr(arg)))} (builtin)"
            stack.append((name, self.now_us()))
        elif event in ("return", "c_return", "c_exception"):
            if stack:
                name, start = stack.pop()
                self.complete(name, start, self.now_us(), tid, cat="python")

    def finish_python(self) -> None:
        # Calls still open when the trace stops end at its stop.
        end = self.now_us()
        for tid, stack in self.stacks.items():
            while stack:
                name, start = stack.pop()
                self.complete(name, start, end, tid, cat="python")

    def document(self) -> dict:
        meta = [{"name": "process_name", "ph": "M", "pid": self.pid, "args": {"name": f"pyjax host ({_host()})"}}]
        for thread in threading.enumerate():
            meta.append({"name": "thread_name", "ph": "M", "pid": self.pid, "tid": thread.ident,
                         "args": {"name": thread.name}})
        doc = {"displayTimeUnit": "ns", "traceEvents": meta + self.events,
               "metadata": {"producer": "pyjax.profiler", "dropped_events": self.dropped}}
        return doc


def _jsonable(v: Any) -> Any:
    return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)


def _host() -> str:
    return socket.gethostname() or "localhost"


def _current() -> _Session | None:
    return _state.session


def start_trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False, create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
    """Starts a profiler trace.

    The trace captures the annotations, compilations and (with the Python
    tracer) Python calls made until `stop_trace`, which writes it under
    ``log_dir`` in the Chrome trace-event format (see the module docstring).
    Only one trace may be active at a time.

    Args:
      log_dir: The directory to save the profiler trace to (usually the
        TensorBoard log directory).
      create_perfetto_link: JAX prints a ui.perfetto.dev link and waits for the
        page to load the trace; pyjax cannot serve it, so it prints the path of
        the trace file to open there.
      create_perfetto_trace: also write ``perfetto_trace.json.gz``, which
        Perfetto opens.
      profiler_options: Profiler options to configure the profiler for
        collection.
    """
    with _state.lock:
        if _state.session is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run at a time.")
        session = _Session(os.fspath(log_dir), create_perfetto_link, create_perfetto_trace,
                           profiler_options or ProfileOptions())
        _state.session = session
    monitoring.register_event_time_span_listener(session.on_time_span)
    if session.python:
        # (A profiler of the user's own is put back by stop_trace.)
        session.previous_profilers = (sys.getprofile(), getattr(threading, "getprofile", lambda: None)())
        threading.setprofile(session.profile_hook)
        sys.setprofile(session.profile_hook)


def stop_trace() -> None:
    """Stops the currently-running profiler trace and writes it to its log directory.

    Raises:
      RuntimeError: if no trace is running (JAX's "No profile started").
    """
    with _state.lock:
        session = _state.session
        if session is None:
            raise RuntimeError("No profile started")
        _state.session = None
    if session.python:
        previous, previous_threads = session.previous_profilers
        sys.setprofile(previous)
        threading.setprofile(previous_threads)
        session.finish_python()
    monitoring.unregister_event_time_span_listener(session.on_time_span)
    run = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S")
    out_dir = os.path.join(session.log_dir, "plugins", "profile", run)
    os.makedirs(out_dir, exist_ok=True)
    data = json.dumps(session.document()).encode()
    path = os.path.join(out_dir, f"{_host()}.trace.json.gz")
    with gzip.open(path, "wb") as f:
        f.write(data)
    if session.create_perfetto_trace or session.create_perfetto_link:
        with gzip.open(os.path.join(out_dir, "perfetto_trace.json.gz"), "wb") as f:
            f.write(data)
    if session.create_perfetto_link:
        print(f"Open {os.path.join(out_dir, 'perfetto_trace.json.gz')} at https://ui.perfetto.dev "
              "(pyjax does not serve traces to a link).")


@contextlib.contextmanager
def trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False, create_perfetto_trace: bool = False,
          profiler_options: ProfileOptions | None = None):
    """Context manager to take a profiler trace: `start_trace` on entry, `stop_trace` on exit.

    Example::

      with jax.profiler.trace("/tmp/tensorboard"):
        key = jax.random.key(0)
        x = jax.random.normal(key, (5000, 5000))
        y = x @ x
        y.block_until_ready()
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation:
    """Context manager that generates a trace event in the profiler.

    The event spans the duration of the code enclosed by the context, and
    carries the keyword arguments as its metadata. Outside a trace it costs
    almost nothing.

    Example::

      with jax.profiler.TraceAnnotation("my_label", step=3):
        result = jnp.dot(x, y)
    """

    def __init__(self, name: str, **kwargs: Any) -> None:
        self.name = name
        self.kwargs = kwargs
        self._start: float | None = None
        self._session: _Session | None = None

    def __enter__(self) -> "TraceAnnotation":
        session = self._session = _current()
        if session is not None:
            self._start = session.now_us()
        return self

    def __exit__(self, *exc: Any) -> None:
        session = self._session
        if session is not None and session is _current():
            session.complete(self.name, self._start, session.now_us(), threading.get_ident(), self.kwargs)
        self._session = None

    @staticmethod
    def is_enabled() -> bool:
        """Whether a trace is being collected (annotations are recorded)."""
        return _current() is not None

    def set_metadata(self, **kwargs: Any) -> None:
        """Adds metadata to the event (shown as its args)."""
        self.kwargs.update(kwargs)


class StepTraceAnnotation(TraceAnnotation):
    """Context manager that generates a step trace event in the profiler.

    A step annotation marks one training step (``step_num=`` is its number);
    TensorBoard's step view groups events by these.

    Example::

      for step in range(num_steps):
        with jax.profiler.StepTraceAnnotation("train", step_num=step):
          train_step()
    """

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs: Any) -> Callable:
    """Decorator that generates a trace event for the execution of a function.

    Args:
      func: the function to annotate.
      name: the event's name (default: the function's qualified name).
      **decorator_kwargs: metadata for the event.
    """
    name = name or getattr(func, "__qualname__", None) or getattr(func, "__name__", str(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(name, **decorator_kwargs):
            return func(*args, **kwargs)

    return wrapper


def start_server(port: int, requires_backend: bool = True) -> Any:
    """Starts the profiler server on port `port` (not available in pyjax).

    JAX's server lets TensorBoard or `jax.collect_profile` capture a trace
    from another process over gRPC; pyjax has no such server. Use
    `start_trace`/`stop_trace` (or `trace`) in the process itself.
    """
    raise NotImplementedError("jax.profiler.start_server: pyjax has no profiler server (JAX's is a gRPC server "
                              "of the XLA profiler, which pyjax does not run); take the trace in-process with "
                              "jax.profiler.trace(log_dir) or start_trace/stop_trace instead.")


def stop_server() -> None:
    """Stops the running profiler server (there is none in pyjax: JAX's error)."""
    raise ValueError("No active profiler server.")


def register_subprocess(pid: int, port: int) -> Callable[[], None]:
    """Registers a subprocess's profiler server for collection (not available in pyjax)."""
    raise NotImplementedError("jax.profiler.register_subprocess: pyjax has no profiler servers to connect to; "
                              "take a trace in each process with jax.profiler.trace(log_dir).")


# ---------------------------------------------------------------------------
# Device memory profiles: pprof protobufs of the live buffers.


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(number: int, payload: bytes | int) -> bytes:
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    return _varint((number << 3) | 2) + _varint(len(payload)) + payload


def _live_buffers() -> list:
    from pyjax._src.array import Array

    return [obj for obj in gc.get_objects() if type(obj) is Array]


def device_memory_profile(backend: str | None = None) -> bytes:
    """Captures a JAX device memory profile as ``pprof``-format protocol buffer.

    The profile has JAX's sample types (``allocations``/``count`` and
    ``space``/``bytes``) and one sample per live array buffer, labelled
    ``kind=buffer``, ``device=cpu:0`` and its shape and dtype. pyjax records
    no allocation stack, so each sample's location is the array's type. The
    result is gzip-compressed, as ``pprof`` reads it.

    Args:
      backend: optional; the name of the backend (only ``"cpu"``).

    Returns:
      A gzip-compressed serialized ``pprof`` Profile protocol buffer.
    """
    if backend not in (None, "cpu"):
        raise RuntimeError(f"Unknown backend {backend}")
    strings: list[str] = [""]
    index: dict[str, int] = {"": 0}

    def s(text: str) -> int:
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    body = bytearray()
    for type_, unit in (("allocations", "count"), ("space", "bytes")):
        body += _field(1, _field(1, s(type_)) + _field(2, s(unit)))  # sample_type
    # One function and location for all samples: the array type.
    body += _field(5, _field(1, 1) + _field(2, s("pyjax.Array")) + _field(3, s("pyjax.Array")))  # function
    body += _field(4, _field(1, 1) + _field(4, _field(1, 1)))  # location -> line(function 1)
    for buf in _live_buffers():
        try:
            value = buf._value
            nbytes = int(getattr(value, "nbytes", 0))
            aval = buf.aval
        except Exception:  # noqa: BLE001  (a deleted buffer: nothing to count)
            continue
        labels = (_field(3, _field(1, s("kind")) + _field(2, s("buffer")))
                  + _field(3, _field(1, s("device")) + _field(2, s("cpu:0")))
                  + _field(3, _field(1, s("shape")) + _field(2, s(str(tuple(aval.shape)))))
                  + _field(3, _field(1, s("dtype")) + _field(2, s(str(aval.dtype)))))
        values = _varint(1) + _varint(nbytes)
        body += _field(2, _field(1, _varint(1)) + _field(2, values) + labels)  # sample (packed ids and values)
    for text in strings:
        body += _field(6, text.encode())
    return gzip.compress(bytes(body))


def save_device_memory_profile(filename: os.PathLike | str, backend: str | None = None) -> None:
    """Collects a device memory profile and writes it to a file.

    The file is a gzip-compressed ``pprof`` protocol buffer
    (`device_memory_profile`), readable with ``pprof``.

    Args:
      filename: the filename to which the profile should be written.
      backend: optional; the name of the backend.
    """
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)


# ---------------------------------------------------------------------------
# ProfileData: reading a trace back.


class ProfileEvent:
    """One event of a trace: name, start and end (ns), its stats (metadata)."""

    def __init__(self, name: str, start_ns: float, duration_ns: float, stats: dict) -> None:
        self.name = name
        self.start_ns = start_ns
        self.duration_ns = duration_ns
        self.end_ns = start_ns + duration_ns
        self.stats = list(stats.items())

    def __repr__(self) -> str:
        return f"ProfileEvent(name={self.name!r}, start_ns={self.start_ns}, duration_ns={self.duration_ns})"


class _Line:
    def __init__(self, line_id: int, name: str, events: list) -> None:
        self.id = line_id
        self.name = name
        self.events = events


class ProfilePlane:
    """A plane of a trace (pyjax's one host plane), with a line per thread."""

    def __init__(self, name: str, lines: list, stats: dict | None = None) -> None:
        self.name = name
        self.lines = lines
        self.stats = list((stats or {}).items())


class ProfileData:
    """A trace read back: its planes, lines and events.

    JAX's ProfileData reads XSpace protobufs; pyjax's reads the trace-event
    JSON that pyjax writes (`from_file` on a ``.trace.json.gz`` or
    ``perfetto_trace.json.gz``). The XSpace constructors raise.
    """

    def __init__(self, planes: list) -> None:
        self._planes = planes

    @property
    def planes(self) -> list:
        return list(self._planes)

    def find_plane_with_name(self, name: str) -> ProfilePlane | None:
        return next((p for p in self._planes if p.name == name), None)

    @classmethod
    def from_file(cls, path: os.PathLike | str) -> "ProfileData":
        path = os.fspath(path)
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            doc = json.loads(f.read())
        return cls._from_document(doc)

    @classmethod
    def _from_document(cls, doc: dict) -> "ProfileData":
        names = {e.get("tid"): e["args"]["name"] for e in doc.get("traceEvents", [])
                 if e.get("ph") == "M" and e.get("name") == "thread_name"}
        lines: dict = {}
        for e in doc.get("traceEvents", []):
            if e.get("ph") != "X":
                continue
            lines.setdefault(e.get("tid"), []).append(
                ProfileEvent(e["name"], e["ts"] * 1e3, e.get("dur", 0.0) * 1e3, e.get("args", {})))
        plane = ProfilePlane("/host:CPU", [_Line(tid or 0, names.get(tid, str(tid)), evs)
                                           for tid, evs in lines.items()])
        return cls([plane])

    @classmethod
    def from_serialized_xspace(cls, serialized_xspace: bytes) -> "ProfileData":
        raise NotImplementedError("ProfileData.from_serialized_xspace: pyjax writes no XSpace protobufs; read "
                                  "its trace with ProfileData.from_file(path to the .trace.json.gz)")

    @classmethod
    def from_text_proto(cls, text_proto: str) -> "ProfileData":
        raise NotImplementedError("ProfileData.from_text_proto: pyjax writes no XSpace protobufs")

    @classmethod
    def from_raw_cpp_ptr(cls, raw_proto_ptr: Any) -> "ProfileData":
        raise NotImplementedError("ProfileData.from_raw_cpp_ptr: pyjax has no C++ profiler")

    @staticmethod
    def text_proto_to_serialized_xspace(text_proto: str) -> bytes:
        raise NotImplementedError("ProfileData.text_proto_to_serialized_xspace: pyjax writes no XSpace protobufs")
