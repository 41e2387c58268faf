"""lax's partition rules: each primitive's per-device form under Explicit
placements (interpreters/spmd_partition.py runs them; docs/spmd.md).

A rule gets the local operands (laid out as their types say) and returns
the local results laid out as theirs say: it lays the operands out so that
the primitive can run on blocks (`ctx.reshard`), binds it with per-device
shapes, and combines partial results (`ctx.reduce_partial`). Dimensions a
primitive reads across (a slice's, a cumulative sum's, a sort's) are
gathered first; the rest stay split.
"""

from __future__ import annotations

from pyjax._src.interpreters import spmd_partition as sp
from pyjax._src.interpreters.spmd_partition import Context, bind, spec_of
from pyjax._src.jaxpr import JaxprEqn
from pyjax._src.lax import (dot, elementwise, gather_scatter, parallel, parallel_comm, reductions, shapes, slicing,
                            sorting, stack, windowed)

_EMPTY = ()


def _psum(x, names):
    return parallel.psum(x, names)


def _gather(x, names, dim):
    return parallel_comm.all_gather(x, names, axis=dim, tiled=True)


sp.OPS.update(
    all_gather=_gather,
    psum=_psum,
    pmax=lambda x, names: parallel.pmax(x, names),
    pmin=lambda x, names: parallel.pmin(x, names),
    all_to_all=lambda x, names, split, concat: parallel_comm.all_to_all(x, names, split, concat, tiled=True),
    psum_scatter=lambda x, name, dim: parallel_comm.psum_scatter(x, name, scatter_dimension=dim, tiled=True),
    axis_index=lambda names: parallel.axis_index(names),
    ppermute=lambda x, names, perm: parallel_comm.ppermute(x, names, perm),
    slice_in_dim=lambda x, start, size, dim: slicing.dynamic_slice_in_dim(x, start, size, dim),
)


def _without(spec, dims) -> tuple:
    return tuple(_EMPTY if d in dims else s for d, s in enumerate(spec))


def _insert_empty(spec, dims, ndim: int) -> tuple:
    # `spec` of a result that lost dimensions `dims` of an ndim-operand, as the operand's.
    it = iter(spec)
    return tuple(_EMPTY if d in dims else next(it) for d in range(ndim))


def _local_then(ctx: Context, eqn: JaxprEqn, args, operand_spec, result_spec, **updates):
    """Operands laid out as `operand_spec`, the primitive bound on blocks
    (its results laid out as `result_spec`), then laid out as their types."""
    fixed = [ctx.reshard(x, spec_of(v.aval), operand_spec) for v, x in zip(eqn.invars, args)]
    outs = bind(eqn, fixed, **updates)
    return [ctx.reshard(y, result_spec, spec_of(v.aval)) for v, y in zip(eqn.outvars, outs)]


# -- contractions and reductions ---------------------------------------------


