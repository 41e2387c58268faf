"""custom_jvp: functions that bring their own forward-mode rule.

Outside any transformation a custom_jvp function just runs. Under a trace it
is one `custom_jvp_call` equation holding the traced body (`call_jaxpr`, its
closed-over values hoisted to leading operands, `num_consts` of them) and the
rule; the JVP interpreter uses the rule, everything else the body. vmap keeps
the equation: the body is batched, and so is the rule.

The helpers custom_vjp (custom_vjp.py) shares live here too: argument
resolution, tracing the body, `SymbolicZero`, and the `_RuleRef` that puts a
Python rule into an equation's params.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ad_util import Zero, add_tangents, instantiate, tangent_aval
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.jaxpr import Jaxpr, body_effects
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten
from pyjax._src.rules import SHARDING_OF_CALL

# ---------------------------------------------------------------------------
# Shared by custom_jvp and custom_vjp


class SymbolicZero:
    """A zero tangent or cotangent handed to a rule defined with symbolic_zeros=True.

    Attributes:
      aval: the abstract value (shape, dtype) of the zero it stands for.
    """

    def __init__(self, aval):
        self.aval = aval

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return self.aval.ndim
    size = property(lambda self: int(np.prod(self.aval.shape, dtype=int)))

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short(short_dtypes=False)})"

    @staticmethod
    def from_primal_value(val) -> SymbolicZero:
        return SymbolicZero(tangent_aval(core.get_aval(val)))

    def instantiate(self):
        return zeros_like_aval(self.aval)


def zero_from_primal(val, symbolic_zeros: bool = False):
    """The zero tangent of `val`: a SymbolicZero, or a materialised zero."""
    zero = SymbolicZero.from_primal_value(val)
    return zero if symbolic_zeros else zero.instantiate()


def _to_rule_tangent(t, symbolic_zeros: bool):
    # What a user rule sees for an internal tangent (Zero is pyjax-internal).
    if type(t) is Zero:
        return SymbolicZero(t.aval) if symbolic_zeros else zeros_like_aval(t.aval)
    return t


def zeros_like_aval(aval):
    """A zero of `aval`, weak-typed when the aval is (as JAX's zeros are)."""
    if not aval.weak_type:
        return instantiate(Zero(aval))
    from pyjax._src.lax import shapes

    scalar = _python_zero(aval.dtype)
    return scalar if not aval.shape else shapes.broadcast_in_dim(scalar, aval.shape, ())


def _python_zero(dtype):
    kind = np.dtype(dtype).kind
    return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}.get(kind, 0.0)


def _from_rule_tangent(t, aval):
    # What a user rule returned, as an internal tangent (None and SymbolicZero: zero).
    if t is None or type(t) is SymbolicZero:
        return Zero(aval)
    return t


class _RuleRef:
    """A rule as an equation param: compared by identity, printed by name."""

    __slots__ = ("name", "rule")

    def __init__(self, rule: Callable, name: str):
        self.rule = rule
        self.name = name

    def __str__(self):
        return self.name


class _ListParam(tuple):
    """A tuple param that prints as a list, as JAX prints `in_zeros`."""

    def __str__(self):
        return str(list(self))

    __repr__ = __str__


def _fun_name(fun) -> str:
    while isinstance(fun, functools.partial):  # JAX names a partial after the function it wraps
        fun = fun.func
    return getattr(fun, "__name__", type(fun).__name__)


def resolve_kwargs(fun: Callable, args: tuple, kwargs: dict, kind: str) -> tuple:
    """Binds keyword arguments (and defaults) to positions, as JAX does."""
    if not kwargs:
        try:
            params = inspect.signature(fun).parameters.values()
        except (TypeError, ValueError):
            return tuple(args)
        if not any(p.default is not p.empty for p in params):
            return tuple(args)
    try:
        target = fun if not isinstance(fun, functools.partial) else (lambda *a, **k: None)
        bound = inspect.signature(target).bind(*args, **kwargs)
        bound.apply_defaults()
        passed = [k for k in bound.kwargs if k in kwargs]
        if passed:
            raise TypeError(f"The following keyword arguments could not be resolved to positions: {', '.join(passed)}")
    except TypeError as e:
        raise TypeError(
            f"The input arguments to the {kind}-decorated function {_fun_name(fun)} could not be "
            f"resolved to positional-only arguments. Binding failed with the error:\n{e}"
        ) from e
    return tuple(bound.args)


