"""The per-device paths of sharded programs and placed Arrays, loaded by
their first use rather than by `import pyjax` (docs/performance.md).

spmd_jit (sharded jit, through shard_map's runtime) and spmd_eager (eager
operations and jitted calls on placed Arrays) install themselves into
slots of jit, stages, dispatch and sharding.placed_call when imported.
`install()` fills those slots first with loaders: the first program with a
sharded type, or the first operation on a placed Array, imports the module,
which replaces the loader, and calls what it installed. A program with no
sharded type never loads them (spmd_jit would decline it: no mesh).
"""

from __future__ import annotations

from pyjax._src import dispatch, jit, stages
from pyjax._src.sharding import placed_call


def _has_sharded_type(jaxpr) -> bool:
    return any(getattr(a, "sharding", None) is not None for a in (*jaxpr.in_avals, *jaxpr.out_avals))


def _partitioned_first(jaxpr):
    if not _has_sharded_type(jaxpr):
        return None
    from pyjax._src import spmd_jit  # noqa: F401  (installs jit.SPMD_PARTITIONED)
    return jit.SPMD_PARTITIONED[0](jaxpr)


def _per_device_text_first(jaxpr):
    if not _has_sharded_type(jaxpr):
        return None
    from pyjax._src import spmd_jit  # noqa: F401  (installs stages.PER_DEVICE_TEXT)
    return stages.PER_DEVICE_TEXT[0](jaxpr)


def _placed_eager_first(primitive, args, params):
    from pyjax._src import spmd_eager  # noqa: F401  (installs dispatch.PLACED_EAGER)
    return dispatch.PLACED_EAGER[0](primitive, args, params)


def _placed_call_first(jaxpr, flat_args):
    from pyjax._src import spmd_eager  # noqa: F401  (installs placed_call.RUN)
    return placed_call.RUN[0](jaxpr, flat_args)


def install() -> None:
    """Put the loaders in the slots still empty (each module, once imported,
    has put its own there)."""
    if jit.SPMD_PARTITIONED[0].__module__ == jit.__name__:
        jit.SPMD_PARTITIONED[0] = _partitioned_first
    if stages.PER_DEVICE_TEXT[0].__module__ == stages.__name__:
        stages.PER_DEVICE_TEXT[0] = _per_device_text_first
    if dispatch.PLACED_EAGER[0].__module__ == dispatch.__name__:
        dispatch.PLACED_EAGER[0] = _placed_eager_first
    if placed_call.RUN[0] is None:
        placed_call.RUN[0] = _placed_call_first