def dot_general_rule(ctx: Context, eqn: JaxprEqn, args):
    """Contracting dimensions split alike contract locally, then psum (or
    psum_scatter into a dimension the result splits over that axis); batch
    dimensions follow the lhs; a free dimension whose axis is taken is gathered."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    lt, rt = list(spec_of(lhs.aval)), list(spec_of(rhs.aval))
    for l, r in zip(lc, rc):
        if lt[l] != rt[r]:
            lt[l] = rt[r] = _EMPTY
    for l, r in zip(lb, rb):
        rt[r] = lt[l]
    lfree = [d for d in range(len(lt)) if d not in lc and d not in lb]
    rfree = [d for d in range(len(rt)) if d not in rc and d not in rb]
    taken = {n for s in lt for n in s}
    for r in rfree:
        if any(n in taken for n in rt[r]):
            rt[r] = _EMPTY
    x = ctx.reshard(args[0], spec_of(lhs.aval), tuple(lt))
    y = ctx.reshard(args[1], spec_of(rhs.aval), tuple(rt))
    (out,) = bind(eqn, [x, y])
    result = tuple([lt[d] for d in lb] + [lt[d] for d in lfree] + [rt[d] for d in rfree])
    partial = [n for d in lc for n in lt[d]]
    return [ctx.reduce_partial(out, partial, result, spec_of(eqn.outvars[0].aval))]


def _reduction_rule(kind: str):
    def rule(ctx: Context, eqn: JaxprEqn, args):
        axes = eqn.params["axes"]
        src = spec_of(eqn.invars[0].aval)
        (out,) = bind(eqn, args)
        partial = [n for d in axes for n in src[d]]
        return [ctx.reduce_partial(out, partial, _without_dims(src, axes), spec_of(eqn.outvars[0].aval), kind)]

    return rule


def _without_dims(spec, dims) -> tuple:
    return tuple(s for d, s in enumerate(spec) if d not in dims)


def _arg_reduction_rule(ctx: Context, eqn: JaxprEqn, args):
    axes = eqn.params["axes"]
    want = _insert_empty(spec_of(eqn.outvars[0].aval), axes, len(eqn.invars[0].aval.shape))
    return _local_then(ctx, eqn, args, want, _without_dims(want, axes))


# -- layout ops ------------------------------------------------------------------


def broadcast_in_dim_rule(ctx: Context, eqn: JaxprEqn, args):
    if len(args) != 1:
        return sp.replicated_rule(ctx, eqn, args)
    out = eqn.outvars[0].aval
    out_spec = spec_of(out)
    bd = eqn.params["broadcast_dimensions"]
    op = eqn.invars[0].aval
    want = tuple(out_spec[b] if op.shape[i] == out.shape[b] else _EMPTY for i, b in enumerate(bd))
    x = ctx.reshard(args[0], spec_of(op), want)
    return bind(eqn, [x], shape=ctx.local_shape(out.shape, out_spec))


def transpose_rule(ctx: Context, eqn: JaxprEqn, args):
    perm = eqn.params["permutation"]
    out_spec = spec_of(eqn.outvars[0].aval)
    want = [None] * len(perm)
    for i, p in enumerate(perm):
        want[p] = out_spec[i]
    return [bind(eqn, [ctx.reshard(args[0], spec_of(eqn.invars[0].aval), tuple(want))])[0]]


def squeeze_rule(ctx: Context, eqn: JaxprEqn, args):
    dims = eqn.params["dimensions"]
    want = _insert_empty(spec_of(eqn.outvars[0].aval), set(dims), len(eqn.invars[0].aval.shape))
    return _local_then(ctx, eqn, args, want, spec_of(eqn.outvars[0].aval))


def reshape_groups(old: tuple, new: tuple) -> list:
    """The dimensions of shapes `old` and `new` as (old dims, new dims) runs
    of equal products (trailing size-1 dimensions join the last run)."""
    groups, i, j = [], 0, 0
    while i < len(old) and j < len(new):
        gi, gj, p, q = [i], [j], old[i], new[j]
        i, j = i + 1, j + 1
        while p != q:
            if p < q:
                gi.append(i)
                p *= old[i]
                i += 1
            else:
                gj.append(j)
                q *= new[j]
                j += 1
        groups.append((gi, gj))
    if groups:  # (trailing size-1 dimensions join the last group)
        groups[-1][0].extend(range(i, len(old)))
        groups[-1][1].extend(range(j, len(new)))
    return groups


def _run_names(ctx: Context, sizes, spec):
    # The axes splitting a run of dimensions (major first) when each device
    # holds one contiguous block of the run: every dimension before the
    # last split one split whole. None where the blocks are not contiguous.
    names, whole = [], True
    for size, entry in zip(sizes, spec):
        if entry and not whole:
            return None
        names.extend(entry)
        whole = whole and size == ctx.count(entry)
    return tuple(names)


def _spread(ctx: Context, sizes, names):
    # `names` handed out over a run of dimensions, major first, so that each
    # device holds one contiguous block of the run; None where they do not divide.
    out, pool = [], list(names)
    for size in sizes:
        taken = []
        while pool and size > 1 and size % ctx.axis_sizes[pool[0]] == 0:
            size //= ctx.axis_sizes[pool[0]]
            taken.append(pool.pop(0))
        out.append(tuple(taken))
        if pool and size > 1:
            return None
    return None if pool else out


def reshape_rule(ctx: Context, eqn: JaxprEqn, args):
    """A reshape where each device's block of every group of merged/split
    dimensions is one contiguous run of the group (on the result's side;
    the operand is laid out alike) runs on blocks."""
    op, out = eqn.invars[0].aval, eqn.outvars[0].aval
    if len(args) != 1 or eqn.params.get("dimensions") is not None or 0 in op.shape:
        return sp.replicated_rule(ctx, eqn, args)
    out_spec = spec_of(out)
    want = [_EMPTY] * len(op.shape)
    for gi, gj in reshape_groups(op.shape, out.shape):
        names = _run_names(ctx, [out.shape[j] for j in gj], [out_spec[j] for j in gj])
        spread = None if names is None else _spread(ctx, [op.shape[i] for i in gi], names)
        if spread is None:
            return sp.replicated_rule(ctx, eqn, args)
        for i, entry in zip(gi, spread):
            want[i] = entry
    x = ctx.reshard(args[0], spec_of(op), tuple(want))
    return bind(eqn, [x], new_sizes=ctx.local_shape(out.shape, out_spec))


def iota_rule(ctx: Context, eqn: JaxprEqn, args):
    """Each device's block of the iota: a local iota offset by the block's start."""
    out = eqn.outvars[0].aval
    spec = spec_of(out)
    shape = ctx.local_shape(out.shape, spec)
    dim = eqn.params["dimension"]
    (x,) = bind(eqn, [], shape=shape)
    if spec[dim]:
        start = parallel.axis_index(spec[dim]) * shape[dim]
        x = x + elementwise.convert_element_type(start, out.dtype)
    return [x]


def _whole_dims_rule(dims_of):
    """A primitive reading across dimensions `dims_of(eqn)` (gathered); the
    others stay split as the result's type says."""

    def rule(ctx: Context, eqn: JaxprEqn, args):
        want = _without(spec_of(eqn.outvars[0].aval), dims_of(eqn))
        return _local_then(ctx, eqn, args, want, want)

    return rule