def trace_body(fun: Callable, args: tuple, nondiff_argnums: tuple):
    """Traces fun on its differentiable arguments (the others are closed over).

    Returns (call_jaxpr, consts, flat_args, in_tree, out_tree): every constant
    of the traced body (closed-over arrays and tracers alike) is hoisted to a
    leading input of call_jaxpr, as JAX's closure conversion does."""
    from pyjax._src.jit import trace_flat

    jaxpr, in_tree, out_tree, flat_args = trace_flat(fun, args, {}, nondiff_argnums)
    consts = list(jaxpr.consts)
    if consts:
        jaxpr = jaxpr.replace(constvars=[], consts=[], invars=jaxpr.constvars + jaxpr.invars)
    return jaxpr, consts, flat_args, in_tree, out_tree


def dyn_args(args: tuple, nondiff_argnums: tuple) -> tuple:
    return tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)


def nondiff_args(args: tuple, nondiff_argnums: tuple) -> tuple:
    return tuple(args[i] for i in nondiff_argnums)


def unflatten_dyn(in_tree, leaves) -> tuple:
    # trace_flat flattens ((dyn args), {}): the dynamic arguments, as a tuple.
    return tuple(tree_unflatten(in_tree, leaves)[0])


def unbatched_aval(aval, dim):
    from pyjax._src.interpreters.batching import not_mapped

    return aval if dim is not_mapped else aval.update(shape=aval.shape[:dim] + aval.shape[dim + 1:])


def live_and_dims(values: Sequence, dims: Sequence) -> tuple[list, list]:
    """The values that are not symbolic zeros, with their batch dims."""
    keep = [type(v) is not Zero for v in values]
    return ([v for v, k in zip(values, keep, strict=True) if k],
            [d for d, k in zip(dims, keep, strict=True) if k])


def refill_zeros(live: Sequence, batched: Sequence, dims: Sequence) -> list:
    """One example's values for the positions of `batched`: the next of
    `live` where `batched` has a value, a zero of the unbatched aval where it
    has a symbolic zero."""
    it = iter(live)
    return [Zero(unbatched_aval(b.aval, d)) if type(b) is Zero else next(it)
            for b, d in zip(batched, dims, strict=True)]


def batch_rule_call(axis_data, fun: Callable, args: Sequence, dims: Sequence) -> tuple[list, list]:
    """Runs fun (flat values -> flat outputs, symbolic Zeros allowed) once per
    example: returns (outputs, their dims), a Zero output staying a Zero of
    the batched aval."""
    from pyjax._src.interpreters import batching

    zero_avals: list = []

    def per_example(*xs):
        outs = fun(*xs)
        zero_avals[:] = [o.aval if type(o) is Zero else None for o in outs]
        return [o for o in outs if type(o) is not Zero]

    infos = iter(batching.batch_flat(per_example, list(args), list(dims), axis_data))
    outs, out_dims = [], []
    for aval in zero_avals:
        if aval is not None:
            outs.append(Zero(aval))
            out_dims.append(batching.not_mapped)
        else:
            value, dim = next(infos)
            outs.append(value)
            out_dims.append(dim)
    return outs, out_dims


def match_out(value, dim, target, size: int, what: str):
    """Moves a rule output's batch axis to the call's output dim (0 or not_mapped)."""
    from pyjax._src.interpreters.batching import not_mapped
    from pyjax._src.lax.batching_util import matchaxis

    if type(value) is Zero:
        shape = value.aval.shape
        return value if target is not_mapped else Zero(value.aval.update(shape=(*shape[:target], size, *shape[target:])))
    if target is not_mapped and dim is not not_mapped:
        raise NotImplementedError(
            f"vmap of a {what}: the rule's output is batched where the function's output is not; "
            "pyjax does not support that yet"
        )
    return matchaxis(value, dim, target, size)


# ---------------------------------------------------------------------------
# The custom_jvp_call primitive

custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True).declare(
    body_params=("call_jaxpr",), call_body="call_jaxpr")
custom_jvp_call_p.declare(sharding_reason=SHARDING_OF_CALL)
custom_jvp_call_p.effects_of = body_effects("call_jaxpr")
# Partially evaluated with an unknown input, the call is its body: JAX keeps
# no custom JVP rule there (interpreters/partial_eval.py).
custom_jvp_call_p.inline_when_unknown = "call_jaxpr"
custom_jvp_call_p.pp_param_order = ("name", "call_jaxpr", "jvp", "num_consts", "symbolic_zeros")
custom_jvp_call_p.pp_hidden = lambda key, value: key == "num_consts" and not value


