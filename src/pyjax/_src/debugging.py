"""`jax.debug`: printing and callbacks from inside traced programs.

Two primitives, as in JAX 0.11: `debug_callback` (any Python function,
results ignored) and `debug_print` (a format string and its arguments).
Both have no outputs and carry the `Debug` effect, so dead-code elimination
keeps them. Eagerly they run at once; under jit the NumPy compiler calls
their impls, so they run each time the compiled function runs. Under
autodiff they see the primal values only; under vmap they run once per
example (JAX unrolls the batch).

pyjax's staging trace does not yet read effects from primitives, so each
bind of these primitives marks the equation it just staged (`_mark_effect`).
"""

from __future__ import annotations

import string
import sys
from functools import partial
from typing import Any, Callable

import numpy as np

from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.lax.callbacks import host_arrays
from pyjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = ["callback", "debug_callback", "debug_callback_p", "debug_print", "debug_print_p"]


class DebugEffect:
    """The effect of a debug callback: kept by DCE, allowed in control flow."""

    def __str__(self) -> str:
        return "Debug"

    __repr__ = __str__


class OrderedDebugEffect(DebugEffect):
    """A debug effect ordered with respect to other ordered effects."""

    def __str__(self) -> str:
        return "OrderedDebug"

    __repr__ = __str__


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()


def _mark_effect(primitive: Primitive, effect) -> None:
    # The staging trace records equations without effects; give the one just
    # staged its effect so dce_jaxpr and remat keep it. The equation may sit
    # in a staging trace below the current one (partial evaluation forwards
    # known work to its parent), hence the walk down the parents.
    from pyjax._src.interpreters.staging import DynamicJaxprTrace

    trace = core._trace_ctx.get()
    while trace is not None:
        if isinstance(trace, DynamicJaxprTrace):
            if trace.eqns and trace.eqns[-1].primitive is primitive:
                trace.eqns[-1].effects = frozenset({effect})
            return
        trace = getattr(trace, "parent", None)


class _EffectfulPrimitive(Primitive):
    """A primitive whose staged equations carry its effect.

    Every bind (from user code, from a rule, or from re-evaluating a jaxpr
    under another trace) marks the equation it staged."""

    def bind(self, *args, **params):
        outs = super().bind(*args, **params)
        _mark_effect(self, _effect_of(params))
        return outs


def _bind(primitive: Primitive, args, params: dict) -> list:
    return primitive.bind(*args, **params)


def _effect_of(params: dict):
    if "effect" in params:
        return params["effect"]
    return ordered_debug_effect if params.get("ordered") else debug_effect


def _split_callback_args(args, kwargs):
    # Leaves that are arrays (or array-likes) are operands; others (strings,
    # None, objects) stay static and are merged back at call time.
    from pyjax._src.array import Array
    from pyjax._src.numpy.util import ensure_array

    flat, in_tree = tree_flatten((args, kwargs))
    static, dynamic = {}, []
    for i, leaf in enumerate(flat):
        if isinstance(leaf, (Array, core.Tracer, np.ndarray, np.generic, int, float, complex, bool)):
            dynamic.append(ensure_array(leaf))
        else:
            static[i] = leaf
    return in_tree, dynamic, static


def _merge_callback_args(in_tree, dynamic, static: dict):
    dynamic = iter(dynamic)
    leaves = [static[i] if i in static else next(dynamic) for i in range(in_tree.num_leaves)]
    return tree_unflatten(in_tree, leaves)


# ---------------------------------------------------------------------------
# debug_callback

debug_callback_p = _EffectfulPrimitive("debug_callback", multiple_results=True)


@debug_callback_p.def_abstract_eval
def _debug_callback_abstract_eval(*avals, callback, effect, partitioned):
    return []


def debug_callback_impl(*args, callback, effect, partitioned) -> list:
    callback(*host_arrays(args))
    return []


def debug_batch_rule(primitive, axis_data, args, dims, **params):
    """Unrolls a debug primitive over the batch: one call per example."""
    from pyjax._src.lax.slicing import index_in_dim

    for i in range(axis_data.size):
        per_example = [x if d is batching.not_mapped else index_in_dim(x, i, axis=d, keepdims=False)
                       for x, d in zip(args, dims, strict=True)]
        _bind(primitive, per_example, params)
    return [], []


def _debug_jvp(primitive, primals, tangents, **params):
    return _bind(primitive, primals, params), []


def _debug_transpose(cts, *args, **params):
    return [None] * len(args)


debug_callback_p.def_jvp(partial(_debug_jvp, debug_callback_p))
debug_callback_p.def_transpose(_debug_transpose)
debug_callback_p.def_batch(partial(debug_batch_rule, debug_callback_p))


