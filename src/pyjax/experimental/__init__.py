"""jax.experimental: of its names pyjax has `shard_map` (the deprecated
module kept by JAX 0.11; see docs/shard_map.md), `io_callback` and
`checkify` (docs/debugging.md), `compilation_cache` (docs/compilation_cache.md),
and three names of JAX's hijax layer: `primal_tangent_dtype` (a dtype
whose tangents have another dtype), `EArray` and `cur_qdd` (docs/api26_extras.md)."""

from pyjax.experimental import shard_map  # noqa: F401
from pyjax._src.effects import io_callback  # noqa: F401
from pyjax.experimental import checkify  # noqa: F401
from pyjax.experimental import compilation_cache  # noqa: F401
from pyjax._src.primal_tangent_dtype import primal_tangent_dtype  # noqa: F401
from pyjax._src.earray import EArray, cur_qdd  # noqa: F401


def __getattr__(name: str):
    # The ecosystem shims JAX's experimental modules that pyjax has no real
    # module for yet (`hijax`, `layout`, ...) live in pyjax._src.compat; a
    # `from jax.experimental import hijax` under install_as_jax() looks here.
    import importlib

    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return importlib.import_module(f"pyjax._src.compat.public.experimental.{name}")
    except ModuleNotFoundError:
        raise AttributeError(f"module 'jax.experimental' has no attribute '{name}'") from None
