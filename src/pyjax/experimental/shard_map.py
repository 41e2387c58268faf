"""jax.experimental.shard_map: the deprecated spelling JAX 0.11 keeps.

Reading `shard_map` here warns (DeprecationWarning), as JAX 0.11 does. Its
signature is JAX 0.11's: `(f, mesh, in_specs, out_specs, check_rep=True)`,
every mesh axis manual; there is no `auto=` (JAX 0.11 removed it: passing it
is a TypeError). Partial-manual programs use `jax.shard_map(...,
axis_names=...)`.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from pyjax._src.shard_map import shard_map as _shard_map

_MESSAGE = "jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map instead."


def shard_map(f: Callable, mesh: Any, in_specs: Any, out_specs: Any, check_rep: bool = True) -> Callable:
    """The old entry point of `jax.shard_map`: `check_rep` is what is now
    called `check_vma`, and all of the mesh's axes are made manual."""
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, axis_names=set(), check_vma=check_rep)


_legacy_shard_map = shard_map  # (reached through __getattr__, which warns; its name stays JAX's)
del shard_map


def __getattr__(name: str) -> Any:
    if name == "shard_map":
        warnings.warn(_MESSAGE, DeprecationWarning, stacklevel=2)
        return _legacy_shard_map
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