def debug_callback(callback: Callable[..., None] | None = None, *args: Any, ordered: bool = False,
                   partitioned: bool = False, **kwargs: Any) -> Callable[..., None] | None:
    """Calls a stageable Python callback.

    ``jax.debug.callback`` calls ``callback(*args, **kwargs)`` with NumPy
    arrays in place of the array arguments: at once when run eagerly, and
    each time the compiled function runs under :func:`jax.jit`. Under
    :func:`jax.vmap` it is called once per example; under autodiff it sees
    the primal values.

    It is called either as ``jax.debug.callback(callback, *args, **kwargs)``
    or, in the two-call form, ``jax.debug.callback(ordered=True)(callback,
    *args, **kwargs)``.

    Args:
      callback: A Python callable returning None.
      *args: The positional arguments to the callback.
      ordered: whether the callback is ordered with respect to other ordered
        callbacks.
      partitioned: If True, the callback sees local shards only.
      **kwargs: The keyword arguments to the callback.

    Returns:
      None, or (two-call form) the function that makes the call.
    """

    def _debug_callback(callback: Callable[..., None], *c_args: Any, **c_kwargs: Any):
        if not callable(callback):
            raise TypeError("first argument to jax.debug.callback must be callable, "
                            f"but got an object of type {type(callback)}")
        in_tree, dyn_args, static_args = _split_callback_args(c_args, c_kwargs)

        def _flat_callback(*dyn_args_flat):
            args_, kwargs_ = _merge_callback_args(in_tree, dyn_args_flat, static_args)
            callback(*args_, **kwargs_)
            return ()

        effect = ordered_debug_effect if ordered else debug_effect
        _bind(debug_callback_p, dyn_args, dict(callback=_flat_callback, effect=effect, partitioned=partitioned))

    if callback is not None:
        _debug_callback(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_callback received unexpected arguments in the two-call form:"
                        f" args={args!r} kwargs={kwargs!r}")
    return _debug_callback


callback = debug_callback


# ---------------------------------------------------------------------------
# debug_print

debug_print_p = _EffectfulPrimitive("debug_print", multiple_results=True)


@debug_print_p.def_abstract_eval
def _debug_print_abstract_eval(*avals, **params):
    return []


class _FormatChecker(string.Formatter):
    # Formats nothing; only checks every argument is used (JAX's messages).

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused_args = [arg for i, arg in enumerate(args) if i not in used_args]
        unused_kwargs = [k for k in kwargs if k not in used_args]
        if unused_args:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused_args}")
        if unused_kwargs:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. "
                "You may be passing an f-string (i.e, `f\"{x}\"`) into "
                "`jax.debug.print` and instead should pass in a regular string.")


_format_checker = _FormatChecker()


def _print_formatted(fmt: str, np_printoptions: dict, has_placeholders: bool, *args, **kwargs) -> None:
    if has_placeholders:
        with np.printoptions(**np_printoptions):
            message = fmt.format(*args, **kwargs)
    else:
        message = " ".join((fmt, *(str(a) for a in args)))
    sys.stdout.write(message + "\n")


def debug_print_impl(*args, fmt, ordered, partitioned, in_tree, static_args, np_printoptions,
                     has_placeholders, logging_record) -> list:
    values = host_arrays(args)
    call_args, call_kwargs = _merge_callback_args(in_tree, values, dict(static_args))
    _print_formatted(fmt, dict(np_printoptions), has_placeholders, *call_args, **call_kwargs)
    return []


debug_print_p.def_jvp(partial(_debug_jvp, debug_print_p))
debug_print_p.def_transpose(_debug_transpose)
debug_print_p.def_batch(partial(debug_batch_rule, debug_print_p))


def debug_print(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,
                skip_format_check: bool = False, **kwargs) -> Callable[..., None] | None:
    """Prints values and works in staged out JAX functions.

    ``jax.debug.print("x = {x}", x=x)`` formats like ``str.format`` with the
    runtime values of the arrays: at once when run eagerly, each time the
    compiled function runs under :func:`jax.jit`, once per example under
    :func:`jax.vmap`.

    Args:
      fmt: A format string, e.g. ``"hello {x}"``.
      *args: positional arguments to be formatted.
      ordered: whether the print is ordered with respect to other ordered
        prints.
      partitioned: If True, print local shards only.
      skip_format_check: If True, the format string is not checked.
      **kwargs: keyword arguments to be formatted.

    Returns:
      None, or (two-call form ``jax.debug.print(ordered=True)(fmt, ...)``)
      the printing function.
    """

    def _debug_print(fmt: str, *c_args, **c_kwargs):
        if not skip_format_check:
            _format_checker.format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field_name, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field_name is not None
        in_tree, dyn_args, static_args = _split_callback_args(c_args, c_kwargs)
        _bind(debug_print_p, dyn_args, dict(
            fmt=fmt, ordered=ordered, partitioned=partitioned, in_tree=in_tree,
            static_args=tuple(static_args.items()), np_printoptions=tuple(np.get_printoptions().items()),
            has_placeholders=has_placeholders, logging_record=None))

    if fmt is not None:
        _debug_print(fmt, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_print received unexpected arguments in the two-call form:"
                        f" args={args!r} kwargs={kwargs!r}")
    return _debug_print
