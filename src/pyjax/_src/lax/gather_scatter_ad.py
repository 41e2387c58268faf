"""Gather and scatter's autodiff rules (gather_scatter.py defines the primitives).

gather is linear in the operand; its transpose scatter-adds the cotangent
into zeros. scatter-add/-sub are linear in operand and updates; their
transpose hands the operand the cotangent and the updates a gather of it.
The other scatters are not linear: scatter-mul is linear in each argument
alone, scatter-min/-max share the tangent between tied winners, and
scatter (replace) finds the winning update of each element with an id
trick, then adds only the winners. Every rule is written as JAX 0.11 writes
it so that gradient jaxprs print the same equations in the same order.
"""

from __future__ import annotations

import functools

import numpy as np

from pyjax._src import core as _core
from pyjax._src.ad_util import Zero as _Zero
from pyjax._src.ad_util import instantiate as _instantiate
from pyjax._src.interpreters.jvp import defjvp as _defjvp
from pyjax._src.avals import ShapedArray
from pyjax._src.interpreters.transpose import is_undefined_primal as _undefined
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes
from pyjax._src.lax.gather_scatter import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    _transposing,  # (the transpose rules trace their combiners with it set)
    gather,
    gather_p,
    scatter,
    scatter_add,
    scatter_add_p,
    scatter_apply,
    scatter_max_p,
    scatter_min_p,
    scatter_mul,
    scatter_mul_p,
    scatter_p,
    scatter_sub_p,
)


def _aval(x) -> ShapedArray:
    return x.aval if _undefined(x) else _core.get_aval(x)


def _full(shape, value, dtype, sharding=None):
    # lax.full: a broadcast of a scalar literal of `dtype` (placed as `sharding` says).
    scalar = np.asarray(value, dtype)[()]
    return shapes.broadcast_in_dim(scalar, tuple(shape), (), out_sharding=sharding)


def _zeros_of(x):
    aval = _aval(x)
    return _full(aval.shape, 0, aval.dtype)


def _ones_of(x, dtype=None):
    aval = _aval(x)
    return _full(aval.shape, 1, aval.dtype if dtype is None else dtype)


