"""The native library cache across processes (native/cache.py): a library
built by one process is loaded by the next without running the compiler; a
torn or foreign entry is built again; an unsafe directory is not used."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from pyjax._src.backends.numpy.native import build as native_build
from pyjax._src.backends.numpy.native import cache as native_cache
from pyjax._src.backends.numpy.native import settings as native_settings

pytestmark = pytest.mark.skipif(native_build.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

# A fresh process builds the scatter kernel and NativeCall; prints how many times it ran the compiler.
_CHILD = textwrap.dedent("""
    from pyjax._src.backends.numpy.native import build, scatter
    runs = []
    real = build._run_compiler
    build._run_compiler = lambda cmd: runs.append(cmd) or real(cmd)
    lib = build._build(scatter._SOURCE, opt="-O3")
    assert build._native_call_type() is not None
    print(len(runs))
""")


def _child(cache_dir: str) -> int:
    env = {**os.environ, "PYJAX_NATIVE_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_what_the_first_built(tmp_path):
    where = str(tmp_path / "cache")
    assert _child(where) >= 2  # (the kernel and NativeCall built)
    assert oct(os.stat(where).st_mode & 0o777) == "0o700"
    entries = sorted(os.listdir(where))
    assert len([e for e in entries if e.endswith(".so")]) == 2
    assert len([e for e in entries if e.endswith(".sha256")]) == 2
    assert _child(where) == 0  # nothing compiled: both loaded from the cache


def test_a_torn_entry_is_built_again_not_loaded(tmp_path):
    where = str(tmp_path / "cache")
    _child(where)
    for name in os.listdir(where):
        if name.endswith(".so"):
            with open(os.path.join(where, name), "r+b") as f:
                f.truncate(100)
    assert _child(where) >= 2
    assert _child(where) == 0  # (the rebuilt entries replaced the torn ones)


def test_an_empty_setting_turns_it_off_and_an_unsafe_directory_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("PYJAX_NATIVE_CACHE_DIR", "")
    assert native_cache.directory() is None
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # (others may write: a library there could be anyone's)
    monkeypatch.setenv("PYJAX_NATIVE_CACHE_DIR", str(shared))
    assert native_cache.directory() is None
    os.chmod(shared, 0o700)
    native_cache._directory.cache_clear()
    assert native_cache.directory() == str(shared)


def test_the_key_follows_the_source_flags_and_versions():
    cc = native_build.compiler_command()
    base = native_cache.key("loop", "int f(void){return 1;}", cc, ["-O2"])
    assert native_cache.key("loop", "int f(void){return 2;}", cc, ["-O2"]) != base
    assert native_cache.key("loop", "int f(void){return 1;}", cc, ["-O3"]) != base
    assert native_cache.key("loop", "int f(void){return 1;}", cc, ["-O2"], extension=True) != base
    assert native_cache.key("loop", "int f(void){return 1;}", cc, ["-O2"]) == base
