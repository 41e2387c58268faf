"""`lax.custom_root`: a root finder whose derivatives come from the implicit
function theorem at the root, not from the solver's iterations.

`f`, `partial(solve, f)` and the tangent solve (`tangent_solve` applied to
`f`'s linearization) are traced once into jaxprs whose closed-over values
become leading operands. The call itself is a `custom_jvp` function of
those constants and the initial guess (the jaxprs and const counts are its
non-differentiable arguments), as in JAX: evaluating it runs `solve`; its
JVP is `-(df/dx)^{-1} (df/dparams . params_dot)` at the solution, the
inverse applied with the tangent solve.
"""

from __future__ import annotations

import collections
import functools
from typing import Any, Callable

from pyjax._src import core
from pyjax._src.avals import ShapedArray
from pyjax._src.lax._standard import as_array
from pyjax._src.lax.control_flow.common import debug_info, jaxpr_as_fun, split_list, trace_body
from pyjax._src.tree_util import tree_flatten, tree_structure, tree_unflatten

__all__ = ["custom_root"]


class _RootTuple(collections.namedtuple("_RootTuple", "f, solve, l_and_s")):
    """One entry per traced function: f, the solver, the tangent solve."""


def _check_tree(func_name: str, expected_name: str, actual_tree, expected_tree, has_aux: bool = False) -> None:
    if has_aux:
        children = actual_tree.children()
        if len(children) != 2:
            raise ValueError(f"{func_name}() produced a pytree with structure {actual_tree}, but a pytree tuple "
                             "with auxiliary output was expected because has_aux was set to True.")
        actual_tree = children[0]
    if actual_tree != expected_tree:
        raise TypeError(f"{func_name}() output pytree structure must match {expected_name}, "
                        f"got {actual_tree} and {expected_tree}.")


def custom_root(f: Callable, initial_guess: Any, solve: Callable[[Callable, Any], Any],
                tangent_solve: Callable[[Callable, Any], Any], has_aux: bool = False) -> Any:
    """Differentiably solve for the roots of a function.

    Gradients of ``custom_root()`` are defined with respect to closed-over
    variables of ``f`` via the implicit function theorem: the solver itself is
    never differentiated.

    Args:
      f: function for which to find a root. It takes a single argument and
        returns a tree of arrays with the same structure as its input.
      initial_guess: initial guess for a zero of ``f``.
      solve: ``solve(f, initial_guess)`` returns a solution with the structure
        of ``initial_guess`` such that ``f(solution) = 0`` (assumed, not
        checked).
      tangent_solve: ``tangent_solve(g, y)`` solves the linear system
        ``g(x) = y`` for ``x``, where ``g`` is the linearization of ``f`` at
        the solution. For scalar ``y`` use ``lambda g, y: y / g(1.0)``; for
        vector ``y`` one could use ``jnp.linalg.solve`` on ``jax.jacobian(g)``.
      has_aux: ``solve`` returns ``(solution, aux)``; the auxiliary data is
        passed through with zero derivatives.

    Returns:
      The result of ``solve(f, initial_guess)``, with gradients defined by
      implicit differentiation assuming ``f(solve(f, initial_guess)) == 0``.
    """
    guess_flat, guess_tree = tree_flatten(initial_guess)
    guess_flat = [as_array(x) for x in guess_flat]
    initial_guess = tree_unflatten(guess_tree, guess_flat)
    guess_avals = [core.get_aval(x) for x in guess_flat]
    guess_avals = [ShapedArray(a.shape, a.dtype, a.weak_type) for a in guess_avals]

    args_tree = tree_structure((initial_guess,))
    f_jaxpr, f_consts, out_tree, _ = trace_body(f, args_tree, guess_avals,
                                                debug_info("custom_root", f, (initial_guess,)))
    _check_tree("f", "initial_guess", out_tree, guess_tree)

    solve_jaxpr, solve_consts, solution_tree, _ = trace_body(
        functools.partial(solve, f), args_tree, guess_avals,
        debug_info("custom_root solve", solve, (initial_guess,)))
    _check_tree("solve", "initial_guess", solution_tree, guess_tree, has_aux)

    def linearize_and_solve(x, b):
        from pyjax._src.api_ad import linearize

        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, b)

    l_and_s_jaxpr, l_and_s_consts, l_and_s_tree, _ = trace_body(
        linearize_and_solve, tree_structure((initial_guess, initial_guess)), guess_avals * 2,
        debug_info("custom_root tangent_solve", tangent_solve, (initial_guess, initial_guess)))
    _check_tree("tangent_solve", "x", l_and_s_tree, guess_tree)

    all_consts = [f_consts, solve_consts, l_and_s_consts]
    const_lengths = _RootTuple(*map(len, all_consts))
    jaxprs = _RootTuple(f_jaxpr, solve_jaxpr, l_and_s_jaxpr)
    solution_flat = _root_fn()(const_lengths, jaxprs, *[c for cs in all_consts for c in cs], *guess_flat)
    return tree_unflatten(solution_tree, solution_flat)


def _split_root_args(args, const_lengths):
    pieces = split_list(list(args), list(const_lengths))
    return _RootTuple(*pieces[:-1]), pieces[-1]


def _custom_root(const_lengths, jaxprs, *args):
    params, initial_guess = _split_root_args(args, const_lengths)
    return jaxpr_as_fun(jaxprs.solve)(*params.solve, *initial_guess)


def _root_jvp(const_lengths, jaxprs, primals, tangents):
    from pyjax._src.api_ad import linearize
    from pyjax._src.lax.elementwise import neg

    params, _ = _split_root_args(primals, const_lengths)
    sol = _root_fn()(const_lengths, jaxprs, *primals)
    solution, aux = split_list(sol, [len(jaxprs.f.out_avals)])
    params_dot, _ = _split_root_args(tangents, const_lengths)
    # F(m, u*(m)) = 0 near the solution, so
    #   d u*(m)[v] = -(d_1 F(m, u*))^{-1} [d_0 F(m, u*)[v]]:
    # the bracket is f's JVP in its closed-over values at the solution, the
    # inverse the tangent solve of f's linearization in u.
    f = jaxpr_as_fun(jaxprs.f)
    if params.f:
        _, f_at_solution_lin = linearize(lambda *p: f(*p, *solution), *params.f)
        rhs = f_at_solution_lin(*params_dot.f)
    else:
        rhs = [_zeros(s) for s in solution]
    solution_dot = [neg(t) for t in jaxpr_as_fun(jaxprs.l_and_s)(*params.l_and_s, *solution, *rhs)]
    return solution + aux, solution_dot + [_zeros(a) for a in aux]


def _zeros(x):
    from pyjax._src.lax.shapes import full

    aval = core.get_aval(x)
    return full(aval.shape, 0, aval.dtype)


@functools.cache
def _root_fn():
    # Built on first use: custom_derivatives sits beside lax, and importing it
    # while lax loads would be circular.
    from pyjax._src.custom_derivatives import custom_jvp

    root = custom_jvp(_custom_root, nondiff_argnums=(0, 1))
    root.defjvp(_root_jvp)
    return root
