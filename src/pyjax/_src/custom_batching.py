"""custom_vmap: functions that bring their own batching rule.

Under a trace a custom_vmap function is one `custom_vmap_call` equation
holding the traced body (`call`, its closed-over values hoisted to leading
operands) and the rule. Evaluation, jit and lowering run the body; the
batching rule of the primitive calls the user's rule instead. Forward-mode
differentiation gives another custom_vmap_call whose body is the JVP of the
body and whose rule is the JVP of the user's rule, so that `vmap(jvp(f))`
and `jvp(vmap(f))` both use the rule. There is no partial evaluation rule:
as in JAX, reverse mode of a custom_vmap function fails (wrap it in a
custom_vjp for that).

The `rule` param is a callable `rule(axis_size, in_batched, *args)` on the
operands unflattened with `in_tree` (consts first), returning
`(outputs, out_batched)`; `_UserRule` adapts the user's rule to it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.core import Primitive
from pyjax._src.custom_derivatives import _fun_name, resolve_kwargs, trace_body
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.jaxpr import Jaxpr, body_effects
from pyjax._src.tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten
from pyjax._src.rules import SHARDING_OF_CALL

__all__ = ["custom_vmap", "custom_vmap_p", "sequential_vmap"]


class _UserRule:
    """The user's rule as the primitive's `rule` param: drops the leading
    consts (never batched) and prints as the function does, as JAX prints it."""

    __slots__ = ("rule",)

    def __init__(self, rule: Callable):
        self.rule = rule

    def __call__(self, axis_size: int, in_batched, consts, args):
        _, args_batched = in_batched
        return _call_rule(self.rule, axis_size, args_batched, args)

    def __str__(self):
        return str(self.rule)


def _call_rule(rule: Callable, axis_size: int, in_batched, args):
    # The rule sees the arguments' batched flags as a list, one per argument.
    return rule(axis_size, list(in_batched), *args)


def _rule_name(rule) -> str:
    rule = rule.rule if isinstance(rule, _UserRule) else rule
    return getattr(rule, "__name__", "<unnamed rule>")


def _check_rule_trees(rule, out_tree, got_tree, batched_tree) -> None:
    if got_tree != batched_tree:
        raise ValueError(
            "structure of output value and output batching specification returned by custom vmap rule "
            f"({_rule_name(rule)}) do not match.\nOutput values: {got_tree}\nBatching spec: {batched_tree}")
    if got_tree != out_tree:
        raise ValueError(
            f"structure of output returned by custom vmap rule ({_rule_name(rule)}) does not match that of "
            f"original custom-vmapped function.\nOriginal output: {out_tree}\nRule output: {got_tree}")


# ---------------------------------------------------------------------------
# The custom_vmap_call primitive

custom_vmap_p = Primitive("custom_vmap_call", multiple_results=True).declare(body_params=("call",), call_body="call")
custom_vmap_p.declare(sharding_reason=SHARDING_OF_CALL)
custom_vmap_p.effects_of = body_effects("call")
custom_vmap_p.pp_param_order = ("call", "in_tree", "out_tree", "rule")


@custom_vmap_p.def_abstract_eval
def _custom_vmap_abstract_eval(*avals, call: Jaxpr, **params):
    return call.out_avals


def _front(x, dim):
    from pyjax._src.lax.batching_util import moveaxis

    return x if dim is not_mapped else moveaxis(x, dim, 0)


def _as_array(x):
    from pyjax._src.numpy.creation import asarray

    return x if isinstance(x, core.Tracer) else asarray(x)


def _custom_vmap_batch(axis_data, args, dims, *, call, rule, in_tree, out_tree):
    consts_tree = in_tree.children()[0]
    if any(d is not not_mapped for d in dims[:consts_tree.num_leaves]):
        raise NotImplementedError(
            "a custom_vmap function closes over a value batched by an enclosing vmap; pass it as an argument instead")
    args_tree = tree_unflatten(in_tree, [_front(x, d) for x, d in zip(args, dims, strict=True)])
    batched_tree = tree_unflatten(in_tree, [d is not not_mapped for d in dims])
    out, out_batched = rule(axis_data.size, batched_tree, *args_tree)
    flat_out, got_tree = tree_flatten(out)
    flat_batched, batched_out_tree = tree_flatten(out_batched)
    _check_rule_trees(rule, out_tree, got_tree, batched_out_tree)
    return [_as_array(x) for x in flat_out], [0 if b else not_mapped for b in flat_batched]


custom_vmap_p.def_batch(_custom_vmap_batch)


def _jvp_of_rule(rule, out_tree):
    """The batching rule of a custom_vmap_call's JVP: the JVP of `rule`.

    Where a primal and its tangent are both batched the rule itself handles
    the batch; a value batched on one side only is batched by an ordinary
    vmap of that JVP (the rule's own code traced under it)."""
    from pyjax._src.api_ad import jvp

    def jvp_rule(axis_size: int, in_batched, primals, tangents):
        primals_b, tangents_b = in_batched
        both = tree_map(lambda p, t: p and t, primals_b, tangents_b)
        flat_pb, flat_tb = tree_flatten(primals_b)[0], tree_flatten(tangents_b)[0]
        extra = ([0 if p and not t else not_mapped for p, t in zip(flat_pb, flat_tb, strict=True)]
                 + [0 if t and not p else not_mapped for p, t in zip(flat_pb, flat_tb, strict=True)])
        flat, tree = tree_flatten((primals, tangents))
        both_out: list = []

        def rule_fun(*ps):
            out, out_batched = rule(axis_size, both, *ps)
            _check_rule_trees(rule, out_tree, tree_structure(out), tree_structure(out_batched))
            both_out[:] = [out_batched]
            return out

        def per_example(*leaves):
            ps, ts = tree_unflatten(tree, leaves)
            out, tout = jvp(rule_fun, tuple(ps), tuple(ts))
            return tree_flatten((out, tout))[0]

        results = batching.batch_flat(per_example, flat, extra, batching.AxisData(None, axis_size))
        n = len(results) // 2
        outs = [_front(v, d) for v, d in results]
        out_flags = tree_flatten(both_out[0])[0]
        flags = [b or d is not not_mapped for b, (_, d) in zip(out_flags * 2, results, strict=True)]
        return (tree_unflatten(out_tree, outs[:n]), tree_unflatten(out_tree, outs[n:])), \
            (tree_unflatten(out_tree, flags[:n]), tree_unflatten(out_tree, flags[n:]))

    return jvp_rule


def _custom_vmap_jvp(primals, tangents, *, call, rule, in_tree, out_tree):
    from pyjax._src.interpreters.jvp import jvp_jaxpr
    from pyjax._src.tree_util import treedef_tuple

    tangents = [instantiate(t) if type(t) is Zero else t for t in tangents]
    jvp_call, _ = jvp_jaxpr(call, [True] * len(primals), True)
    outs = custom_vmap_p.bind(*primals, *tangents, call=jvp_call, rule=_jvp_of_rule(rule, out_tree),
                              in_tree=treedef_tuple((in_tree, in_tree)), out_tree=treedef_tuple((out_tree, out_tree)))
    n = len(outs) // 2
    return outs[:n], outs[n:]


custom_vmap_p.def_jvp(_custom_vmap_jvp)


def _custom_vmap_partial_eval(trace, args, params):
    # JAX has no partial evaluation rule for custom_vmap_call: with an unknown
    # input the whole call, primal outputs included, is unknown, and
    # linearization stops with this error.
    raise ValueError(
        "Linearization failed to produce known values for all output primals. This is typically caused by "
        "attempting to differentiate a function uses an operation that does not support reverse-mode autodiff.")


custom_vmap_p.partial_eval = _custom_vmap_partial_eval


# ---------------------------------------------------------------------------
# custom_vmap


class custom_vmap:
    """Customize the vmap behavior of a JAX-transformable function.

    A ``custom_vmap``-decorated function behaves like the function it wraps,
    except under :py:func:`jax.vmap`, where the rule registered with
    :meth:`def_vmap` computes the batched result instead.

    Example:
      >>> @jax.custom_batching.custom_vmap
      ... def f(x, y):
      ...   return x + y
      >>> @f.def_vmap
      ... def f_vmap_rule(axis_size, in_batched, xs, ys):
      ...   return xs * ys, True
      >>> jax.vmap(f)(jnp.arange(3), jnp.arange(1, 4))  # xs * ys, not xs + ys
      Array([0, 2, 6], dtype=int32)

    ``custom_vmap`` functions do not support reverse-mode autodiff; combine
    them with :py:class:`jax.custom_vjp` (on the outside) for that.
    """

    def __init__(self, fun: Callable[..., Any]):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable | None = None

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return functools.partial(self, instance)

    def def_vmap(self, vmap_rule: Callable[..., tuple[Any, Any]]) -> Callable[..., tuple[Any, Any]]:
        """Define the vmap rule for this custom_vmap function.

        Args:
          vmap_rule: ``vmap_rule(axis_size, in_batched, *args)``: the batch
            size, a list (one entry per argument, a pytree of booleans like
            it) saying which arguments are batched, and the arguments, batched
            ones with the batch axis first. It returns ``(out, out_batched)``:
            the batched outputs and a pytree of booleans of the same structure
            saying which outputs carry a leading batch axis.

        Returns:
          ``vmap_rule``, unchanged.
        """
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from pyjax._src.tree_util import treedef_tuple

        name = getattr(self, "__name__", None) or _fun_name(self.fun)
        args = resolve_kwargs(self.fun, args, kwargs, "custom_vmap")
        if not self.vmap_rule:
            raise AttributeError(f"No batching rule defined for custom_vmap function {name} using def_vmap.")
        if core.current_trace() is core._default_trace[0]:
            return self.fun(*args)
        call, consts, flat_args, _, out_tree = trace_body(self.fun, args, ())
        in_tree = treedef_tuple((tree_structure(list(consts)), tree_structure(tuple(args))))
        outs = custom_vmap_p.bind(*consts, *flat_args, call=call, rule=_UserRule(self.vmap_rule),
                                  in_tree=in_tree, out_tree=out_tree)
        return tree_unflatten(out_tree, outs)


def sequential_vmap(f: Callable) -> custom_vmap:
    """A special case of ``custom_vmap`` that uses a loop.

    Batched, a function decorated with ``sequential_vmap`` is called once per
    example inside a :py:func:`jax.lax.map` loop, the unbatched arguments
    shared by every iteration. Useful for functions that do not support batch
    dimensions themselves.
    """
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        from pyjax._src.lax.control_flow.scan import map as lax_map

        leaves, tree = tree_flatten(list(args))
        flags = tree_flatten(in_batched)[0]
        mapped = [x for x, b in zip(leaves, flags, strict=True) if b]

        def one(mapped_leaves):
            it = iter(mapped_leaves)
            return f(*tree_unflatten(tree, [next(it) if b else x for x, b in zip(leaves, flags, strict=True)]))

        out = lax_map(one, mapped)
        return out, tree_map(lambda _: True, out)

    return f
