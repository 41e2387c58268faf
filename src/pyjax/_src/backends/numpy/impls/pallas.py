"""Pallas kernels on NumPy: JAX's interpret mode.

For each grid point, in row-major order: evaluate the index maps, copy each
operand's block (inputs, then outputs) into a reference, run the kernel on
the references and the scratch references, and copy every block back (an
input block too: a kernel may write it, and a later grid point reads what
it wrote, as in JAX's interpreter). Operands are first padded to whole
blocks with "uninitialised" values (NaN, the integer minimum, False);
outputs start as those values unless aliased to an input. Scratch buffers
start uninitialised and keep their contents across grid points.
"""

from __future__ import annotations

import itertools

import numpy as np

from pyjax._src.pallas import core as pc
from pyjax._src.pallas import primitives as pp
from pyjax._src.pallas.pallas_call import pallas_call_p
from pyjax._src.ref_types import RefBuffer

IMPLS: dict = {}

_NOT_INTERPRET = "Only interpret mode is supported on CPU backend."


def uninitialized(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """JAX's interpret-mode stand-in for memory never written."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return np.full(shape, np.nan, dtype)
    if dtype.kind in "iu":
        return np.full(shape, np.iinfo(dtype).min, dtype)
    return np.zeros(shape, dtype)


def _padded(x: np.ndarray, bm: pc.BlockMapping) -> np.ndarray:
    lo_hi = [d.padding if isinstance(d, pc.Element) else (0, 0) for d in bm.block_shape]
    sizes = [1 if isinstance(d, pc.Squeezed) else d.block_size for d in bm.block_shape]
    shape = [lo + n + hi for n, (lo, hi) in zip(x.shape, lo_hi)]
    shape = [-(-n // b) * b if not isinstance(d, pc.Element) else n
             for n, b, d in zip(shape, sizes, bm.block_shape)]
    if tuple(shape) == x.shape and not any(lo for lo, _ in lo_hi):
        return np.array(x, copy=True)
    out = uninitialized(tuple(shape), x.dtype)
    out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, lo_hi))] = x
    return out


def _unpadded(x: np.ndarray, bm: pc.BlockMapping) -> np.ndarray:
    lo = [d.padding[0] if isinstance(d, pc.Element) else 0 for d in bm.block_shape]
    return x[tuple(slice(l, l + n) for l, n in zip(lo, bm.array_aval.shape))]


def _block_slices(bm: pc.BlockMapping, idx: tuple, shape: tuple, run_index_map) -> tuple:
    starts = run_index_map(bm.index_map_jaxpr, idx)
    out = []
    for d, s, n in zip(bm.block_shape, starts, shape):
        size = 1 if isinstance(d, pc.Squeezed) else d.block_size
        start = int(s) if isinstance(d, pc.Element) else int(s) * size
        start = min(max(start, 0), max(n - size, 0))  # (dynamic_slice's clamp)
        out.append(slice(start, start + size))
    return tuple(out)


def _kernel_runner(jaxpr, impls):
    """The kernel compiled once by the backend (cached on the jaxpr)."""
    fn = getattr(jaxpr, "_pallas_compiled", None)
    if fn is None:
        from pyjax._src.backends.numpy import compile_jaxpr

        fn = compile_jaxpr(jaxpr)
        try:
            jaxpr._pallas_compiled = fn
        except AttributeError:
            pass
    return fn


def _pallas_call_impl(*args, jaxpr, grid_mapping, input_output_aliases, interpret, out_avals, **params):
    from pyjax._src.backends.numpy.impls import IMPLS as ALL
    from pyjax._src.backends.numpy.impls.interpreter import run_jaxpr

    if interpret is False:
        raise ValueError(_NOT_INTERPRET)
    gm = grid_mapping
    aliased = {o: i for i, o in input_output_aliases}
    outs = [np.asarray(args[aliased[k]]) if k in aliased else uninitialized(a.shape, a.dtype)
            for k, a in enumerate(out_avals)]
    bufs = [_padded(np.asarray(x), bm) for x, bm in zip(list(args) + outs, gm.block_mappings)]
    scratch = [RefBuffer(uninitialized(a.shape, a.dtype)) for a in gm.scratch_avals]
    run = _kernel_runner(jaxpr, ALL)
    index_map = lambda j, idx: run_jaxpr(j, ALL, [np.int32(i) for i in idx])
    v = gm.vmapped_dims
    for idx in itertools.product(*(range(g) for g in gm.grid)):
        where = [_block_slices(bm, idx, b.shape, index_map) for bm, b in zip(gm.block_mappings, bufs)]
        blocks = [RefBuffer(np.array(b[w], copy=True).reshape(bm.kernel_shape))
                  for b, w, bm in zip(bufs, where, gm.block_mappings)]
        with pc.grid_env(idx[v:], gm.grid[v:]):
            run(*blocks, *scratch)
        for b, w, blk in zip(bufs, where, blocks):
            b[w] = blk.value.reshape(b[w].shape)
    return [_unpadded(b, bm) for b, bm in zip(bufs[gm.num_inputs:], gm.block_mappings_output)]


def _program_id(*, axis):
    env = pc.current_grid_env()
    if env is None or env[0] is None:
        raise ValueError("program_id may only be called inside a Pallas kernel")
    return np.int32(env[0][axis])


def _num_programs(*, axis):
    env = pc.current_grid_env()
    if env is None:
        raise ValueError("num_programs may only be called inside a Pallas kernel")
    return np.int32(env[1][axis])


def _reciprocal(x, *, approx, full_range):
    x = np.asarray(x)
    return np.divide(np.ones((), x.dtype), x)


IMPLS[pallas_call_p] = _pallas_call_impl
IMPLS[pp.program_id_p] = _program_id
IMPLS[pp.num_programs_p] = _num_programs
IMPLS[pp.multiple_of_p] = lambda x, *, values: x
IMPLS[pp.reciprocal_p] = _reciprocal