@custom_jvp_call_p.def_abstract_eval
def _custom_jvp_call_abstract_eval(*avals, call_jaxpr: Jaxpr, **params):
    return call_jaxpr.out_avals


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name):
    # The rule sees the explicit arguments only (closed-over values, as in
    # JAX, are not differentiated through the rule).
    return jvp.rule(list(primals[num_consts:]), list(tangents[num_consts:]))


custom_jvp_call_p.def_jvp(_custom_jvp_call_jvp)


def _custom_jvp_call_batch(axis_data, args, dims, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name):
    # Still one custom_jvp_call: the body batched, and a rule that runs the
    # original rule under vmap (so differentiating outside the vmap uses it).
    # As JAX batches custom calls: each output keeps the batch dim it comes out with.
    body, out_dims = batching.batch_jaxpr_axes(call_jaxpr, axis_data, dims)
    in_dims = dims[num_consts:]
    size = axis_data.size

    def batched_rule(primals, tangents):
        n = len(primals)

        def per_example(*xs):
            outs, touts = jvp.rule(list(xs[:n]), refill_zeros(xs[n:], tangents, in_dims))
            return list(outs) + list(touts)

        live, live_dims = live_and_dims(tangents, in_dims)
        outs, odims = batch_rule_call(axis_data, per_example, [*primals, *live], [*in_dims, *live_dims])
        k = len(out_dims)
        primal_outs = [match_out(v, d, od, size, "custom_jvp rule") for v, d, od in zip(outs[:k], odims[:k], out_dims, strict=True)]
        tangent_outs = [match_out(v, d, od, size, "custom_jvp rule") for v, d, od in zip(outs[k:], odims[k:], out_dims, strict=True)]
        return primal_outs, tangent_outs

    outs = custom_jvp_call_p.bind(*args, call_jaxpr=body, jvp=_RuleRef(batched_rule, jvp.name), num_consts=num_consts,
                                  symbolic_zeros=symbolic_zeros, name=name)
    return outs, out_dims


custom_jvp_call_p.def_batch(_custom_jvp_call_batch)


# ---------------------------------------------------------------------------
# custom_jvp


def _short_tree(tree, avals) -> str:
    return str(tree_unflatten(tree, [a.str_short() for a in avals])).replace("'", "")


