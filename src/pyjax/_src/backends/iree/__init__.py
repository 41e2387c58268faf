"""The IREE backend: jitted functions compiled by IREE and run by its runtime.

    compile.py   jaxpr -> StableHLO text (backends/stablehlo) -> IREE bytecode,
                 cached per process by (module text, target, flags)
    runtime.py   the driver and device (host CPU `local-task`, or CUDA when
                 IREE's CUDA driver finds a GPU), loading a module, calling
                 its `@main` on flat pyjax values
    array.py     IreeArray: a result whose buffer stays on the IREE device
                 until read on the host
    spmd.py      programs holding shard_map: per device, each device's
                 program between collectives compiled by IREE

Selected by `jax.config.update('jax_platforms', 'iree')`, `JAX_PLATFORMS=iree`
or `PYJAX_BACKEND=iree` in the environment (which only pyjax reads), or per
function by `jax.jit(f, backend='iree')`. Only top-level jitted calls run
here; eager operations stay on the NumPy backend. `install()` registers the
platform without importing IREE: the packages (`pip install 'pyjax[iree]'`)
are needed by the first call that runs on it.
"""

from __future__ import annotations

import os

__all__ = ["IreeUnsupportedError", "available", "install"]

PLATFORM = "iree"


class IreeUnavailableError(ImportError):
    """The IREE backend was selected but IREE's packages are not installed."""


def available() -> bool:
    """Whether IREE's compiler and runtime can be imported."""
    try:
        import iree.compiler  # noqa: F401
        import iree.runtime  # noqa: F401
    except ImportError:
        return False
    return True


def compile_jaxpr(jaxpr, name: str, out_tree=None):
    """jit's compiler for the `iree` platform: an executable of the flat arguments."""
    if not available():
        raise IreeUnavailableError(
            f"jit({name}) was to run on the IREE backend, but IREE is not installed: "
            "pip install 'pyjax[iree]' (iree-base-compiler and iree-base-runtime)")
    from pyjax._src.backends.iree import compile as compile_lib
    from pyjax._src.backends.iree import spmd

    if spmd.holds_shard_map(jaxpr):  # (per device; IREE compiles each device's program between collectives)
        return spmd.executable(jaxpr, name)
    return compile_lib.compile_jaxpr(jaxpr, name, out_tree)


def __getattr__(name: str):
    if name == "IreeUnsupportedError":  # (without importing the compiler at pyjax's import)
        from pyjax._src.backends.iree.compile import IreeUnsupportedError

        return IreeUnsupportedError
    raise AttributeError(name)


def install() -> None:
    """Registers the `iree` platform with jit: called once, by `import pyjax`.
    `PYJAX_BACKEND=iree` selects it as `JAX_PLATFORMS=iree` would, for pyjax
    alone (a program running real JAX beside pyjax keeps its own platforms)."""
    from pyjax._src import config
    from pyjax._src import jit as jit_lib

    jit_lib.register_platform(PLATFORM, compile_jaxpr)
    from pyjax._src.backends.iree import saved

    saved.register()
    chosen = os.environ.get("PYJAX_BACKEND")
    if chosen and config.jax_platforms.value is None:
        config.config.update("jax_platforms", chosen)
