"""Top-level `jax` names pyjax has no definition of yet, as the `jax` alias
(`pyjax.install_as_jax()`) offers them so that libraries import.

`pmap` here maps over the leading axis on the one host as a jitted vmap with
the axis named (collectives over `axis_name` work), after checking the axis
fits the devices as JAX does; per-device placement and the rest of pmap are
issue 22. `shard_map` exists for libraries' imports and raises when called.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any


def pmap(fun: Callable, axis_name: Any = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: int | Sequence[int] = (), devices: Sequence | None = None,
         backend: str | None = None, axis_size: int | None = None,
         donate_argnums: int | Sequence[int] = ()) -> Callable:
    """Maps `fun` over the leading axis of its arguments, one slice per device."""
    import pyjax
    from pyjax._src import tree_util

    if isinstance(static_broadcasted_argnums, int):
        static_broadcasted_argnums = (static_broadcasted_argnums,)
    static = tuple(sorted(static_broadcasted_argnums))
    compiled: dict = {}

    @functools.wraps(fun)
    def mapped(*args, **kwargs):
        if kwargs:
            raise NotImplementedError("pmap does not support keyword arguments; pass them positionally")
        statics = tuple(args[i] for i in static)
        dynamic = [a for i, a in enumerate(args) if i not in static]
        axes = in_axes
        if isinstance(in_axes, (tuple, list)) and len(in_axes) == len(args):
            axes = tuple(a for i, a in enumerate(in_axes) if i not in static)
        elif isinstance(in_axes, list):
            axes = tuple(in_axes)
        key = (statics, tree_util.tree_structure(dynamic), repr(axes))
        if key not in compiled:
            def body(*dyn):
                full, it = [], iter(dyn)
                for i in range(len(args)):
                    full.append(statics[static.index(i)] if i in static else next(it))
                return fun(*full)
            compiled[key] = pyjax.jit(pyjax.vmap(body, in_axes=axes, out_axes=out_axes,
                                                 axis_name=axis_name, axis_size=axis_size))
        n_devices = len(devices) if devices is not None else pyjax.device_count()
        sizes = {leaf.shape[ax] for leaf, ax in _mapped_leaves(dynamic, axes)}
        size = axis_size if axis_size is not None else (max(sizes) if sizes else None)
        if size is not None and size > n_devices:
            raise ValueError(f"compiling computation that requires {size} logical devices, but only "
                             f"{n_devices} XLA devices are available (num_replicas={size})")
        return compiled[key](*dynamic)

    return mapped


def _mapped_leaves(args: list, axes: Any) -> list:
    from pyjax._src import tree_util

    if not isinstance(axes, tuple):
        axes = (axes,) * len(args)
    out = []
    for arg, ax in zip(args, axes):
        if ax is None:
            continue
        leaves, _ = tree_util.tree_flatten(arg)
        if isinstance(ax, int):
            out.extend((leaf, ax) for leaf in leaves if hasattr(leaf, "shape") and len(leaf.shape) > ax)
    return out


def shard_map(f: Callable | None = None, /, *, out_specs: Any, in_specs: Any = None, mesh: Any = None,
              axis_names: Any = frozenset(), check_vma: bool = True) -> Callable:
    """JAX's shard_map: the name exists (libraries import it), calling the
    mapped function raises until issue 22 brings per-device execution."""
    def wrap(fun: Callable) -> Callable:
        @functools.wraps(fun)
        def mapped(*args, **kwargs):
            raise NotImplementedError("jax.shard_map is not implemented in pyjax yet (issue 22: shard_map, pmap "
                                      "and per-device execution)")
        return mapped

    return wrap if f is None else wrap(f)


NAMES = {"pmap": pmap, "shard_map": shard_map}
