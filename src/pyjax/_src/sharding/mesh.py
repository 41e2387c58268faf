"""Meshes: devices laid out on an n-d grid with named axes, and the mesh in context.

A `Mesh` holds devices; its `AbstractMesh` (axis names, sizes and types,
and the kind of device) is what avals carry. `set_mesh` makes a mesh the
current one (globally, or within a ``with`` block); `use_abstract_mesh`
changes only the abstract mesh tracing sees (as `auto_axes` and
`explicit_axes` do).
"""

from __future__ import annotations

import enum
import math
import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from pyjax._src.sharding import devices as devices_mod


class AxisType(enum.Enum):
    """How a mesh axis is treated when tracing: its placement is decided by the
    compiler (``Auto``), part of the type (``Explicit``), or the user's code
    sees one shard per device (``Manual``)."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


AxisType.__module__ = "pyjax.sharding"


class AbstractDevice:
    """The kind of device a mesh is made of (what an abstract mesh remembers)."""

    __slots__ = ("device_kind", "num_cores", "platform")

    def __init__(self, device_kind: str, num_cores: int | None, platform: str) -> None:
        self.device_kind, self.num_cores, self.platform = device_kind, num_cores, platform

    def _key(self):
        return (self.device_kind, self.num_cores, self.platform)

    def __eq__(self, other) -> bool:
        return isinstance(other, AbstractDevice) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, platform={self.platform})"


_CPU = AbstractDevice("cpu", None, "cpu")


def _check_types(axis_names: tuple, axis_types) -> tuple:
    if axis_types is None:
        return (AxisType.Auto,) * len(axis_names)
    if isinstance(axis_types, AxisType):
        axis_types = (axis_types,)
    axis_types = tuple(axis_types)
    if len(axis_types) != len(axis_names):
        raise ValueError("Number of axis names should match the number of axis_types. Got "
                         f"axis_names={axis_names} and axis_types={axis_types}")
    for t in axis_types:
        if not isinstance(t, AxisType):
            raise TypeError(f"axis_types must be AxisType values, got {t!r}")
    return axis_types


class _MeshBase:
    """What a Mesh and an AbstractMesh share: named axes with sizes and types."""

    axis_names: tuple
    axis_sizes: tuple
    axis_types: tuple

    @property
    def shape(self) -> OrderedDict:
        return OrderedDict(zip(self.axis_names, self.axis_sizes))

    @property
    def shape_tuple(self) -> tuple:
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        return not self.axis_names

    @property
    def _name_to_type(self) -> dict:
        return dict(zip(self.axis_names, self.axis_types))

    def _axes_of_type(self, kind: AxisType) -> tuple:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t is kind)

    explicit_axes = property(lambda self: self._axes_of_type(AxisType.Explicit))
    auto_axes = property(lambda self: self._axes_of_type(AxisType.Auto))
    manual_axes = property(lambda self: self._axes_of_type(AxisType.Manual))
    are_all_axes_explicit = property(lambda self: all(t is AxisType.Explicit for t in self.axis_types))
    are_all_axes_auto = property(lambda self: all(t is AxisType.Auto for t in self.axis_types))
    are_all_axes_manual = property(lambda self: all(t is AxisType.Manual for t in self.axis_types))
    is_multi_process = property(lambda self: False)

    def _types_text(self) -> str:
        return f"axis_types=({', '.join(t.name for t in self.axis_types)}{',' if len(self.axis_types) == 1 else ''})"

    def _axes_text(self) -> str:
        return ", ".join(f"'{n}': {s}" for n, s in zip(self.axis_names, self.axis_sizes))


class AbstractMesh(_MeshBase):
    """A mesh's axis names, sizes and types, without devices: what avals carry.

    >>> AbstractMesh((2, 4), ('a', 'b'))
    AbstractMesh('a': 2, 'b': 4, axis_types=(Auto, Auto))
    """

    __slots__ = ("axis_sizes", "axis_names", "axis_types", "abstract_device", "_hash")

    def __init__(self, axis_sizes: tuple, axis_names: tuple, axis_types: Any = None, *,
                 abstract_device: AbstractDevice | None = None) -> None:
        self.axis_sizes = tuple(int(s) for s in axis_sizes)
        self.axis_names = tuple(axis_names)
        self.axis_types = _check_types(self.axis_names, axis_types)
        self.abstract_device = abstract_device
        self._hash = hash((self.axis_sizes, self.axis_names, self.axis_types, abstract_device))

    def _key(self):
        return (self.axis_sizes, self.axis_names, self.axis_types, self.abstract_device)

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is AbstractMesh and self._key() == other._key())

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        device = ""
        if self.abstract_device is not None:
            d = self.abstract_device
            device = f", device_kind={d.device_kind}, num_cores={d.num_cores}, platform={d.platform}"
        return f"AbstractMesh({self._axes_text()}, {self._types_text()}{device})"

    __str__ = __repr__

    @property
    def abstract_mesh(self) -> AbstractMesh:
        return self

    def update(self, axis_sizes=None, axis_names=None, axis_types=None) -> AbstractMesh:
        return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                            self.axis_names if axis_names is None else axis_names,
                            self.axis_types if axis_types is None else axis_types,
                            abstract_device=self.abstract_device)

    def update_axis_types(self, name_to_type: dict) -> AbstractMesh:
        types = tuple(name_to_type.get(n, t) for n, t in zip(self.axis_names, self.axis_types))
        return self.update(axis_types=types)

    def __reduce__(self):
        return (_abstract_mesh, (self.axis_sizes, self.axis_names, self.axis_types, self.abstract_device))

    @property
    def devices(self):
        raise ValueError("AbstractMesh does not have devices; use a Mesh (jax.make_mesh) to place arrays.")


def _abstract_mesh(sizes, names, types, device):
    return AbstractMesh(sizes, names, types, abstract_device=device)


EMPTY_ABSTRACT_MESH = AbstractMesh((), ())


class Mesh(_MeshBase):
    """Devices on an n-d grid whose axes have names.

    >>> jax.make_mesh((4, 2), ('x', 'y'))
    Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))
    """

    __slots__ = ("devices", "axis_names", "axis_types", "_hash", "_abstract", "_ids")

    def __init__(self, devices: Any, axis_names: Any, axis_types: Any = None) -> None:
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        grid = np.asarray(devices, dtype=object) if not isinstance(devices, np.ndarray) else devices
        if grid.ndim != len(axis_names):
            raise ValueError("Mesh requires the ndim of its first argument (`devices`) to equal the length of "
                             f"its second argument (`axis_names`), but got devices.ndim == {grid.ndim} and "
                             f"len(axis_names) == {len(axis_names)}.")
        grid = grid.copy()
        grid.flags.writeable = False
        self.devices = grid
        self.axis_names = axis_names
        self.axis_types = _check_types(axis_names, axis_types)
        self._ids = tuple(d.id for d in grid.flat)
        self._hash = hash((self._ids, grid.shape, self.axis_names, self.axis_types))
        self._abstract = AbstractMesh(grid.shape, axis_names, self.axis_types,
                                      abstract_device=_CPU if grid.size else None)
        _CONCRETE.setdefault(self._abstract, self)

    axis_sizes = property(lambda self: self.devices.shape)

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[np.int64])(self.devices) if self.devices.size else \
            np.zeros(self.devices.shape, np.int64)

    @property
    def abstract_mesh(self) -> AbstractMesh:
        return self._abstract

    @property
    def local_devices(self) -> list:
        from pyjax._src.sharding.devices import process_index

        me = process_index()
        return [d for d in self.devices.flat if d.process_index == me]

    @property
    def local_mesh(self) -> Mesh:
        """The part of the mesh made of this process's devices (a block of
        its grid), with the same axis names: the mesh itself with one process."""
        if devices_mod.process_count() == 1:
            return self
        me = devices_mod.process_index()
        grid = self.devices
        mask = np.vectorize(lambda d: d.process_index == me, otypes=[bool])(grid)
        ranges = [np.flatnonzero(mask.any(axis=tuple(j for j in range(grid.ndim) if j != k)))
                  for k in range(grid.ndim)]
        block = grid[np.ix_(*ranges)]
        if block.size != mask.sum():
            raise ValueError(f"this process's devices do not form a block of the mesh {self}")
        return Mesh(block, self.axis_names, axis_types=self.axis_types)

    @property
    def is_scalar(self) -> bool:
        return self.devices.size == 1

    def _flat_devices(self) -> tuple:
        return tuple(self.devices.flat)

    def _key(self):
        return (self._ids, self.devices.shape, self.axis_names, self.axis_types)

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is Mesh and self._key() == other._key())

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        return f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, {self._types_text()})"

    def __str__(self) -> str:
        if self.empty:
            return "Mesh(device_ids=[], axis_names=())"
        return f"Mesh({self._axes_text()}, {self._types_text()})"

    def update(self, devices=None, axis_names=None, axis_types=None) -> Mesh:
        return Mesh(self.devices if devices is None else devices,
                    self.axis_names if axis_names is None else axis_names,
                    self.axis_types if axis_types is None else axis_types)

    def update_axis_types(self, name_to_type: dict) -> Mesh:
        return self.update(axis_types=tuple(name_to_type.get(n, t)
                                            for n, t in zip(self.axis_names, self.axis_types)))

    def __reduce__(self):
        return (Mesh, (self.devices, self.axis_names, self.axis_types))

    # `with mesh:` was JAX's old way to set a mesh; 0.11 asks for set_mesh.
    def __enter__(self):
        raise RuntimeError("`with mesh:` context manager has been removed. Please use `with "
                           "jax.set_mesh(mesh):` instead.")

    def __exit__(self, *exc):
        return False


# The first concrete mesh seen for each abstract mesh: what a result whose
# type names only an abstract mesh is placed on.
_CONCRETE: dict = {}


def concrete_mesh_for(abstract: AbstractMesh) -> Mesh | None:
    """A concrete mesh whose abstract mesh is `abstract` (the current one if it
    matches, else the first made), or None."""
    current = _current_concrete()
    if current is not None and current.abstract_mesh == abstract:
        return current
    return _CONCRETE.get(abstract)


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types: Any = None, *,
              devices: Sequence | None = None) -> Mesh:
    """Creates a mesh of `axis_shapes` devices with axes `axis_names`.

    Args:
      axis_shapes: the size of each mesh axis.
      axis_names: the name of each mesh axis.
      axis_types: the `AxisType` of each axis; every axis is ``Explicit`` by
        default.
      devices: the devices to lay out (``jax.devices()`` by default); the
        first ``prod(axis_shapes)`` of them are used.

    Returns:
      A `Mesh`.
    """
    axis_shapes = tuple(int(s) for s in axis_shapes)
    axis_names = tuple(axis_names)
    if len(axis_shapes) != len(axis_names):
        raise ValueError(f"Length of axis_shapes {axis_shapes} and axis_names {axis_names} should be equal.")
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(axis_names)
    axis_types = _check_types(axis_names, axis_types)
    pool = list(devices_mod.devices() if devices is None else devices)
    n = math.prod(axis_shapes)
    if n > len(pool):
        raise ValueError(f"Number of devices {len(pool)} must be >= the product of mesh_shape {axis_shapes}")
    grid = np.empty(n, dtype=object)
    for i, d in enumerate(pool[:n]):
        grid[i] = d
    return Mesh(grid.reshape(axis_shapes), axis_names, axis_types)


# ---------------------------------------------------------------------------
# The mesh in context


class _State(threading.local):
    def __init__(self):
        self.mesh = None  # the concrete mesh set by set_mesh (None: none)
        self.abstract = None  # the abstract mesh tracing sees (None: the concrete mesh's)


_state = _State()
_global = {"mesh": None}


def _current_concrete() -> Mesh | None:
    return _state.mesh if _state.mesh is not None else _global["mesh"]


def get_abstract_mesh() -> AbstractMesh:
    """The abstract mesh in context (an empty one where none is set)."""
    if _state.abstract is not None:
        return _state.abstract
    mesh = _current_concrete()
    return EMPTY_ABSTRACT_MESH if mesh is None else mesh.abstract_mesh


def get_mesh() -> Mesh:
    """The concrete mesh set by `set_mesh` (an empty mesh where none is set)."""
    mesh = _current_concrete()
    return _empty_mesh() if mesh is None else mesh


def _empty_mesh() -> Mesh:
    return EMPTY_MESH


def _make_empty() -> Mesh:
    # (Built directly: a 0-d grid of no devices is not an ndim-0 mesh of one.)
    mesh = object.__new__(Mesh)
    grid = np.empty((), dtype=object)
    grid.flags.writeable = False
    mesh.devices, mesh.axis_names, mesh.axis_types, mesh._ids = grid, (), (), ()
    mesh._hash = hash(("empty mesh",))
    mesh._abstract = EMPTY_ABSTRACT_MESH
    return mesh


EMPTY_MESH = _make_empty()


class set_mesh:
    """Sets the mesh `mesh` for the code that follows (globally), or, used as a
    context manager, within the ``with`` block only.

    >>> mesh = jax.make_mesh((4, 2), ('x', 'y'))
    >>> with jax.set_mesh(mesh):
    ...     a = jax.device_put(jnp.zeros((8, 16)), P('x', 'y'))
    """

    def __init__(self, mesh: Mesh | None) -> None:
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        if mesh is not None and mesh.empty:
            mesh = None
        self._previous = (_global["mesh"], _state.mesh, _state.abstract)
        self._mesh = mesh
        _global["mesh"] = mesh
        _state.mesh, _state.abstract = None, None
        _bump()

    def __enter__(self) -> Mesh | None:
        # The call already set it globally; within the block it is the
        # thread's, and leaving restores what was in effect before.
        return self._mesh

    def __exit__(self, *exc) -> None:
        _global["mesh"], _state.mesh, _state.abstract = self._previous
        _bump()


class use_abstract_mesh:
    """Within the ``with`` block, tracing sees the abstract mesh `mesh`."""

    def __init__(self, mesh: AbstractMesh) -> None:
        if not isinstance(mesh, AbstractMesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.AbstractMesh`. Got {type(mesh)}")
        self._mesh = mesh

    def __enter__(self) -> AbstractMesh:
        self._previous = _state.abstract
        _state.abstract = self._mesh
        _bump()
        return self._mesh

    def __exit__(self, *exc) -> None:
        _state.abstract = self._previous
        _bump()


# A counter bumped on every change of the mesh in context: part of jit's
# cache key (a function traced under one mesh is retraced under another).
_version = [0]

# The concrete mesh eager results are typed on (set_mesh in effect), read by
# the eager dispatch on its general path only; None: no mesh, nothing to do.
eager_mesh: list = [None]


def _bump() -> None:
    _version[0] += 1
    mesh = _current_concrete()
    if mesh is not eager_mesh[0]:
        from pyjax._src import core

        eager_mesh[0] = mesh
        core.clear_eager_plans()  # (plans made off the mesh type their results off it)
    _set_typing_mesh()
    _invalidate()


def _set_typing_mesh() -> None:
    # What core.typing_mesh holds: the context mesh unless all its axes are
    # Auto or Manual (JAX's rules then skip placement, typing nothing).
    from pyjax._src import core

    am = get_abstract_mesh()
    typed = not am.empty and not all(t.name in ("Auto", "Manual") for t in am.axis_types)
    core.typing_mesh[0] = am if typed else None


def context_key():
    """What jit's cache key holds of the mesh context (None: no mesh set)."""
    am = get_abstract_mesh()
    return None if am.empty else am


class _MeshContextOption:
    """The abstract mesh in context as a tracing-relevant option: jit's cache
    key holds it with the config options (a function traced under one mesh
    is retraced under another)."""

    name = "jax_abstract_mesh_context"

    @property
    def value(self):
        return context_key()


def _register_context_option() -> None:
    from pyjax._src import config

    config._trace_context_cache.states.append(_MeshContextOption())


def _invalidate() -> None:
    from pyjax._src import config

    config._trace_context_cache.invalidate_global()


_register_context_option()
