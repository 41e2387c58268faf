"""The one builder of native code: the system C compiler (`$CC`, else `cc`)
run with a timeout in its own process group, libraries cached by source
digest (in the process, and across processes: cache.py), and native_call.c's
`NativeCall` type built once per process against this Python's and this
NumPy's headers.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import itertools
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

import numpy as np

from pyjax._src.backends.numpy import fpenv
from pyjax._src.backends.numpy.native import cache as native_cache
from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.tiering import log as _log
from pyjax._src.backends.numpy.native.vectors import _enable_sums

# ---------------------------------------------------------------------------
# Building

_built: dict = {}  # source digest -> the loaded library
# Code built in this process runs only on this machine: its vector paths
# may use every instruction it has (AVX-512 on a recent x86). IEEE results
# do not change with the instructions (no contraction, no fast math), only
# their speed. A compiler that refuses the flag builds for its default
# target (then the vector paths defer to NumPy's kernels).
_ARCH_FLAGS = ("-march=native",)
_arch_refused: set = set()  # compilers that refused it
# A short source is built at -O2 with GCC's dynamic vector cost model: its
# own element loops (selects, a max's zero fix-up) are vectorised as at -O3
# (a select-heavy 64x256 program: 90 -> 15 us), without -O3's other passes:
# GCC 12.2 at -O3 miscompiled generated sources (docs/performance.md: a
# float64 -> float32 -> float64 round trip copied without its rounding).
# A compiler that does not know the flag builds without it.
_VECTOR_MAX_LINES = 400
_VECTOR_FLAGS = ("-fvect-cost-model=dynamic",)
_vector_refused: set = set()  # compilers that refused them
_O2_MAX_LINES = 1500
# A compiler running longer than this is killed with its whole process
# group, and the tier stays Python.
_BUILD_TIMEOUT_S = 120
_build_lock = threading.Lock()
_build_locks: dict = {}  # source digest -> the lock its build holds
_dir_state: list = []  # the process's build directory, once made


def build_dir() -> str:
    """The private (0700) directory every build of this process writes to.
    It stays while the process runs, as the libraries built there stay
    loaded (a loaded library cannot be deleted on Windows), and is removed
    at exit, errors ignored (a library still mapped there on Windows)."""
    with _build_lock:
        if not _dir_state:
            path = tempfile.mkdtemp(prefix="pyjax-native-")  # (mkdtemp: readable by this user alone)
            atexit.register(shutil.rmtree, path, ignore_errors=True)
            _dir_state.append(path)
        return _dir_state[0]


_build_numbers = itertools.count()


def _build_path(stem: str, suffix: str) -> str:
    # A new file of build_dir for each build: a rebuilt library must not
    # overwrite (or be taken for, by the loader) one already loaded.
    return os.path.join(build_dir(), f"{stem}_{next(_build_numbers)}{suffix}")


def compiler() -> str | None:
    """The C compiler native code is built with (its executable), or None."""
    command = compiler_command()
    return command[0] if command else None


def compiler_command() -> list[str] | None:
    """The command native code is built with: `$CC` (else `cc`) split as a
    shell splits it (``CC="gcc -O3"``, as make uses it), its program found
    on `$PATH`; or None."""
    command = _command(os.environ.get("CC", "cc"), os.environ.get("PATH", ""))
    return list(command) if command else None


@functools.lru_cache(maxsize=8)
def _command(cc: str, path: str) -> tuple | None:
    # Asked at every compile of a loop or long program: worked out once per
    # ($CC, $PATH).
    try:
        words = shlex.split(cc)
    except ValueError:
        return None
    if not words:
        words = ["cc"]
    program = shutil.which(words[0], path=path or None)
    return (program, *words[1:]) if program else None


# Compilers running now (each the leader of its own process group): killed
# with their children when a build times out, and at exit.
_running: set = set()
_running_lock = threading.Lock()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _run_compiler(cmd: list[str]) -> tuple[int, str]:
    """Runs `cmd` in a session of its own; (exit status, stderr). Killed
    with all its children after `_BUILD_TIMEOUT_S` (RuntimeError)."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    with _running_lock:
        _running.add(proc)
    try:
        try:
            _, err = proc.communicate(timeout=_BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:  # a child that left the group keeps the pipes: let them be
                pass
            raise RuntimeError(f"{cmd[0]} ran longer than {_BUILD_TIMEOUT_S} s and was killed") from None
    finally:
        # A child the compiler left behind (the group outlives its leader) goes too.
        _kill_group(proc)
        with _running_lock:
            _running.discard(proc)
    return proc.returncode, err


@atexit.register
def _kill_running_builds() -> None:
    # Build threads are daemons: at exit, their compilers must not live on.
    with _running_lock:
        procs = list(_running)
    for proc in procs:
        _kill_group(proc)


@functools.lru_cache(maxsize=1)
def _headers() -> list[str] | None:
    """The include directories native_call.c builds with (this Python's and
    this NumPy's), or None when either is missing."""
    import sysconfig

    dirs = [sysconfig.get_paths()["include"], np.get_include()]
    if not (os.path.exists(os.path.join(dirs[0], "Python.h"))
            and os.path.exists(os.path.join(dirs[1], "numpy", "arrayobject.h"))):
        return None
    return dirs


_caller_state: list = []  # [] until tried, then [the NativeCall type or None]
_caller_lock = threading.Lock()


def _prepare_native_call() -> None:
    # Builds native_call.c on a thread of its own, beside the first native
    # build (which needs it to be bound): the two compiles overlap.
    if not _caller_state and not _caller_lock.locked():
        threading.Thread(target=_native_call_type, name="pyjax-native-call", daemon=True).start()


def _warm_fpenv() -> None:
    # fpenv's faster way is native_call.c's flushed_call.
    if available() and _headers() is not None:
        _prepare_native_call()


fpenv.on_warm = _warm_fpenv


def _native_call_type():
    """native_call.c's `NativeCall` type, built on first use (on a build
    thread), or None: then native code is called through ctypes."""
    with _caller_lock:
        if not _caller_state:
            try:
                _caller_state.append(_build_native_call())
            except Exception as e:  # noqa: BLE001  (ctypes calls stay)
                _log(f"Native calls go through ctypes: {e}", False)
                _caller_state.append(None)
    return _caller_state[0]


def _build_native_call():
    dirs, cc = _headers(), compiler_command()
    if dirs is None or cc is None:
        raise RuntimeError("no Python or NumPy headers" if cc else "no C compiler")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native_call.c")
    name = "_pyjax_native_call"
    so_path = _build_path(name, ".so")
    # (A Python extension on macOS leaves the interpreter's symbols to
    # the loader, as distutils' LDSHARED does there.)
    platform_flags = ["-undefined", "dynamic_lookup"] if sys.platform == "darwin" else []
    # -O3 and this machine's instructions: the scan of every call's float
    # inputs for special values (input_classes) is vectorised then; at -O2
    # GCC leaves it scalar, several times slower on a large input.
    base = [*cc, "-O3", "-shared", "-fPIC", *platform_flags, *(f"-I{d}" for d in dirs), "-o", so_path, source]
    with open(source) as f:
        entry = native_cache.key("native_call", f.read(), cc, base[len(cc):-3], extension=True)
    cached = native_cache.lookup(entry)
    if cached is not None:
        try:
            return _load_native_call(name, cached)
        except (ImportError, OSError):
            pass
    code, err = 1, ""
    if " ".join(cc) not in _arch_refused:
        code, err = _run_compiler([*base[:len(cc) + 1], *_ARCH_FLAGS, *base[len(cc) + 1:]])
        if code and "march" in err:
            _arch_refused.add(" ".join(cc))
    if code:
        code, err = _run_compiler(base)
    if code:
        raise RuntimeError(f"{' '.join(base)} failed: {err.strip()[:500]}")
    native_call = _load_native_call(name, so_path)
    native_cache.store(entry, so_path)
    return native_call


def _load_native_call(name: str, path: str):
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.ExtensionFileLoader(name, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)  # (multi-phase initialisation: its exec slot adds NativeCall)
    fpenv.use_c(module)
    return module.NativeCall


_MAX_CALL_ARGS = 256  # native_call.c's MAX_ARGS


def _build(source: str, straight_line: bool = False, opt: str | None = None) -> ctypes.CDLL:
    """The library built from `source` (once per process and source), at
    `opt` (else by its length: see below)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    with _build_lock:  # one build per source; builds of other sources go on beside it
        lock = _build_locks.setdefault(digest, threading.Lock())
    with lock:
        lib = _built.get(digest)
        if lib is not None:
            return lib
        cc = compiler_command()
        if cc is None:
            raise RuntimeError("no C compiler")
        flags = (opt or opt_level(source, straight_line)).split()
        entry = native_cache.key("loop", source, cc, flags)
        cached = native_cache.lookup(entry)  # (built by an earlier process: cache.py)
        if cached is not None:
            try:
                lib = ctypes.CDLL(cached)
            except OSError:
                lib = None
            if lib is not None:
                _enable_sums(lib, source)
                _built[digest] = lib
                return lib
        c_path, so_path = _build_path(f"loop_{digest}", ".c"), _build_path(f"loop_{digest}", ".so")
        with open(c_path, "w") as f:
            f.write(source)
        # No contraction or fast-math: the source's own arithmetic (casts,
        # choices, fma, signed zeros) must stay exactly as written. A long
        # source is mostly kernel calls: -O1 builds it in half the time,
        # and -O0 a straight-line program (run once a call, not once a
        # step) in half that again, for ~6% more time a call (an unrolled
        # 1000-step RNN: 1.7 s to build at -O1, 0.75 s at -O0). A short
        # source is vectorised (`_VECTOR_MAX_LINES`).
        # (Flags in $CC come first: ours, after them, win.)
        rest = ["-shared", "-fPIC", "-ffp-contract=off", "-o", so_path, c_path, "-lm"]
        done = _compile(cc, flags, rest)
        _remove(c_path)  # (the library stays: it is loaded from there)
        if done[1]:
            raise RuntimeError(f"{' '.join(done[0])} failed: {done[2].strip()[:500]}")
        lib = ctypes.CDLL(so_path)  # (its directory stays until the process exits: build_dir)
        native_cache.store(entry, so_path)
        _enable_sums(lib, source)
        _built[digest] = lib
        return lib


def opt_level(source: str, straight_line: bool = False) -> str:
    """The optimisation flags `source` is built with (see `_build`)."""
    lines = source.count("\n")
    if lines < _VECTOR_MAX_LINES:
        return " ".join(("-O2", *_VECTOR_FLAGS))
    return "-O2" if lines < _O2_MAX_LINES else "-O0" if straight_line else "-O1"


def _compile(cc: list, flags: list, rest: list) -> tuple:
    """(command, exit status, stderr) of the build with `flags` and this
    machine's instructions; a tuning flag the compiler refuses is left out,
    of this build and of its later ones."""
    name = " ".join(cc)
    while True:
        use = [f for f in flags if f not in _VECTOR_FLAGS or name not in _vector_refused]
        tuned = name not in _arch_refused
        cmd = [*cc, *use, *(_ARCH_FLAGS if tuned else ()), *rest]
        code, err = _run_compiler(cmd)
        if code and tuned and "march" in err:
            _arch_refused.add(name)
        elif code and "vect-cost-model" in err and any(f in _VECTOR_FLAGS for f in use):
            _vector_refused.add(name)
        else:
            return cmd, code, err


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def available() -> bool:
    """Whether native code can be built here (enabled, and a C compiler)."""
    return settings.ENABLED and compiler() is not None
