"""pyjax.scipy: SciPy's API on pyjax arrays (JAX's jax.scipy).

The submodules load on first use, as JAX's do: ``cluster``, ``fft``,
``integrate``, ``interpolate``, ``linalg``, ``ndimage``, ``signal``,
``sparse``, ``special``, ``stats``. As in JAX, ``optimize`` and ``spatial``
are not among them: ``import pyjax.scipy.optimize`` (or
``pyjax.scipy.spatial.transform``) first.
"""

import importlib as _importlib

_SUBMODULES = ("cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "signal", "sparse", "special", "stats")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(_SUBMODULES)
