"""`jax.experimental` under `pyjax.install_as_jax()`: the names the ecosystem
reads. Submodules load on first access."""

import importlib as _importlib

from pyjax._src.compat.io_callback import io_callback  # noqa: F401


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return _importlib.import_module(f"jax.experimental.{name}")
    except ModuleNotFoundError:
        raise AttributeError(f"module 'jax.experimental' has no attribute '{name}'") from None
