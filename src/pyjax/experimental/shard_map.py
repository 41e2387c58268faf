"""jax.experimental.shard_map: the deprecated spelling JAX 0.11 keeps."""

from __future__ import annotations

from typing import Any, Callable

from pyjax._src.shard_map import shard_map as _shard_map


def shard_map(f: Callable, mesh: Any, in_specs: Any, out_specs: Any, check_rep: bool = True) -> Callable:
    """Please use `jax.shard_map`. `jax.experimental.shard_map.shard_map`
    has been deprecated. (`check_rep` is `check_vma`; all mesh axes are manual.)"""
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, axis_names=set(), check_vma=check_rep)
