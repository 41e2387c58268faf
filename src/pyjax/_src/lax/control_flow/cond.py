"""cond and switch: one equation holding every branch.

    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = neg e in (f,) }     # index 0
        { lambda ; g:f32[]. let  in (g,) }                    # index 1
      )
    ] c a

`cond_p` takes an int32 index and the operands; every branch takes the
same operands (the values any branch closes over come first, shared) and
returns the same types. `lax.cond` turns its predicate into the index
(False is branch 0: the false branch is listed first); `lax.switch`
clamps its index into range. Both trace every branch, once.

Rules: JVP (a cond of JVP branches), linearization (a primal cond that
also returns residuals, and a tangent cond taking them: the branches'
residuals are merged into one signature, each branch filling the slots it
does not compute with `empty2`), transpose (a cond of transposed
branches), and batching (a batched index turns the cond into `select_n`
over every branch's results).
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from pyjax._src import config, core, dtypes
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.linearize import linearize_jaxpr_direct
from pyjax._src.interpreters.partial_eval import PartialEvalTrace, linearize_jaxpr, partial_eval_jaxpr_nounits
from pyjax._src.interpreters.staging import func_src_info
from pyjax._src.interpreters.transpose import is_undefined_primal, transpose_jaxpr
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.jaxpr import Jaxpr, Var, body_effects
from pyjax._src.lax import batching_util
from pyjax._src.lax.control_flow import common
from pyjax._src.tree_util import (
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)
from pyjax._src.tree_util_errors import equality_errors
from pyjax._src.rules import SHARDING_OF_CALL

__all__ = ["cond", "cond_p", "switch"]

cond_p = Primitive("cond", multiple_results=True).declare(body_params=("branches",))
cond_p.declare(key_reuse=_key_reuse.cond_signature)
cond_p.declare(sharding_reason=SHARDING_OF_CALL)
cond_p.effects_of = body_effects("branches")


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *avals, branches):
    if index.dtype != np.int32:
        raise TypeError(f"cond called with index of type {index.dtype} instead of int32")
    if len(avals) != len(branches[0].in_avals):
        raise TypeError(f"cond called with {len(avals)} non-predicate operands, but branches take "
                        f"{len(branches[0].in_avals)} inputs")
    return list(branches[0].out_avals)


# ---------------------------------------------------------------------------
# The API


class _NoOperand:
    def __repr__(self):
        return "<no operand>"


_no_operand = _NoOperand()


def _trace_branches(api_name: str, funs: Sequence[Callable], operands: tuple):
    args, in_tree = tree_flatten(operands)
    avals = common.avals_of(args)
    jaxprs, all_consts, out_trees = [], [], []
    for fun in funs:
        debug = common.debug_info(api_name, fun, operands)
        jaxpr, consts, out_tree, _ = common.trace_body(fun, in_tree, avals, debug)
        jaxprs.append(jaxpr)
        all_consts.append(consts)
        out_trees.append(out_tree)
    jaxprs, consts = common.merge_common_consts(jaxprs, all_consts)
    # Every branch has the effects of all of them (JAX's; printed with print_effects).
    joined = frozenset().union(*(j.effects for j in jaxprs))
    jaxprs = [j if j.effects == joined else Jaxpr(j.constvars, j.invars, j.outvars, j.eqns, j.consts,
                                                  effects=joined, debug_info=j.debug_info) for j in jaxprs]
    return jaxprs, consts, args, out_trees


def _bind_branches(index, jaxprs: list[Jaxpr], consts: list, args: list, out_tree):
    # An output every branch passes through from the same input is not an
    # output of the cond: it is that input.
    fwds = [common.jaxpr_forwarding(j) for j in jaxprs]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds, strict=True)]
    keep = [f is None for f in in_fwd]
    jaxprs = [common.prune_outputs(j, keep) for j in jaxprs]
    outs = iter(cond_p.bind(index, *consts, *args, branches=tuple(jaxprs)))
    inputs = [*consts, *args]
    out = [next(outs) if f is None else common.as_array(inputs[f]) for f in in_fwd]
    return tree_unflatten(out_tree, out)


def switch(index, branches: Sequence[Callable], *operands, operand=_no_operand):
    """Run the branch that ``index`` selects on ``operands``.

    Behaves like ``branches[i](*operands)`` where ``i`` is ``index`` clamped
    into ``[0, len(branches) - 1]``, but stages all branches into a single
    ``cond`` equation so that ``index`` may be a traced value.

    Every branch is traced (once); under `vmap` with a batched index every
    branch runs and the results are selected.

    Args:
      index: an integer scalar; out-of-range values are clamped.
      branches: a sequence of functions of the operands, all returning the
        same structure and types.
      operands: the operands passed to the chosen branch.

    Returns:
      The chosen branch's result.

    Example:
      >>> lax.switch(5, [lambda v: v + 1, lambda v: v * 10], 2)
      Array(20, dtype=int32, weak_type=True)
    """
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    if operand is not _no_operand:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no positional operands can be passed, "
                            f"got operand={operand!r} and positional operands {operands}")
        operands = (operand,)
    if len(np.shape(index)) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    from pyjax._src.lax.elementwise import clamp, convert_element_type

    if isinstance(index, (int, np.integer, np.ndarray)):
        # A concrete index is converted as a constant (inline in a jaxpr).
        index = np.asarray(index, np.int32)[()]
    else:
        index = convert_element_type(index, np.int32)
    index = clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    if config.disable_jit.value and common.is_concrete(index):
        return branches[int(index)](*operands)
    jaxprs, consts, args, out_trees = _trace_branches("switch", branches, operands)
    for i in range(1, len(branches)):
        _check_branch_outputs("switch", "branch 0", f"branch{i}", branches[0], branches[i],
                              out_trees[0], jaxprs[0].out_avals, out_trees[i], jaxprs[i].out_avals)
    return _bind_branches(index, jaxprs, consts, args, out_trees[0])


def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=_no_operand):
    """Choose between two functions of the same operands with a scalar predicate.

    The result is ``true_fun(*operands)`` when ``pred`` holds and
    ``false_fun(*operands)`` otherwise; unlike a Python ``if``, ``pred`` may
    be a traced value.

    Both branches are traced (once each) into one `cond` equation; only
    the chosen one runs. Under `vmap` with a batched predicate both run and
    the results are selected (`select_n`).

    Args:
      pred: a boolean or number scalar (numbers compare against 0).
      true_fun: applied to the operands when `pred` is true.
      false_fun: applied otherwise; must return the same structure and types.
      operands: the operands (any pytrees).

    Returns:
      The result of the chosen function.

    Example:
      >>> lax.cond(jnp.float32(-3.) > 0, lambda v: v, lambda v: -v, jnp.float32(-3.))
      Array(3., dtype=float32)
    """
    if not (callable(true_fun) and callable(false_fun)):
        # The deprecated form cond(pred, x_true, f_true, x_false, f_false).
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            true_operand, false_operand = true_fun, operands[0]
            on_true, on_false = false_fun, operands[1]
            return cond(pred, lambda t, _: on_true(t), lambda _, f: on_false(f), true_operand, false_operand)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    if operand is not _no_operand:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no positional operands can be passed, "
                            f"got operand={operand!r} and positional operands {operands}")
        operands = (operand,)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, collections.abc.Sequence) or np.ndim(pred) != 0:
        kind = f"type {type(pred)}" if isinstance(pred, collections.abc.Sequence) else f"shape {np.shape(pred)}."
        raise TypeError(f"Pred must be a scalar, got {pred} of {kind}")
    try:
        pred_dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind != "b":
        if pred_dtype.kind not in "iuf":
            raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype}.")
        pred = pred != 0
    if config.disable_jit.value and common.is_concrete(pred):
        return true_fun(*operands) if pred else false_fun(*operands)
    jaxprs, consts, args, out_trees = _trace_branches("cond", (true_fun, false_fun), operands)
    _check_branch_outputs("cond", "true_fun", "false_fun", true_fun, false_fun,
                          out_trees[0], jaxprs[0].out_avals, out_trees[1], jaxprs[1].out_avals)
    from pyjax._src.lax.elementwise import convert_element_type

    fwds = [common.jaxpr_forwarding(j) for j in jaxprs]
    in_fwd = [i if i == j else None for i, j in zip(*fwds, strict=True)]
    keep = [f is None for f in in_fwd]
    true_jaxpr, false_jaxpr = (common.prune_outputs(j, keep) for j in jaxprs)
    index = convert_element_type(pred, np.int32)
    outs = iter(cond_p.bind(index, *consts, *args, branches=(false_jaxpr, true_jaxpr)))
    inputs = [*consts, *args]
    out = [next(outs) if f is None else common.as_array(inputs[f]) for f in in_fwd]
    return tree_unflatten(out_trees[0], out)


class _Leaf:
    """Stands for a leaf when comparing output structures (prints as JAX's)."""

    def __repr__(self):
        return "pytree leaf"


class _LeafType(type):
    def __repr__(cls):
        return "pytree leaf"


_LEAF = _LeafType("Leaf", (), {})()


def _check_branch_outputs(api_name, name1, name2, f1, f2, tree1, avals1, tree2, avals2) -> None:
    info1, info2 = func_src_info(f1), func_src_info(f2)
    try:
        paths = [p for p, _ in tree_flatten_with_path(tree_unflatten(tree1, avals1))[0]]
        component = lambda p: f" at path {keystr(p)}" if p else ""
    except (TypeError, ValueError):  # a custom node that cannot hold avals
        paths, component = [None] * len(avals1), lambda _: ""
    if tree1 != tree2:
        diffs = [f"{name1} output{component(p)} is a {thing1} but {name2} output{component(p)} is a "
                 f"{thing2}, so {why}"
                 for p, thing1, thing2, why in equality_errors(tree_unflatten(tree1, [_LEAF] * tree1.num_leaves),
                                                              tree_unflatten(tree2, [_LEAF] * tree2.num_leaves))]
        if not diffs:
            return
        differences = f"{diffs[0]}.\n" if len(diffs) == 1 else (
            "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n")
        raise TypeError(
            f"{api_name} branch outputs must have the same pytree structure, but they differ:\n\n"
            f"{name1} is {info1}\n{name2} is {info2}\n\n{differences}\n"
            f"Revise {name1} and/or {name2} so that they have the same pytree structure.")
    if all(common.typematch(a, b) for a, b in zip(avals1, avals2, strict=True)):
        return
    diffs = [f"the output of {name1}{component(p)} has type {a.str_short(short_dtypes=False)} but the "
             f"corresponding output of {name2} has type {b.str_short(short_dtypes=False)}"
             f"{common.aval_mismatch_extra(a, b)}"
             for p, a, b in zip(paths, avals1, avals2, strict=True) if not common.typematch(a, b)]
    differences = f"{common.capitalize(diffs[0])}.\n" if len(diffs) == 1 else (
        "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n")
    # (JAX's hint names the branch varying over more axes; the axes it prints are the other way round.)
    hints = common.pcast_hints([(common.minus_vma(other, this), f" to the output of {name}{component(p)}")
                                for p, a, b in zip(paths, avals1, avals2, strict=True) if not common.typematch(a, b)
                                for name, this, other in ((name1, a, b), (name2, b, a))
                                if common.minus_vma(this, other)])
    raise TypeError(
        f"{api_name} branches must have equal output types but they differ.\n\n"
        f"{name1} is {info1}\n{name2} is {info2}\n\n{differences}\n{hints}"
        f"Revise {name1} and/or {name2} so that all output types match.")


# ---------------------------------------------------------------------------
# JVP


def _cond_jvp(primals, tangents, *, branches):
    nonzeros = [type(t) is not Zero for t in tangents]
    ops_nz = nonzeros[1:]
    trace = core.current_trace()
    if isinstance(trace, PartialEvalTrace) and not any(trace.is_unknown(p) for p in primals):
        # Linearizing: split the branches directly, as JAX's linearize rule does.
        return _cond_linearize(trace, primals, tangents, branches, ops_nz)
    out_nz = [any(nz) for nz in zip(*(jvp_jaxpr(j, ops_nz, False)[1] for j in branches), strict=True)]
    branches_jvp = tuple(jvp_jaxpr(j, ops_nz, out_nz)[0] for j in branches)
    index, *ops = primals
    ops_dot = [t for t in tangents[1:] if type(t) is not Zero]
    out = cond_p.bind(index, *ops, *ops_dot, branches=branches_jvp)
    n = len(out_nz)
    primals_out, tangents_it = out[:n], iter(out[n:])
    tangents_out = [next(tangents_it) if nz else Zero(tangent_aval(core.get_aval(p)))
                    for p, nz in zip(primals_out, out_nz, strict=True)]
    return primals_out, tangents_out


cond_p.def_jvp(_cond_jvp)


# ---------------------------------------------------------------------------
# Partial evaluation: known branches returning residuals, unknown branches
# taking them (merged across branches into one signature)


def _merge_branch_residuals(branch_res_avals: list[list]) -> tuple[list, list[list[int]]]:
    # The n-th residual of a given type in one branch shares a slot with the
    # n-th residual of that type in every other branch.
    def tagged(avals):
        counts: dict = collections.defaultdict(itertools.count)
        return [(a, next(counts[a])) for a in avals]

    per_branch = [tagged(avals) for avals in branch_res_avals]
    all_tagged = list(dict.fromkeys(t for tags in per_branch for t in tags))
    index = {t: i for i, t in enumerate(all_tagged)}
    return [a for a, _ in all_tagged], [[index[t] for t in tags] for tags in per_branch]


def _join_outputs(jaxprs, all_res_avals, res_indices, num_outs) -> tuple:
    # Each known branch returns every residual slot, filling those it does
    # not compute with empty values.
    def augment(jaxpr, indices):
        def fun(*args):
            outs = common.jaxpr_as_fun(jaxpr)(*args)
            res = [common.empty_like_aval(a) for a in all_res_avals]
            for i, r in zip(indices, outs[num_outs:], strict=True):
                res[i] = r
            return list(outs[:num_outs]) + res

        return common.close_over(fun, jaxpr.in_avals, jaxpr.debug_info)

    return tuple(augment(j, ix) for j, ix in zip(jaxprs, res_indices, strict=True))


def _join_inputs(jaxprs, all_res_avals, res_indices) -> tuple:
    # Each unknown branch takes every residual slot, ignoring the others'.
    res_vars = [Var(a) for a in all_res_avals]

    def augment(jaxpr, indices):
        slots = list(res_vars)
        for i, v in zip(indices, jaxpr.invars[:len(indices)], strict=True):
            slots[i] = v
        return jaxpr.replace(invars=slots + jaxpr.invars[len(indices):])

    return tuple(augment(j, ix) for j, ix in zip(jaxprs, res_indices, strict=True))


def _cond_partial_eval(trace, args, params):
    branches = params["branches"]
    unknowns = [trace.is_unknown(x) for x in args]
    if unknowns[0]:
        return trace.record(cond_p, args, params)
    ops_uk = unknowns[1:]
    out_uks = [any(uk) for uk in zip(*(partial_eval_jaxpr_nounits(j, ops_uk, False)[2] for j in branches),
                                      strict=True)]
    splits = [partial_eval_jaxpr_nounits(j, ops_uk, out_uks) for j in branches]
    return _split_cond(trace, args, unknowns, splits, out_uks)


def _split_cond(trace, args, unknowns, splits, out_uks):
    knowns = [s[0] for s in splits]
    staged = [s[1] for s in splits]
    res_avals = [s[3] for s in splits]
    all_res, indices = _merge_branch_residuals(res_avals)
    num_known_outs = out_uks.count(False)
    knowns = _join_outputs(knowns, all_res, indices, num_known_outs)
    staged = _join_inputs(staged, all_res, indices)
    index, ops = args[0], args[1:]
    known_ops = [x for x, u in zip(ops, unknowns[1:], strict=True) if not u]
    with core.set_current_trace(trace.parent):
        known_outs = cond_p.bind(index, *known_ops, branches=knowns)
    outs, res = known_outs[:num_known_outs], known_outs[num_known_outs:]
    unknown_ops = [x for x, u in zip(ops, unknowns[1:], strict=True) if u]
    staged_outs = trace.record(cond_p, [index, *res, *unknown_ops], {"branches": staged})
    return common.merge_lists(out_uks, outs, staged_outs)


def _linearize_branch(jaxpr, nzs, instantiate, allow_fwds):
    # JAX linearizes each branch directly (a scan inside splits by its own rule).
    split = None if jaxpr.consts else linearize_jaxpr_direct(jaxpr, nzs, instantiate, allow_fwds)
    return split if split is not None else linearize_jaxpr(jaxpr, nzs, instantiate, allow_fwds)


def _cond_linearize(trace, primals, tangents, branches, nzs):
    # A primal cond (evaluated now, by the enclosing trace) returning the
    # residuals of every branch, and a tangent cond staged into `trace`.
    index, ops = primals[0], primals[1:]
    no_fwd = [False] * len(nzs)
    nzs_out = [any(nz) for nz in zip(*(_linearize_branch(j, nzs, [False] * len(j.outvars), no_fwd)[2]
                                       for j in branches), strict=True)]
    splits = []
    for j in branches:
        primal, num_res, _, _, tangent = _linearize_branch(j, nzs, nzs_out, no_fwd)
        res_avals = primal.out_avals[len(primal.out_avals) - num_res:]
        splits.append((primal, tangent, res_avals))
    all_res, indices = _merge_branch_residuals([s[2] for s in splits])
    primal_branches = _join_outputs([s[0] for s in splits], all_res, indices, len(nzs_out))
    tangent_branches = _join_inputs([s[1] for s in splits], all_res, indices)
    with core.set_current_trace(trace.parent):
        outs = cond_p.bind(index, *ops, branches=primal_branches)
    primals_out, res = outs[:len(nzs_out)], outs[len(nzs_out):]
    nz_tangents = [t for t in tangents[1:] if type(t) is not Zero]
    tangents_it = iter(trace.record(cond_p, [index, *res, *nz_tangents], {"branches": tangent_branches}))
    tangents_out = [next(tangents_it) if nz else Zero(tangent_aval(core.get_aval(p)))
                    for p, nz in zip(primals_out, nzs_out, strict=True)]
    return list(primals_out), tangents_out


cond_p.partial_eval = _cond_partial_eval


# ---------------------------------------------------------------------------
# Transpose


def _cond_transpose(cts, index, *args, branches):
    undefined = [is_undefined_primal(x) for x in args]
    res = [x for x, u in zip(args, undefined, strict=True) if not u]
    ct_nz = [type(ct) is not Zero for ct in cts]
    nz_cts = [ct for ct in cts if type(ct) is not Zero]
    linear_avals = [x.aval if u else None for x, u in zip(args, undefined, strict=True)]
    res_avals, ct_avals = common.avals_of(res), common.avals_of(nz_cts)
    # Every branch returns the cotangents some branch makes nonzero.
    out_nz = [False] * sum(undefined)
    for j in branches:
        _, nonzero = transpose_jaxpr(j, linear_avals, res_avals, ct_nz, ct_avals, instantiate_cts=False)
        out_nz = [a or b for a, b in zip(out_nz, nonzero, strict=True)]
    trans = tuple(transpose_jaxpr(j, linear_avals, res_avals, ct_nz, ct_avals, instantiate_cts=out_nz)[0]
                  for j in branches)
    outs = iter(cond_p.bind(index, *res, *nz_cts, branches=trans))
    lin_cts = iter([next(outs) if nz else None for nz in out_nz])
    return [None] + [next(lin_cts) if u else None for u in undefined]


cond_p.def_transpose(_cond_transpose)


# ---------------------------------------------------------------------------
# Batching


def _stop_gradient(x):
    from pyjax._src.lax.elementwise import stop_gradient_p

    if dtypes.issubdtype(core.get_aval(x).dtype, np.inexact):
        return stop_gradient_p.bind(x)
    return x


def _bcast_select_n(pred, *cases):
    from pyjax._src.lax.elementwise import select_n
    from pyjax._src.lax.shapes import broadcast_in_dim

    pred_ndim, case_shape = np.ndim(pred), core.get_aval(cases[0]).shape
    if pred_ndim != len(case_shape):
        pred = broadcast_in_dim(pred, case_shape, list(range(pred_ndim)))
    return select_n(pred, *cases)


def _cond_batch(axis_data, args, dims, *, branches):
    from pyjax._src.lax.elementwise import eq

    index_dim, op_dims = dims[0], dims[1:]
    not_mapped = batching.not_mapped
    if index_dim is not not_mapped:
        # Every branch runs on every example; the index selects the results.
        index, *ops = (batching_util.bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True))
        n_in, n_out = len(branches[0].in_avals), len(branches[0].out_avals)
        batched = [batching.batch_jaxpr(j, axis_data, [True] * n_in, [True] * n_out)[0] for j in branches]
        branch_outs = []
        for i, jaxpr in enumerate(batched):
            # The operands go through a select, so that reverse mode sends no
            # cotangent into a branch for the examples that did not take it.
            predicate = eq(index, np.asarray(i, core.get_aval(index).dtype)[()])
            ops_ = [_bcast_select_n(predicate, _stop_gradient(x), x) for x in ops]
            branch_outs.append(common.jaxpr_as_fun(jaxpr)(*ops_))
        out = [_bcast_select_n(index, *outs) for outs in zip(*branch_outs, strict=True)]
        return out, [0] * n_out
    ops_batched = [d is not not_mapped for d in op_dims]
    ops = [batching_util.moveaxis(x, d, 0) if b else x for b, x, d in zip(ops_batched, args[1:], op_dims, strict=True)]
    out_batched = [any(b) for b in zip(*(batching.batch_jaxpr(j, axis_data, ops_batched, False)[1] for j in branches),
                                       strict=True)]
    new_branches = tuple(batching.batch_jaxpr(j, axis_data, ops_batched, out_batched)[0] for j in branches)
    out = cond_p.bind(args[0], *ops, branches=new_branches)
    return out, [0 if b else not_mapped for b in out_batched]


cond_p.def_batch(_cond_batch)


def _cond_dce(eqn, used_outputs: list):
    """Drops the cond's unused outputs, the dead equations of every branch
    and the operands no branch reads any more (the index stays), as JAX's
    rule does (a branch's zero-filled residuals that nobody returns go)."""
    from pyjax._src.interpreters.dce import dce_jaxpr

    branches = eqn.params["branches"]
    pruned = [dce_jaxpr(b, used_outputs, prune_bodies=True) for b in branches]
    used_inputs = [any(u) for u in zip(*(u for _, u in pruned))]
    new = tuple(b.replace(invars=[v for v, u in zip(b.invars, used_inputs, strict=True) if u]) for b, _ in pruned)
    return eqn.replace(invars=[eqn.invars[0], *(v for v, u in zip(eqn.invars[1:], used_inputs, strict=True) if u)],
                       outvars=[v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u],
                       params=dict(eqn.params, branches=new))


cond_p.dce_rule = _cond_dce
