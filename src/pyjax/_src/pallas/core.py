"""Pallas's specifications: memory spaces, block dimensions, BlockSpec,
GridSpec, and the grid mapping a `pallas_call` equation carries.

A `GridMapping` is the static description of a call: the grid, and for each
operand (inputs, then outputs) a `BlockMapping` holding the block shape, the
index map traced to a jaxpr (grid indices -> block indices) and the array's
aval. It prints as JAX 0.11 prints its own (`GridMapping(grid=(2,),
block_mappings=(BlockMapping(block_shape=(Blocked(block_size=4),)), ...))`).
"""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, Callable, Sequence, Union

from pyjax._src.avals import ShapedArray
from pyjax._src.ref_types import AbstractRef

__all__ = ["MemorySpace", "MemoryRef", "HOST", "Blocked", "Element", "Squeezed", "squeezed", "BoundedSlice",
           "Indirect",
           "BlockDim", "Buffered", "RevisitMode", "CostEstimate", "CompilerParams", "BlockSpec", "GridSpec",
           "no_block_spec", "GridMapping", "BlockMapping", "cdiv", "next_power_of_2", "strides_from_shape",
           "align_to", "grid_env", "current_grid_env"]


class MemorySpace(enum.Enum):
    """Logical, device-agnostic memory spaces (on this backend, all are host memory)."""

    ANY = "any"
    DEFAULT = "default"
    ERROR = "error"
    INDEX = "index"
    KEY = "key"

    @property
    def memory_kind(self) -> str:
        return "device"

    def from_type(self, type: ShapedArray) -> MemoryRef:
        return MemoryRef(type, memory_space=self)

    def __call__(self, shape: tuple[int, ...], dtype: Any) -> MemoryRef:
        """A `MemoryRef` of this space: a scratch buffer's type."""
        import numpy as np

        return self.from_type(ShapedArray(tuple(shape), np.dtype(dtype)))

    def __str__(self) -> str:
        return self.value


class _HostSpace:
    """JAX's host memory space, as `pl.HOST` prints it."""

    def __repr__(self) -> str:
        return "MemorySpace.Host"

    __str__ = __repr__


HOST = _HostSpace()


@dataclasses.dataclass(frozen=True)
class MemoryRef:
    """Like `jax.ShapeDtypeStruct`, with a memory space: the type of a scratch buffer."""

    inner_aval: Any
    memory_space: Any

    def get_array_aval(self) -> ShapedArray:
        return self.inner_aval

    def get_ref_aval(self) -> AbstractRef:
        return AbstractRef(self.inner_aval, self.memory_space)

    @property
    def shape(self):
        return self.inner_aval.shape

    @property
    def dtype(self):
        return self.inner_aval.dtype


@dataclasses.dataclass(frozen=True)
class Element:
    """A block dimension indexed by an element offset (not a block number)."""

    block_size: int
    padding: tuple[int, int] = (0, 0)

    def __str__(self) -> str:
        if self.padding == (0, 0):
            return f"Element({self.block_size})"
        return "Element({}, padding={})".format(self.block_size, self.padding)


@dataclasses.dataclass(frozen=True)
class Squeezed:
    """A block dimension of size one that the kernel does not see."""


squeezed = Squeezed()


@dataclasses.dataclass(frozen=True)
class Blocked:
    """The default block dimension: the index map gives a block number."""

    block_size: int

    def __str__(self) -> str:
        return f"Blocked({self.block_size})"


@dataclasses.dataclass(frozen=True)
class BoundedSlice:
    """A dimension the index map addresses with a `pl.ds` of at most `block_size`
    elements (not supported by this interpreter: pallas_call raises)."""

    block_size: int

    def __repr__(self) -> str:
        return f"BoundedSlice({self.block_size})"


@dataclasses.dataclass(frozen=True)
class Indirect:
    """A dimension indexed by an array of indices (a gather/scatter; not supported
    by this interpreter: pallas_call raises)."""

    block_size: int

    def __repr__(self) -> str:
        return f"Indirect({self.block_size})"


BlockDim = Union[Element, Squeezed, Blocked, BoundedSlice, Indirect]


class RevisitMode(enum.Enum):
    """How an output block revisited at a later grid point is handled (a pipelining hint)."""

    IMMEDIATE = "immediate"
    ANY = "any"


@dataclasses.dataclass(frozen=True)
class Buffered:
    """How many buffers a block's pipeline uses (a hint; the interpreter has no pipeline)."""

    buffer_count: int
    use_lookahead: bool = False
    revisit: RevisitMode | None = None
    prefetched_count: int = 0


@dataclasses.dataclass(frozen=True)
class CostEstimate:
    """The cost of a kernel, for the compiler's scheduling (recorded, not used here)."""

    flops: int
    transcendentals: int
    bytes_accessed: int
    remote_bytes_transferred: int = 0


