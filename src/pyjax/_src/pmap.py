"""`jax.pmap`: a function mapped over an axis, one element per device.

JAX 0.11 builds pmap on shard_map, and so does pyjax, printing the same
jaxpr: a `jit` named `_fun` around a `shard_map` (`check_vma=False`) over a
one-axis mesh of the first n devices, the axis named `axis_name` (or
`_internal_pmap_axis_name`); its body squeezes the mapped axis off each
block and puts it back on each result (`broadcast_in_dim`). Collectives in
`fun` name that axis.

Eagerly the body runs per device (the shard_map runtime) on each device's
own slice, its jaxpr traced once per argument types; the results are Arrays
placed over the mesh (`P(axis_name)` along each out axis).

`donate_argnums` marks `_fun`'s invars donated (its jit's `donated_invars`),
and an eager call deletes each donated argument whose buffer the call would
take: an Array already placed as the map splits it (another is copied into
place first, and the copy is what is donated) that some result of the same
element count and width can reuse (JAX's matching, then XLA's).
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.interpreters import staging
from pyjax._src.lax import parallel
from pyjax._src.lax.shapes import broadcast_in_dim, squeeze
from pyjax._src.sharding.mesh import AxisType, Mesh
from pyjax._src.sharding.named import IndivisibleError, NamedSharding
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.tree_util import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["pmap"]

_DEFAULT_AXIS = "_internal_pmap_axis_name"


def _spec(axis: int | None, name: str) -> PartitionSpec:
    return PartitionSpec() if axis is None else PartitionSpec(*([None] * axis), name)


def _normalise(axis, ndim: int):
    if axis is None:
        return None
    return axis + ndim if axis < 0 else axis


def _axis_size(leaves: list, axes: list, axis_size: int | None) -> int:
    sizes = [np.shape(x)[a] for x, a in zip(leaves, axes) if a is not None]  # (IndexError for a bad axis, as JAX)
    if not sizes:
        raise ValueError("pmap requires at least one argument with a mapped axis.")
    if axis_size is not None and axis_size != sizes[0]:
        raise ValueError(f"Specified axis_size {axis_size} doesn't match received axis_size {sizes[0]}.")
    return sizes[0]


@functools.lru_cache(maxsize=64)
def _mesh(devices: tuple, name: str) -> Mesh:
    return Mesh(np.array(devices, dtype=object), (name,), axis_types=(AxisType.Auto,))


def _check_divisible(leaves: list, specs: list, mesh: Mesh) -> None:
    # The jit around the shard_map has the mapped arguments' shardings as its
    # in_shardings: JAX's error where an axis does not split over the mesh.
    for i, (x, spec) in enumerate(zip(leaves, specs)):
        sharding = NamedSharding(mesh, spec)
        try:
            sharding.shard_shape(np.shape(x))
        except IndivisibleError as e:
            where = staging.format_source_info(staging.user_source_info(), with_column=True)
            print(where)  # (JAX 0.11 prints the location before raising)
            raise IndivisibleError(f"One of pjit arguments with pytree key path flat_args[{i}] was given the "
                                   f"sharding {e}. This error occurs at source:  {where}") from None


class _Mapped:
    """One pmap'd function's pieces for given static arguments: the jitted
    `_fun` and, per argument types, the shard_map equation's params."""

    def __init__(self, fun: Callable, name: str, mesh: Mesh, in_tree, axes: list, out_axes, rebuild: Callable,
                 donated: tuple = ()):
        from pyjax._src.jit import jit
        from pyjax._src.shard_map import shard_map

        self.mesh = mesh
        specs = tuple(_spec(a, name) for a in axes)

        def body(*blocks):
            values = [b if a is None else squeeze(b, (a,)) for b, a in zip(blocks, axes)]
            args, kwargs = tree_unflatten(in_tree, values)
            out = fun(*rebuild(args), **kwargs)
            leaves, out_tree = tree_flatten(out)
            flat_axes = broadcast_prefix(out_axes, out, is_leaf=lambda x: x is None)
            expanded = []
            for leaf, a in zip(leaves, flat_axes):
                ndim = core.get_aval(leaf).ndim
                if a is not None:
                    a = _normalise(a, ndim + 1)
                    shape = list(core.get_aval(leaf).shape)
                    shape.insert(a, 1)
                    leaf = broadcast_in_dim(leaf, tuple(shape), tuple(i for i in range(ndim + 1) if i != a))
                expanded.append(leaf)
            return tree_unflatten(out_tree, expanded)

        out_specs = _out_specs(out_axes, name)

        def _fun(*flat):
            return shard_map(body, mesh=mesh, in_specs=specs, out_specs=out_specs, check_vma=False)(*flat)

        self.specs = specs
        self.donated = donated
        self.jitted = jit(_fun, donate_argnums=tuple(i for i, d in enumerate(donated) if d))
        self.traced: dict = {}

    def delete_donated(self, flat: list, outs) -> None:
        """Deletes the donated arguments this eager call took the buffers of."""
        from pyjax._src.sharding.sharded_array import ShardedArray

        # Buffers are matched per device: each shard against each result's
        # shard. An argument is taken when it is laid out as the map lays it
        # out, or when it is replicated (in_axes None) from the mesh's first
        # device, whose buffer becomes that device's copy; otherwise the
        # copy made to place it is what is donated.
        first = self.mesh.devices.flat[0]
        candidates = []
        for x, d, spec in zip(flat, self.donated, self.specs):
            if not d or not isinstance(x, Array) or x.is_deleted():
                continue
            if (type(x) is ShardedArray and x.sharding.is_equivalent_to(NamedSharding(self.mesh, spec), x.ndim)) \
                    or (spec == PartitionSpec() and x.devices() == {first}):
                candidates.append((x, _shard_aval(x)))
        out_avals = [_shard_aval(o) for o in tree_flatten(outs)[0]]
        for (x, _), used in zip(candidates, _reused(candidates, out_avals)):
            if used:
                x.delete()

    def eager(self, flat: list):
        """Runs per device; None when the trace is not one shard_map (then jit runs it)."""
        from pyjax._src.api import make_jaxpr
        from pyjax._src.shard_map import run_eagerly, shard_map_p

        key = tuple(core.get_aval(x) for x in flat)
        entry = self.traced.get(key)
        if key not in self.traced:
            closed, shapes = make_jaxpr(self.jitted, return_shape=True)(*flat)
            inner = closed.eqns[0].params["jaxpr"] if len(closed.eqns) == 1 else None
            entry = None
            if inner is not None and len(inner.eqns) == 1 and inner.eqns[0].primitive is shard_map_p \
                    and list(inner.eqns[0].invars) == list(inner.invars) \
                    and list(inner.eqns[0].outvars) == list(inner.outvars) and not inner.consts:
                entry = (inner.eqns[0].params, tree_flatten(shapes)[1])
            self.traced[key] = entry
        entry = self.traced[key]
        if entry is None:
            return None
        return tree_unflatten(entry[1], run_eagerly(flat, entry[0]))


