"""jax.checkpoint (jax.remat): the user-facing API, the checkpoint policies,
`checkpoint_name` (the `name` primitive) and `saved_residuals`.

`checkpoint(f)` traces `f` to a jaxpr and binds it as one `remat2` equation
(remat.py holds the primitive and its rules). Policies decide, per equation
of the checkpointed body, whether its output may be saved for the backward
pass; `checkpoint_name` tags a value so the name-based policies can select it.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pyjax._src import core, errors
from pyjax._src.core import Primitive
from pyjax._src.interpreters.staging import (
    DebugInfo,
    format_source_info,
    func_src_info,
    trace_to_jaxpr,
)
from pyjax._src.jaxpr import Jaxpr, Literal
from pyjax._src.remat import (
    Offloadable,
    Recompute,
    Saveable,
    bind_closed,
    everything_saveable,
    nothing_saveable,
    remat_p,
)
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten
from pyjax._src.rules import SHARDING_OF_CALL

# ---------------------------------------------------------------------------
# checkpoint_name: the `name` primitive, an identity the policies can see

name_p = Primitive("name")
name_p.declare(sharding_reason=SHARDING_OF_CALL)
name_p.def_abstract_eval(lambda operand, *, name: operand)


def _name_jvp(primals, tangents, *, name):
    # The tangent is not named: only the primal value is a saving candidate.
    return name_p.bind(primals[0], name=name), tangents[0]


def _name_transpose(ct, x, *, name):
    return [ct]


def _name_batch(axis_data, args, dims, *, name):
    return name_p.bind(args[0], name=name), dims[0]


name_p.def_jvp(_name_jvp)
name_p.def_transpose(_name_transpose)
name_p.def_batch(_name_batch)


def checkpoint_name(x: Any, name: str) -> Any:
    """Tag ``x`` with ``name`` so that checkpoint policies can refer to it.

    The value passes through unchanged; in a trace it becomes a ``name``
    equation, which name-based policies (``save_only_these_names`` and
    friends) use to decide whether the value is kept for the backward pass.

    Args:
      x: array or pytree of arrays to be named.
      name: the name to associate with ``x``.

    Returns:
      ``x``, unchanged.
    """
    return tree_map(functools.partial(name_p.bind, name=name), x)


# ---------------------------------------------------------------------------
# Policies: (primitive, *in_avals, **params) -> bool | Saveable | Recompute | Offloadable


def _is_dot_without_batch_dims(prim, params) -> bool:
    from pyjax._src.lax.dot import dot_general_p

    if prim is not dot_general_p:
        return False
    (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    return not lhs_batch and not rhs_batch


@dataclass(frozen=True)
class DotsSaveable:
    only_if_no_batch_dims: bool

    def __call__(self, prim, *_avals, **params):
        if self.only_if_no_batch_dims:
            return _is_dot_without_batch_dims(prim, params)
        from pyjax._src.lax.convolution import conv_general_dilated_p
        from pyjax._src.lax.dot import dot_general_p

        return prim in (dot_general_p, conv_general_dilated_p)


checkpoint_dots = dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


@dataclass(frozen=True)
class OffloadDotWithNoBatchDims:
    offload_src: str
    offload_dst: str

    def __call__(self, prim, *_, **params):
        if _is_dot_without_batch_dims(prim, params):
            return Offloadable(src=self.offload_src, dst=self.offload_dst)
        return Recompute


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """Policy: move the outputs of batch-free ``dot_general`` equations from
    ``offload_src`` to ``offload_dst`` memory; recompute everything else.
    (This backend has one memory, so offloading amounts to saving.)"""
    return OffloadDotWithNoBatchDims(offload_src, offload_dst)


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    saveable_names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] in self.saveable_names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names_which_can_be_saved):
    """Policy: keep the ``checkpoint_name`` values whose name is listed; recompute the rest."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save):
    """Policy: keep every ``checkpoint_name`` value except those whose name is
    listed; unnamed values are recomputed."""
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_anything_except_these_names(*names_not_to_save):
    """Policy meant to keep every value apart from the listed names.

    (JAX 0.11 ignores the names and keeps everything; so does pyjax.)"""
    return lambda *_, **__: True


