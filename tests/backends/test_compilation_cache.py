"""The persistent compilation cache (issue 27 item 4; docs/compilation_cache.md):
JAX's options and `jax.experimental.compilation_cache`; SHA-256 keys over
everything a compiled module depends on; a private (0700) directory; atomic
writes; entries checked (header, key, length, checksum) so a corrupt,
truncated or foreign entry is compiled again and replaced, never loaded; a
failing directory warns and the program continues. The IREE tests (a second
process reads the first's module) skip when IREE is not installed.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import pyjax
from pyjax._src import compilation_cache as cc
from pyjax._src import monitoring
from pyjax._src.backends import iree as iree_backend
from pyjax._src.backends.iree import cache as iree_cache
from pyjax.experimental.compilation_cache import compilation_cache as public_cc

needs_iree = pytest.mark.skipif(not iree_backend.available(),
                                reason="IREE is not installed (pip install -e '.[iree]')")
SRC = str(Path(__file__).resolve().parents[2] / "src")
OPTIONS = ("jax_compilation_cache_dir", "jax_enable_compilation_cache", "jax_persistent_cache_min_compile_time_secs",
           "jax_persistent_cache_min_entry_size_bytes", "jax_raise_persistent_cache_errors",
           "jax_compilation_cache_max_size", "jax_platforms")


@pytest.fixture
def cache_dir(tmp_path):
    """A fresh cache directory in use, every option restored afterwards."""
    before = {name: getattr(pyjax.config, name) for name in OPTIONS}
    cc.reset_cache()
    path = tmp_path / "cache"
    public_cc.set_cache_dir(str(path))
    pyjax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    yield path
    for name, value in before.items():
        pyjax.config.update(name, value)
    cc.reset_cache()


def _entries(path: Path) -> list[str]:
    return sorted(os.listdir(path)) if path.exists() else []


def _put(key: str, payload: bytes = b"payload" * 10, compile_s: float = 2.0) -> bool:
    return cc.put_executable_and_time(key, payload, compile_s)


# -- options and public names -------------------------------------------------


def test_options_have_jax_names_and_defaults():
    assert pyjax.config.jax_compilation_cache_dir is None
    assert pyjax.config.jax_enable_compilation_cache is True
    assert pyjax.config.jax_persistent_cache_min_compile_time_secs == 1.0
    assert pyjax.config.jax_persistent_cache_min_entry_size_bytes == 0
    assert pyjax.config.jax_raise_persistent_cache_errors is False
    assert pyjax.config.jax_compilation_cache_max_size == -1
    with pytest.raises(ValueError, match="float"):
        pyjax.config.update("jax_persistent_cache_min_compile_time_secs", "1")


def test_environment_sets_the_cache_options(tmp_path):
    code = ("import pyjax; c = pyjax.config; "
            "print(c.jax_compilation_cache_dir, c.jax_persistent_cache_min_compile_time_secs)")
    env = dict(os.environ, PYTHONPATH=SRC, JAX_COMPILATION_CACHE_DIR=str(tmp_path),
               JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0.25")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(tmp_path), "0.25"]


def test_public_module_sets_and_resets(cache_dir):
    assert pyjax.experimental.compilation_cache.compilation_cache is public_cc
    assert pyjax.config.jax_compilation_cache_dir == str(cache_dir)
    assert not cc.is_initialized()
    assert _put("k-1")
    assert cc.is_initialized() and cache_dir.is_dir()
    public_cc.reset_cache()
    assert not cc.is_initialized()


# -- keys ---------------------------------------------------------------------


class _Target:
    def __init__(self, driver="local-task", backend="llvm-cpu", flags=("--a",)):
        self.driver, self.backend, self.flags = driver, backend, flags


def test_key_covers_text_target_flags_and_version(cache_dir, monkeypatch):
    base = iree_cache.key("module @m {}", _Target(), "f")
    assert base.startswith("jit_f-") and len(base.split("-")[-1]) == 64
    assert iree_cache.key("module @m {}", _Target(), "f") == base
    assert iree_cache.key("module @n {}", _Target(), "f") != base
    assert iree_cache.key("module @m {}", _Target(flags=("--a", "--b")), "f") != base
    assert iree_cache.key("module @m {}", _Target(flags=("--a --b",)), "f") != \
        iree_cache.key("module @m {}", _Target(flags=("--a", "--b")), "f")
    assert iree_cache.key("module @m {}", _Target(backend="cuda"), "f") != base
    assert iree_cache.key("module @m {}", _Target(driver="local-sync"), "f") != base
    monkeypatch.setattr(cc, "FORMAT_VERSION", cc.FORMAT_VERSION + 1)
    assert iree_cache.key("module @m {}", _Target(), "f") != base
    monkeypatch.undo()
    iree_cache.compiler_version.cache_clear()
    monkeypatch.setattr(iree_cache, "compiler_version", lambda: "another compiler")
    assert iree_cache.key("module @m {}", _Target(), "f") != base


def test_no_key_without_a_directory():
    cc.reset_cache()
    try:
        assert pyjax.config.jax_compilation_cache_dir is None
        assert iree_cache.key("module @m {}", _Target(), "f") is None
    finally:
        cc.reset_cache()


# -- the directory --------------------------------------------------------------


def test_directory_is_created_private(cache_dir):
    nested = cache_dir / "a" / "b"
    public_cc.set_cache_dir(str(nested))
    old = os.umask(0)  # (the mode must not depend on the user's umask)
    try:
        assert _put("k-1")
    finally:
        os.umask(old)
    assert stat.S_IMODE(nested.stat().st_mode) == 0o700
    assert stat.S_IMODE((nested / "k-1").stat().st_mode) == 0o600


def test_a_directory_others_can_write_is_refused(cache_dir):
    cache_dir.mkdir()
    cache_dir.chmod(0o777)
    with pytest.warns(RuntimeWarning, match="refusing"):
        assert not _put("k-1")
    assert cc.get_executable_and_time("k-1") is None
    assert _entries(cache_dir) == []


def test_unwritable_directory_warns_once_and_continues(cache_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cc.tempfile, "mkstemp", refuse)  # (root ignores a read-only mode)
    with pytest.warns(RuntimeWarning, match="cannot write"):
        assert not _put("k-1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not _put("k-2")  # (warned once)
    assert cc.get_executable_and_time("k-1") is None


def test_a_file_where_the_directory_should_be_warns(cache_dir):
    cache_dir.write_text("not a directory")
    with pytest.warns(RuntimeWarning):
        assert not _put("k-1")


def test_raise_persistent_cache_errors(cache_dir):
    cache_dir.write_text("not a directory")
    pyjax.config.update("jax_raise_persistent_cache_errors", True)
    with pytest.raises(RuntimeError, match="persistent compilation cache"):
        _put("k-1")


# -- entries --------------------------------------------------------------------


def test_round_trip_and_thresholds(cache_dir):
    assert cc.get_executable_and_time("k-1") is None
    assert _put("k-1", b"abc", 1.5)
    assert cc.get_executable_and_time("k-1") == (b"abc", 1.5)
    pyjax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
    assert not _put("k-fast", b"abc", 0.5)
    pyjax.config.update("jax_persistent_cache_min_entry_size_bytes", 10_000)
    assert not _put("k-small", b"abc", 5.0)
    assert _entries(cache_dir) == ["k-1"]


def test_a_write_failing_midway_leaves_nothing(cache_dir, monkeypatch):
    assert _put("k-0")  # (the directory exists)

    def crash(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cc.os, "fsync", crash)  # after the bytes were written, before the rename
    with pytest.warns(RuntimeWarning, match="cannot write"):
        assert not _put("k-1")
    assert _entries(cache_dir) == ["k-0"]  # no temporary file, no partial entry
    assert cc.get_executable_and_time("k-1") is None


def _flip(blob: bytes) -> bytes:
    return blob[:-3] + bytes([blob[-3] ^ 1]) + blob[-2:]


@pytest.mark.parametrize("damage", ["flipped", "truncated", "foreign", "other_key", "empty", "header_only"])
def test_a_damaged_entry_is_not_loaded_and_is_replaced(cache_dir, damage):
    assert _put("k-1", b"good payload", 2.0)
    assert _put("k-2", b"other payload", 2.0)
    entry = cache_dir / "k-1"
    blob = entry.read_bytes()
    entry.write_bytes({"flipped": _flip(blob), "truncated": blob[:-5], "foreign": b"\x7fELF" + blob[4:],
                       "other_key": (cache_dir / "k-2").read_bytes(), "empty": b"",
                       "header_only": blob[:20]}[damage])
    with pytest.warns(RuntimeWarning, match="ignored and compiled again"):
        assert cc.get_executable_and_time("k-1") is None
    assert not entry.exists()  # (deleted: a fast recompile below the threshold must not leave it)
    assert _put("k-1", b"good payload", 2.0)
    assert cc.get_executable_and_time("k-1") == (b"good payload", 2.0)


def test_a_symlinked_entry_is_not_followed(cache_dir, tmp_path):
    assert _put("k-1")
    (tmp_path / "elsewhere").write_bytes((cache_dir / "k-1").read_bytes())
    (cache_dir / "k-1").unlink()
    (cache_dir / "k-1").symlink_to(tmp_path / "elsewhere")
    with pytest.warns(RuntimeWarning):
        assert cc.get_executable_and_time("k-1") is None


def test_max_size_evicts_least_recently_used(cache_dir):
    payload = b"x" * 1000
    assert _put("k-1", payload) and _put("k-2", payload)
    os.utime(cache_dir / "k-1", (1, 1))
    os.utime(cache_dir / "k-2", (2, 2))
    pyjax.config.update("jax_compilation_cache_max_size", 2500)
    assert _put("k-3", payload)
    assert _entries(cache_dir) == ["k-2", "k-3"]
    pyjax.config.update("jax_compilation_cache_max_size", 0)  # (0: the cache is off, as in JAX)
    cc.reset_cache()
    assert not _put("k-4", payload)


def test_events_as_jax_records_them(cache_dir):
    seen: list = []
    listener = lambda event, **kw: seen.append(event)  # noqa: E731
    durations: list = []
    duration_listener = lambda event, d, **kw: durations.append(event)  # noqa: E731
    monitoring.register_event_listener(listener)
    monitoring.register_event_duration_secs_listener(duration_listener)
    try:
        assert cc.is_cache_used()
        assert cc.get_executable_and_time("k-1") is None
        assert _put("k-1")
        assert cc.get_executable_and_time("k-1") is not None
    finally:
        monitoring._event_listeners.remove(listener)
        monitoring.unregister_event_duration_listener(duration_listener)
    assert seen == ["/jax/compilation_cache/tasks_using_cache", "/jax/compilation_cache/compile_requests_use_cache",
                    "/jax/compilation_cache/cache_misses", "/jax/compilation_cache/compile_requests_use_cache",
                    "/jax/compilation_cache/cache_hits"]
    assert durations == ["/jax/compilation_cache/compile_time_saved_sec",
                         "/jax/compilation_cache/cache_retrieval_time_sec"]


# -- the IREE backend -------------------------------------------------------------

_PROGRAM = textwrap.dedent("""
    import sys
    import pyjax, pyjax.numpy as jnp
    from pyjax._src.backends.iree import compile as c
    pyjax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    pyjax.experimental.compilation_cache.compilation_cache.set_cache_dir(sys.argv[1])
    f = pyjax.jit(lambda x: jnp.tanh(x) * 3.0 + x, backend="iree")
    unread = f(jnp.ones((64, 64)))  # (still on the device at exit)
    print(list(map(float, f(jnp.arange(3.0)))), c.stats["compiled"], c.stats["disk_hits"])
