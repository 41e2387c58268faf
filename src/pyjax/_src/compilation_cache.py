"""The persistent compilation cache: compiled programs kept on disk between
processes (JAX's `jax_compilation_cache_dir`; docs/compilation_cache.md).

A backend asks `get_executable_and_time(key)` before compiling and offers
the result to `put_executable_and_time(key, payload, compile_s)` after. The
key is a SHA-256 (`get_cache_key`) over everything the payload depends on;
the backend names the parts (for IREE: the module text, the target, the
compiler's version and flags, and `FORMAT_VERSION`).

Trust: the cache directory is created 0700 and an existing one that others
may write to (group or world writable, or owned by another user) is refused:
anyone who can write an entry can make this process run their code. Each
entry is written to a temporary file in the directory and renamed into place
(`os.replace`), so a reader sees a whole entry or none. Each entry starts
with a header naming its key and the SHA-256 and length of its payload; an
entry whose header or checksum does not match (corrupt, truncated, written
for another key or by another program) is deleted and compiled again, never
loaded. No read or write failure stops the program: it warns once per kind
(or raises, under `jax_raise_persistent_cache_errors`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import struct
import tempfile
import threading
import time
import warnings

from pyjax._src import config, monitoring

__all__ = ["get_cache_key", "get_executable_and_time", "is_cache_used", "is_initialized",
           "is_persistent_cache_enabled", "put_executable_and_time", "reset_cache", "set_cache_dir"]

# Part of every key: bump it when the entry format or what a payload means changes.
FORMAT_VERSION = 1
_MAGIC = b"PYJAXCC\x01"
_HEAD = struct.Struct("<H")  # key length
_TAIL = struct.Struct("<32sQd")  # payload SHA-256, payload length, compile seconds

TASKS_USING_CACHE_EVENT = "/jax/compilation_cache/tasks_using_cache"
COMPILE_REQUESTS_EVENT = "/jax/compilation_cache/compile_requests_use_cache"
CACHE_HITS_EVENT = "/jax/compilation_cache/cache_hits"
CACHE_MISSES_EVENT = "/jax/compilation_cache/cache_misses"
TIME_SAVED_EVENT = "/jax/compilation_cache/compile_time_saved_sec"
RETRIEVAL_TIME_EVENT = "/jax/compilation_cache/cache_retrieval_time_sec"


class CacheEntryError(ValueError):
    """An entry that is not a whole entry written for the key asked for."""


_lock = threading.Lock()
_state: dict = {"cache": None, "initialized": False, "checked": False, "used": False}
_warned: set[str] = set()


def set_cache_dir(path) -> None:
    """Sets the persistent compilation cache directory (`jax_compilation_cache_dir`).

    The cache is trusted: whoever can write to the directory can make this
    process run code, so pyjax refuses a directory others may write to."""
    config.config.update("jax_compilation_cache_dir", None if path is None else os.fspath(path))


def reset_cache() -> None:
    """Gets back to the pristine, uninitialized state: the next compilation
    opens the cache directory named then."""
    with _lock:
        _state.update(cache=None, initialized=False, checked=False, used=False)
    _warned.clear()


def is_initialized() -> bool:
    """Whether a cache directory has been opened in this process."""
    return _state["cache"] is not None


def is_persistent_cache_enabled() -> bool:
    """Whether a cache directory is set and the cache is enabled."""
    return (config.compilation_cache_dir.value is not None and config.enable_compilation_cache.value
            and config.compilation_cache_max_size.value != 0)


def is_cache_used() -> bool:
    """Whether compilations consult the persistent cache; the first call in a
    task records JAX's once-per-task event."""
    with _lock:
        if not _state["checked"]:
            _state["checked"] = True
            _state["used"] = is_persistent_cache_enabled()
            if _state["used"]:
                monitoring.record_event(TASKS_USING_CACHE_EVENT)
            elif not monitoring._cache_checked[0]:  # (the NumPy backend's once-per-task event, said once)
                monitoring.record_event(monitoring.CACHE_DISABLED_EVENT)
            monitoring._cache_checked[0] = True
        return _state["used"]


def get_cache_key(name: str, *parts: str | bytes) -> str:
    """`name` (made file-name safe) and the SHA-256 of `FORMAT_VERSION` and
    `parts`, each length-prefixed so that no two part lists hash alike."""
    digest = hashlib.sha256()
    for part in (str(FORMAT_VERSION), *parts):
        data = part.encode() if isinstance(part, str) else bytes(part)
        digest.update(struct.pack("<Q", len(data)))
        digest.update(data)
    return f"{re.sub(r'[^A-Za-z0-9_.]', '_', name)[:64]}-{digest.hexdigest()}"


def encode_entry(key: str, payload: bytes, compile_s: float) -> bytes:
    """An entry's bytes: magic, key, payload checksum and length, compile time, payload."""
    key_bytes = key.encode()
    return b"".join((_MAGIC, _HEAD.pack(len(key_bytes)), key_bytes,
                     _TAIL.pack(hashlib.sha256(payload).digest(), len(payload), compile_s), payload))


