"""`lax.custom_linear_solve`: a matrix-free linear solve whose derivatives
come from implicit differentiation at the solution.

The `custom_linear_solve` primitive holds four jaxprs (matvec, vecmat,
solve, transpose_solve; vecmat and transpose_solve may be None) and the
number of closed-over constants each takes, all in `_LinearSolveTuple`s.
Its operands are those constants followed by the leaves of `b`. Evaluating
it runs `solve`; its JVP solves again for the tangent (`b_dot - dA x`), its
transpose is a solve with the transposed system (matvec <-> vecmat, solve
<-> transpose_solve), and under vmap the four jaxprs are batched.
"""

from __future__ import annotations

import numpy as np

import collections
from typing import Any, Callable

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.lax._standard import as_array
from pyjax._src.lax.control_flow.common import (
    debug_info,
    jaxpr_as_fun,
    separate_consts,
    split_list,
    trace_body,
)
from pyjax._src.tree_util import (
    tree_flatten,
    tree_leaves,
    tree_structure,
    tree_unflatten,
)
from pyjax._src.rules import SHARDING_OF_CALL

__all__ = ["custom_linear_solve", "linear_solve_p"]


class _LinearSolveTuple(collections.namedtuple("_LinearSolveTuple", "matvec, vecmat, solve, transpose_solve")):
    """One entry per function of the linear system."""

    def transpose(self) -> "_LinearSolveTuple":
        # Transposing swaps each map with its transpose, and each solver with
        # the transpose solver.
        m, v, s, ts = self
        return type(self)(v, m, ts, s)


linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)
linear_solve_p.declare(sharding_reason=SHARDING_OF_CALL)


def _split(args, const_lengths):
    pieces = split_list(list(args), list(const_lengths))
    return _LinearSolveTuple(*pieces[:-1]), pieces[-1]


def _flatten(groups) -> list:
    return [x for group in groups for x in group]


@linear_solve_p.def_abstract_eval
def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
    b_avals = list(avals[sum(const_lengths):])
    aux = jaxprs.solve.out_avals[len(jaxprs.matvec.out_avals):]
    return b_avals + list(aux)


def linear_solve_impl(*args, const_lengths, jaxprs):
    params, b = _split(args, const_lengths)
    # The solve runs as pyjax operations; the backend wants its own values back.
    return [np.asarray(out) for out in jaxpr_as_fun(jaxprs.solve)(*params.solve, *b)]


def _check_shapes(func_name: str, expected_name: str, actual, expected) -> None:
    actual_shapes = [tuple(core.get_aval(x).shape) for x in actual]
    expected_shapes = [tuple(core.get_aval(x).shape) for x in expected]
    if actual_shapes != expected_shapes:
        raise ValueError(f"{func_name}() output shapes must match {expected_name}, "
                         f"got {actual_shapes} and {expected_shapes}")


def _check_tree(func_name: str, expected_name: str, actual_tree, expected_tree, has_aux: bool) -> None:
    if has_aux:
        children = actual_tree.children() if hasattr(actual_tree, "children") else None
        if actual_tree.num_nodes == 1 or children is None or len(children) != 2:
            raise ValueError(f"{func_name}() must return a (output, aux) tuple when has_aux=True")
        actual_tree = children[0]
    if actual_tree != expected_tree:
        raise TypeError(f"{func_name}() output pytree structure must match {expected_name}, "
                        f"got {actual_tree} and {expected_tree}.")


def custom_linear_solve(matvec: Callable, b: Any, solve: Callable[[Callable, Any], Any],
                        transpose_solve: Callable[[Callable, Any], Any] | None = None,
                        symmetric: bool = False, has_aux: bool = False) -> Any:
    """Solve ``matvec(x) = b`` with a user solver, differentiating the equation instead of the solver.

    The solver's own operations (iterations, factorizations) are never
    differentiated: derivatives come from implicit differentiation of the
    linear equation, which takes further solves (with ``solve`` for tangents,
    ``transpose_solve`` for cotangents). The caller is responsible for
    ``solve`` actually returning a solution; nothing checks it.

    Args:
      matvec: the linear map ``A`` as a function ``x -> A x``; it must be
        differentiable (its transpose is derived with autodiff).
      b: the right-hand side, a pytree of arrays; it fixes the form of ``x``.
      solve: ``solve(matvec, r)`` returns the ``x`` with ``matvec(x) == r``,
        for any ``r`` shaped like ``b``; it need not be differentiable.
      transpose_solve: ``transpose_solve(vecmat, r)`` does the same for the
        transposed map ``vecmat``. Needed for reverse mode unless
        ``symmetric`` is set.
      symmetric: the map is its own transpose, so ``solve`` serves for both.
      has_aux: ``solve`` and ``transpose_solve`` return ``(x, aux)``; the aux
        data is passed through undifferentiated.

    Returns:
      ``solve(matvec, b)`` (and its aux data when ``has_aux``), with
      derivatives those of the exact solution of ``matvec(x) == b``.

    Examples:
      >>> lax.custom_linear_solve(lambda x: 2.0 * x, jnp.ones(2), lambda mv, r: r / 2.0)
      Array([0.5, 0.5], dtype=float32)
    """
    if symmetric and transpose_solve is None:
        transpose_solve = solve
    b_flat, tree = tree_flatten(b)
    b_flat = [as_array(x) for x in b_flat]
    b = tree_unflatten(tree, b_flat)
    b_avals = [core.get_aval(x) for x in b_flat]
    b_avals = [ShapedArray(a.shape, a.dtype, a.weak_type) for a in b_avals]
    in_tree = tree_structure((b,))

    def shape_checked(fun, name, aux):
        def checked(x):
            y = fun(x)
            _check_shapes(name, "b", tree_leaves(y[0] if aux else y), b_flat)
            return y
        return checked

    def trace(fun, name, aux, traced_for):
        jaxpr, consts, out_tree, _ = trace_body(shape_checked(fun, name, aux), in_tree, b_avals,
                                                debug_info(traced_for, fun, (b,)))
        _check_tree(name, "b", out_tree, tree, aux)
        return jaxpr, consts

    matvec_jaxpr, matvec_consts = trace(matvec, "matvec", False, "custom_linear_solve")
    solve_jaxpr, solve_consts = trace(lambda x: solve(matvec, x), "solve", has_aux, "custom_linear_solve solve")
    if transpose_solve is None:
        vecmat_jaxpr = tr_solve_jaxpr = None
        vecmat_consts = tr_solve_consts = []
    else:
        if symmetric:
            vecmat = matvec
            vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
        else:
            from pyjax._src.api_jac import linear_transpose

            transposed = linear_transpose(matvec, b)

            def vecmat(x):
                (y,) = transposed(x)
                return y

            vecmat_jaxpr, vecmat_consts = trace(vecmat, "vecmat", False, "custom_linear_solve transpose_solve")
        tr_solve_jaxpr, tr_solve_consts = trace(lambda x: transpose_solve(vecmat, x), "transpose_solve", has_aux,
                                                "custom_linear_solve transpose_solve")
    consts_per_fn = _LinearSolveTuple(matvec_consts, vecmat_consts, solve_consts, tr_solve_consts)
    const_lengths = _LinearSolveTuple(*map(len, consts_per_fn))
    jaxprs = _LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_solve_jaxpr)
    operands = [as_array(c) for c in _flatten(consts_per_fn)] + b_flat
    out_flat = linear_solve_p.bind(*operands, const_lengths=const_lengths, jaxprs=jaxprs)
    x = tree_unflatten(tree, out_flat[:len(b_flat)])
    if has_aux:
        aux_tree = tree_structure(_aux_structure(solve, matvec, b))
        return x, tree_unflatten(aux_tree, out_flat[len(b_flat):])
    return x


