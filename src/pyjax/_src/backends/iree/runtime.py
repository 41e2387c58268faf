"""The IREE runtime: one driver and device per process, compiled modules
loaded once, and the call of a module's `@main` on pyjax's values.

The driver is the first that works of `PYJAX_IREE_DRIVER` (when set), the
CUDA driver when it finds a GPU, and the host CPU's `local-task`. The
compiler's target follows the driver (`llvm-cpu` for the host, `cuda` for a
GPU, `--iree-cuda-target` from `PYJAX_IREE_CUDA_TARGET` when set), plus
the flags in `PYJAX_IREE_FLAGS`.
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import Any, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.backends.iree.array import IreeArray, host_copy

_lock = threading.Lock()
_state: dict[str, Any] = {}  # "config", "driver": made once per process


class Target:
    """Where modules compile for and run: the runtime driver and the
    compiler's target backend and flags."""

    def __init__(self, driver: str, backend: str, flags: tuple[str, ...]):
        self.driver, self.backend, self.flags = driver, backend, flags

    def __repr__(self) -> str:
        return f"Target(driver={self.driver!r}, backend={self.backend!r}, flags={self.flags!r})"


# f64 stays f64 (jax_enable_x64): IREE's input pipeline may demote it otherwise.
# No const-eval: it compiles and runs a second program inside every compile to fold
# constant expressions, which the hoisted initializers compute once at load anyway
# (docs/iree.md, "Compile time").
_COMMON_FLAGS = ("--iree-input-demote-f64-to-f32=false", "--iree-opt-const-eval=false")
# Data tiling packs matmul operands into the target's tile layout (docs/iree.md: measured).
# On the CPU it starts in the global-optimization phase: IREE 3.13's default path (from
# dispatch creation) fails to vectorize a dispatch that unpacks a matmul's result and packs
# it again for a later matmul as the other operand ("operations with large vector sizes"):
# a transformer's gradient. Both paths give the same bits and speed where both compile.
_CPU_FLAGS = ("--iree-opt-data-tiling=false", "--iree-global-opt-data-tiling=true", "--iree-llvmcpu-target-cpu=host")
_CUDA_FLAGS = ("--iree-opt-data-tiling=true",)


def _user_flags() -> tuple[str, ...]:
    # PYJAX_IREE_FLAGS: more iree-compile flags, space-separated (part of the cache key).
    return tuple(os.environ.get("PYJAX_IREE_FLAGS", "").split())


def _cuda_has_devices(rt) -> bool:
    try:
        return bool(rt.get_driver("cuda").query_available_devices())
    except (RuntimeError, ValueError, OSError):  # no libcuda, or no GPU
        return False


def _choose_target(rt) -> Target:
    wanted = os.environ.get("PYJAX_IREE_DRIVER")
    if wanted == "cuda" or (wanted is None and _cuda_has_devices(rt)):
        cuda_target = os.environ.get("PYJAX_IREE_CUDA_TARGET")
        flags = _COMMON_FLAGS + _CUDA_FLAGS + ((f"--iree-cuda-target={cuda_target}",) if cuda_target else ())
        return Target("cuda", "cuda", flags + _user_flags())
    return Target(wanted or "local-task", "llvm-cpu", _COMMON_FLAGS + _CPU_FLAGS + _user_flags())


def target() -> Target:
    """The process's target (chosen on first use)."""
    found = _state.get("target")
    if found is None:
        import iree.runtime as rt

        with _lock:
            found = _state.setdefault("target", _choose_target(rt))
    return found


def config():
    """The runtime's `Config` (VM instance and HAL device), made once per process."""
    found = _state.get("config")
    if found is None:
        import iree.runtime as rt

        with _lock:
            found = _state.get("config")
            if found is None:
                found = _state["config"] = _make_config(rt, target())
                atexit.register(_release_buffers)
    return found


class IreeDeviceError(RuntimeError):
    """IREE's runtime has no device for the chosen driver."""