def decode_entry(key: str, blob: bytes) -> tuple[bytes, float]:
    """The payload and compile time of an entry read for `key`; raises
    `CacheEntryError` unless it is a whole entry written for `key`."""
    if not blob.startswith(_MAGIC):
        raise CacheEntryError("not a pyjax cache entry of this format")
    key_bytes, at = key.encode(), len(_MAGIC) + _HEAD.size
    if len(blob) < at or _HEAD.unpack_from(blob, len(_MAGIC))[0] != len(key_bytes) \
            or blob[at:at + len(key_bytes)] != key_bytes:
        raise CacheEntryError("written for another key")
    at += len(key_bytes)
    if len(blob) < at + _TAIL.size:
        raise CacheEntryError("truncated header")
    checksum, length, compile_s = _TAIL.unpack_from(blob, at)
    payload = blob[at + _TAIL.size:]
    if len(payload) != length:
        raise CacheEntryError(f"payload of {len(payload)} bytes where the header says {length}")
    if hashlib.sha256(payload).digest() != checksum:
        raise CacheEntryError("payload checksum mismatch")
    return payload, compile_s


def _problem(kind: str, message: str) -> None:
    # A cache failure never stops the program (unless asked): one warning per kind.
    if config.raise_persistent_cache_errors.value:
        raise RuntimeError(f"persistent compilation cache: {message}")
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(f"persistent compilation cache: {message} (continuing without it)", RuntimeWarning,
                      stacklevel=4)


def _open_directory(path: str) -> str | None:
    """`path` made (0700) or checked private to this user, or None (warned)."""
    path = os.path.abspath(os.path.expanduser(path))
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except OSError as e:
        _problem("directory", f"cannot create {path!r}: {e}")
        return None
    if not stat.S_ISDIR(info.st_mode):
        _problem("directory", f"{path!r} is not a directory")
        return None
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
        _problem("directory", f"refusing {path!r}: it is writable by others or owned by another user, and "
                 "whoever can write an entry can run code in this process (chmod 700 it)")
        return None
    return path


def _cache_dir() -> str | None:
    if not _state["initialized"]:
        with _lock:
            if not _state["initialized"]:
                _state["initialized"] = True
                path = config.compilation_cache_dir.value
                _state["cache"] = _open_directory(path) if path and is_persistent_cache_enabled() else None
    return _state["cache"]


def get_executable_and_time(key: str) -> tuple[bytes, float] | None:
    """The payload and original compile time stored under `key`, or None
    (no cache, no entry, or an entry that fails its checks: deleted).
    Records JAX's request, hit and time-saved events."""
    directory = _cache_dir()
    if directory is None:
        return None
    monitoring.record_event(COMPILE_REQUESTS_EVENT)
    start = time.monotonic()
    entry = os.path.join(directory, key)
    try:
        fd = os.open(entry, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        _problem("read", f"cannot read {entry!r}: {e}")
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            payload, compile_s = decode_entry(key, f.read())
        os.utime(entry)  # (least recently used first when the cache is over its size)
    except (CacheEntryError, OSError) as e:
        _problem("corrupt", f"entry {entry!r} ignored and compiled again: {e}")
        _remove(entry)
        return None
    retrieval_s = time.monotonic() - start
    monitoring.record_event(CACHE_HITS_EVENT)
    monitoring.record_event_duration_secs(TIME_SAVED_EVENT, compile_s - retrieval_s)
    monitoring.record_event_duration_secs(RETRIEVAL_TIME_EVENT, retrieval_s)
    return payload, compile_s


def put_executable_and_time(key: str, payload: bytes, compile_s: float) -> bool:
    """Stores `payload` under `key` when it took at least
    `jax_persistent_cache_min_compile_time_secs` to compile and is at least
    `jax_persistent_cache_min_entry_size_bytes` long; whether it was written."""
    directory = _cache_dir()
    if directory is None or compile_s < config.persistent_cache_min_compile_time_secs.value:
        return False
    blob = encode_entry(key, payload, compile_s)
    if len(blob) < config.persistent_cache_min_entry_size_bytes.value:
        return False
    monitoring.record_event(CACHE_MISSES_EVENT)
    try:
        _write_atomically(directory, key, blob)
    except OSError as e:
        _problem("write", f"cannot write an entry to {directory!r}: {e}")
        return False
    _evict(directory, config.compilation_cache_max_size.value)
    return True


def _write_atomically(directory: str, key: str, blob: bytes) -> None:
    # A temporary file (0600) renamed over the entry: readers see all of it or none.
    fd, temp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, os.path.join(directory, key))
    except BaseException:
        _remove(temp)
        raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _evict(directory: str, max_size: int) -> None:
    """Deletes least recently used entries until the cache fits `max_size` bytes (-1: no limit)."""
    if max_size < 0:
        return
    try:
        entries = [e for e in os.scandir(directory) if e.is_file(follow_symlinks=False) and not e.name.startswith(".")]
        sized = sorted(((e.stat().st_mtime, e.stat().st_size, e.path) for e in entries))
    except OSError as e:
        _problem("evict", f"cannot list {directory!r}: {e}")
        return
    total = sum(size for _, size, _ in sized)
    for _, size, path in sized:
        if total <= max_size:
            break
        _remove(path)
        total -= size
