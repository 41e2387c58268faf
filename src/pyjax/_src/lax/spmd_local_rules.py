"""Partition rules of primitives that treat some dimensions independently
(issue 22): convolutions, windowed reductions and their gradients, FFTs and
batched linear algebra. Those dimensions stay split and each device computes
its own block; the dimensions a primitive reads across are gathered first
(spmd_rules.py has the rest of lax's rules; docs/spmd.md the table).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.interpreters import spmd_partition as sp
from pyjax._src.interpreters.spmd_partition import Context, bind, spec_of
from pyjax._src.jaxpr import JaxprEqn
from pyjax._src.lax import (convenience, convolution, elementwise, fft, linalg, reductions, shapes, slicing, sorting,
                          stack, windowed)

_EMPTY = ()


def _relaid(ctx: Context, eqn: JaxprEqn, args, wants, result_specs):
    """Operands laid out as `wants` (None: as they are), the primitive bound
    on blocks, its results (laid out as `result_specs`) laid out as their types."""
    fixed = [x if w is None else ctx.reshard(x, spec_of(v.aval), tuple(w))
             for v, x, w in zip(eqn.invars, args, wants, strict=True)]
    outs = bind(eqn, fixed)
    return [ctx.reshard(y, tuple(s), spec_of(v.aval)) for v, y, s in zip(eqn.outvars, outs, result_specs, strict=True)]


# -- halo exchange ------------------------------------------------------------------


def _halo_sizes(ctx: Context, names, block: int, window: int, stride: int, low: int, out_size: int):
    """(left, right): how many elements of its neighbours' blocks a device
    needs to compute its own block of a stride-`stride` window of extent
    `window` over a dimension split over `names` in blocks of `block`,
    padded by `low` in front and giving `out_size` results; None where the
    devices' windows do not line up with their blocks (the dimension is then
    gathered). `right` is negative where a device reads less than its block."""
    count = ctx.count(names)
    if out_size % count or (out_size // count) * stride != block:
        return None
    right = window - stride - low
    if not 0 <= low <= block or right > block:
        return None
    return low, right


def _filled_at(x, names, index: int, fill):
    # (ppermute gives zeros to the device nobody sends to: right for a zero pad only)
    if fill == 0:
        return x
    at_end = elementwise.eq(sp.OPS["axis_index"](names), np.int32(index))
    return elementwise.select_n(at_end, x, convenience.full_like(x, fill))


def _with_halo(ctx: Context, x, dim: int, names, left: int, right: int, fill=0):
    """A device's block along `dim` with `left` elements of the previous
    device's block in front and `right` of the next one's behind (`fill`
    beyond the ends of the dimension; a negative `right` drops that many
    of its own): two ppermutes, never a gather."""
    count, size = ctx.count(names), x.shape[dim]
    parts = []
    if left:
        sent = slicing.slice_in_dim(x, size - left, size, axis=dim)
        got = sp.OPS["ppermute"](sent, names, [(i, i + 1) for i in range(count - 1)])
        parts.append(_filled_at(got, names, 0, fill))
    parts.append(x if right >= 0 else slicing.slice_in_dim(x, 0, size + right, axis=dim))
    if right > 0:
        sent = slicing.slice_in_dim(x, 0, right, axis=dim)
        got = sp.OPS["ppermute"](sent, names, [(i + 1, i) for i in range(count - 1)])
        parts.append(_filled_at(got, names, count - 1, fill))
    return parts[0] if len(parts) == 1 else shapes.concatenate(parts, dim)


# -- convolution -------------------------------------------------------------------


def conv_rule(ctx: Context, eqn: JaxprEqn, args):
    """The lhs's batch dimension and the kernel's output features stay
    split (each device convolves its own images with its own filters); input
    features split alike on both sides contract locally, then psum (the
    kernel gradient, which reads the batch as features). A split spatial
    dimension stays split where the blocks line up, by a halo exchange
    (`_conv_halos`); other spatial dimensions are gathered. A
    feature-grouped convolution (depthwise) whose input and output features
    are split alike keeps them split, each device taking its own groups;
    other grouped dimensions are gathered."""
    p = eqn.params
    dn = p["dimension_numbers"]
    lhs, rhs = eqn.invars
    ls, rs = spec_of(lhs.aval), spec_of(rhs.aval)
    lt, rt = [_EMPTY] * len(ls), [_EMPTY] * len(rs)
    (lb, lf), (ro, ri), (ob, of) = dn.lhs_spec[:2], dn.rhs_spec[:2], dn.out_spec[:2]
    groups, batch_groups = p["feature_group_count"], p["batch_group_count"]
    updates = {}
    if batch_groups == 1:
        lt[lb] = ls[lb]
    if groups == 1 and ls[lf] == rs[ri]:
        lt[lf] = rt[ri] = ls[lf]  # a contraction split alike: local, then psum
    elif groups > 1 and ls[lf] and ls[lf] == rs[ro] and groups % ctx.count(ls[lf]) == 0:
        lt[lf] = rt[ro] = ls[lf]  # each device convolves its own groups
        updates["feature_group_count"] = groups // ctx.count(ls[lf])
    used = {n for s in lt for n in s}
    if groups == 1 and batch_groups == 1 and not used & set(rs[ro]):
        rt[ro] = rs[ro]
    halos = _conv_halos(ctx, eqn, ls, rs, used | set(rt[ro]))
    result = [_EMPTY] * len(eqn.outvars[0].aval.shape)
    partial = list(lt[lf]) if groups == 1 else []
    for i, names, _, contracted in halos:
        lt[dn.lhs_spec[2 + i]] = names
        if contracted:
            rt[dn.rhs_spec[2 + i]] = names
            partial += names
        else:
            result[dn.out_spec[2 + i]] = names
    x = ctx.reshard(args[0], ls, tuple(lt))
    y = ctx.reshard(args[1], rs, tuple(rt))
    if halos:
        padding = list(p["padding"])
        for i, names, (left, right), _ in halos:
            x = _with_halo(ctx, x, dn.lhs_spec[2 + i], names, left, right)
            padding[i] = (0, 0)
        updates["padding"] = tuple(padding)
    (out,) = bind(eqn, [x, y], **updates)
    result[ob], result[of] = lt[lb], rt[ro]
    return [ctx.reduce_partial(out, partial, tuple(result), spec_of(eqn.outvars[0].aval))]


def _conv_halos(ctx: Context, eqn: JaxprEqn, ls, rs, taken: set) -> list:
    """(spatial index, names, (left, right), contracted) for each split
    spatial dimension of the lhs that stays split: each device convolves its
    block and its neighbours' edges (a halo exchange) with the kernel. In a
    convolution the kernel is whole and each device computes its block of
    the result, where the result blocks line up with the input blocks (a
    'SAME'-style padding, a stride dividing the block). In a kernel
    gradient the "kernel" is the result's cotangent, split alike: each
    device sums over its own positions (`contracted`: then a psum). Only an
    undilated lhs qualifies; other split spatial dimensions are gathered."""
    p, dn = eqn.params, eqn.params["dimension_numbers"]
    if p["batch_group_count"] != 1:
        return []
    lhs, rhs = eqn.invars[0].aval, eqn.invars[1].aval
    out = eqn.outvars[0].aval
    halos = []
    for i, d in enumerate(dn.lhs_spec[2:]):
        names = ls[d]
        if not names or taken & set(names) or p["lhs_dilation"][i] != 1:
            continue
        block = lhs.shape[d] // ctx.count(names)
        kernel, result, low = rhs.shape[dn.rhs_spec[2 + i]], out.shape[dn.out_spec[2 + i]], p["padding"][i][0]
        contracted = rs[dn.rhs_spec[2 + i]] == names
        if contracted:  # the windows are the result's positions, the kernel's the strided ones
            if p["window_strides"][i] != 1:
                continue
            sizes = _halo_sizes(ctx, names, block, result, p["rhs_dilation"][i], low, kernel)
        else:
            extent = (kernel - 1) * p["rhs_dilation"][i] + 1
            sizes = _halo_sizes(ctx, names, block, extent, p["window_strides"][i], low, result)
        if sizes is not None:
            halos.append((i, names, sizes, contracted))
            taken = taken | set(names)
    return halos


# -- windowed reductions and their gradients ----------------------------------------


def _window_local_dims(params, ndim: int) -> set:
    # Dimensions a window neither spans, strides, pads nor dilates: each element stands alone there.
    ones = (1,) * ndim
    return {d for d in range(ndim)
            if params["window_dimensions"][d] == 1 and params["window_strides"][d] == 1
            and tuple(params["padding"][d]) == (0, 0)
            and (params.get("base_dilation") or ones)[d] == 1 and (params.get("window_dilation") or ones)[d] == 1}


_MONOIDS = {windowed.reduce_window_sum_p: lambda dtype: 0, windowed.reduce_window_max_p: windowed.max_identity,
            windowed.reduce_window_min_p: windowed.min_identity}


def _window_halos(ctx: Context, eqn: JaxprEqn, spec, local: set) -> list:
    """(dimension, names, (left, right)) for each split dimension a window
    spans whose result blocks line up with the operand blocks. A sum, max
    or min window takes its neighbours' edges (a halo exchange); the other
    windowed primitives only windows that never cross a block edge."""
    p, ndim = eqn.params, len(spec)
    operand = eqn.invars[-1].aval if eqn.primitive is windowed.select_and_scatter_add_p else eqn.invars[0].aval
    pooled = eqn.invars[0].aval if eqn.primitive is windowed.select_and_scatter_add_p else eqn.outvars[0].aval
    ones = (1,) * ndim
    halos, taken = [], {n for d in local for n in spec[d]}
    for d, names in enumerate(spec):
        if d in local or not names or taken & set(names) or (p.get("base_dilation") or ones)[d] != 1:
            continue
        extent = (p["window_dimensions"][d] - 1) * (p.get("window_dilation") or ones)[d] + 1
        sizes = _halo_sizes(ctx, names, operand.shape[d] // ctx.count(names), extent, p["window_strides"][d],
                            p["padding"][d][0], pooled.shape[d])
        if sizes is not None and (eqn.primitive in _MONOIDS or sizes == (0, 0)):
            halos.append((d, names, sizes))
            taken |= set(names)
    return halos


def window_rule(ctx: Context, eqn: JaxprEqn, args):
    """Windowed reductions (pooling), select_and_gather_add and
    select_and_scatter_add (their gradients): the dimensions the window
    leaves alone (size 1, stride 1, no padding or dilation) stay split as
    the result's type says, and so do those whose windows line up with the
    blocks (a sum/max/min window reading its neighbours' edges); the others
    are gathered. The array operands and the results share one layout;
    scalar init values stay as they are."""
    out = eqn.outvars[0].aval
    local = _window_local_dims(eqn.params, len(out.shape))
    halos = _window_halos(ctx, eqn, spec_of(out), local)
    local |= {d for d, _, _ in halos}
    want = tuple(s if d in local else _EMPTY for d, s in enumerate(spec_of(out)))
    wants = [want if len(v.aval.shape) == len(want) else None for v in eqn.invars]
    if not halos:
        return _relaid(ctx, eqn, args, wants, [want] * len(eqn.outvars))
    fixed = [x if w is None else ctx.reshard(x, spec_of(v.aval), w) for v, x, w in zip(eqn.invars, args, wants)]
    padding = list(eqn.params["padding"])
    for d, names, (left, right) in halos:
        if left or right:
            fixed[0] = _with_halo(ctx, fixed[0], d, names, left, right, _MONOIDS[eqn.primitive](out.dtype))
        padding[d] = (0, 0)
    outs = bind(eqn, fixed, padding=tuple(padding))
    return [ctx.reshard(y, want, spec_of(v.aval)) for v, y in zip(eqn.outvars, outs)]


# -- reductions without a collective -------------------------------------------------


def gathered_partials_rule(ctx: Context, eqn: JaxprEqn, args):
    """reduce_prod/and/or/xor, which have no psum-like collective: each
    device reduces its block, the partial results (one per device along the
    reduced axes, result-sized) are all-gathered on a new leading axis and
    reduced once more."""
    axes, src = eqn.params["axes"], spec_of(eqn.invars[0].aval)
    (out,) = bind(eqn, args)
    names = tuple(n for d in axes for n in src[d])
    if names:
        stacked = sp.OPS["all_gather"](shapes.expand_dims(out, (0,)), names, 0)
        (out,) = bind(eqn, [stacked], axes=(0,))
    kept = tuple(s for d, s in enumerate(src) if d not in axes)
    return [ctx.reshard(out, kept, spec_of(eqn.outvars[0].aval))]


# -- slices, tiles and top_k along whole dimensions ---------------------------------


def _kept_where(spec, keep) -> tuple:
    return tuple(s if keep(d) else _EMPTY for d, s in enumerate(spec))


def top_k_rule(ctx: Context, eqn: JaxprEqn, args):
    """Each device takes the top k of its own rows: the axis read across whole."""
    spec = spec_of(eqn.outvars[0].aval)
    axis = eqn.params["axis"] % len(spec)
    want = _kept_where(spec, lambda d: d != axis)
    return _relaid(ctx, eqn, args, [want], [want] * len(eqn.outvars))


def tile_rule(ctx: Context, eqn: JaxprEqn, args):
    """Dimensions repeated once stay split; the tiled ones are gathered."""
    reps = eqn.params["reps"]
    want = _kept_where(spec_of(eqn.outvars[0].aval), lambda d: reps[d] == 1)
    return _relaid(ctx, eqn, args, [want], [want])


def dynamic_slice_rule(ctx: Context, eqn: JaxprEqn, args):
    """Dimensions taken whole stay split (their start clamps to 0 on every
    block as on the whole), the sliced ones are gathered; scalar starts as they are."""
    op = eqn.invars[0].aval
    sizes = eqn.params["slice_sizes"]
    want = _kept_where(spec_of(eqn.outvars[0].aval), lambda d: sizes[d] == op.shape[d])
    x = ctx.reshard(args[0], spec_of(op), want)
    (y,) = bind(eqn, [x, *args[1:]], slice_sizes=ctx.local_shape(sizes, want))
    return [ctx.reshard(y, want, spec_of(eqn.outvars[0].aval))]


def dynamic_update_slice_rule(ctx: Context, eqn: JaxprEqn, args):
    """Dimensions the update covers whole stay split (the update split
    alike), the others are gathered; scalar starts as they are."""
    op, upd = eqn.invars[0].aval, eqn.invars[1].aval
    want = _kept_where(spec_of(eqn.outvars[0].aval), lambda d: upd.shape[d] == op.shape[d])
    return _relaid(ctx, eqn, args, [want, want] + [None] * (len(args) - 2), [want])


# -- FFT and batched linear algebra --------------------------------------------------


def fft_rule(ctx: Context, eqn: JaxprEqn, args):
    """The transformed trailing dimensions gathered, the leading ones stay split."""
    n = len(eqn.params["fft_lengths"])
    spec = spec_of(eqn.outvars[0].aval)
    want = tuple(_EMPTY if d >= len(spec) - n else s for d, s in enumerate(spec))
    return _relaid(ctx, eqn, args, [want], [want])


def linalg_rule(ctx: Context, eqn: JaxprEqn, args):
    """A batched linalg primitive: each device factors/solves its own
    matrices. The batch dimensions stay split as the first operand's, each
    operand's core (trailing) dimensions gathered; the results carry the
    batch placement and whole cores."""
    ranks = eqn.primitive.core_ranks
    avals = [v.aval for v in eqn.invars]
    batch = spec_of(avals[0])[:len(avals[0].shape) - ranks[0]]
    wants = [batch + (_EMPTY,) * r for r in ranks]
    results = [batch + (_EMPTY,) * (len(v.aval.shape) - len(batch)) for v in eqn.outvars]
    return _relaid(ctx, eqn, args, wants, results)


def triangular_solve_rule(ctx: Context, eqn: JaxprEqn, args):
    """Each device solves its own batch of systems, and, of b, its own
    right-hand sides (the columns, or the rows for left_side=False); `a` whole."""
    a, b = (v.aval for v in eqn.invars)
    bs = spec_of(b)
    batch = bs[:-2]
    free = (_EMPTY, bs[-1]) if eqn.params["left_side"] else (bs[-2], _EMPTY)
    want_b = batch + free
    return _relaid(ctx, eqn, args, [batch + (_EMPTY, _EMPTY), want_b], [want_b])


def _install() -> None:
    reg = sp.register_rule
    reg(convolution.conv_general_dilated_p, conv_rule)
    for p in (windowed.reduce_window_sum_p, windowed.reduce_window_max_p, windowed.reduce_window_min_p,
              windowed.reduce_window_p, windowed.select_and_gather_add_p, windowed.select_and_scatter_add_p):
        reg(p, window_rule)
    reg(fft.fft_p, fft_rule)
    reg(sorting.top_k_p, top_k_rule)
    reg(stack.tile_p, tile_rule)
    reg(slicing.dynamic_slice_p, dynamic_slice_rule)
    reg(slicing.dynamic_update_slice_p, dynamic_update_slice_rule)
    for p in (reductions.reduce_prod_p, reductions.reduce_and_p, reductions.reduce_or_p, reductions.reduce_xor_p):
        reg(p, gathered_partials_rule)
    for name in dir(linalg):
        p = getattr(linalg, name)
        if hasattr(p, "core_ranks") and p is not linalg.triangular_solve_p:
            reg(p, linalg_rule)
    reg(linalg.triangular_solve_p, triangular_solve_rule)


_install()
