"""pyjax.sharding: meshes, partition specs and shardings (JAX 0.11's jax.sharding)."""

from pyjax._src.sharding.mesh import (
    AbstractDevice, AbstractMesh, AxisType, Mesh, get_abstract_mesh, get_mesh, set_mesh, use_abstract_mesh,
)
from pyjax._src.sharding.named import NamedSharding, Sharding, SingleDeviceSharding, make_single_device_sharding
from pyjax._src.sharding.partition_spec import ManualAxisType, PartitionSpec, UnreducedKind

__all__ = [
    "AbstractDevice", "AbstractMesh", "AxisType", "ManualAxisType", "Mesh", "NamedSharding", "PartitionSpec", "Sharding",
    "SingleDeviceSharding", "UnreducedKind", "auto_axes", "explicit_axes", "get_abstract_mesh", "get_mesh",
    "make_single_device_sharding", "reshard", "set_mesh", "use_abstract_mesh",
]

# The resharding API loads with its first use (pyjax._src.lazy_names).
from pyjax._src.lazy_names import install as _install_lazy, names_from as _names_from  # noqa: E402

_install_lazy(globals(), _names_from("pyjax._src.sharding.api", "auto_axes explicit_axes reshard"))
