"""Shardings: how an array's elements are laid out over devices.

`NamedSharding(mesh, spec)` splits each array dimension over the mesh axes
its `PartitionSpec` entry names; `SingleDeviceSharding(device)` puts the
whole array on one device. A sharding knows the slice of the global array
each device holds (`devices_indices_map`) and which copy of it
(`replica_id`). Avals carry a `NamedSharding` whose mesh is an
`AbstractMesh`, with only the `Explicit` axes in its spec.
"""

from __future__ import annotations

import enum
import math
from typing import Any

from pyjax._src.sharding import devices as devices_mod
from pyjax._src.sharding.mesh import AbstractMesh, AxisType, Mesh, get_abstract_mesh, get_mesh
from pyjax._src.sharding.partition_spec import UNCONSTRAINED, PartitionSpec, axes_of


class MemorySpace(enum.Enum):
    """Where an aval's buffer lives: device memory or (pinned) host memory."""

    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"

    __hash__ = object.__hash__


def memory_kind_to_space(kind: str | None) -> MemorySpace | None:
    """The aval's memory space for a sharding's memory kind (None: the device's)."""
    return MemorySpace.Host if kind == "pinned_host" else None


_MEMORY_KINDS = devices_mod.MEMORY_KINDS


def _check_memory_kind(kind: str | None) -> str | None:
    if kind is not None and kind not in _MEMORY_KINDS:
        raise ValueError("Could not find memory addressable by device cpu. Device cpu can address the following "
                         f"memory kinds: {', '.join(_MEMORY_KINDS)}. Got memory kind: {kind}")
    return kind