class CompilerParams:
    """The base of the backends' compiler parameters (Mosaic's, Triton's): accepted and ignored."""

    BACKEND: str = "none"


class _NoBlockSpec:
    def __repr__(self) -> str:
        return "NoBlockSpec"


no_block_spec = _NoBlockSpec()


class _IndexMapFunc:
    """An index map as BlockSpec's repr shows it."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)

    def __repr__(self) -> str:
        return f"_IndexMapFunc({self.fn!r})"


@dataclasses.dataclass
class BlockSpec:
    """The part of an array a kernel sees at each grid point: blocks of
    `block_shape` (an int: `Blocked`; None or `pl.squeezed`: a squeezed
    dimension), the one `index_map(*grid_indices)` selects."""

    block_shape: Sequence[Any] | None = None
    index_map: Callable[..., Any] | None = None
    pipeline_mode: Buffered | None = None
    _: dataclasses.KW_ONLY
    memory_space: Any | None = None

    def __post_init__(self):
        fn = self.index_map
        if fn is not None and not isinstance(fn, _IndexMapFunc):
            self.index_map = _IndexMapFunc(fn)

    def __repr__(self) -> str:
        return (f"BlockSpec(block_shape={self.block_shape}, index_map={self.index_map}, "
                f"memory_space={self.memory_space}, pipeline_mode={self.pipeline_mode})")


@dataclasses.dataclass(init=False)
class GridSpec:
    """A kernel's grid, the BlockSpecs of its inputs and outputs, and its scratch buffers."""

    grid: tuple
    grid_names: tuple | None
    in_specs: Any
    out_specs: Any
    scratch_shapes: Any

    def __init__(self, grid: Any = (), in_specs: Any = no_block_spec, out_specs: Any = no_block_spec,
                 scratch_shapes: Any = ()):
        grid = (grid,) if isinstance(grid, int) else tuple(grid)
        self.grid, self.grid_names = grid, None
        self.in_specs = tuple(in_specs) if isinstance(in_specs, list) else in_specs
        self.out_specs = tuple(out_specs) if isinstance(out_specs, list) else out_specs
        self.scratch_shapes = tuple(scratch_shapes)


@dataclasses.dataclass(eq=False, frozen=True)
class BlockMapping:
    """One operand's blocks: `block_shape` (BlockDims), `index_map_jaxpr`
    (grid indices -> one index per dimension), the whole array's aval."""

    block_shape: tuple
    index_map_jaxpr: Any
    array_aval: ShapedArray
    memory_space: Any = None

    def __repr__(self) -> str:
        return f"BlockMapping(block_shape={self.block_shape!r})"

    @property
    def kernel_shape(self) -> tuple:
        """The block's shape as the kernel sees it (squeezed dimensions gone)."""
        return tuple(d.block_size for d in self.block_shape if not isinstance(d, Squeezed))


@dataclasses.dataclass(eq=False, frozen=True)
class GridMapping:
    """The static description of a pallas_call: grid, block mappings
    (inputs, then outputs), scratch avals, and the leading grid dimensions
    vmap added (which `program_id` does not count)."""

    grid: tuple
    block_mappings: tuple
    num_inputs: int
    num_outputs: int
    scratch_avals: tuple = ()
    vmapped_dims: int = 0

    def __repr__(self) -> str:
        return f"GridMapping(grid={self.grid!r}, block_mappings={self.block_mappings!r})"

    @property
    def block_mappings_output(self) -> tuple:
        return self.block_mappings[self.num_inputs:]


# ---------------------------------------------------------------------------
# The grid environment: the indices of the grid point being run


_grid_env: list = []


class grid_env:
    """Sets the grid point (indices, sizes) that `program_id`/`num_programs` read."""

    def __init__(self, indices: tuple, sizes: tuple):
        self.entry = (None if indices is None else tuple(indices), tuple(sizes))

    def __enter__(self):
        _grid_env.append(self.entry)

    def __exit__(self, *exc):
        _grid_env.pop()


def current_grid_env() -> tuple | None:
    return _grid_env[-1] if _grid_env else None


# ---------------------------------------------------------------------------
# Small helpers


def cdiv(a: Any, b: Any) -> Any:
    """`ceil(a / b)` for integers (traced ones too)."""
    if isinstance(a, int) and isinstance(b, int):
        return (a + b - 1) // b
    from pyjax._src.lax import elementwise as ew

    return ew.div(ew.add(a, ew.sub(b, 1)), b)


def align_to(a: Any, alignment: Any) -> Any:
    """The smallest multiple of `alignment` not below `a`."""
    return cdiv(a, alignment) * alignment


def next_power_of_2(x: int) -> int:
    """The smallest power of two not below `x` (1 for 0)."""
    if x < 0:
        raise ValueError("`next_power_of_2` requires a non-negative integer.")
    return 1 if x == 0 else 1 << (x - 1).bit_length()


def strides_from_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major element strides of `shape`."""
    return tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))
