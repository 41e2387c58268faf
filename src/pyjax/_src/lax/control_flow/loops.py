"""while_loop and fori_loop.

    _:i32[] _:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[] f:f32[]. let ... in (g, e, h) }
      body_nconsts=0
      cond_jaxpr={ lambda ; i:i32[] j:i32[] k:f32[]. let l:bool[] = lt i j in (l,) }
      cond_nconsts=0
    ] 0:i32[] b a

`while_p` takes (cond consts, body consts, carry) and returns the final
carry. The trip count is not known when tracing, so a while loop has a
JVP (a while over primal and tangent carries) but no transpose: reverse
mode raises JAX's error. `fori_loop` with bounds known at trace time is a
`scan` (whose index lives in the carry), which reverse mode supports;
with traced bounds it is a `while` carrying (i, upper, x).

Under `vmap`, a batched predicate makes the loop run until every example
is done; the examples that are done keep their carry (the backends select
per example). The cond jaxpr then returns a batch of predicates.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pyjax._src import config, core, dtypes
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.ad_util import instantiate as instantiate_zeros
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr_custom, partial_eval_jaxpr_nounits
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.jaxpr import Var, body_effects
from pyjax._src.lax import batching_util
from pyjax._src.lax.control_flow import common
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten
from pyjax._src.rules import SHARDING_OF_CALL

__all__ = ["fori_loop", "while_loop", "while_p"]

while_p = Primitive("while", multiple_results=True).declare(body_params=("cond_jaxpr", "body_jaxpr"))
while_p.declare(key_reuse=_key_reuse.while_signature)
while_p.declare(sharding_reason=SHARDING_OF_CALL)
while_p.effects_of = body_effects("cond_jaxpr", "body_jaxpr")


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    n_carry = len(avals) - cond_nconsts - body_nconsts
    if len(cond_jaxpr.in_avals) != cond_nconsts + n_carry:
        raise TypeError(f"while_loop len(cond_jaxpr.in_avals)={len(cond_jaxpr.in_avals)} but "
                        f"len(cond_consts_avals) + len(in_avals)={cond_nconsts + n_carry}")
    if len(body_jaxpr.in_avals) != body_nconsts + n_carry:
        raise TypeError(f"while_loop len(body_jaxpr.in_avals)={len(body_jaxpr.in_avals)} but "
                        f"len(body_consts_avals) + len(in_avals)={body_nconsts + n_carry}")
    return list(body_jaxpr.out_avals)


# ---------------------------------------------------------------------------
# The API


def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """Apply ``body_fun`` to a carried value for as long as ``cond_fun`` holds.

    Starting from ``init_val``, the carry is replaced by ``body_fun(carry)``
    until ``cond_fun(carry)`` is false; the final carry is returned. It
    behaves like a Python ``while`` statement whose test may be traced.

    Both functions are traced once into one `while` equation. The carry
    must keep its structure, shapes and dtypes across iterations. A while
    loop is differentiable in forward mode only (its trip count is
    dynamic).

    Args:
      cond_fun: ``carry -> bool scalar``.
      body_fun: ``carry -> carry``.
      init_val: the initial carry, a pytree of arrays.

    Returns:
      The carry after the last iteration.

    Example:
      >>> lax.while_loop(lambda c: c < 100, lambda c: c * 3, 1)
      Array(243, dtype=int32, weak_type=True)
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if config.disable_jit.value:
        try:
            val = tree_map(common.as_array, init_val)
            while cond_fun(val):
                val = tree_map(common.as_array, body_fun(val))
            return val
        except core.errors.ConcretizationTypeError:
            pass
    init_flat, init_tree = tree_flatten(init_val)
    init_avals = common.avals_of(init_flat)
    cond_debug = common.debug_info("while_cond", cond_fun, (init_val,))
    body_debug = common.debug_info("while_body", body_fun, (init_val,))

    def create_jaxprs(avals):
        in_tree = tree_flatten((tree_unflatten(init_tree, avals),))[1]
        cond_jaxpr, cond_consts, cond_tree, _ = common.trace_body(cond_fun, in_tree, avals, cond_debug)
        body_jaxpr, body_consts, body_tree, _ = common.trace_body(body_fun, in_tree, avals, body_debug)
        if cond_tree.num_leaves != 1 or cond_tree != tree_flatten(0)[1]:
            raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
        pred = cond_jaxpr.out_avals[0]
        if pred.shape != () or pred.dtype != np.bool_:
            raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) [{pred!r}].")
        return cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree

    cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = create_jaxprs(init_avals)
    body_out_avals = body_jaxpr.out_avals
    if len(body_out_avals) != len(init_avals):
        common.check_carry_type("while_loop body", body_fun, init_tree, init_avals, body_tree, body_out_avals)
    promoted = [common.promote_weak_typed_input(v, a, b) for v, a, b in zip(init_flat, init_avals, body_out_avals, strict=True)]
    init_flat = [v for v, _ in promoted]
    if any(changed for _, changed in promoted):
        init_avals = common.avals_of(init_flat)
        cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = create_jaxprs(init_avals)
    common.check_carry_type("while_loop body", body_fun, init_tree, init_avals, body_tree, body_jaxpr.out_avals)

    # A carry the body passes through and the predicate does not read is
    # loop-invariant: it becomes a body const and comes out as it went in.
    body_fwd = common.jaxpr_forwarding(body_jaxpr)
    n_bc = len(body_consts)
    carry_nofwd = [src != n_bc + pos for pos, src in enumerate(body_fwd)]
    n_cc = len(cond_consts)
    read = _used_inputs(cond_jaxpr)
    keep_cond = [True] * n_cc + [r or nf for r, nf in zip(read[n_cc:], carry_nofwd, strict=True)]
    move_to_const = [not k for k in keep_cond[n_cc:]]
    init_vals, new_body_consts = list(init_flat), []
    if any(move_to_const):
        cond_jaxpr = cond_jaxpr.replace(invars=[v for v, k in zip(cond_jaxpr.invars, keep_cond, strict=True) if k])
        body_jaxpr = common.prune_outputs(body_jaxpr, [not m for m in move_to_const])
        body_jaxpr = common.move_binders_to_front(body_jaxpr, [False] * len(body_consts) + move_to_const)
        init_vals, new_body_consts = common.partition_list(move_to_const, init_vals)
        body_consts = new_body_consts + list(body_consts)
    params = dict(cond_nconsts=len(cond_consts), cond_jaxpr=cond_jaxpr, body_nconsts=len(body_consts),
                  body_jaxpr=body_jaxpr)
    outs = while_p.bind(*cond_consts, *body_consts, *init_vals, **params)
    if any(move_to_const):
        outs = common.merge_lists(move_to_const, outs, new_body_consts)
    return tree_unflatten(body_tree, outs)