@dataclass(frozen=True)
class SaveAndOffloadOnlyTheseNames:
    names_which_can_be_saved: frozenset
    names_which_can_be_offloaded: frozenset
    offload_src: str
    offload_dst: str

    def __call__(self, prim, *_, **params):
        if prim is name_p and params["name"] in self.names_which_can_be_saved:
            return Saveable
        if prim is name_p and params["name"] in self.names_which_can_be_offloaded:
            return Offloadable(src=self.offload_src, dst=self.offload_dst)
        return Recompute


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
    """Policy: keep the values named in ``names_which_can_be_saved``, move those
    named in ``names_which_can_be_offloaded`` to ``offload_dst`` memory, and
    recompute the rest. (One memory here: offloading amounts to saving.)"""
    saved, offloaded = frozenset(names_which_can_be_saved), frozenset(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(
            "The names should be exclusive and should not intersect in `names_which_can_be_saved` and "
            f"`names_which_can_be_offloaded`. Got names_which_can_be_saved={set(saved)}, "
            f"names_which_can_be_offloaded={set(offloaded)} and the intersection={set(both)}")
    return SaveAndOffloadOnlyTheseNames(saved, offloaded, offload_src, offload_dst)


def save_from_both_policies(policy_1, policy_2):
    """Combine two boolean policies: a value is kept when either one keeps it."""

    def policy(prim, *avals, **params):
        first, second = (p(prim, *avals, **params) for p in (policy_1, policy_2))
        if type(first) is not bool or type(second) is not bool:
            raise ValueError(
                f"The return value of the policies should be a boolean. Got: {first} and {second}. Please write "
                "a custom policy function directly, rather than using this helper function.")
        return first or second

    return policy


checkpoint_policies = types.SimpleNamespace(
    SaveOnlyTheseNames=SaveOnlyTheseNames,
    SaveAnyNamesButThese=SaveAnyNamesButThese,
    SaveAndOffloadOnlyTheseNames=SaveAndOffloadOnlyTheseNames,
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
)


# ---------------------------------------------------------------------------
# checkpoint / remat

_STATIC_HINT = (
    "\n\nConsider using the `static_argnums` parameter for `jax.remat` or `jax.checkpoint`. See the "
    "`jax.checkpoint` docstring and its example involving `static_argnums`:\n"
    "https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html\n"
)


def checkpoint(fun: Callable, *, prevent_cse: bool | Sequence[bool] = True, policy: Callable[..., bool] | None = None,
               static_argnums: int | tuple[int, ...] = (), static_argnames: str | Iterable[str] = ()) -> Callable:
    """Trade memory for compute: recompute ``fun``'s intermediates when differentiating.

    Under differentiation, the values ``fun`` computes from its inputs are not
    stored for the backward pass (only the inputs are) but recomputed there,
    trading compute for memory. A ``policy`` selects intermediates that may
    be saved instead (see ``jax.checkpoint_policies``).

    Args:
      fun: the function to checkpoint.
      prevent_cse: whether to keep the compiler from merging the recomputation
        with the forward pass (a bool, or a pytree prefix of bools over the
        positional arguments).
      policy: ``policy(primitive, *avals, **params) -> bool`` says whether an
        equation's outputs may be saved; default: save nothing.
      static_argnums: positional arguments passed as Python values (not traced).
      static_argnames: keyword arguments passed as Python values.

    Returns:
      A function with the same signature and outputs as ``fun``.

    Example:
      >>> f = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
      >>> jax.grad(f)(1.0)  # sin(1.0) is computed again in the backward pass
      Array(0.36003944, dtype=float32, weak_type=True)
    """
    argnames = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)

    @functools.wraps(fun)
    def fun_remat(*args, **kwargs):
        static_kwargs = {k: kwargs.pop(k) for k in argnames if k in kwargs}
        fun_ = functools.partial(fun, **static_kwargs) if static_kwargs else fun
        argnums = _static_argnums(static_argnums, args)
        debug = DebugInfo("checkpoint / remat", func_src_info(fun), _arg_names(fun, args, kwargs, argnums))
        dyn_args = tuple(a for i, a in enumerate(args) if i not in argnums)
        flat_args, in_tree = tree_flatten((dyn_args, kwargs))
        out_tree_box: list = []

        def flat_fun(*flat):
            dyn, kw = tree_unflatten(in_tree, flat)
            dyn_it = iter(dyn)
            full = [a if i in argnums else next(dyn_it) for i, a in enumerate(args)]
            out_flat, out_tree = tree_flatten(fun_(*full, **kw))
            out_tree_box.append(out_tree)
            return out_flat

        avals = [_abstractify(x) for x in flat_args]
        try:
            jaxpr, _ = trace_to_jaxpr(flat_fun, avals, debug)
        except errors.ConcretizationTypeError as e:
            if "for checkpoint" in str(e.args[0]):
                e.args = (e.args[0] + _STATIC_HINT,)
            raise
        cse = prevent_cse
        if not isinstance(prevent_cse, bool):
            cse_args = (dyn_args, kwargs) if kwargs else dyn_args
            cse = tuple(_broadcast_prefix(tuple(prevent_cse) if isinstance(prevent_cse, list) else prevent_cse, cse_args))
        outs = bind_closed(jaxpr, flat_args, prevent_cse=cse, differentiated=False, policy=policy)
        return tree_unflatten(out_tree_box[0], outs)

    return fun_remat