def _shard_aval(x):
    aval = core.get_aval(x)
    return aval.update(shape=x.sharding.shard_shape(aval.shape))


def _reused(candidates: list, out_avals: list) -> list:
    # Each result takes at most one donated buffer, in argument order: one of
    # its own type first, then (as XLA aliases) one of the same element count
    # and element width.
    free = list(range(len(out_avals)))
    used = [False] * len(candidates)
    for exact in (True, False):
        for i, (_, aval) in enumerate(candidates):
            if used[i]:
                continue
            for j in free:
                out = out_avals[j]
                if ((out.shape, out.dtype) == (aval.shape, aval.dtype) if exact else
                        (out.size, out.dtype.itemsize) == (aval.size, aval.dtype.itemsize)):
                    used[i] = True
                    free.remove(j)
                    break
    return used


def _index_tuple(x) -> tuple:
    # An int or an iterable of ints (JAX's TypeErrors for anything else).
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def _donated_positions(donate_argnums, static: tuple) -> tuple:
    """`donate_argnums` counted among the non-static positional arguments."""
    donate = sorted(set(_index_tuple(donate_argnums)))
    static_sorted = sorted(set(static))
    if set(donate) & set(static_sorted):
        raise ValueError(f"`static_argnums` {static_sorted} and `donate_argnums` {donate} cannot intersect.")
    return tuple(i - sum(1 for s in static_sorted if s < i) for i in donate)


