"""The backend table (JAX's xla_bridge): pyjax has one backend, the CPU,
which runs jaxprs as NumPy code. Libraries read the table to learn the
platform and its devices; a backend factory registered here is recorded
(pyjax cannot run another backend) and listed by name.
"""

from __future__ import annotations

import sys
from typing import Any

from pyjax._src import config


class CpuClient:
    """The CPU backend as JAX's client object shows it."""

    platform = "cpu"
    platform_version = "pyjax numpy backend"
    runtime_type = "pyjax"

    def devices(self) -> list:
        # jax.devices() is the one list of devices (the package is imported
        # whenever a library asks a backend for them).
        return list(sys.modules["pyjax"].devices())

    def local_devices(self) -> list:
        return list(sys.modules["pyjax"].local_devices())

    def device_count(self) -> int:
        return len(self.devices())

    def local_device_count(self) -> int:
        return len(self.local_devices())

    def process_index(self) -> int:
        return sys.modules["pyjax"].process_index()

    def __repr__(self):
        return "<pyjax CpuClient>"


_CPU = CpuClient()
_backends: dict[str, Any] = {"cpu": _CPU}
# name -> (factory, priority): the factories libraries registered (not run).
_backend_factories: dict[str, tuple] = {}
_backend_caches: list = []


def backends() -> dict[str, Any]:
    """The initialised backends by platform name."""
    return dict(_backends)


def get_backend(platform=None) -> Any:
    """The backend of `platform` (the default, "cpu", when None)."""
    if platform is None or platform == "cpu" or platform is _CPU:
        return _CPU
    if isinstance(platform, str) and platform.lower() in ("gpu", "cuda", "rocm", "tpu", "metal"):
        raise RuntimeError(f"Backend '{platform}' failed to initialize: pyjax runs on the CPU only. "
                           "Available backends are ['cpu']")
    raise RuntimeError(f"Unknown backend {platform}")


def get_default_device() -> Any:
    """The device computations run on by default."""
    return _CPU.local_devices()[0]


def backend_xla_version(platform=None) -> int | None:
    """The XLA version of a backend: None, there is no XLA in pyjax."""
    return None


def clear_backends(_crash=False) -> None:
    """Drops the compiled programs (the one backend stays)."""
    clear_in_memory_compilation_cache()


def clear_in_memory_compilation_cache() -> None:
    """Empties jit's caches of traced and compiled programs."""
    from pyjax._src.jit import clear_caches

    clear_caches()
    for cache in _backend_caches:
        clear = getattr(cache, "cache_clear", None) or getattr(cache, "clear", None)
        if clear is not None:
            clear()


def register_backend_cache(cache: Any, for_what: str) -> None:
    """Registers a cache that clear_backends empties too."""
    _backend_caches.append(cache)


def register_backend_factory(name: str, factory, *, priority: int = 0, fail_quietly: bool = True,
                             experimental: bool = False, make_topology=None, c_api=None) -> None:
    """Records a backend factory by name (pyjax runs only its own CPU backend)."""
    _backend_factories[name] = (factory, priority)


def get_compile_options(num_replicas: int, num_partitions: int, device_assignment=None,
                        env_options_overrides=None, fdo_profile=None, detailed_logging: bool = True, backend=None):
    """XLA compile options: pyjax compiles jaxprs to NumPy code, not with XLA."""
    raise NotImplementedError("get_compile_options: pyjax does not compile with XLA (StableHLO lowering and XLA "
                              "compilation are issue 27)")


def default_backend() -> str:
    return "cpu"


__all__ = ["CpuClient", "backend_xla_version", "backends", "clear_backends", "clear_in_memory_compilation_cache",
           "default_backend", "get_backend", "get_compile_options", "get_default_device", "register_backend_cache",
           "register_backend_factory"]
