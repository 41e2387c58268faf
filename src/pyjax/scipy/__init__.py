"""pyjax.scipy: SciPy's API on pyjax arrays (JAX's jax.scipy).

The submodules load on first use, as JAX's do: ``pyjax.scipy.special``,
``pyjax.scipy.linalg``, ``pyjax.scipy.stats``. As in JAX, the optimize
submodule is not among them: ``import pyjax.scipy.optimize`` first.
"""

import importlib as _importlib

_SUBMODULES = ("linalg", "special", "stats")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(_SUBMODULES)
