"""`jax.experimental` under `pyjax.install_as_jax()`: the names the ecosystem
reads. Submodules load on first access."""

import importlib as _importlib

from pyjax._src.compat.io_callback import io_callback  # noqa: F401


class MutableArray:
    """The type of a mutable array reference (jax.Ref). pyjax has none yet,
    so no value is an instance; libraries test for it."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("mutable array references (jax.new_ref / jax.Ref) are not implemented in pyjax")


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return _importlib.import_module(f"jax.experimental.{name}")
    except ModuleNotFoundError:
        raise AttributeError(f"module 'jax.experimental' has no attribute '{name}'") from None
