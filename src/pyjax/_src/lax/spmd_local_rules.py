"""Partition rules of primitives that treat some dimensions independently
(issue 22): convolutions, windowed reductions and their gradients, FFTs and
batched linear algebra. Those dimensions stay split and each device computes
its own block; the dimensions a primitive reads across are gathered first
(spmd_rules.py has the rest of lax's rules; docs/spmd.md the table).
"""

from __future__ import annotations

from pyjax._src.interpreters import spmd_partition as sp
from pyjax._src.interpreters.spmd_partition import Context, bind, spec_of
from pyjax._src.jaxpr import JaxprEqn
from pyjax._src.lax import convolution, fft, linalg, reductions, shapes, slicing, sorting, stack, windowed

_EMPTY = ()


def _relaid(ctx: Context, eqn: JaxprEqn, args, wants, result_specs):
    """Operands laid out as `wants` (None: as they are), the primitive bound
    on blocks, its results (laid out as `result_specs`) laid out as their types."""
    fixed = [x if w is None else ctx.reshard(x, spec_of(v.aval), tuple(w))
             for v, x, w in zip(eqn.invars, args, wants, strict=True)]
    outs = bind(eqn, fixed)
    return [ctx.reshard(y, tuple(s), spec_of(v.aval)) for v, y, s in zip(eqn.outvars, outs, result_specs, strict=True)]


# -- convolution -------------------------------------------------------------------


def conv_rule(ctx: Context, eqn: JaxprEqn, args):
    """The lhs's batch dimension and the kernel's output features stay
    split (each device convolves its own images with its own filters); input
    features split alike on both sides contract locally, then psum (the
    kernel gradient, which reads the batch as features); spatial dimensions
    are gathered. A feature-grouped convolution (depthwise) whose input and
    output features are split alike keeps them split, each device taking
    its own groups; other grouped dimensions are gathered."""
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
    x = ctx.reshard(args[0], ls, tuple(lt))
    y = ctx.reshard(args[1], rs, tuple(rt))
    (out,) = bind(eqn, [x, y], **updates)
    result = [_EMPTY] * len(eqn.outvars[0].aval.shape)
    result[ob], result[of] = lt[lb], rt[ro]
    partial = list(lt[lf]) if groups == 1 else []
    return [ctx.reduce_partial(out, partial, tuple(result), spec_of(eqn.outvars[0].aval))]


# -- windowed reductions and their gradients ----------------------------------------


def _window_local_dims(params, ndim: int) -> set:
    # Dimensions a window neither spans, strides, pads nor dilates: each element stands alone there.
    ones = (1,) * ndim
    return {d for d in range(ndim)
            if params["window_dimensions"][d] == 1 and params["window_strides"][d] == 1
            and tuple(params["padding"][d]) == (0, 0)
            and (params.get("base_dilation") or ones)[d] == 1 and (params.get("window_dilation") or ones)[d] == 1}


def window_rule(ctx: Context, eqn: JaxprEqn, args):
    """Windowed reductions (pooling), select_and_gather_add and
    select_and_scatter_add (their gradients): the dimensions the window
    leaves alone (size 1, stride 1, no padding or dilation) stay split as
    the result's type says, the others are gathered. The array operands and
    the results share one layout; scalar init values stay as they are."""
    out = eqn.outvars[0].aval
    local = _window_local_dims(eqn.params, len(out.shape))
    want = tuple(s if d in local else _EMPTY for d, s in enumerate(spec_of(out)))
    wants = [want if len(v.aval.shape) == len(want) else None for v in eqn.invars]
    return _relaid(ctx, eqn, args, wants, [want] * len(eqn.outvars))


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
