"""The C of gathers and scatter-adds of one element per index (a matrix's
diagonal, `jnp.diag`, and its gradient), as impls/slicing.py computes them.

A gather whose windows are single elements of every axis reads, for each
index vector, the element its starts name, each start clamped into the
operand (every mode but FILL_OR_DROP, which keeps the Python code): bytes
only. A scatter-add of single elements copies the operand, then adds each
update in order into the element its starts name (clamped under CLIP,
dropped when out of bounds otherwise) by calling NumPy's add loop on that
one element, as `np.add.at` calls it: the same kernel and operands, so the
same bits (NaNs included).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.native.csource import _C_SCALARS, _Source, _Unsupported, _View, _copy_lines
from pyjax._src.backends.numpy.native.discovery import ufunc_loop
from pyjax._src.lax import gather_scatter as gs

__all__ = ["POINT_OPS", "iota_lines"]

_Mode = gs.GatherScatterMode
# Index dtypes whose values `astype(np.int64)` keeps (the impl's conversion).
_INDEX_TYPES = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32)}


def _offset_lines(src: _Source, x: _View, indices: _View, index_map, row: str) -> tuple[str, str, list]:
    """(the byte offset of index vector `row`'s element in `x`, each start
    clamped into the operand; a C variable, nonzero when every start was in
    bounds before clamping; the lines computing them)."""
    if indices.dtype not in _INDEX_TYPES or len(indices.shape) < 1 or indices.shape[-1] != len(index_map):
        raise _Unsupported("point indices")
    name = f"w{src.index()}"
    lines, terms, ok = [f"int {name}_ok = 1;"], [], f"{name}_ok"
    ctype = _C_SCALARS[indices.dtype]
    outer = indices.shape[:-1]
    for k, d in enumerate(index_map):
        # (the index vectors in C order of the batch; each view's own strides)
        at = " + ".join([f"(({row}" + "".join(f" / {q}" for q in _inner_sizes(outer, a)) + f") % {outer[a]}) * "
                         f"{indices.strides[a]}" for a in range(len(outer))] or ["0"])
        v = f"{name}_{k}"
        upper = x.shape[d] - 1
        lines.append(f"int64_t {v} = (int64_t)(*({ctype} *)({indices.ptr} + {at} + {k * indices.strides[-1]}));")
        lines.append(f"{ok} &= ({v} >= 0 && {v} <= {upper});")
        lines.append(f"if ({v} < 0) {v} = 0; if ({v} > {upper}) {v} = {upper};")
        terms.append(f"{v} * {x.strides[d]}")
    return " + ".join(terms) or "0", ok, lines


def _inner_sizes(shape: tuple, axis: int) -> list:
    return [d for d in shape[axis + 1:]]


def _gather_lines(src: _Source, eqn, ins: list, out_avals: list, step: list) -> list:
    p = eqn.params
    dn = p["dimension_numbers"]
    x, indices = ins
    out_aval = out_avals[0]
    if (_Mode.from_any(p["mode"]) in (_Mode.FILL_OR_DROP, _Mode.ONE_HOT) or not x.shape or dn.offset_dims
            or dn.operand_batching_dims or set(dn.collapsed_slice_dims) != set(range(len(x.shape)))
            or any(s != 1 for s in p["slice_sizes"]) or x.dtype not in _C_SCALARS
            or tuple(out_aval.shape) != tuple(indices.shape[:-1]) or not indices.size):
        raise _Unsupported("gather other than one element per index")
    out = src.temp(out_aval)
    r = src.index()
    offset, _, lines = _offset_lines(src, x, indices, dn.start_index_map, r)
    ctype = _C_SCALARS[x.dtype]
    body = [*lines, f"(({ctype} *){out.ptr})[{r}] = *({ctype} *)({x.ptr} + {offset});"]
    step.append(f"for (intptr_t {r} = 0; {r} < {out.size}; {r}++) {{ {' '.join(body)} }}")
    return [out]


def _scatter_add_lines(src: _Source, eqn, ins: list, out_avals: list, step: list) -> list:
    p = eqn.params
    dn = p["dimension_numbers"]
    x, indices, updates = ins
    mode = _Mode.from_any(p["mode"])
    if (mode == _Mode.ONE_HOT or not x.shape or dn.update_window_dims or dn.operand_batching_dims
            or set(dn.inserted_window_dims) != set(range(len(x.shape))) or updates.dtype != x.dtype
            or tuple(updates.shape) != tuple(indices.shape[:-1]) or not indices.size):
        raise _Unsupported("scatter-add other than one element per index")
    loop = ufunc_loop(np.add, (x.dtype,) * 3)
    if loop is None:
        raise _Unsupported(f"no add loop for {x.dtype}")
    out = src.temp(out_avals[0])
    step += _copy_lines(src, out, x)
    r = src.index()
    offset, ok, lines = _offset_lines(src, out, indices, dn.scatter_dims_to_operand_dims, r)
    fn, data = (src.kernel(q) for q in loop)
    # The update's element, in the updates' own strides (C order of the batch).
    shape = updates.shape
    at = " + ".join([f"(({r}" + "".join(f" / {q}" for q in _inner_sizes(shape, a)) + f") % {shape[a]}) * "
                     f"{updates.strides[a]}" for a in range(len(shape))] or ["0"])
    call = (f"{{ char *pj_p = {out.ptr} + {offset}; char *args[] = {{pj_p, {updates.ptr} + {at}, pj_p}}; "
            f"static const intptr_t n1[] = {{1}}, st[] = {{0, 0, 0}}; ((loop_t){fn})(args, n1, st, {data}); }}")
    guard = "" if mode == _Mode.CLIP else f"if ({ok}) "
    step.append(f"for (intptr_t {r} = 0; {r} < {updates.size}; {r}++) {{ {' '.join(lines)} {guard}{call} }}")
    return [out]


# name -> (src, eqn, ins, out_avals, step) -> the outputs' views
POINT_OPS = {"gather": _gather_lines, "scatter-add": _scatter_add_lines}


def iota_lines(src: _Source, value: np.ndarray, dimension: int, step: list) -> _View | None:
    """An integer iota too large for a constant of the source, filled by a
    loop into scratch (a triangle's mask compares two of 64x64), or None.
    The loop writes each element's index along `dimension`; it is used only
    where that is the impl's `value`, checked here."""
    if value.dtype not in _C_SCALARS or value.dtype.kind not in "iu" or not value.ndim:
        return None
    shape = value.shape
    inner = int(np.prod(shape[dimension + 1:], dtype=np.int64))
    expected = np.broadcast_to(np.arange(shape[dimension]).reshape((-1,) + (1,) * (value.ndim - dimension - 1)),
                               shape[dimension:])
    if not np.array_equal(value, np.broadcast_to(expected, shape)):
        return None
    out = src.temp(ShapedArray(shape, value.dtype))
    i = src.index()
    step.append(f"for (intptr_t {i} = 0; {i} < {value.size}; {i}++) "
                f"(({_C_SCALARS[value.dtype]} *){out.ptr})[{i}] = ({_C_SCALARS[value.dtype]})(({i} / {inner}) % "
                f"{shape[dimension]});")
    return out
