"""`pallas_call`: a kernel run once per point of a grid on blocks of its operands.

    pallas_call(kernel, out_shape, grid=(2,), in_specs=[...], out_specs=...)(*args)

traces `kernel` once, on references (`Ref<default>{f32[4]}`) of the block
shapes, to a jaxpr with no outputs, and binds `pallas_call_p` with that jaxpr
and a `GridMapping` (the grid and each operand's blocks, index maps traced to
jaxprs). The NumPy backend runs it as JAX's interpret mode does
(backends/numpy/impls/pallas.py): for each grid point in row-major order,
copy each operand's block into a reference, run the kernel, copy the blocks
back; edge blocks are padded with "uninitialised" values (NaN, the integer
minimum, False) and outputs start uninitialised unless aliased to an input.

vmap adds a leading grid dimension (the batch), as JAX's batching rule does;
`program_id` does not count it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from pyjax._src import core as jcore
from pyjax._src import tree_util
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import eval_jaxpr
from pyjax._src.pallas import core as pc
from pyjax._src.ref_types import AbstractRef
from pyjax._src.rules import unimplemented

__all__ = ["pallas_call", "pallas_call_p"]

pallas_call_p = Primitive("pallas_call", multiple_results=True).declare(body_params=("jaxpr",))
pallas_call_p.declare(sharding_reason='a kernel: runs on whole arrays on one device (interpret mode)')
_I32 = ShapedArray((), np.dtype("int32"))


@pallas_call_p.def_abstract_eval
def _pallas_call_abstract_eval(*avals, out_avals, **params):
    return list(out_avals)


pallas_call_p.def_jvp(unimplemented("pallas_call: forward-mode differentiation of a kernel is not "
                                    "implemented in pyjax yet"))
pallas_call_p.def_transpose(unimplemented("pallas_call: reverse mode of a kernel is not implemented in pyjax yet"))


# ---------------------------------------------------------------------------
# Block mappings


def _block_dims(block_shape, shape: tuple, what: str) -> tuple:
    if block_shape is None:
        return tuple(pc.Blocked(d) for d in shape)
    dims = []
    for b in block_shape:
        if b is None or isinstance(b, pc.Squeezed):
            dims.append(pc.Squeezed())
        elif isinstance(b, (pc.Blocked, pc.Element)):
            dims.append(b)
        elif isinstance(b, (pc.BoundedSlice, pc.Indirect)):
            raise NotImplementedError(f"{type(b).__name__} block dimensions are not supported by pyjax's interpreter")
        else:
            dims.append(pc.Blocked(int(b)))
    if len(dims) != len(shape):
        raise ValueError(f"Block shape for {what} (= {tuple(dims)}) must have the same number of dimensions as "
                         f"the array shape {shape}.")
    return tuple(dims)


def _as_index_array(x):
    from pyjax._src.numpy.util import ensure_array
    from pyjax._src.lax.elementwise import convert_element_type

    return convert_element_type(ensure_array(x), np.dtype("int32"))


def _trace_index_map(index_map: Callable | None, grid: tuple, rank: int, what: str):
    def flat(*idx):
        if index_map is None:
            out = (0,) * rank
        else:
            out = index_map(*idx)
            out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(out) != rank:
            raise ValueError(f"Index map function for {what} must return {rank} values to match the block "
                             f"shape; got {len(out)}.")
        return [_as_index_array(o) for o in out]

    jaxpr, _ = trace_to_jaxpr(flat, [_I32] * len(grid))
    return jaxpr


def _block_mapping(spec, aval: ShapedArray, grid: tuple, what: str) -> pc.BlockMapping:
    if spec is None or spec is pc.no_block_spec:
        spec = pc.BlockSpec()
    if spec.memory_space is pc.MemorySpace.ANY:  # the whole array, left where it is
        spec = pc.BlockSpec(None, None, memory_space=pc.MemorySpace.ANY)
    dims = _block_dims(spec.block_shape, aval.shape, what)
    jaxpr = _trace_index_map(spec.index_map, grid, len(dims), what)
    space = spec.memory_space if spec.memory_space is not None else pc.MemorySpace.DEFAULT
    return pc.BlockMapping(dims, jaxpr, ShapedArray(aval.shape, aval.dtype), space)


def _specs_for(specs, n: int, kind: str) -> list:
    if specs is pc.no_block_spec or specs is None:
        return [None] * n
    if isinstance(specs, pc.BlockSpec):
        specs = [specs]
    specs = list(specs)
    if len(specs) != n:
        raise ValueError(f"Pytree for `{kind}` and `{'inputs' if kind == 'in_specs' else 'out_shape'}` do not "
                         f"match. There are {len(specs)} specs and {n} operands.")
    return specs


def _scratch_aval(t) -> AbstractRef:
    if isinstance(t, pc.MemoryRef):
        return t.get_ref_aval()
    return AbstractRef(ShapedArray(tuple(t.shape), np.dtype(t.dtype)), pc.MemorySpace.DEFAULT)


# ---------------------------------------------------------------------------
# pallas_call


def pallas_call(kernel: Callable[..., None], out_shape: Any, *, grid_spec: pc.GridSpec | None = None,
                grid: Any = (), in_specs: Any = pc.no_block_spec, out_specs: Any = pc.no_block_spec,
                scratch_shapes: Any = (), input_output_aliases: Mapping[int, int] = {}, debug: bool = False,
                interpret: Any = None, name: str | None = None, compiler_params: Any = None,
                cost_estimate: pc.CostEstimate | None = None,
                metadata: dict[str, str] | None = None) -> Callable[..., Any]:
    """A function running `kernel` once per point of `grid` on blocks of its
    arguments and of `out_shape`'s arrays (ShapeDtypeStructs), as `in_specs` and
    `out_specs` say (BlockSpecs; the whole array where not given).

    `kernel(*in_refs, *out_refs, *scratch_refs)` reads and writes references to
    the blocks and returns nothing. On this backend kernels run in interpret
    mode: `interpret` defaults to it, and `interpret=False` raises (JAX's CPU
    backend has no other mode either).
    """
    if grid_spec is None:
        grid_spec = pc.GridSpec(grid, in_specs, out_specs, scratch_shapes)
    flat_out, out_tree = tree_util.tree_flatten(out_shape)
    out_avals = tuple(ShapedArray(tuple(o.shape), np.dtype(o.dtype)) for o in flat_out)

    def wrapped(*args):
        arg_leaves, in_tree = tree_util.tree_flatten(args)
        in_avals = [jcore.get_aval(a) for a in arg_leaves]
        mapping = _grid_mapping(grid_spec, in_avals, out_avals)
        jaxpr = _trace_kernel(kernel, mapping, grid_spec.grid, in_tree, out_shape)
        aliases = _aliases(input_output_aliases, in_avals, out_avals)
        outs = pallas_call_p.bind(
            *arg_leaves, jaxpr=jaxpr, grid_mapping=mapping, input_output_aliases=aliases, debug=debug,
            interpret=True if interpret is None else interpret, name=name, compiler_params=compiler_params,
            cost_estimate=cost_estimate, mesh=None, metadata=metadata, out_avals=out_avals)
        return tree_util.tree_unflatten(out_tree, outs)

    return wrapped


def _grid_mapping(grid_spec: pc.GridSpec, in_avals, out_avals) -> pc.GridMapping:
    grid = tuple(int(g) for g in grid_spec.grid)
    ins = _specs_for(grid_spec.in_specs, len(in_avals), "in_specs")
    outs = _specs_for(grid_spec.out_specs, len(out_avals), "out_specs")
    mappings = [_block_mapping(s, a, grid, f"args[{i}]") for i, (s, a) in enumerate(zip(ins, in_avals))]
    mappings += [_block_mapping(s, a, grid, f"outputs[{i}]") for i, (s, a) in enumerate(zip(outs, out_avals))]
    scratch = tuple(_scratch_aval(t) for t in tree_util.tree_leaves(
        grid_spec.scratch_shapes, is_leaf=lambda x: isinstance(x, pc.MemoryRef)))
    return pc.GridMapping(grid, tuple(mappings), len(in_avals), len(out_avals), scratch)


def _trace_kernel(kernel: Callable, mapping: pc.GridMapping, grid: tuple, in_tree, out_shape):
    avals = [AbstractRef(ShapedArray(bm.kernel_shape, bm.array_aval.dtype), bm.memory_space)
             for bm in mapping.block_mappings] + list(mapping.scratch_avals)
    n_in, n_out = mapping.num_inputs, mapping.num_outputs

    def body(*refs):
        # The references come in the structure of the arguments and of out_shape, as in JAX.
        ins = tree_util.tree_unflatten(in_tree, refs[:n_in])
        outs = tree_util.tree_unflatten(tree_util.tree_structure(out_shape), refs[n_in:n_in + n_out])
        outs = tuple(outs) if isinstance(out_shape, (tuple, list)) else (outs,)
        kernel(*ins, *outs, *refs[n_in + n_out:])
        return []

    with pc.grid_env(None, grid):  # (num_programs is static while tracing)
        jaxpr, _ = trace_to_jaxpr(body, avals)
    return jaxpr


def _aliases(aliases: Mapping[int, int], in_avals, out_avals) -> tuple:
    for i, o in aliases.items():
        a, b = in_avals[i], out_avals[o]
        if (a.shape, a.dtype) != (b.shape, b.dtype):
            raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' referring to input{i} with "
                             f"abstract value {a.str_short()} and to output{o} with a different abstract value "
                             f"{b.str_short()}.")
    return tuple(sorted(aliases.items()))


# ---------------------------------------------------------------------------
# vmap: a leading grid dimension over the batch


def _batched_mapping(bm: pc.BlockMapping, batched: bool, size: int) -> pc.BlockMapping:
    old = bm.index_map_jaxpr
    n = len(old.invars)

    def index_map(b, *idx):
        inner = eval_jaxpr(old, old.consts, *idx)
        return [b, *inner] if batched else list(inner)

    jaxpr, _ = trace_to_jaxpr(index_map, [_I32] * (n + 1))
    if not batched:
        return pc.BlockMapping(bm.block_shape, jaxpr, bm.array_aval, bm.memory_space)
    aval = ShapedArray((size,) + bm.array_aval.shape, bm.array_aval.dtype)
    return pc.BlockMapping((pc.Squeezed(),) + bm.block_shape, jaxpr, aval, bm.memory_space)


def _pallas_call_batch(axis_data, args, dims, *, grid_mapping, input_output_aliases, out_avals, **params):
    from pyjax._src.lax.shapes import broadcast_in_dim, transpose

    size = axis_data.size
    aliased = {i for i, _ in input_output_aliases}
    new_args, batched = [], []
    for i, (x, d) in enumerate(zip(args, dims)):
        if d is batching.not_mapped and i in aliased:  # (an aliased input is an output: give it the batch)
            shape = jcore.get_aval(x).shape
            x, d = broadcast_in_dim(x, (size,) + shape, tuple(range(1, len(shape) + 1))), 0
        if d is not batching.not_mapped and d != 0:
            rank = len(jcore.get_aval(x).shape)
            x = transpose(x, (d,) + tuple(a for a in range(rank) if a != d))
        new_args.append(x)
        batched.append(d is not batching.not_mapped)
    gm = grid_mapping
    bms = [_batched_mapping(bm, b, size) for bm, b in zip(gm.block_mappings[:gm.num_inputs], batched)]
    bms += [_batched_mapping(bm, True, size) for bm in gm.block_mappings_output]
    mapping = pc.GridMapping((size,) + gm.grid, tuple(bms), gm.num_inputs, gm.num_outputs, gm.scratch_avals,
                             gm.vmapped_dims + 1)
    new_out = tuple(ShapedArray((size,) + a.shape, a.dtype) for a in out_avals)
    outs = pallas_call_p.bind(*new_args, grid_mapping=mapping, input_output_aliases=input_output_aliases,
                              out_avals=new_out, **params)
    return outs, [0] * len(outs)


pallas_call_p.def_batch(_pallas_call_batch)