class DuplicateSpecError(Exception):
    """A mesh axis named by two dimensions of a NamedSharding's spec."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IndivisibleError(ValueError):
    """A dimension a sharding splits into parts that do not divide it."""


class Sharding:
    """The layout of an array over devices (the base of every sharding)."""

    __module__ = "pyjax.sharding"

    # --- what every sharding defines
    @property
    def device_set(self) -> set:
        raise NotImplementedError

    def devices_indices_map(self, global_shape: tuple) -> dict:
        raise NotImplementedError

    @property
    def memory_kind(self) -> str | None:
        raise NotImplementedError

    # --- derived
    @property
    def _device_assignment(self) -> tuple:
        raise NotImplementedError

    @property
    def addressable_devices(self) -> set:
        me = devices_mod.process_index()
        return {d for d in self.device_set if d.process_index == me}

    def addressable_devices_indices_map(self, global_shape: tuple) -> dict:
        me = devices_mod.process_index()
        return {d: i for d, i in self.devices_indices_map(global_shape).items() if d.process_index == me}

    @property
    def is_fully_addressable(self) -> bool:
        if devices_mod.process_count() == 1:
            return True
        me = devices_mod.process_index()
        return all(d.process_index == me for d in self._device_assignment)

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    def shard_shape(self, global_shape: tuple) -> tuple:
        """The shape of each device's shard; JAX's IndivisibleError where a
        dimension does not split evenly."""
        global_shape = tuple(global_shape)
        if isinstance(self, NamedSharding):
            parts = [math.prod(self.mesh.shape[a] for a in axes) for axes in self._dim_parts(len(global_shape))]
            for dim, (n, k) in enumerate(zip(global_shape, parts)):
                if n % k:
                    raise IndivisibleError(
                        f"{self} implies that array axis {dim} is partitioned {k} times, but the dimension size "
                        f"is {n} (full shape: {global_shape}, per-dimension tiling factors: {tuple(parts)} should "
                        "evenly divide the shape)")
        index = next(iter(self.devices_indices_map(tuple(global_shape)).values()))
        return tuple(len(range(*s.indices(n))) for s, n in zip(index, global_shape))

    def is_equivalent_to(self, other: Sharding, ndim: int) -> bool:
        shape = (1,) * ndim
        try:
            return (self._device_assignment == other._device_assignment
                    and self.memory_kind == other.memory_kind
                    and _replica_layout(self, ndim) == _replica_layout(other, ndim))
        except (AttributeError, NotImplementedError, ValueError):
            return self == other and bool(shape is not None)

    def _replica_ids(self, global_shape: tuple) -> dict:
        """device -> replica id of the shard it holds."""
        raise NotImplementedError


def _replica_layout(sharding: Sharding, ndim: int) -> tuple:
    # The partition count of each dimension and which devices hold which
    # part: enough to compare two shardings of any shape.
    shape = tuple(_size_of_dim(sharding, d) for d in range(ndim))
    return tuple(sorted((d.id, idx) for d, idx in
                        ((d, tuple((s.start, s.stop) for s in i)) for d, i in
                         sharding.devices_indices_map(shape).items())))


def _size_of_dim(sharding: Sharding, dim: int) -> int:
    if isinstance(sharding, NamedSharding) and dim < len(sharding.spec):
        return math.prod(sharding.mesh.shape[a] for a in axes_of(sharding.spec[dim])) or 1
    return 1


class SingleDeviceSharding(Sharding):
    """The whole array on one device.

    >>> jax.sharding.SingleDeviceSharding(jax.devices()[0])
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    """

    __slots__ = ("_device", "_memory_kind")

    def __init__(self, device: Any, *, memory_kind: str | None = None) -> None:
        self._device = device
        self._memory_kind = _check_memory_kind(memory_kind)

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"

    def __eq__(self, other) -> bool:
        return (type(other) is SingleDeviceSharding and other._device == self._device
                and other.memory_kind == self.memory_kind)

    def __hash__(self) -> int:
        return hash(("single", self._device.id, self.memory_kind))

    def __reduce__(self):
        return (_single, (self._device, self._memory_kind))

    @property
    def device_set(self) -> set:
        return {self._device}

    @property
    def memory_kind(self) -> str:
        return self._memory_kind or "device"

    @property
    def _device_assignment(self) -> tuple:
        return (self._device,)

    @property
    def is_fully_replicated(self) -> bool:
        return True

    def devices_indices_map(self, global_shape: tuple) -> dict:
        return {self._device: (slice(None),) * len(global_shape)}

    def _replica_ids(self, global_shape: tuple) -> dict:
        return {self._device: 0}

    def with_memory_kind(self, kind: str) -> SingleDeviceSharding:
        return SingleDeviceSharding(self._device, memory_kind=kind)


def _single(device, kind):
    return SingleDeviceSharding(device, memory_kind=kind)


def make_single_device_sharding(device: Any, *, memory_kind: str | None = None) -> SingleDeviceSharding:
    """A `SingleDeviceSharding` on `device`."""
    return SingleDeviceSharding(device, memory_kind=memory_kind)


def _check_spec(mesh, spec: PartitionSpec) -> None:
    names = set(mesh.axis_names)
    seen: set = set()
    for entry in spec:
        if entry is not None and entry is not UNCONSTRAINED and not isinstance(entry, (str, tuple)):
            continue
        for axis in axes_of(entry):
            if axis not in names:
                raise ValueError(f"Resource axis: {axis} of {spec} is not found in mesh: {tuple(mesh.axis_names)}.")
            if axis in seen:
                raise DuplicateSpecError(
                    "A single NamedSharding spec specification can map every mesh axis to at most one positional "
                    f"dimension, but {spec} has duplicate entries for `{axis}`")
            seen.add(axis)


class NamedSharding(Sharding):
    """Splits each array dimension over the mesh axes named by ``spec``.

    >>> mesh = jax.make_mesh((4, 2), ('x', 'y'))
    >>> jax.NamedSharding(mesh, P('x', 'y'))
    NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit)), spec=P('x', 'y'), memory_kind=device)
    """

    __slots__ = ("mesh", "spec", "_memory_kind", "_hash", "_indices_cache")

    def __init__(self, mesh: Mesh | AbstractMesh, spec: PartitionSpec, *, memory_kind: str | None = None) -> None:
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f"mesh must be a jax.sharding.Mesh or AbstractMesh, got {type(mesh)}")
        if not isinstance(spec, PartitionSpec):
            raise TypeError("NamedSharding's spec must be a PartitionSpec (jax.P), got "
                            f"{spec!r} of type {type(spec).__name__}")
        _check_spec(mesh, spec)
        self.mesh = mesh
        self.spec = spec
        self._memory_kind = _check_memory_kind(memory_kind)
        self._hash = hash((mesh, spec, memory_kind))
        self._indices_cache: dict = {}

    def __repr__(self) -> str:
        mesh = repr(self.mesh) if isinstance(self.mesh, AbstractMesh) else str(self.mesh)
        if isinstance(self.mesh, AbstractMesh) and self._memory_kind is None:
            return f"NamedSharding(mesh={mesh}, spec={self.spec})"
        return f"NamedSharding(mesh={mesh}, spec={self.spec}, memory_kind={self.memory_kind})"

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is NamedSharding and self.mesh == other.mesh
                                 and self.spec == other.spec and self._memory_kind == other._memory_kind)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        return (_named, (self.mesh, self.spec, self._memory_kind))

    @property
    def memory_kind(self) -> str | None:
        if isinstance(self.mesh, AbstractMesh):
            return self._memory_kind
        return self._memory_kind or "device"

    @property
    def device_set(self) -> set:
        return set(self.mesh.devices.flat)

    @property
    def _device_assignment(self) -> tuple:
        return tuple(self.mesh.devices.flat)

    @property
    def num_devices(self) -> int:
        return self.mesh.size

    @property
    def is_fully_replicated(self) -> bool:
        return all(self.mesh.shape[a] == 1 for entry in self.spec for a in axes_of(entry))

    def with_memory_kind(self, kind: str) -> NamedSharding:
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    def with_spec(self, spec: Any) -> NamedSharding:
        spec = spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec)
        return NamedSharding(self.mesh, spec, memory_kind=self._memory_kind)

    def update(self, **kwargs) -> NamedSharding:
        return NamedSharding(kwargs.get("mesh", self.mesh), kwargs.get("spec", self.spec),
                             memory_kind=kwargs.get("memory_kind", self._memory_kind))

    # --- layout
    def _dim_parts(self, ndim: int) -> list:
        # Per dimension: the mesh axes it is split over (major first).
        spec = list(self.spec)
        return [axes_of(e) for e in spec] + [()] * (ndim - len(spec))

    def check_compatible_aval(self, shape: tuple) -> None:
        """Raises JAX's errors where this sharding cannot lay out an array of
        `shape`: a spec longer than the rank, or a dimension an Explicit axis
        does not divide evenly (Auto axes may split unevenly)."""
        if len(self.spec) > len(shape):
            raise ValueError(f"Sharding {self} is only valid for values of rank at least {len(self.spec)}, but "
                             f"was applied to a value of rank {len(shape)}.")
        sizes = self.mesh.shape
        for dim, (entry, n) in enumerate(zip(explicit_spec(self.mesh.abstract_mesh, self.spec, len(shape)), shape)):
            axes = axes_of(entry)
            if not axes:
                continue
            k = math.prod(sizes[a] for a in axes)
            if n % k:
                raise ValueError(
                    f"Sharding spec {axes} implies that array axis {dim} is partitioned {k} times, but does not "
                    f"evenly divide the dimension size {n}. Got shape: {tuple(shape)} and sharding "
                    f"{_aval_sharding_text(self, len(shape))}")

    def devices_indices_map(self, global_shape: tuple) -> dict:
        global_shape = tuple(global_shape)
        cached = self._indices_cache.get(global_shape)
        if cached is not None:
            return dict(cached[0])
        self.check_compatible_aval(global_shape)
        parts = self._dim_parts(len(global_shape))
        names = self.mesh.axis_names
        sizes = dict(zip(names, self.mesh.axis_sizes))
        used = {a for axes in parts for a in axes}
        indices, replicas = {}, {}
        grid = self.mesh.devices
        for position in _positions(grid.shape):
            device = grid[position]
            at = dict(zip(names, position))
            index = []
            for axes, n in zip(parts, global_shape):
                if not axes:
                    index.append(slice(None))
                    continue
                chunk, count = 0, 1
                for a in axes:
                    chunk = chunk * sizes[a] + at[a]
                    count *= sizes[a]
                step = -(-n // count)  # (an Auto axis may split unevenly: the last parts are short)
                index.append(slice(min(chunk * step, n), min((chunk + 1) * step, n)))
            replica = 0
            for a in names:
                if a not in used:
                    replica = replica * sizes[a] + at[a]
            indices[device] = tuple(index)
            replicas[device] = replica
        self._indices_cache[global_shape] = (indices, replicas)
        return dict(indices)

    def _replica_ids(self, global_shape: tuple) -> dict:
        self.devices_indices_map(global_shape)
        return self._indices_cache[tuple(global_shape)][1]

    # --- the aval's view
    def shape_annotations(self, ndim: int) -> list[str]:
        """Per dimension, what the aval's text adds to its size ("@x", "@(x,y)" or "")."""
        out = []
        for entry in self._dim_entries(ndim):
            if entry is None or entry is UNCONSTRAINED:
                out.append("")
            elif isinstance(entry, tuple):
                out.append(f"@({','.join(entry)})")
            else:
                out.append(f"@{entry}")
        return out

    def _dim_entries(self, ndim: int) -> list:
        spec = list(self.spec)
        return spec + [None] * (ndim - len(spec))