def remat(fun: Callable, *, prevent_cse: bool = True, policy: Callable[..., bool] | None = None,
          static_argnums: int | tuple[int, ...] = ()
          ) -> Callable:
    """Alias of :func:`jax.checkpoint`."""
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)


def _static_argnums(static_argnums, args: tuple) -> frozenset:
    if type(static_argnums) is int:
        static_argnums = (static_argnums,)
    elif not (type(static_argnums) is tuple and all(type(d) is int for d in static_argnums)):
        raise TypeError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` must be an int, tuple of "
                        f"ints or, bool, but got value {static_argnums}")
    nargs = len(args)
    if any(d < -nargs or d >= nargs for d in static_argnums):
        raise ValueError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can only take integer "
                         "values greater than or equal to `-len(args)` and less than `len(args)`, but got "
                         f"{static_argnums}, while `len(args)` = {len(args)}")
    return frozenset(d % nargs for d in static_argnums)


def _abstractify(x):
    aval = getattr(x, "aval", None)
    return aval if aval is not None else core.concrete_aval(x)


def _arg_names(fun, args, kwargs, static_argnums) -> list[str]:
    from pyjax._src.jit import _arg_names as jit_arg_names

    return jit_arg_names(fun, args, kwargs, tuple(static_argnums))


def _broadcast_prefix(prefix, tree) -> list:
    """One entry of `prefix` per leaf of `tree` (a prefix leaf covers its subtree)."""
    from pyjax._src.tree_util import tree_structure

    leaves_of_prefix, prefix_tree = tree_flatten(prefix, is_leaf=lambda x: isinstance(x, bool))
    subtrees = prefix_tree.flatten_up_to(tree)
    return [p for p, sub in zip(leaves_of_prefix, subtrees, strict=True) for _ in range(tree_structure(sub).num_leaves)]


# ---------------------------------------------------------------------------
# Which values a VJP saves


def saved_residuals(f: Callable, *args, **kwargs) -> list[tuple[Any, str]]:
    """The residuals `jax.vjp(f, *args, **kwargs)` saves for its backward pass,
    as (aval, where it comes from) pairs."""
    from pyjax._src.interpreters.partial_eval import linearize_flat

    leaves, in_tree = tree_flatten((args, kwargs))

    def flat_f(*leaves):
        a, kw = tree_unflatten(in_tree, leaves)
        return tree_flatten(f(*a, **kw))[0]

    def residuals_of(*leaves):
        _, linear, _ = linearize_flat(flat_f, leaves)
        return list(linear.consts)

    debug = DebugInfo("saved_residuals", func_src_info(f), _arg_names(f, args, kwargs, ()))
    jaxpr, _ = trace_to_jaxpr(residuals_of, [_abstractify(x) for x in leaves], debug)
    return _saved_residuals(jaxpr, debug.arg_names or ("",) * len(jaxpr.invars))


def _saved_residuals(jaxpr: Jaxpr, arg_names: Sequence[str]) -> list[tuple[Any, str]]:
    from pyjax._src.lax.elementwise import reduce_precision_p

    # A reduce_precision inserted for a residual is looked through: the
    # residual comes from its operand's producer.
    through = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns if e.primitive is reduce_precision_p}
    res_vars = {through.get(v, v) for v in jaxpr.outvars if type(v) is not Literal}
    results = [(v.aval, "from a literal") for v in jaxpr.outvars if type(v) is Literal]
    results += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    for i, v in enumerate(jaxpr.invars):
        if v in res_vars:
            # JAX's message for an unnamed argument lacks its f-string prefix.
            src = f"from the argument {arg_names[i]}" if arg_names[i] else "from the argument at flattened index {i}"
            results.append((v.aval, src))
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if v not in res_vars:
                continue
            src = format_source_info(eqn.source_info, with_column=True) if eqn.source_info else "unknown"
            if eqn.primitive is name_p:
                results.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
            elif eqn.primitive.name == "jit":
                results.append((v.aval, f"output of jitted function '{eqn.params['name']}' from {src}"))
            else:
                results.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
    return results


def print_saved_residuals(f: Callable, *args, **kwargs) -> None:
    """Prints, one per line, the shape, dtype and origin of each residual a
    VJP of `f` at these arguments saves."""
    for residual_aval, origin in saved_residuals(f, *args, **kwargs):
        print(f"{residual_aval.str_short(short_dtypes=True)} {origin}")


__all__ = [
    "checkpoint", "checkpoint_name", "checkpoint_policies", "everything_saveable", "name_p", "nothing_saveable",
    "print_saved_residuals", "remat", "remat_p", "saved_residuals",
]