def _gather_dnums_of(dnums: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    """The gather that reads back what a scatter with `dnums` wrote."""
    return GatherDimensionNumbers(
        offset_dims=dnums.update_window_dims,
        collapsed_slice_dims=dnums.inserted_window_dims,
        start_index_map=dnums.scatter_dims_to_operand_dims,
        operand_batching_dims=dnums.operand_batching_dims,
        start_indices_batching_dims=dnums.scatter_indices_batching_dims,
    )


def _scatter_dnums_of(dnums: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    """The scatter that writes back into the windows a gather with `dnums` read."""
    return ScatterDimensionNumbers(
        update_window_dims=dnums.offset_dims,
        inserted_window_dims=dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dnums.start_index_map,
        operand_batching_dims=dnums.operand_batching_dims,
        scatter_indices_batching_dims=dnums.start_indices_batching_dims,
    )


def _transpose_rule(rule):
    """Marks a transpose rule: the scatters it makes get the backward pass's
    combining jaxprs (see `_transposing`)."""

    @functools.wraps(rule)
    def wrapped(*args, **params):
        token = _transposing.set(True)
        try:
            return rule(*args, **params)
        finally:
            _transposing.reset(token)

    return wrapped


def _inverse_slice_sizes(operand_rank: int, updates_shape, dnums: ScatterDimensionNumbers) -> list:
    # Inserted and batch axes are windows of 1; the others are as wide as the
    # matching window axis of the updates.
    sizes, window = [], iter(dnums.update_window_dims)
    for i in range(operand_rank):
        if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(updates_shape[next(window)])
    return sizes


# --- gather


def _gather_jvp(g, operand, indices, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted,
                mode, fill_value):
    # Out-of-bounds windows of the tangent are zero, whatever the primal's fill.
    return gather(g, indices, dimension_numbers, slice_sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=0)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                      indices_are_sorted, mode, fill_value):
    # ct: the gathered windows -> operand: every window added back where it was read.
    # The zeros take the cotangent's dtype (it may differ from the primal's).
    zeros = _full(operand.aval.shape, 0, _core.get_aval(ct).dtype, operand.aval.sharding)
    ct_operand = scatter_add(zeros, indices, ct, _scatter_dnums_of(dimension_numbers),
                             unique_indices=unique_indices, indices_are_sorted=indices_are_sorted, mode=mode)
    return [ct_operand, None]


_defjvp(gather_p, _gather_jvp, None)
gather_p.def_transpose(_transpose_rule(_gather_transpose))


# --- scatter-add and scatter-sub: linear in operand and updates


def _scatter_addsub_jvp(primitive, primals, tangents, **params):
    operand, indices, updates = primals
    g_operand, _, g_updates = tangents
    out = primitive.bind(operand, indices, updates, **params)
    if type(g_operand) is _Zero and type(g_updates) is _Zero:
        return out, _Zero(_core.get_aval(out))
    return out, primitive.bind(_instantiate(g_operand), indices, _instantiate(g_updates), **params)


def _scatter_addsub_transpose(primitive, ct, operand, indices, updates, *, update_jaxpr, update_consts,
                              dimension_numbers, indices_are_sorted, unique_indices, mode):
    # ct: operand-shaped -> operand: ct itself; updates: the windows of ct the
    # updates were added to (negated for scatter-sub).
    if type(ct) is _Zero:
        return [_Zero(operand.aval) if _undefined(operand) else None, None,
                _Zero(updates.aval) if _undefined(updates) else None]
    ct_operand = ct if _undefined(operand) else None
    ct_updates = None
    if _undefined(updates):
        sizes = _inverse_slice_sizes(len(_core.get_aval(ct).shape), updates.aval.shape, dimension_numbers)
        ct_updates = gather(ct, indices, _gather_dnums_of(dimension_numbers), sizes, mode=mode, fill_value=0)
        if primitive is scatter_sub_p:
            ct_updates = ew.neg(ct_updates)
    return [ct_operand, None, ct_updates]


for _primitive in (scatter_add_p, scatter_sub_p):
    _primitive.def_jvp(functools.partial(_scatter_addsub_jvp, _primitive))
    _primitive.def_transpose(_transpose_rule(functools.partial(_scatter_addsub_transpose, _primitive)))


# --- scatter-mul: linear in the operand for fixed updates


def _scatter_mul_jvp_operand(g, operand, indices, updates, **params):
    return scatter_mul_p.bind(g, indices, updates, **params)


def _scatter_mul_jvp_updates(g, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                             unique_indices, mode, **_):
    # d(x * u) = x * du where each element is hit once; with repeated indices
    # the product rule would need the other factors, which JAX does not do.
    if not unique_indices:
        raise NotImplementedError("scatter_mul gradients are only implemented if `unique_indices=True`")
    spread = scatter_add(_zeros_of(operand), indices, g, dimension_numbers,
                         indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    return ew.mul(operand, spread)


def _scatter_mul_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts, dimension_numbers,
                           indices_are_sorted, unique_indices, mode):
    if type(ct) is _Zero:
        return [_Zero(operand.aval) if _undefined(operand) else None, None,
                _Zero(updates.aval) if _undefined(updates) else None]
    ct_operand = ct_updates = None
    if _undefined(operand):
        # ct: operand-shaped -> operand: ct scaled by the same updates.
        ct_operand = scatter_mul(ct, indices, updates, dimension_numbers, indices_are_sorted=indices_are_sorted,
                                 unique_indices=unique_indices, mode=mode)
    if _undefined(updates):
        if not unique_indices:
            raise NotImplementedError("scatter_mul gradients are only implemented if `unique_indices=True`")
        sizes = _inverse_slice_sizes(len(_core.get_aval(ct).shape), updates.aval.shape, dimension_numbers)
        ct_updates = gather(ew.mul(ct, operand), indices, _gather_dnums_of(dimension_numbers), sizes,
                            mode=mode, fill_value=0)
    return [ct_operand, None, ct_updates]


_defjvp(scatter_mul_p, _scatter_mul_jvp_operand, None, _scatter_mul_jvp_updates)
scatter_mul_p.def_transpose(_transpose_rule(_scatter_mul_transpose))


# --- scatter-min and scatter-max


def _scatter_extremal_jvp(primitive, primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
                          indices_are_sorted, unique_indices, mode):
    operand, indices, updates = primals
    g_operand, _, g_updates = tangents
    dnums = dimension_numbers
    out = primitive.bind(operand, indices, updates, update_jaxpr=update_jaxpr, update_consts=update_consts,
                         dimension_numbers=dnums, indices_are_sorted=indices_are_sorted,
                         unique_indices=unique_indices, mode=mode)
    if type(g_operand) is _Zero and type(g_updates) is _Zero:
        return out, _Zero(_core.get_aval(out))
    g_operand = _instantiate(g_operand)
    g_updates = _instantiate(g_updates)
    gather_dnums = _gather_dnums_of(dnums)
    sizes = _inverse_slice_sizes(len(_aval(operand).shape), _aval(updates).shape, dnums)
    # As for max/min elsewhere, values tied for the result share its tangent
    # equally: each winner (the operand's own value included) gets 1/count.
    initial = gather(operand, indices, gather_dnums, sizes)
    target = gather(out, indices, gather_dnums, sizes)
    won = ew.eq(updates, target)
    kept = ew.eq(initial, target)
    winners = gather(scatter_add(_zeros_of(operand), indices, ew.select(won, _ones_of(updates), _zeros_of(updates)),
                                 dnums), indices, gather_dnums, sizes)
    hits = gather(scatter_add(_zeros_of(operand), indices, _ones_of(updates), dnums), indices, gather_dnums, sizes)
    updates_share = ew.select(kept, ew.div(1.0, ew.add(winners, 1.0)), ew.div(1.0, winners))
    updates_coef = ew.select(won, updates_share, _zeros_of(updates))
    operand_share = ew.select(kept, ew.div(1.0, ew.add(winners, 1.0)), _zeros_of(winners))
    # Each of the `hits` windows over an element removes its share of the
    # operand's tangent; the operand keeps its own share if it won.
    operand_coef = ew.div(ew.add(-1.0, operand_share), hits)
    target_tangents = gather(g_operand, indices, gather_dnums, sizes)
    tangent_updates = ew.add(ew.mul(target_tangents, operand_coef), ew.mul(g_updates, updates_coef))
    tangent_out = scatter_add(g_operand, indices, tangent_updates, dnums, indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode)
    return out, tangent_out


scatter_min_p.def_jvp(functools.partial(_scatter_extremal_jvp, scatter_min_p))
scatter_max_p.def_jvp(functools.partial(_scatter_extremal_jvp, scatter_max_p))


# --- scatter (replace)


def _scatter_jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers, indices_are_sorted,
                 unique_indices, mode):
    if update_jaxpr is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    operand, indices, updates = primals
    g_operand, _, g_updates = tangents
    dnums = dimension_numbers
    params = {"update_jaxpr": update_jaxpr, "update_consts": update_consts, "dimension_numbers": dnums,
              "indices_are_sorted": indices_are_sorted}
    if type(g_operand) is _Zero and type(g_updates) is _Zero:
        out = scatter_p.bind(operand, indices, updates, unique_indices=unique_indices, mode=mode, **params)
        return out, _Zero(_core.get_aval(out))
    g_operand = _instantiate(g_operand)
    g_updates = _instantiate(g_updates)
    if unique_indices:
        # No element is written twice: the tangent is scattered like the value.
        out = scatter_p.bind(operand, indices, updates, unique_indices=True, mode=mode, **params)
        return out, scatter_p.bind(g_operand, indices, g_updates, unique_indices=True, mode=mode, **params)
    # Which of several updates to one element wins is unspecified, so ask the
    # scatter itself: scatter a distinct id (1, 2, ...) per update into zeros,
    # read the ids back, and keep only the updates whose id survived (and
    # operand elements no update touched). The kept values never collide, so
    # a scatter-add of them is the scatter -- and scatter-add has a transpose.
    updates_shape = _aval(updates).shape
    ids_shape = list(updates_shape)
    for d in dnums.update_window_dims:
        ids_shape[d] = 1
    num_ids = int(np.prod(ids_shape))
    id_dtype = np.dtype(np.uint64) if num_ids > np.iinfo(np.uint32).max else np.dtype(np.uint32)
    update_ids = ew.add(shapes.reshape(shapes.iota(id_dtype, num_ids), tuple(ids_shape)),
                        _ones_of(updates, id_dtype))
    operand_shape = _aval(operand).shape
    scattered_ids = scatter(_full(operand_shape, 0, id_dtype), indices, update_ids, dnums,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    sizes = _inverse_slice_sizes(len(operand_shape), updates_shape, dnums)
    gathered_ids = gather(scattered_ids, indices, dimension_numbers=_gather_dnums_of(dnums), slice_sizes=sizes)
    masked_operand = ew.select(ew.eq(scattered_ids, _zeros_of(scattered_ids)), operand, _zeros_of(operand))
    masked_updates = ew.select(ew.eq(update_ids, gathered_ids), updates, _zeros_of(updates))
    masked_g_operand = ew.select(ew.eq(scattered_ids, _zeros_of(scattered_ids)), g_operand, _zeros_of(g_operand))
    masked_g_updates = ew.select(ew.eq(update_ids, gathered_ids), g_updates, _zeros_of(g_updates))
    out = scatter_add(masked_operand, indices, masked_updates, dnums, indices_are_sorted=indices_are_sorted,
                      unique_indices=unique_indices, mode=mode)
    tangent_out = scatter_add(masked_g_operand, indices, masked_g_updates, dnums,
                              indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    return out, tangent_out


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts, dimension_numbers,
                       indices_are_sorted, unique_indices, mode):
    # Only the unique-indices JVP leaves a linear scatter to transpose.
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
    updates_shape = _aval(updates).shape
    if type(ct) is _Zero:
        return [_Zero(operand.aval) if _undefined(operand) else None, None,
                _Zero(updates.aval) if _undefined(updates) else None]
    ct_operand = ct_updates = None
    if _undefined(operand):
        # ct: operand-shaped -> operand: ct with the overwritten windows zeroed.
        ct_operand = scatter(ct, indices, _full(updates_shape, 0, _core.get_aval(ct).dtype), dimension_numbers,
                             indices_are_sorted=indices_are_sorted, unique_indices=True, mode=mode)
    if _undefined(updates):
        # ct -> updates: the windows of ct each update landed in.
        sizes = _inverse_slice_sizes(len(_core.get_aval(ct).shape), updates_shape, dimension_numbers)
        ct_updates = gather(ct, indices, _gather_dnums_of(dimension_numbers), sizes, mode=mode, fill_value=0)
    return [ct_operand, None, ct_updates]


scatter_p.def_jvp(_scatter_jvp)
scatter_p.def_transpose(_transpose_rule(_scatter_transpose))