""")


def _run_program(path: Path) -> tuple[str, int, int]:
    env = dict(os.environ, PYTHONPATH=SRC)
    env.pop("PYJAX_BACKEND", None)
    out = subprocess.run([sys.executable, "-c", _PROGRAM, str(path)], env=env, capture_output=True, text=True,
                         check=True)
    values, compiled, hits = out.stdout.rsplit(maxsplit=2)
    return values, int(compiled), int(hits)


@needs_iree
def test_a_second_process_reads_the_module_and_compiles_nothing(tmp_path):
    path = tmp_path / "cache"
    first = _run_program(path)
    assert first[1:] == (2, 0) and len(_entries(path)) == 2
    second = _run_program(path)
    assert second == (first[0], 0, 2)


@needs_iree
def test_iree_recompiles_a_corrupt_entry_and_replaces_it(cache_dir):
    import pyjax.numpy as jnp
    from pyjax._src.backends.iree import compile as iree_compile

    def fresh():  # (a new function each time: jit's own cache keeps nothing for it)
        return pyjax.jit(lambda x: jnp.cos(x) - 0.5 * x, backend="iree")

    def forget():  # (this process's module cache)
        iree_compile.clear_cache()

    x = jnp.arange(4.0)
    want = jnp.cos(x) - 0.5 * x
    forget()
    assert np.allclose(fresh()(x), want, rtol=1e-6)
    [name] = _entries(cache_dir)
    good = (cache_dir / name).read_bytes()
    (cache_dir / name).write_bytes(_flip(good))
    forget()
    before = dict(iree_compile.stats)
    with pytest.warns(RuntimeWarning, match="ignored and compiled again"):
        assert np.allclose(fresh()(x), want, rtol=1e-6)
    assert iree_compile.stats["compiled"] == before["compiled"] + 1
    assert iree_compile.stats["disk_hits"] == before["disk_hits"]
    assert _entries(cache_dir) == [name]
    forget()
    assert np.allclose(fresh()(x), want, rtol=1e-6)
    assert iree_compile.stats["disk_hits"] == before["disk_hits"] + 1


@needs_iree
def test_results_on_the_device_are_freed_before_the_runtime_at_exit():
    # A process whose modules all came from the persistent cache crashed at
    # exit (mlp_train_step's unread results freed during teardown): the
    # runtime frees live results' buffers in an atexit hook.
    import pyjax.numpy as jnp
    from pyjax._src.backends.iree import runtime

    held = pyjax.jit(lambda x: x * 2.0, backend="iree")(jnp.ones(3))
    assert held.device_buffer is not None and not held.on_host()
    runtime._release_buffers()
    assert held.device_buffer is None
