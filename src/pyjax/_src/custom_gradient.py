"""custom_gradient: a function that returns its own VJP alongside its value.

It is a custom_vjp underneath. The forward rule calls the user's function
and traces the VJP closure it returns into a jaxpr on the output cotangent
avals; that jaxpr's constants (whatever the closure captured) are the
residuals, and the backward rule evaluates it on the cotangents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyjax._src import core
from pyjax._src.ad_util import tangent_aval
from pyjax._src.tree_util import register_pytree_node, tree_flatten, tree_unflatten, treedef_is_leaf

__all__ = ["custom_gradient"]


class _VJPResiduals:
    """The traced VJP closure as a pytree: its constants are the leaves."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts


register_pytree_node(_VJPResiduals, lambda r: (r.consts, (r.jaxpr, r.in_tree, r.out_tree)),
                     lambda aux, consts: _VJPResiduals(*aux, list(consts)))


def custom_gradient(fun: Callable) -> Callable:
    """Convenience function for defining custom VJP rules (aka custom gradients).

    ``fun`` returns a pair: the primal output and a function ``vjp(ct)`` that
    maps an output cotangent to a tuple of input cotangents, one per
    positional argument. The result behaves like ``fun``'s primal output and
    differentiates in reverse mode with that VJP; as for any
    :py:class:`jax.custom_vjp` function, forward mode is not supported.

    Example:
      >>> @jax.custom_gradient
      ... def f(x):
      ...   return x ** 2, lambda g: (g * x,)
      >>> f(3.)
      Array(9., dtype=float32, weak_type=True)
      >>> jax.grad(f)(3.)
      Array(3., dtype=float32, weak_type=True)
    """
    from pyjax._src.custom_vjp import custom_vjp

    # The inner names are the ones JAX's jaxpr text shows (name=wrapped_fun, fwd=fwd, bwd=bwd).
    @custom_vjp
    def wrapped_fun(*args, **kwargs):
        ans, _ = fun(*args, **kwargs)
        return ans

    def fwd(*args, **kwargs):
        from pyjax._src.interpreters.staging import trace_to_jaxpr

        ans, rule = fun(*args, **kwargs)
        ans_flat, out_tree = tree_flatten((ans,))
        ct_avals = [tangent_aval(core.get_aval(x)) for x in ans_flat]
        in_tree_box: list = []

        def flat_rule(*cts):
            (ct,) = tree_unflatten(out_tree, list(cts))
            outs, in_tree = tree_flatten(rule(ct))
            in_tree_box.append(in_tree)
            return outs

        jaxpr, _ = trace_to_jaxpr(flat_rule, ct_avals)
        consts = list(jaxpr.consts)
        jaxpr = jaxpr.replace(constvars=[], consts=[], invars=jaxpr.constvars + jaxpr.invars)
        return ans, _VJPResiduals(jaxpr, in_tree_box[0], out_tree, consts)

    def bwd(res, cts):
        from pyjax._src.jaxpr import eval_jaxpr

        cts_flat, tree = tree_flatten((cts,))
        if tree != res.out_tree:
            raise TypeError(f"{res.out_tree}\n!=\n{tree}")
        outs = tree_unflatten(res.in_tree, eval_jaxpr(res.jaxpr, [], *res.consts, *cts_flat))
        # A rule returning one cotangent (not a tuple) is for a one-argument function.
        return (outs,) if treedef_is_leaf(res.in_tree) else outs

    wrapped_fun.defvjp(fwd, bwd)
    return wrapped_fun
