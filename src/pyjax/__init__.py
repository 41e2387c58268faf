"""pyjax: JAX's tracing machine, rebuilt from scratch in Python.

    import pyjax as jax
    import pyjax.numpy as jnp
    from pyjax import lax

Functions are traced once on abstract values into a jaxpr; jit, and the
transformations built on it, are interpretations of that jaxpr.
"""

__version__ = "0.1.0"
# The JAX version whose API pyjax implements: libraries choose code paths by it.
__version_info__ = (0, 11, 0)

from pyjax._src import config as _config_module
from pyjax._src import backends as _backends
from pyjax._src.dispatch import sync_checks as _sync_checks
from pyjax._src.numpy import array_methods as _array_methods

# The default backend, NumPy: its table and compiler wired in here, its
# modules loaded by the first computation (pyjax._src.backends).
_backends.wire_numpy()
from pyjax._src import stages as _stages  # noqa: E402
from pyjax._src.export import mlir_text as _mlir_text  # noqa: E402


# Lowered.as_text() and Exported.mlir_module(): the StableHLO backend is
# imported and wired by its first use, not by `import pyjax`.
def _stablehlo_lowering(*args, **kwargs):
    from pyjax._src.backends import stablehlo
    stablehlo.wire()  # installs the real lowerings in place of these two
    return stablehlo.lower_jaxpr_to_module(*args, **kwargs)


def _export_lowering(exp):
    from pyjax._src.backends import stablehlo
    stablehlo.wire()
    return _mlir_text.export_module_text(exp)


_stages.set_stablehlo_lowering(_stablehlo_lowering)
_mlir_text.set_export_lowering(_export_lowering)
from pyjax._src.backends import iree as _iree_backend  # noqa: E402

_iree_backend.install()  # jit(backend='iree') / jax_platforms='iree' (IREE imported on first use)
_sync_checks()  # JAX_ENABLE_CHECKS=1: the checking eval trace from the start


def _float_checks_changed() -> None:
    # jax_debug_nans / jax_debug_infs: debug_nans.py (its checking eval trace
    # and check of compiled outputs) loads when either is first turned on; it
    # then follows every change itself (its sync is idempotent).
    from pyjax._src import debug_nans
    debug_nans.sync()


_config_module.debug_nans.add_change_hook(_float_checks_changed)
_config_module.debug_infs.add_change_hook(_float_checks_changed)
if _config_module.debug_nans.value or _config_module.debug_infs.value:
    _float_checks_changed()  # JAX_DEBUG_NANS=1 / JAX_DEBUG_INFS=1: the float-checking eval trace from the start
_array_methods.install()

from pyjax._src.api import (
    ShapeDtypeStruct, block_until_ready, device_get, eval_shape, grad, jvp, linearize, make_jaxpr, typeof,
    value_and_grad, vjp, vmap,
)
from pyjax._src.jit import clear_caches
from pyjax._src.array import Array
from pyjax._src.config import checking_leaks, config
from pyjax._src.config import disable_jit_context as disable_jit
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit

enable_x64 = _config_module.enable_x64
numpy_dtype_promotion = _config_module.numpy_dtype_promotion
numpy_rank_promotion = _config_module.numpy_rank_promotion
default_matmul_precision = _config_module.default_matmul_precision
log_compiles = _config_module.log_compiles
debug_nans = _config_module.debug_nans
debug_infs = _config_module.debug_infs
enable_checks = _config_module.enable_checks
explain_cache_misses = _config_module.explain_cache_misses
default_prng_impl = _config_module.default_prng_impl

from pyjax import dtypes, errors, lax, numpy, tree, tree_util  # noqa: E402
from pyjax import stages, typing  # noqa: E402
from pyjax._src.api_context import ensure_compile_time_eval, named_call, named_scope  # noqa: E402


from pyjax import sharding  # noqa: E402
from pyjax._src.sharding.devices import Device  # noqa: E402
from pyjax._src.sharding.mesh import make_mesh, set_mesh  # noqa: E402
from pyjax._src.sharding.named import NamedSharding  # noqa: E402
from pyjax._src.sharding.partition_spec import PartitionSpec as P  # noqa: E402
from pyjax._src import spmd_first_use as _spmd_first_use  # noqa: E402

_spmd_first_use.install()  # sharded programs / placed Arrays load the per-device paths on first use
from pyjax._src.sharding.sharded_array import (  # noqa: E402
    Shard, make_array_from_callback, make_array_from_single_device_arrays,
)
from pyjax._src.sharding import devices as _devices_module  # noqa: E402
from pyjax._src.sharding.named import MemorySpace as _MemorySpace  # noqa: E402
import types as _types  # noqa: E402

memory = _types.SimpleNamespace(Space=_MemorySpace)


def devices(backend=None) -> list:
    """The devices of the backend (``jax_num_cpu_devices`` CPU devices)."""
    return list(_devices_module.devices(backend))


def local_devices(process_index: int | None = None, backend=None, host_id: int | None = None) -> list:
    """The devices of this process (or of process `process_index`)."""
    _devices_module.devices(backend)
    return _devices_module.local_devices(host_id if process_index is None else process_index)


def device_count(backend=None) -> int:
    """The number of devices of all processes."""
    return len(_devices_module.devices(backend))


def local_device_count(backend=None) -> int:
    """The number of devices of this process."""
    return len(_devices_module.devices(backend)) // _devices_module.process_count()