def _named(mesh, spec, kind):
    return NamedSharding(mesh, spec, memory_kind=kind)


def _positions(shape: tuple):
    # Mesh positions in row-major order (the order of mesh.devices.flat).
    if not shape:
        yield ()
        return
    total = math.prod(shape)
    for flat in range(total):
        pos, rest = [], flat
        for n in reversed(shape):
            pos.append(rest % n)
            rest //= n
        yield tuple(reversed(pos))


def _aval_sharding_text(sharding: NamedSharding, ndim: int) -> str:
    # JAX's divisibility error shows the sharding as the aval would hold it.
    return repr(aval_sharding(sharding, ndim, keep_all=True) or sharding)


def explicit_spec(mesh, spec: PartitionSpec, ndim: int) -> tuple:
    """`spec` padded to `ndim` entries with every axis that is not Explicit
    on `mesh` dropped (the aval's view: only Explicit axes are in the type)."""
    types = mesh._name_to_type
    out = []
    entries = list(spec) + [None] * (ndim - len(spec))
    for entry in entries:
        if entry is None or entry is UNCONSTRAINED:
            out.append(None)
        elif isinstance(entry, tuple):
            kept = tuple(a for a in entry if types[a] is AxisType.Explicit)
            out.append(kept if len(kept) > 1 else (kept[0] if kept else None))
        else:
            out.append(entry if types[entry] is AxisType.Explicit else None)
    return tuple(out)


