"""What ``jax.typeof`` returns for a value on no mesh.

Inside pyjax an aval on no mesh carries ``sharding=None`` (every placement
check is one ``is None``), but JAX 0.11 types such a value on the empty
abstract mesh: ``jax.typeof(x).sharding`` is
``NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))``.
``typeof`` hands out a view of the interned aval whose ``sharding`` says so;
it equals and hashes as the aval, and ``update`` gives back plain avals.
"""

from __future__ import annotations

from pyjax._src.avals import ShapedArray
from pyjax._src.sharding.mesh import EMPTY_ABSTRACT_MESH, AxisType, get_abstract_mesh
from pyjax._src.sharding.named import NamedSharding
from pyjax._src.sharding.partition_spec import PartitionSpec


class _NoMeshView(ShapedArray):
    __slots__ = ("_plain", "_mesh")

    def __eq__(self, other):
        return self._plain is getattr(other, "_plain", other)

    def __hash__(self):
        return hash(self._plain)

    def __reduce__(self):
        return self._plain.__reduce__()

    def update(self, shape=None, dtype=None, weak_type=None, sharding=None, memory_space=None, vma=None):
        if isinstance(sharding, NamedSharding) and (sharding.mesh.empty or sharding.mesh == self._mesh):
            sharding = None  # (the empty mesh, or the manual body's, is pyjax's None)
        return self._plain.update(shape, dtype, weak_type, sharding, memory_space, vma)


_VIEWS: dict = {}


def _context_mesh():
    # Inside a manual shard_map body JAX types every value on the body's mesh
    # (its manual axes Manual); pyjax's avals there name no mesh.
    mesh = get_abstract_mesh()
    types = mesh.axis_types
    if any(t is AxisType.Manual for t in types) and not any(t is AxisType.Explicit for t in types):
        return mesh
    return EMPTY_ABSTRACT_MESH


def no_mesh_view(aval: ShapedArray) -> ShapedArray:
    """`aval` (on no mesh) as JAX's typeof shows it: on the empty mesh, or
    in a manual shard_map body on the body's mesh."""
    mesh = _context_mesh()
    view = _VIEWS.get((aval, mesh))
    if view is None:
        view = object.__new__(_NoMeshView)
        for name in ("shape", "dtype", "weak_type", "memory_space", "too_big", "vma"):
            setattr(view, name, getattr(aval, name))
        view.sharding = NamedSharding(mesh, PartitionSpec(*([None] * len(aval.shape))))
        view._plain, view._mesh = aval, mesh
        _VIEWS[(aval, mesh)] = view
    return view