def _changed_dims(eqn: JaxprEqn) -> set:
    return {d for d, (a, b) in enumerate(zip(eqn.invars[0].aval.shape, eqn.outvars[0].aval.shape)) if a != b}


def slice_rule(ctx: Context, eqn: JaxprEqn, args):
    op, out = eqn.invars[0].aval, eqn.outvars[0].aval
    strides = eqn.params.get("strides") or (1,) * len(op.shape)
    starts, limits = eqn.params["start_indices"], eqn.params["limit_indices"]
    whole = {d for d in range(len(op.shape)) if (starts[d], limits[d], strides[d]) != (0, op.shape[d], 1)}
    want = _without(spec_of(out), whole)
    local = ctx.local_shape(op.shape, want)
    new_limits = tuple(local[d] if d not in whole else limits[d] for d in range(len(local)))
    return _local_then(ctx, eqn, args[:1], want, want, limit_indices=new_limits)


def pad_rule(ctx: Context, eqn: JaxprEqn, args):
    whole = {d for d, cfg in enumerate(eqn.params["padding_config"]) if tuple(cfg) != (0, 0, 0)}
    want = _without(spec_of(eqn.outvars[0].aval), whole)
    x = ctx.reshard(args[0], spec_of(eqn.invars[0].aval), want)
    outs = bind(eqn, [x, args[1]])
    return [ctx.reshard(outs[0], want, spec_of(eqn.outvars[0].aval))]


def gather_passthrough_dims(operand_shape, dimension_numbers, slice_sizes) -> set:
    """The operand dimensions a gather takes whole (full-size windows, not
    indexed, not collapsed, not batched): they may stay split."""
    dn = dimension_numbers
    return {d for d, n in enumerate(operand_shape)
            if d not in dn.start_index_map and d not in dn.collapsed_slice_dims
            and d not in dn.operand_batching_dims and slice_sizes[d] == n}