def _check_jvp_outputs(pair, jvp_name: str, name: str, out_tree, out_avals):
    """(flat primal outputs, flat tangents) of a rule's result, or JAX's errors."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(f"Custom JVP rule {jvp_name} for function {name} must produce a pair (list or tuple of "
                        f"length two) representing primal and tangent outputs, but got {pair}.")
    primals_out, tree = tree_flatten(pair[0])
    # (None is an empty subtree, as in the primal outputs: a None beside a
    # primal None is no tangent, and a None tangent for an array is an error.)
    tangents_out, tree2 = tree_flatten(pair[1], is_leaf=lambda t: type(t) is SymbolicZero)
    if tree != tree2:
        raise TypeError(f"Custom JVP rule {jvp_name} for function {name} must produce primal and tangent outputs "
                        f"with equal container (pytree) structures, but got {tree} and {tree2} respectively.")
    avals = [core.get_aval(p) for p in primals_out]
    if tree != out_tree:
        raise TypeError(
            f"Custom JVP rule {jvp_name} for function {name} must produce a pair (list or tuple of length two) "
            "where the first element represents the primal output (equal in value to the output of the "
            f"custom_jvp-decorated function {name}, and in particular of the same container/pytree structure), "
            "but instead the JVP rule output's first element had container/pytree structure:\n"
            f"    {_short_tree(tree, avals)}\nwhile the custom_jvp-decorated function {name} had output "
            f"container/pytree structure:\n    {_short_tree(out_tree, out_avals)}."
        )
    expected = [tangent_aval(a.update(weak_type=False)) for a in avals]
    tangents = [_from_rule_tangent(t, e) for t, e in zip(tangents_out, expected, strict=True)]
    got = [t.aval if type(t) is Zero else core.get_aval(t).update(weak_type=False) for t in tangents]
    bad = [(a, e, g) for a, e, g in zip(avals, expected, got, strict=True)
           if (e.shape, e.dtype) != (g.shape, g.dtype) and not (e.dtype == dtypes.float0 and g.shape == e.shape)]
    if bad:
        if len(expected) == 1:
            a, e, g = bad[0]
            raise TypeError("Custom JVP rule must produce primal and tangent outputs with corresponding shapes and "
                            f"dtypes. Expected {e.str_short(False)} (tangent type of {a.str_short(False)}) but got {g.str_short(False)}.")
        lines = "\n".join(f"  primal {a.str_short()} with tangent {g.str_short()}, expecting tangent {e}" for a, e, g in bad)
        raise TypeError(f"Custom JVP rule must produce primal and tangent outputs with corresponding shapes and "
                        f"dtypes, but got:\n{lines}")
    return primals_out, [Zero(e) if e.dtype == dtypes.float0 and type(t) is not Zero else t
                         for t, e in zip(tangents, expected, strict=True)]


class custom_jvp:
    """Give a function a hand-written forward-mode derivative.

    Use it as a decorator. The decorated object calls ``fun`` as usual; when
    a derivative is needed (:py:func:`jax.jvp`, :py:func:`jax.grad`, and the
    transformations built on them) the rule registered with :meth:`defjvp`
    supplies the tangents instead of differentiating ``fun``'s body. Reverse
    mode is obtained by linearizing and transposing that rule.

    Args:
      fun: the function to decorate.
      nondiff_argnums: positions of arguments that are not differentiated
        (e.g. Python callables or configuration values); they are passed to
        the JVP rule first.

    Example:
      >>> @jax.custom_jvp
      ... def softplus(x):
      ...   return jnp.log1p(jnp.exp(x))
      >>> @softplus.defjvp
      ... def softplus_jvp(primals, tangents):
      ...   (x,), (dx,) = primals, tangents
      ...   return softplus(x), dx * jax.nn.sigmoid(x)
      >>> jax.grad(softplus)(0.)
      Array(0.5, dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None
        self.symbolic_zeros = False

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return functools.partial(self, instance)

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Register the rule that computes this function's output tangent.

        Args:
          jvp: a Python callable `jvp(*nondiff_args, primals, tangents)` taking
            the tuples of primal and tangent inputs and returning the pair
            `(primal_out, tangent_out)`.
          symbolic_zeros: if True, zero input tangents are passed to the rule
            as `SymbolicZero` objects, and the rule may return `SymbolicZero`
            (or None) for a zero output tangent.

        Returns:
          `jvp`, so that it can be used as a decorator.
        """
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """Define the JVP rule one argument at a time.

        Each `jvps[i]` is `rule(tangent_i, primal_out, *primals)` giving that
        argument's contribution to the output tangent (None: no contribution).
        """
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            primal_out = self(*primals)
            contributions = [rule(t, primal_out, *primals) for rule, t in zip(jvps, tangents, strict=True)
                             if rule is not None]
            if not contributions:
                return primal_out, tree_map(zero_from_primal, primal_out)
            return primal_out, tree_map(lambda *ts: functools.reduce(add_tangents, ts), *contributions)

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = getattr(self, "__name__", None) or _fun_name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
        args = resolve_kwargs(self.fun, args, kwargs, "custom_jvp")
        if core.current_trace() is core._default_trace[0]:
            return self.fun(*args)
        nondiff = nondiff_args(args, self.nondiff_argnums)
        call_jaxpr, consts, flat_args, in_tree, out_tree = trace_body(self.fun, args, self.nondiff_argnums)
        user_jvp, symbolic_zeros = self.jvp, self.symbolic_zeros
        jvp_name = _fun_name(user_jvp)

        def rule(primals, tangents):
            py_primals = unflatten_dyn(in_tree, primals)
            py_tangents = unflatten_dyn(in_tree, [_to_rule_tangent(t, symbolic_zeros) for t in tangents])
            pair = user_jvp(*nondiff, py_primals, py_tangents)
            return _check_jvp_outputs(pair, jvp_name, name, out_tree, call_jaxpr.out_avals)

        outs = custom_jvp_call_p.bind(
            *consts, *flat_args, call_jaxpr=call_jaxpr, jvp=_RuleRef(rule, jvp_name), num_consts=len(consts),
            symbolic_zeros=symbolic_zeros, name=name,
        )
        return tree_unflatten(out_tree, outs)


_CUSTOM_VJP_NAMES = ("CustomVJPPrimal", "custom_lin_impl", "custom_lin_p", "custom_vjp", "custom_vjp_call_p")


def __getattr__(name: str):
    # custom_vjp lives in custom_vjp.py, which imports this module's helpers;
    # it is re-exported lazily so either module may be imported first.
    if name in _CUSTOM_VJP_NAMES:
        from pyjax._src import custom_vjp as module

        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SymbolicZero", "custom_jvp", "custom_jvp_call_p", "zero_from_primal"]
