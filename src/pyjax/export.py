"""pyjax.export: JAX's `jax.export` — exporting jitted functions, serializing
them, and shape polymorphism (docs/export.md).

pyjax's serialization is its own versioned format, not interchangeable with
JAX's flatbuffers of MLIR bytecode."""

from pyjax._src.export._export import (
    DisabledSafetyCheck,
    Exported,
    default_export_platform,
    export,
)
from pyjax._src.export._export import CALLING_CONVENTION_VERSION as _CCV
from pyjax._src.export._export import MIN_CALLING_CONVENTION_VERSION as _MIN_CCV
from pyjax._src.export.serialization import (
    deserialize,
    register_namedtuple_serialization,
    register_pytree_node_serialization,
)
from pyjax._src.shape_poly import SymbolicScope, is_symbolic_dim
from pyjax._src.export._export import symbolic_args_specs
from pyjax._src.shape_poly_parse import symbolic_shape

maximum_supported_calling_convention_version = _CCV
minimum_supported_calling_convention_version = _MIN_CCV

__all__ = [
    "DisabledSafetyCheck", "Exported", "SymbolicScope", "default_export_platform", "deserialize", "export",
    "is_symbolic_dim", "maximum_supported_calling_convention_version",
    "minimum_supported_calling_convention_version", "register_namedtuple_serialization",
    "register_pytree_node_serialization", "symbolic_args_specs", "symbolic_shape",
]
