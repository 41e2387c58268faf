"""pyjax's backends: numpy/ (the default), stablehlo/ (lowering to text),
iree/ (jit(backend='iree')).

The NumPy backend is loaded on first need, not by `import pyjax`: its
modules are a quarter of the import's time. `wire_numpy()` (called once by
pyjax's top level) gives the eval trace the backend's impl table, still
empty, and jit a compiler that loads the backend first; the first eager
call that finds no impl, the first compilation, or any import of a
backends.numpy module loads it (`load_numpy()`: importing that package
installs it, once; the import lock makes a second thread wait for the
first).
"""

from __future__ import annotations

import importlib

# The NumPy backend's impl table, primitive -> NumPy function. The eval
# trace holds this dict from `import pyjax` on; impls/standard.py fills it
# in place when the backend loads (compiled code and the eval trace share
# one table, so def_impl's entries serve both).
NUMPY_IMPLS: dict = {}


def load_numpy():
    """The NumPy backend, installed (imported and wired) on the first call."""
    return importlib.import_module("pyjax._src.backends.numpy")


def _compile_numpy(jaxpr, fused: bool = True):
    return load_numpy().compile_jaxpr(jaxpr, fused)


def wire_numpy() -> None:
    """Makes the NumPy backend the default without importing it: the eval
    trace over its table, jit's compiler, and the loader both call first."""
    from pyjax._src import core, dispatch
    from pyjax._src import jit as jit_lib

    core.set_default_trace(dispatch.EvalTrace(NUMPY_IMPLS))
    jit_lib.set_compiler(_compile_numpy)
    dispatch.set_backend_loader(load_numpy)
