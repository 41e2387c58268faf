"""`jax.experimental.pallas`: kernels over blocks of arrays.

pyjax has no TPU or GPU: kernels run in JAX's interpret mode on the NumPy
backend (the default here; `interpret=False` raises JAX's CPU error).
See docs/pallas.md.
"""

from pyjax._src.pallas.core import (
    HOST, BlockDim, BlockSpec, Blocked, BoundedSlice, Buffered, Indirect, CompilerParams, CostEstimate, Element, GridSpec,
    MemoryRef, MemorySpace, RevisitMode, Squeezed, align_to, cdiv, next_power_of_2, no_block_spec, squeezed,
    strides_from_shape,
)
from pyjax._src.pallas.pallas_call import pallas_call, pallas_call_p
from pyjax._src.pallas.primitives import (
    broadcast_to, debug_print, empty, empty_like, empty_ref_like, loop, multiple_of, num_programs, program_id,
    reciprocal, run_scoped, when, with_scoped,
)
from pyjax._src.pallas.cost_estimate import estimate_cost
from pyjax._src.pallas.extras import debug_check, run_state
from pyjax._src.pallas.device_only import (
    DeviceIdType, core_map, delay, get_global, kernel, select_ref, semaphore, semaphore_read, semaphore_signal,
    semaphore_wait,
)
from pyjax._src.ref_types import Slice, ds
from pyjax._src.config import pallas_enable_debug_checks as enable_debug_checks
from pyjax._src.config import pallas_poison_buffers as enable_poison_buffers

ANY = MemorySpace.ANY
dslice = ds


_DEPRECATED = {
    "dot": ("jax.experimental.pallas.dot was moved to jax.experimental.pallas.triton. Accessing it via "
            "jax.experimental.pallas is deprecated. You can use jax.numpy.dot, jax.numpy.einsum or the @ operator "
            "instead in a TPU or MGPU kernel.", "dot"),
    "debug_checks_enabled": ("jax.experimental.pallas.debug_checks_enabled is deprecated, use "
                             "pl.enable_debug_checks.value instead.", "debug_checks_enabled"),
}


def __getattr__(name: str):
    # Deprecated names warn when read, as in JAX 0.11.
    if name in _DEPRECATED:
        import warnings

        from pyjax._src.pallas import extras

        message, attr = _DEPRECATED[name]
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return getattr(extras, attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