def _aux_structure(solve, matvec, b):
    # The aux output's structure (tracing again only for its treedef).
    from pyjax._src.api import eval_shape

    return eval_shape(lambda x: solve(matvec, x)[1], b)


# ---------------------------------------------------------------------------
# JVP: x_dot = solve(b_dot - dA x)


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    from pyjax._src.api import jvp

    x = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    params, _ = _split(primals, const_lengths)
    params_dot, b_dot = _split(tangents, const_lengths)
    x_leaves = x[:len(b_dot)]
    if all(type(p) is Zero for p in params_dot.matvec):
        rhs = [instantiate(t) for t in b_dot]
    else:
        matvec = jaxpr_as_fun(jaxprs.matvec)
        n = len(params.matvec)
        _, dA_x = jvp(lambda *p: matvec(*p, *x_leaves), tuple(params.matvec),
                      tuple(instantiate(t) for t in params_dot.matvec))
        rhs = [instantiate(t) - d for t, d in zip(b_dot, dA_x, strict=True)] if n else [instantiate(t) for t in b_dot]
    x_dot = linear_solve_p.bind(*_flatten(params), *rhs, const_lengths=const_lengths, jaxprs=jaxprs)
    aux_dot = [Zero(core.get_aval(a)) for a in x_dot[len(b_dot):]]
    return x, list(x_dot[:len(b_dot)]) + aux_dot


def _linear_solve_transpose(cts, *primals, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    params, b = _split(primals, const_lengths)
    if any(is_undefined_primal(x) for xs in params for x in xs):
        raise NotImplementedError("custom_linear_solve: transposing with respect to the operator's constants")
    x_ct = [instantiate(ct) for ct in cts[:len(b)]]
    swapped = dict(const_lengths=const_lengths.transpose(), jaxprs=jaxprs.transpose())
    ct_b = linear_solve_p.bind(*_flatten(params.transpose()), *x_ct, **swapped)
    return [None] * sum(const_lengths) + list(ct_b[:len(b)])


# ---------------------------------------------------------------------------
# Batching: every operand gets the batch axis in front and the four jaxprs
# are batched with all of their inputs and outputs batched.


def _batch_all(jaxpr, axis_data):
    if jaxpr is None:
        return None
    from pyjax._src.lax.batching_util import bdim_at_front

    fun = jaxpr_as_fun(jaxpr)
    size = axis_data.size

    def batched(*args):
        outs = batching.batch_flat(fun, args, [0] * len(args), axis_data)
        return [bdim_at_front(v, d, size) for v, d in outs]

    in_avals = [ShapedArray((size,) + a.shape, a.dtype, a.weak_type) for a in jaxpr.in_avals]
    closed, _ = trace_to_jaxpr(batched, in_avals, jaxpr.debug_info)
    opened, consts = separate_consts(closed)
    if consts:
        # Batching created constants: keep them closed over.
        return closed
    return opened


def _linear_solve_batch(axis_data, args, dims, *, const_lengths, jaxprs):
    from pyjax._src.lax.batching_util import bdim_at_front

    operands = [bdim_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True)]
    batched = _LinearSolveTuple(*[_batch_all(j, axis_data) for j in jaxprs])
    outs = linear_solve_p.bind(*operands, const_lengths=const_lengths, jaxprs=batched)
    return outs, [0] * len(outs)


linear_solve_p.def_jvp(_linear_solve_jvp)
linear_solve_p.def_transpose(_linear_solve_transpose)
linear_solve_p.def_batch(_linear_solve_batch)
