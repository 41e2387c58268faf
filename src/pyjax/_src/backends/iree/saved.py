"""The IREE platform's part of `jax.experimental.serialize_executable`: a
compiled function saved as its IREE module (vmfb), with the target and the
IREE compiler version it was compiled by; loaded back into the runtime
without compiling when both match this process's, else left to compile again
from the jaxpr on first call."""

from __future__ import annotations


def _compiler_version() -> str:
    try:
        from importlib.metadata import version

        return version("iree-base-compiler")
    except Exception:  # noqa: BLE001  (no distribution metadata: unknown version, never matched)
        return "unknown"


def save(compiled, platform: str) -> dict:
    """The IREE module of `compiled` (compiled now if it was not yet)."""
    from pyjax._src.backends.iree import compile as compile_lib, runtime
    from pyjax._src.serialize_executable import b64

    traced = compiled._traced
    text, kept = compile_lib.module_text(traced.jaxpr, traced.fun_name, traced.out_tree)
    vmfb = compile_lib.compile_module(text, traced.fun_name)  # (the per-process cache: no second compile)
    target = runtime.target()
    return {"vmfb": b64(vmfb), "kept": list(kept), "backend": target.backend, "flags": list(target.flags),
            "compiler": _compiler_version()}


def load(saved: dict, jaxpr, name: str, out_tree):
    """A runtime executable of the saved module, or None when it was
    compiled for another target or by another IREE version."""
    from pyjax._src.backends.iree import runtime
    from pyjax._src.serialize_executable import unb64

    target = runtime.target()
    if (saved["backend"], tuple(saved["flags"]), saved["compiler"]) != (target.backend, target.flags,
                                                                        _compiler_version()):
        return None
    return runtime.Executable(name, unb64(saved["vmfb"]), saved["kept"], jaxpr.in_avals, jaxpr.out_avals)


def register() -> None:
    from pyjax._src import serialize_executable

    serialize_executable.register_platform_codec("iree", save, load)
