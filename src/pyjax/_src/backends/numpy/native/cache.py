"""Native libraries kept across processes: a library built once is loaded
by later processes instead of built again.

The native tier builds its C in the background, so a fresh process runs
Python until its builds finish (a second or more for a convolution kernel
on a busy machine). With this cache a script's second run has its native
code at the first call that asks for it.

Where: `$PYJAX_NATIVE_CACHE_DIR`, else `$XDG_CACHE_HOME/pyjax/native`
(`~/.cache/pyjax/native`). An empty `PYJAX_NATIVE_CACHE_DIR` turns the
cache off. The directory is made 0700; one that another user owns, or that
others may write, is not used (a library there would run as this user).

The key is a SHA-256 over what the library depends on: the source, the
compiler (its path, size and modification time: an upgraded compiler is
another key), the flags, this machine's instruction set (builds use
`-march=native`), and for the Python extension this Python's and this
NumPy's versions. An entry is written atomically (a temporary file renamed
into place) beside a file holding the library's own SHA-256; a library
whose bytes do not match it (a torn or foreign file) is built again, never
loaded.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import sys
import tempfile

_VERSION = "1"  # (bumped when the entry format or what keys it changes)


@functools.lru_cache(maxsize=4)
def _directory(configured: str | None) -> str | None:
    if configured is not None and not configured.strip():
        return None
    if configured is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        configured = os.path.join(base, "pyjax", "native")
    path = os.path.abspath(configured)
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except OSError:
        return None
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        from pyjax._src.backends.numpy.native.tiering import log

        log(f"The native library cache {path} is not used: another user owns it or others may write to it", False)
        return None
    return path


def directory() -> str | None:
    """The cache's directory (made on first use), or None when it is off or unusable."""
    return _directory(os.environ.get("PYJAX_NATIVE_CACHE_DIR"))


@functools.lru_cache(maxsize=1)
def _machine() -> str:
    # -march=native: the instructions this CPU has (Linux lists them), else its name.
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith(("flags", "Features"))), "")
    except OSError:
        pass
    return f"{platform.machine()}|{platform.processor()}|{flags.strip()}"


def _compiler(command: list[str]) -> str:
    try:
        info = os.stat(command[0])
        return f"{' '.join(command)}|{info.st_size}|{info.st_mtime_ns}"
    except OSError:
        return " ".join(command)


def key(kind: str, source: str, command: list[str], flags: list[str] | tuple, extension: bool = False) -> str:
    """The cache key of a library built from `source` by `command` with `flags`."""
    import numpy as np

    parts = [_VERSION, kind, _compiler(command), " ".join(flags), _machine(), source]
    if extension:  # (a Python extension: built against this Python's and this NumPy's headers)
        parts += [sys.version, np.__version__]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _paths(where: str, entry: str) -> tuple[str, str]:
    return os.path.join(where, entry + ".so"), os.path.join(where, entry + ".sha256")


def lookup(entry: str) -> str | None:
    """The path of the cached library `entry` whose bytes match its digest, or None."""
    where = directory()
    if where is None:
        return None
    lib, digest = _paths(where, entry)
    try:
        with open(digest) as f:
            want = f.read().strip()
        with open(lib, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None
    return lib if got == want else None


def store(entry: str, built: str) -> None:
    """Keeps the library at `built` as `entry` (errors ignored: the cache is an optimisation)."""
    where = directory()
    if where is None:
        return
    lib, digest = _paths(where, entry)
    try:
        with open(built, "rb") as f:
            data = f.read()
        _write(where, lib, data)
        _write(where, digest, hashlib.sha256(data).hexdigest().encode())
    except OSError:
        pass


def _write(where: str, path: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=where, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)  # (atomic: a reader sees the old entry or the whole new one)
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