def _make_config(rt, chosen: Target):
    try:
        return rt.Config(chosen.driver)
    except (RuntimeError, ValueError) as e:
        how = ("PYJAX_IREE_DRIVER=" + chosen.driver) if os.environ.get("PYJAX_IREE_DRIVER") else "found a GPU"
        why = str(e.__cause__ or e).strip().rstrip(".")  # (IREE's own message is the cause's)
        raise IreeDeviceError(
            f"the IREE backend could not create a device for driver '{chosen.driver}' ({how}): {why}. "
            "Unset PYJAX_IREE_DRIVER to use the host CPU ('local-task'), or name a driver this "
            "machine has.") from None


def _release_buffers() -> None:
    """At exit, frees the device buffers results still hold, while the
    runtime is alive: freed later, during the interpreter's teardown, they
    crash the process (seen whenever no module was compiled in-process,
    e.g. every module read from the persistent compilation cache)."""
    import gc

    for obj in gc.get_objects():
        if type(obj) is IreeArray:
            obj.device_buffer = None


def device_name() -> str:
    """The driver name of the device modules run on (`local-task`, `cuda`, ...)."""
    return target().driver


class Executable:
    """A compiled module's `@main`, called on flat pyjax values.

    `kept[i]` says whether flat argument i is an input of `@main` (unused
    inputs are pruned before lowering, as JAX does); `out_avals` are the
    jaxpr's output avals, one result each."""

    __slots__ = ("name", "invoker", "kept", "in_avals", "out_avals", "key_outs", "_outs")

    def __init__(self, name: str, vmfb: bytes, kept: Sequence[bool], in_avals, out_avals):
        import iree.runtime as rt

        cfg = config()
        context = rt.SystemContext(config=cfg)
        module = rt.VmModule.copy_buffer(cfg.vm_instance, vmfb)
        context.add_vm_module(module)
        self.name = name
        self.invoker = getattr(context.modules, module.name)["main"]
        self.kept = tuple(kept)
        self.in_avals = [a for a, k in zip(in_avals, kept, strict=True) if k]
        self.out_avals = list(out_avals)
        self.key_outs = any(_key_impl(a) is not None for a in self.out_avals)

    def __call__(self, flat_args: Sequence[Any]) -> list:
        kept = self.kept
        args = [_to_device_value(x, a) for x, a in zip([x for x, k in zip(flat_args, kept) if k], self.in_avals)]
        outs = self.invoker(*args)
        if type(outs) is not tuple:
            outs = () if outs is None else (outs,)
        if self.key_outs:
            return [_key_result(o, a) if _key_impl(a) is not None else IreeArray(o, a)
                    for o, a in zip(outs, self.out_avals, strict=True)]
        return [IreeArray(o, a) for o, a in zip(outs, self.out_avals, strict=True)]


def _key_impl(aval):
    return getattr(aval.dtype, "_impl", None)


def _key_result(buffer, aval):
    # A key array's record buffer (what the NumPy backend and key ops read),
    # made from the module's uint32 key data.
    from pyjax._src.array import Array
    from pyjax._src.random.prng import key_buffer

    return Array(key_buffer(host_copy(buffer), aval.dtype._impl), aval)


_PY_SCALARS = frozenset({bool, int, float, complex})


def _to_device_value(x, aval):
    """What the invoker takes for one argument: an IREE buffer as it is,
    else a C-contiguous NumPy array of the aval's (physical) dtype."""
    if type(x) is IreeArray:
        buffer = x.device_buffer
        if buffer is not None:
            return buffer
    t = type(x)
    if t in _PY_SCALARS:
        value = np.asarray(x, core.python_scalar_aval(t).dtype)
    elif isinstance(x, core.Tracer):
        from pyjax._src import errors

        raise errors.escaped_tracer_error(x)
    else:
        value = getattr(x, "_value", None)
        if value is None or getattr(x, "aval", None) is None:
            value = np.asarray(x, dtypes.canonicalize_dtype(core.concrete_aval(x).dtype))
    if _key_impl(aval) is not None:
        from pyjax._src.random.prng import physical_keys

        value = physical_keys(value)
    value = np.asarray(value)
    return value if value.flags.c_contiguous else np.ascontiguousarray(value)