def aval_sharding(sharding: Any, ndim: int, *, keep_all: bool = False) -> NamedSharding | None:
    """The sharding an aval of rank `ndim` carries for an array placed with
    `sharding`: a NamedSharding on the abstract mesh whose spec keeps only
    the Explicit axes (the type's text shows those), or None for an array
    on no mesh (a single device)."""
    if not isinstance(sharding, NamedSharding) or sharding.mesh.empty:
        return None
    mesh = sharding.mesh.abstract_mesh
    return _abstract_named(mesh, explicit_spec(mesh, sharding.spec, ndim))


def check_divisible(shape: tuple, sharding: NamedSharding) -> None:
    """JAX's check when a type is made: each split dimension of `shape`
    divides evenly over its mesh axes (ValueError with JAX's text)."""
    sizes = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_sizes))
    for dim, (entry, size) in enumerate(zip(sharding.spec, shape)):
        if entry is None:
            continue
        axes = entry if isinstance(entry, tuple) else (entry,)
        parts = math.prod(sizes[a] for a in axes)
        if isinstance(size, int) and size % parts:
            raise ValueError(f"Sharding spec {axes} implies that array axis {dim} is partitioned {parts} times, but "
                             f"does not evenly divide the dimension size {size}. Got shape: {tuple(shape)} and "
                             f"sharding {sharding}")


_ABSTRACT: dict = {}


def _abstract_named(mesh: AbstractMesh, entries: tuple) -> NamedSharding:
    # Interned: avals are interned on their sharding, so equal shardings
    # should be one object (an identity hash on every cache lookup).
    key = (mesh, entries)
    s = _ABSTRACT.get(key)
    if s is None:
        s = _ABSTRACT[key] = NamedSharding(mesh, PartitionSpec(*entries))
    return s


def abstract_sharding(mesh: AbstractMesh | None, entries: tuple) -> NamedSharding | None:
    """The aval sharding on `mesh` with spec `entries` (None: no mesh)."""
    if mesh is None or mesh.empty:
        return None
    return _abstract_named(mesh, tuple(None if e == () else e for e in entries))


def resolve(sharding: Any, *, name: str = "sharding") -> Sharding:
    """A Sharding for what a user passed: a Sharding as it is, a PartitionSpec
    on the mesh in context (set_mesh), or a device."""
    if isinstance(sharding, Sharding):
        return sharding
    if isinstance(sharding, PartitionSpec):
        mesh = get_mesh()
        if mesh.empty:
            if not get_abstract_mesh().empty:
                raise ValueError(f"Using a PartitionSpec as {name} requires a concrete mesh set with "
                                 "jax.set_mesh; only an abstract mesh is in context.")
            raise ValueError(f"Using a PartitionSpec ({sharding}) as {name} requires a mesh in context: use "
                             "jax.set_mesh(mesh) or pass a NamedSharding.")
        return NamedSharding(mesh, sharding)
    if isinstance(sharding, devices_mod.Device):
        return SingleDeviceSharding(sharding)
    raise TypeError(f"Expected a jax.sharding.Sharding, a PartitionSpec or a device for {name}, got "
                    f"{sharding!r} of type {type(sharding).__name__}")
