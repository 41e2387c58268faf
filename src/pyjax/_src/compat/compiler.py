"""`jax._src.compiler`: the one function every compilation goes through.

pyjax's jit compiles through the backend's installed compiler
(`jit.set_compiler`); importing this module routes that through
`backend_compile_and_load`, looked up here at each compile, so a library
that patches it (chex's `restrict_backends`) sees every compilation with
the backend it is for, as on JAX.
"""

from __future__ import annotations

from typing import Any

from pyjax._src import jit as _jit
from pyjax._src import xla_bridge as _xla_bridge


def _backend_compile(jaxpr, fused):
    return _INNER[0](jaxpr, fused)


def backend_compile_and_load(backend: Any, module: Any, executable_devices: Any = None,
                             options: Any = None, host_callbacks: Any = ()) -> Any:
    """Compiles `module` (a jaxpr on pyjax) for `backend`."""
    fused = True if options is None else options.get("fused", True)
    return _backend_compile(module, fused)


backend_compile = backend_compile_and_load


def _routed(jaxpr, fused):
    # Read the attribute each time: a patched one must see the compile.
    return globals()["backend_compile_and_load"](_xla_bridge.get_backend(), jaxpr, None, {"fused": fused}, ())


_routed._pyjax_routed = True
if not getattr(_jit._compilers[0], "_pyjax_routed", False):
    _INNER = [_jit._compilers[0]]
    _jit.set_compiler(_routed)
else:  # re-imported: keep the first wrapping's inner compiler
    _INNER = [_jit._compilers[0]._inner]
_routed._inner = _INNER[0]