def process_index(backend=None) -> int:
    """This process's index (0 unless jax.distributed.initialize joined several)."""
    return _devices_module.process_index()


def process_count(backend=None) -> int:
    """The number of processes (1 unless jax.distributed.initialize joined several)."""
    return _devices_module.process_count()


def process_indices(backend=None) -> list[int]:
    """The indices of the processes."""
    return list(range(_devices_module.process_count()))


def _renamed(old: str, new: str) -> None:
    import warnings
    warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will eventually be removed; "
                  "please update your code.", stacklevel=3)


def host_count(backend=None) -> int:
    """Deprecated alias of process_count (warns with JAX 0.11's text)."""
    _renamed("process_count", "process_count")
    return process_count(backend)


def host_id(backend=None) -> int:
    """Deprecated alias of process_index (warns with JAX 0.11's text)."""
    _renamed("process_index", "process_index")
    return process_index(backend)


def host_ids(backend=None) -> list[int]:
    """Deprecated alias of process_indices (warns with JAX 0.11's text)."""
    _renamed("process_indexs", "process_indices")
    return process_indices(backend)


def copy_to_host_async(x):
    """Starts copying x to the host; returns x. Host memory is all there is
    here, so there is nothing to start."""
    return x


def live_arrays(platform=None) -> list:
    """The Arrays alive now (not deleted) — found by walking the garbage
    collector's objects, as pyjax keeps no registry of its buffers."""
    import gc
    from pyjax._src.array import Array as _Array
    return [o for o in gc.get_objects() if type(o) is _Array and not o.is_deleted()]


def default_backend() -> str:
    return "cpu"


# Config options, guards and small utilities at the top level (JAX's names;
# docs/differences.md says which change nothing on a host-memory backend).
from pyjax._src.config import (  # noqa: E402
    allow_f16_reductions, array_garbage_collection_guard, auto_pcast, default_device,
    remove_size_one_mesh_axis_from_type, check_tracer_leaks, debug_key_reuse, enable_custom_prng,
    jax2tf_associative_scan_reductions, legacy_prng_key, make_user_context, no_execution, no_tracing,
    softmax_custom_jvp, thread_guard, threefry_partitionable, transfer_guard, transfer_guard_device_to_device,
    transfer_guard_device_to_host, transfer_guard_host_to_device,
)
from pyjax._src.dtypes import float0  # noqa: E402
from pyjax import monitoring  # noqa: E402
from pyjax import distributed  # noqa: E402  (several processes over MPI; docs/distributed.md)
from pyjax._src.ref_types import Ref, ds  # noqa: E402  (mutable array references; docs/refs.md)

# Submodules imported by their first attribute read (`pyjax.export`,
# `pyjax.nn`, ...), not by `import pyjax`: nothing else needs them, and they
# are a share of the import's time (docs/performance.md).
_LAZY_SUBMODULES = frozenset({"debug", "experimental", "export", "image", "interpreters", "nn", "profiler", "scipy"})


# Likewise the names of the SPMD transformations (issue 22; docs/shard_map.md):
# shard_map's runtime, pmap, and the per-device paths of placed Arrays
# (spmd_eager, spmd_jit: jit, stages and dispatch load them with the first
# sharded program or placed operation) are not part of `import pyjax`.
from pyjax._src.lazy_names import install as _install_lazy  # noqa: E402

# And what is used by fewer programs than jit/grad/vmap and jax.numpy: the
# Jacobians, the rarer custom-derivative forms, checkpointing, callbacks,
# references, the extension API (jax.core, jax.custom_derivatives), and
# submodules `import pyjax` imported until session 13.
from pyjax._src.lazy_names import names_from as _names_from  # noqa: E402

_install_lazy(globals(), {
    "shard_map": "pyjax._src.shard_map", "smap": "pyjax._src.shard_map", "pmap": "pyjax._src.pmap",
    **{name: f"pyjax.{name}:" for name in _LAZY_SUBMODULES},
    **{name: f"pyjax.{name}:" for name in (
        "ad_checkpoint", "core", "custom_batching", "custom_derivatives", "dlpack", "ops", "random", "ref")},
    "_debug_nans": "pyjax._src.debug_nans:", "_spmd_eager": "pyjax._src.spmd_eager:",
    **_names_from("pyjax._src.api_jac", "closure_convert hessian jacfwd jacobian jacrev linear_transpose"),
    "custom_vjp": "pyjax._src.custom_derivatives",
    "custom_remat": "pyjax._src.custom_remat",
    "custom_gradient": "pyjax._src.custom_gradient",
    **_names_from("pyjax.ad_checkpoint", "checkpoint checkpoint_policies remat"),
    "pure_callback": "pyjax._src.lax.callbacks",
    "device_put": "pyjax._src.lax.identity",
    "install_as_jax": "pyjax._src.install",
    "ad": "pyjax._src.grad_sentinels",
    "reshard": "pyjax._src.sharding.api",
    "effects_barrier": "pyjax._src.effects",
    "make_array_from_process_local_data": "pyjax._src.sharding.process_local",
    **_names_from("pyjax._src.api_extras", "Inline fwd_and_bwd print_environment_info"),
    **_names_from("pyjax.ref", "empty_ref free_ref freeze new_ref"),
}, unloaded=_LAZY_SUBMODULES)  # (lazy_names.load_all leaves these out, as `import pyjax` always did)
