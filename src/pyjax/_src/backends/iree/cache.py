"""The IREE backend's entries in the persistent compilation cache
(pyjax._src.compilation_cache; docs/compilation_cache.md): a module's vmfb
bytes, keyed by everything they depend on.

The key hashes the module text, the runtime driver, the compiler's target
backend and flags, IREE's compiler version and revision, and, because
`--iree-llvmcpu-target-cpu=host` compiles for this machine's CPU, the host
CPU's model and feature flags: a cache directory shared between machines
never hands one CPU code built for another.
"""

from __future__ import annotations

import functools
import platform

from pyjax._src import compilation_cache


@functools.cache
def compiler_version() -> str:
    """IREE's compiler version and source revision (part of every key)."""
    try:
        from iree.compiler import version

        return f"{version.VERSION} {sorted(getattr(version, 'REVISIONS', {}).items())}"
    except (ImportError, AttributeError):
        from importlib.metadata import PackageNotFoundError, version as dist_version

        try:
            return dist_version("iree-base-compiler")
        except PackageNotFoundError:
            return "unknown"


@functools.cache
def host_cpu() -> str:
    """The host CPU as `target-cpu=host` sees it: machine, model and feature flags."""
    parts = [platform.machine(), platform.processor()]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            seen = set()
            for line in f:
                field = line.split(":", 1)[0].strip()
                if field in ("model name", "flags", "Features", "CPU part") and field not in seen:
                    seen.add(field)
                    parts.append(line.strip())
    except OSError:  # (not Linux: the machine and processor names alone)
        pass
    return "\n".join(parts)


def key(text: str, target, name: str) -> str | None:
    """The persistent cache key of `text` compiled for `target`, or None
    when the persistent cache is not in use."""
    if not compilation_cache.is_cache_used():
        return None
    cpu = host_cpu() if target.backend == "llvm-cpu" else ""
    return compilation_cache.get_cache_key(f"jit_{name}", "iree", text, target.driver, target.backend,
                                           compiler_version(), cpu, *target.flags)


def load(cache_key: str | None) -> bytes | None:
    """The vmfb stored under `cache_key`, or None (no cache, no valid entry)."""
    if cache_key is None:
        return None
    found = compilation_cache.get_executable_and_time(cache_key)
    return None if found is None else found[0]


def store(cache_key: str | None, vmfb: bytes, compile_s: float) -> None:
    """Offers a freshly compiled vmfb to the persistent cache."""
    if cache_key is not None:
        compilation_cache.put_executable_and_time(cache_key, vmfb, compile_s)
