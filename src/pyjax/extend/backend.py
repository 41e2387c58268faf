"""pyjax.extend.backend: the backends pyjax runs on (one: the CPU, NumPy code)."""

from __future__ import annotations

from typing import Any

from pyjax._src.xla_bridge import (
    backend_xla_version, backends, clear_backends, clear_in_memory_compilation_cache, get_backend,
    get_compile_options, get_default_device, register_backend_cache, register_backend_factory,
)

__all__ = ["backend_xla_version", "backends", "clear_backends", "clear_in_memory_compilation_cache", "get_backend",
           "get_compile_options", "get_default_device", "register_backend_cache", "register_backend_factory"]
