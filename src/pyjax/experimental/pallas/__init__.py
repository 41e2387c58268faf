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
from pyjax._src.ref_types import Slice, ds

ANY = MemorySpace.ANY
dslice = ds