def _used_inputs(jaxpr) -> list[bool]:
    from pyjax._src.interpreters.dce import dce_jaxpr

    return dce_jaxpr(jaxpr)[1]


def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll: int | bool | None = None):
    """Thread a carry through ``body_fun(i, carry)`` for ``i`` in ``range(lower, upper)``.

    It acts like a Python ``for`` loop over the index range, staged as one
    loop equation.

    With bounds known at trace time (Python ints, concrete arrays) the loop
    is a `scan` of `upper - lower` steps and supports reverse-mode
    differentiation; otherwise it is a `while_loop` (forward mode only).

    Args:
      lower: the first index (inclusive).
      upper: the end index (exclusive).
      body_fun: ``(i, carry) -> carry``.
      init_val: the initial carry.
      unroll: steps per loop iteration (static bounds only).

    Returns:
      The carry after the last iteration.

    Example:
      >>> lax.fori_loop(1, 5, lambda i, total: total + i, 0)
      Array(10, dtype=int32, weak_type=True)
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lower_dtype, upper_dtype = _dtype_of(lower), _dtype_of(upper)
    if lower_dtype == upper_dtype:
        dtype = lower_dtype
    else:
        dtype = None
        if np.issubdtype(lower_dtype, np.signedinteger) and np.issubdtype(upper_dtype, np.signedinteger):
            lower_weak, upper_weak = dtypes.is_weakly_typed(lower), dtypes.is_weakly_typed(upper)
            if lower_weak and not upper_weak:
                dtype = upper_dtype
            elif upper_weak and not lower_weak:
                dtype = lower_dtype
        if dtype is None:
            raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                            f"{lower_dtype.name} and {upper_dtype.name}")
    use_scan = False
    if common.is_concrete(lower) and common.is_concrete(upper):
        try:
            lower_, upper_ = int(lower), int(upper)
            use_scan = True
        except TypeError:
            pass
    if use_scan:
        if unroll is None:
            unroll = False
        length = max(upper_ - lower_, 0)
        if length == 0 and config.disable_jit.value:
            return init_val

        def scanned_fun(loop_carry, _):
            i, x = loop_carry
            return (i + 1, body_fun(i, x)), None

        (_, result), _ = scan(scanned_fun, (lower_, init_val), None, length=length, unroll=unroll)
        return result
    if not (unroll is None or unroll is False or unroll == 1):
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically known.")
    from pyjax._src.lax.elementwise import add, convert_element_type, lt

    if lower_dtype != dtype:
        lower = convert_element_type(lower, dtype)
    if upper_dtype != dtype:
        upper = convert_element_type(upper, dtype)

    def while_cond_fun(loop_carry):
        i, upper, _ = loop_carry
        return lt(i, upper)

    def while_body_fun(loop_carry):
        i, upper, x = loop_carry
        return add(i, np.asarray(1, core.get_aval(i).dtype)[()]), upper, body_fun(i, x)

    _, _, result = while_loop(while_cond_fun, while_body_fun, (lower, upper, init_val))
    return result


def _dtype_of(x):
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype
    return core.concrete_aval(x).dtype


# ---------------------------------------------------------------------------
# JVP: a while over (primal, tangent) carries


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nonzeros = [type(t) is not Zero for t in tangents]
    cconst_nz, bconst_nz, init_nz = common.split_list(nonzeros, [cond_nconsts, body_nconsts])
    carry_nz = init_nz
    for _ in range(1 + len(carry_nz)):
        body_nonzeros = bconst_nz + carry_nz
        body_jvp, nonzeros_out = jvp_jaxpr(body_jaxpr, body_nonzeros, carry_nz)
        if nonzeros_out == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, nonzeros_out, strict=True)]
    nonzeros = cconst_nz + body_nonzeros
    tangents = [instantiate_zeros(t) if nz else t for t, nz in zip(tangents, nonzeros, strict=True)]
    cconst, bconst, init = common.split_list(primals, [cond_nconsts, body_nconsts])
    _, bconst_dot, init_dot = common.split_list(tangents, [cond_nconsts, body_nconsts])
    bconst_dot = [t for t in bconst_dot if type(t) is not Zero]
    init_dot = [t for t in init_dot if type(t) is not Zero]
    num_carry = len(init)
    # The JVP body's binders are (bconst, carry, bconst_dot, carry_dot) ->
    # (carry, carry_dot); the loop wants (bconst, bconst_dot, carry, carry_dot).
    n_b, n_bd = body_nconsts, len(bconst_dot)
    iv = body_jvp.invars
    invars = iv[:n_b] + iv[n_b + num_carry:n_b + num_carry + n_bd] + iv[n_b:n_b + num_carry] + iv[n_b + num_carry + n_bd:]
    body_jvp = body_jvp.replace(invars=invars)
    cond_aug = cond_jaxpr.replace(invars=cond_jaxpr.invars + [Var(core.get_aval(x)) for x in init_dot])
    out = while_p.bind(*cconst, *bconst, *bconst_dot, *init, *init_dot, cond_nconsts=cond_nconsts,
                       cond_jaxpr=cond_aug, body_nconsts=len(bconst) + len(bconst_dot), body_jaxpr=body_jvp)
    out_carry, out_dot = out[:num_carry], iter(out[num_carry:])
    out_tangents = [next(out_dot) if nz else Zero(tangent_aval(core.get_aval(p)))
                    for p, nz in zip(out_carry, nonzeros_out, strict=True)]
    return out_carry, out_tangents


while_p.def_jvp(_while_jvp)


def _while_partial_eval(trace, args, params):
    # The known carries run in a loop of their own now; the whole loop is
    # staged as well (its trip count is only known by running it), which is
    # why it cannot be transposed.
    cond_nconsts, body_nconsts = params["cond_nconsts"], params["body_nconsts"]
    cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
    unknowns = [trace.is_unknown(x) for x in args]
    cond_uk, body_uk, carry_init_uk = common.split_list(unknowns, [cond_nconsts, body_nconsts])
    carry_uk = carry_init_uk
    for _ in range(1 + len(carry_uk)):
        body_known, _, carry_out_uk, _, _ = partial_eval_jaxpr_nounits(body_jaxpr, body_uk + carry_uk, carry_uk)
        if carry_out_uk == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, carry_out_uk, strict=True)]
    cond_known, _, cond_out_uk, _, _ = partial_eval_jaxpr_nounits(cond_jaxpr, cond_uk + carry_uk, False)
    if cond_out_uk[0] or not any(unknowns) or all(unknowns):
        return trace.record(while_p, args, params)
    known_ins = [x for x, uk in zip(args, cond_uk + body_uk + carry_uk, strict=True) if not uk]
    num_known = len(carry_uk) - sum(carry_uk)
    body_known = body_known.replace(outvars=body_known.outvars[:num_known])
    with core.set_current_trace(trace.parent):
        out_known = while_p.bind(*known_ins, cond_nconsts=len(cond_uk) - sum(cond_uk), cond_jaxpr=cond_known,
                                 body_nconsts=len(body_uk) - sum(body_uk), body_jaxpr=body_known)
    staged = trace.record(while_p, args, params)
    return common.merge_lists(carry_uk, out_known, [t for t, uk in zip(staged, carry_uk, strict=True) if uk])


while_p.partial_eval = _while_partial_eval


def _nothing_saveable(*_, **__) -> bool:
    return False


def _while_partial_eval_custom(saveable, unks_in: list, inst_in: list, eqn):
    """remat's split of a while (JAX's rule): the known carries (to a
    fixpoint) run in a loop of their own; the staged equation is the whole
    loop (no residuals can be saved per step), so what it computes is
    recomputed rather than saved."""
    params = eqn.params
    cond_nconsts, body_nconsts = params["cond_nconsts"], params["body_nconsts"]
    cond_uk, body_uk, carry_uk = common.split_list(unks_in, [cond_nconsts, body_nconsts])
    for _ in range(1 + len(carry_uk)):
        n = len(body_uk) + len(carry_uk)
        body_known, _, carry_out_uk, _, _ = partial_eval_jaxpr_custom(
            params["body_jaxpr"], body_uk + carry_uk, [True] * n, _nothing_saveable,
            ensure_out_unknowns=carry_uk, ensure_out_inst=[True] * len(carry_uk))
        if carry_out_uk == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, carry_out_uk, strict=True)]
    new_inst = [x for x, inst in zip(eqn.invars, inst_in, strict=True) if type(x) is Var and not inst]
    cond_known, _, (cond_out_uk,), _, _ = partial_eval_jaxpr_custom(
        params["cond_jaxpr"], cond_uk + carry_uk, [True] * (len(cond_uk) + len(carry_uk)), _nothing_saveable,
        ensure_out_unknowns=[False], ensure_out_inst=[True])
    all_true = [True] * len(carry_uk)
    if cond_out_uk:
        return None, eqn, all_true, all_true, new_inst
    unks_in = cond_uk + body_uk + carry_uk
    known = eqn.replace(invars=[x for x, u in zip(eqn.invars, unks_in, strict=True) if not u],
                        outvars=[v for v, u in zip(eqn.outvars, carry_uk, strict=True) if not u],
                        params=dict(params, cond_jaxpr=cond_known, body_jaxpr=body_known,
                                    cond_nconsts=cond_uk.count(False), body_nconsts=body_uk.count(False)))
    return known, eqn, carry_uk, all_true, new_inst


while_p.partial_eval_custom = _while_partial_eval_custom


def _while_transpose_error(*args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
                     "dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.")


while_p.def_transpose(_while_transpose_error)


# ---------------------------------------------------------------------------
# Batching


def _while_batch(axis_data, args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    not_mapped = batching.not_mapped
    batched = [d is not not_mapped for d in dims]
    cconst_b, bconst_b, init_b = common.split_list(batched, [cond_nconsts, body_nconsts])
    cconsts, bconsts, init = common.split_list(args, [cond_nconsts, body_nconsts])
    cconst_dims, bconst_dims, init_dims = common.split_list(dims, [cond_nconsts, body_nconsts])
    carry_b = init_b
    for _ in range(1 + len(carry_b)):
        _, carry_b_out = batching.batch_jaxpr(body_jaxpr, axis_data, bconst_b + carry_b, carry_b)
        if carry_b_out == carry_b:
            break
        carry_b = [a or b for a, b in zip(carry_b, carry_b_out, strict=True)]
    _, (pred_b,) = batching.batch_jaxpr(cond_jaxpr, axis_data, cconst_b + carry_b, False)
    if pred_b:
        # Every carry is batched: a lane that is done keeps its value while
        # the others go on.
        carry_dims = [0] * len(carry_b)
        body_batched = batching.batch_jaxpr_axes(body_jaxpr, axis_data, bconst_dims + carry_dims, carry_dims, push_axis_env=False)[0]
        cond_batched = batching.batch_jaxpr_axes(cond_jaxpr, axis_data, cconst_dims + carry_dims, [0], push_axis_env=False)[0]
    else:
        pred_ndim = cond_jaxpr.out_avals[0].ndim
        carry_dims = [pred_ndim if b else not_mapped for b in carry_b]
        body_batched = batching.batch_jaxpr_axes(body_jaxpr, axis_data, bconst_dims + carry_dims, carry_dims, push_axis_env=False)[0]
        cond_batched = batching.batch_jaxpr_axes(cond_jaxpr, axis_data, cconst_dims + carry_dims, [not_mapped], push_axis_env=False)[0]
    new_init = []
    for x, old, new in zip(init, init_dims, carry_dims, strict=True):
        if old is not_mapped and new is not not_mapped:
            new_init.append(batching_util.broadcast_batch(x, axis_data.size, new))
        elif old is not_mapped:
            new_init.append(x)
        else:
            new_init.append(batching_util.moveaxis(x, old, new))
    outs = while_p.bind(*cconsts, *bconsts, *new_init, cond_nconsts=cond_nconsts, cond_jaxpr=cond_batched,
                        body_nconsts=body_nconsts, body_jaxpr=body_batched)
    return outs, carry_dims


while_p.def_batch(_while_batch)