def gather_rule(ctx: Context, eqn: JaxprEqn, args):
    """A gather on blocks: the dimensions it takes whole stay split (each
    device's window its block), the indexed ones are gathered, the indices
    replicated but for their batching dimensions, which stay split as the
    operand's (each device gathers within its own batch rows; a vmapped
    `x[i]`); the result laid out as its type says."""
    operand, out = eqn.invars[0].aval, eqn.outvars[0].aval
    dn, sizes = eqn.params["dimension_numbers"], eqn.params["slice_sizes"]
    keep = gather_passthrough_dims(operand.shape, dn, sizes)
    op_spec, want = spec_of(operand), [_EMPTY] * operand.ndim
    for d in keep:
        want[d] = op_spec[d]
    used = {n for s in want for n in s}
    idx_want = [_EMPTY] * eqn.invars[1].aval.ndim
    for d, k in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        if op_spec[d] and not used & set(op_spec[d]):
            want[d] = idx_want[k] = op_spec[d]
            used |= set(op_spec[d])
    local = [()] * out.ndim
    windows = [d for d in range(operand.ndim) if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    for o, d in zip(dn.offset_dims, windows):
        local[o] = want[d]
    # the result's other dimensions are the indices' but the last (the index vector), in order
    for o, entry in zip([o for o in range(out.ndim) if o not in dn.offset_dims], idx_want[:-1]):
        local[o] = entry
    x = ctx.reshard(args[0], op_spec, tuple(want))
    indices = ctx.reshard(args[1], spec_of(eqn.invars[1].aval), tuple(idx_want))
    local_sizes = tuple(n // ctx.count(want[d]) if d in keep else n for d, n in enumerate(sizes))
    (y,) = bind(eqn, [x, indices], slice_sizes=local_sizes)
    return [ctx.reshard(y, tuple(local), spec_of(out))]


def scatter_rule(ctx: Context, eqn: JaxprEqn, args):
    """A scatter on blocks, as gather_rule: the operand dimensions its
    windows cover whole (not indexed) stay split, the updates' window
    dimensions alike, batching dimensions split as the operand's (the
    indices' and updates' paired dimensions alike); the indexed dimensions
    gathered, the indices replicated otherwise."""
    operand, indices, updates = (v.aval for v in eqn.invars)
    dn = eqn.params["dimension_numbers"]
    op_spec, want = spec_of(operand), [_EMPTY] * operand.ndim
    windows = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    window_of = dict(zip(windows, dn.update_window_dims))
    upd_want, idx_want = [_EMPTY] * updates.ndim, [_EMPTY] * indices.ndim
    for d, u in window_of.items():
        if d not in dn.scatter_dims_to_operand_dims and updates.shape[u] == operand.shape[d]:
            want[d] = upd_want[u] = op_spec[d]
    used = {n for s in want for n in s}
    for d, k in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
        if op_spec[d] and not used & set(op_spec[d]):
            want[d] = idx_want[k] = op_spec[d]
            used |= set(op_spec[d])
    # the updates' other dimensions are the indices' but the last (the index vector), in order
    for u, entry in zip([u for u in range(updates.ndim) if u not in dn.update_window_dims], idx_want[:-1]):
        upd_want[u] = entry
    fixed = [ctx.reshard(x, spec_of(v.aval), tuple(w))
             for x, v, w in zip(args, eqn.invars, (want, idx_want, upd_want), strict=True)]
    (y,) = bind(eqn, fixed)
    return [ctx.reshard(y, tuple(want), spec_of(eqn.outvars[0].aval))]


def stack_rule(ctx: Context, eqn: JaxprEqn, args):
    """Operands laid out as the result without the new axis, stacked on
    blocks (the new axis whole, then split as the result's type says)."""
    axis, out_spec = eqn.params["axis"], spec_of(eqn.outvars[0].aval)
    whole = tuple(_EMPTY if d == axis else s for d, s in enumerate(out_spec))
    return _local_then(ctx, eqn, args, whole[:axis] + whole[axis + 1:], whole)


def unstack_rule(ctx: Context, eqn: JaxprEqn, args):
    """The operand laid out as the results with the unstacked axis whole,
    unstacked on blocks."""
    axis, piece = eqn.params["axis"], spec_of(eqn.outvars[0].aval)
    return _local_then(ctx, eqn, args, piece[:axis] + (_EMPTY,) + piece[axis:], piece)


def reshard_rule(ctx: Context, eqn: JaxprEqn, args):
    """A change of placement: gather and slice (no arithmetic)."""
    return [ctx.reshard(args[0], spec_of(eqn.invars[0].aval), spec_of(eqn.outvars[0].aval))]


def _install() -> None:
    reg = sp.register_rule
    reg(dot.dot_general_p, dot_general_rule)
    reg(reductions.reduce_sum_p, _reduction_rule("sum"))
    reg(reductions.reduce_max_p, _reduction_rule("max"))
    reg(reductions.reduce_min_p, _reduction_rule("min"))
    reg(reductions.argmax_p, _arg_reduction_rule)
    reg(reductions.argmin_p, _arg_reduction_rule)
    reg(shapes.broadcast_in_dim_p, broadcast_in_dim_rule)
    reg(shapes.transpose_p, transpose_rule)
    reg(shapes.squeeze_p, squeeze_rule)
    reg(shapes.reshape_p, reshape_rule)
    reg(shapes.iota_p, iota_rule)
    reg(shapes.slice_p, slice_rule)
    reg(shapes.rev_p, _whole_dims_rule(lambda e: set(e.params["dimensions"])))
    reg(shapes.concatenate_p, _whole_dims_rule(lambda e: {e.params["dimension"]}))
    reg(slicing.pad_p, pad_rule)
    reg(stack.stack_p, stack_rule)
    reg(gather_scatter.gather_p, gather_rule)
    for p in (gather_scatter.scatter_p, gather_scatter.scatter_add_p, gather_scatter.scatter_sub_p,
              gather_scatter.scatter_mul_p, gather_scatter.scatter_min_p, gather_scatter.scatter_max_p):
        reg(p, scatter_rule)
    reg(stack.unstack_p, unstack_rule)
    reg(sorting.sort_p, _whole_dims_rule(lambda e: {e.params["dimension"]}))
    for p in (windowed.cumsum_p, windowed.cumprod_p, windowed.cummax_p, windowed.cummin_p, windowed.cumlogsumexp_p):
        reg(p, _whole_dims_rule(lambda e: {e.params["axis"]}))
    from pyjax._src.ad_util import add_any_p

    reg(add_any_p, lambda ctx, eqn, args: [sp.elementwise_rule(ctx, eqn, args)])


_install()