def _donation_flags(donated: tuple, dyn: tuple, n_leaves: int) -> tuple:
    # One flag per flat argument: a donated positional argument donates all
    # its leaves; keyword arguments are never donated (as JAX).
    from pyjax._src import config

    if not donated or config.debug_nans.value:
        return (False,) * n_leaves
    flags = [i in donated for i, a in enumerate(dyn) for _ in tree_flatten(a)[0]]
    return tuple(flags) + (False,) * (n_leaves - len(flags))


def _out_specs(out_axes, name: str):
    from pyjax._src.tree_util import tree_map

    return tree_map(lambda a: _spec(a, name) if a is None or a >= 0 else _negative(name), out_axes,
                    is_leaf=lambda x: x is None)


def _negative(name: str) -> PartitionSpec:
    # JAX 0.11 inserts the size-1 axis at the negative position of each
    # device's result but joins the devices' results along axis 0 (an
    # (8, 3) map with out_axes=-1 gives (24, 1)): pyjax does the same.
    return _spec(0, name)


def pmap(fun: Callable, axis_name: Any = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: int | Sequence[int] = (), devices: Sequence | None = None,
         backend: str | None = None, axis_size: int | None = None, donate_argnums: int | Sequence[int] = ()
         ) -> Callable:
    """Maps `fun` over axis `in_axes` of its arguments, one element per device
    (JAX's `jax.pmap`, built as JAX 0.11 builds it: a jitted shard_map).

    `axis_name` names the mapped axis for collectives in `fun` (`lax.psum(x,
    axis_name)`); `in_axes`/`out_axes` say which axis of each argument and
    result is mapped (None: broadcast / replicated); arguments at
    `static_broadcasted_argnums` are static and passed to every device;
    `devices` the devices to use (default `jax.devices()`), `axis_size` the
    size when checked against the arguments. `donate_argnums` names
    positional arguments the call may take the buffers of (a taken Array is
    deleted afterwards; keyword arguments are never donated). `backend` is
    accepted and ignored (one CPU backend).
    """
    from pyjax._src.sharding.devices import devices as all_devices

    name = _DEFAULT_AXIS if axis_name is None else axis_name
    static = (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int) \
        else tuple(static_broadcasted_argnums)
    donated = _donated_positions(donate_argnums, static)
    cache: dict = {}

    @functools.wraps(fun)
    def pmapped(*args, **kwargs):
        static_ix = sorted(i + len(args) if i < 0 else i for i in static)
        dyn = tuple(a for i, a in enumerate(args) if i not in static_ix)
        fixed = tuple((i, args[i]) for i in static_ix)
        dyn_in_axes = in_axes
        if isinstance(in_axes, (tuple, list)) and static_ix:
            dyn_in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static_ix)
        elif isinstance(in_axes, list):
            dyn_in_axes = tuple(in_axes)
        leaves, in_tree = tree_flatten((dyn, kwargs))
        axes = broadcast_prefix((dyn_in_axes, 0), (dyn, kwargs), is_leaf=lambda x: x is None)
        # (A Python scalar is broadcast, whatever in_axes says, as in JAX.)
        axes = [None if type(x) in (int, float, bool, complex) else _normalise(a, core.get_aval(x).ndim)
                for x, a in zip(leaves, axes)]
        n = _axis_size(leaves, axes, axis_size)
        devs = tuple(devices) if devices is not None else tuple(all_devices())
        mesh = _mesh(devs[:min(n, len(devs))], name)
        flags = _donation_flags(donated, dyn, len(leaves))
        key = (in_tree, tuple(axes), mesh, fixed, flags)
        mapped = cache.get(key)
        if mapped is None:
            def rebuild(dyn_args, fixed=fixed):
                full = list(dyn_args)
                for i, v in fixed:
                    full.insert(i, v)
                return full
            mapped = cache[key] = _Mapped(fun, name, mesh, in_tree, axes, out_axes, rebuild, flags)
        _check_divisible(leaves, list(mapped.specs), mesh)
        if parallel.in_eager_mode():
            outs = mapped.eager(leaves)
            if outs is not None:
                if any(flags):
                    mapped.delete_donated(leaves, outs)
                return outs
        return mapped.jitted(*leaves)

    return pmapped

