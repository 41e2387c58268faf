"""`jax.debug`: printing and callbacks from inside traced programs.

Two primitives, as in JAX 0.11: `debug_callback` (any Python function,
results ignored) and `debug_print` (a format string and its arguments).
Both have no outputs and carry the `Debug` effect, so dead-code elimination
keeps them. Eagerly they run at once; under jit the NumPy compiler calls
their impls, so they run each time the compiled function runs. Under
autodiff they see the primal values only; under vmap they run once per
example (JAX unrolls the batch).
"""

from __future__ import annotations

import copy
import logging
import string
import sys
from functools import partial
from typing import Any, Callable

import numpy as np

from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax.callbacks import host_arrays
from pyjax._src.jaxpr import Effect
from pyjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = ["callback", "debug_callback", "debug_callback_p", "debug_log", "debug_print", "debug_print_p"]

# jax.debug.log's records go to this logger (JAX's is jax._src.debugging).
logger = logging.getLogger("pyjax._src.debugging")


class DebugEffect(Effect):
    """The effect of a debug callback: kept by DCE, allowed in control flow."""

    def __str__(self) -> str:
        return "Debug"

    __repr__ = __str__


class OrderedDebugEffect(DebugEffect):
    """A debug effect ordered with respect to other ordered effects."""

    def __str__(self) -> str:
        return "OrderedDebug"

    __repr__ = __str__


debug_effect, ordered_debug_effect = DebugEffect(), OrderedDebugEffect()


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

debug_callback_p = Primitive("debug_callback", multiple_results=True)
debug_callback_p.declare(key_reuse=_key_reuse.NO_KEYS)
debug_callback_p.declare(sharding_reason='host callback with no results')
debug_callback_p.effects_of = lambda params: frozenset({_effect_of(params)})


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
    """Run a Python function for its side effects from inside a traced program.

    ``jax.debug.callback`` calls ``callback(*args, **kwargs)`` with NumPy
    arrays in place of the array arguments: at once when run eagerly, and
    each time the compiled function runs under :func:`jax.jit`. Under
    :func:`jax.vmap` it is called once per example; under autodiff it sees
    the primal values.

    It is called either as ``jax.debug.callback(callback, *args, **kwargs)``
    or, in the two-call form, ``jax.debug.callback(ordered=True)(callback,
    *args, **kwargs)``.

    Args:
      callback: the function to run; what it returns is discarded.
      *args: values handed to ``callback`` positionally (arrays arrive as
        NumPy arrays, other leaves as they are).
      ordered: keep this call in program order relative to other ordered
        callbacks and prints.
      partitioned: give ``callback`` per-shard values instead of whole arrays.
      **kwargs: values handed to ``callback`` by keyword.

    Returns:
      None; in the two-call form, the function that performs the call.

    Example:
      >>> jax.jit(lambda x: jax.debug.callback(print, x) or x + 1)(jnp.arange(2))
      [0 1]
      Array([1, 2], dtype=int32)
    """

    def _debug_callback(callback: Callable[..., None], *c_args: Any, **c_kwargs: Any):
        if not callable(callback):
            raise TypeError("first argument to jax.debug.callback must be callable, "
                            f"but got an object of type {type(callback)}")
        tree, operands, statics = _split_callback_args(c_args, c_kwargs)

        # Its qualified name shows in printed jaxprs, so it matches JAX's.
        def _flat_callback(*values):
            pos, kw = _merge_callback_args(tree, values, statics)
            callback(*pos, **kw)
            return ()

        params = dict(callback=_flat_callback, effect=_effect_of({"ordered": ordered}), partitioned=partitioned)
        _bind(debug_callback_p, operands, params)

    return _call_now_or_later("debug_callback", _debug_callback, callback, args, kwargs)


def _call_now_or_later(name: str, call: Callable, first, args: tuple, kwargs: dict):
    # jax.debug.callback / print take their target either directly
    # (one-call form) or on a second call after only keyword options.
    if first is not None:
        call(first, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"{name} received unexpected arguments in the two-call form:"
                        f" args={args!r} kwargs={kwargs!r}")
    return call


callback = debug_callback


# ---------------------------------------------------------------------------
# debug_print

debug_print_p = Primitive("debug_print", multiple_results=True)
debug_print_p.declare(sharding_reason='host callback with no results')
debug_print_p.effects_of = lambda params: frozenset({_effect_of(params)})


@debug_print_p.def_abstract_eval
def _debug_print_abstract_eval(*avals, **params):
    return []


class _FormatChecker(string.Formatter):
    # Formats nothing; only checks every argument is used (JAX's messages).

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        leftover_positional = [value for pos, value in enumerate(args) if pos not in used_args]
        if leftover_positional:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {leftover_positional}")
        leftover_names = [name for name in kwargs if name not in used_args]
        if leftover_names:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {leftover_names}. "
                "You may be passing an f-string (i.e, `f\"{x}\"`) into "
                "`jax.debug.print` and instead should pass in a regular string.")


_format_checker = _FormatChecker()


def _print_formatted(fmt: str, np_printoptions: dict, has_placeholders: bool, logging_record, *args,
                     **kwargs) -> None:
    if has_placeholders:
        with np.printoptions(**np_printoptions):
            message = fmt.format(*args, **kwargs)
    else:
        message = " ".join((fmt, *(str(a) for a in args)))
    if logging_record is not None:  # jax.debug.log: the record made at trace time, its message filled now
        record = copy.copy(logging_record)
        record.msg = message
        logger.handle(record)
    else:
        sys.stdout.write(message + "\n")


def _logging_record(level: int) -> logging.LogRecord:
    # Made where the user called jax.debug.log, so the log shows their line.
    from pyjax._src.interpreters.staging import user_source_info

    info = user_source_info()
    file_name, line_no = ("(unknown file)", 0) if info is None else (info[0].co_filename, info[1])
    return logger.makeRecord(logger.name, level, file_name, line_no, "", (), None)


def debug_print_impl(*args, fmt, ordered, partitioned, in_tree, static_args, np_printoptions,
                     has_placeholders, logging_record) -> list:
    values = host_arrays(args)
    call_args, call_kwargs = _merge_callback_args(in_tree, values, dict(static_args))
    _print_formatted(fmt, dict(np_printoptions), has_placeholders, logging_record, *call_args, **call_kwargs)
    return []


debug_print_p.def_jvp(partial(_debug_jvp, debug_print_p))
debug_print_p.def_transpose(_debug_transpose)
debug_print_p.def_batch(partial(debug_batch_rule, debug_print_p))


def debug_print(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,
                skip_format_check: bool = False, _use_logging: bool = False,
                **kwargs) -> Callable[..., None] | None:
    """Print array values from inside jitted, vmapped or differentiated code.

    ``jax.debug.print("x = {x}", x=x)`` formats like ``str.format`` with the
    runtime values of the arrays: at once when run eagerly, each time the
    compiled function runs under :func:`jax.jit`, once per example under
    :func:`jax.vmap`.

    Args:
      fmt: a ``str.format`` template such as ``"step {i}: {loss}"``.
      *args: values for the positional fields of ``fmt``.
      ordered: keep this print in program order relative to other ordered
        prints and callbacks.
      partitioned: print each shard's values separately.
      skip_format_check: do not check up front that ``fmt`` uses every argument.
      **kwargs: values for the named fields of ``fmt``.

    Returns:
      None; in the two-call form ``jax.debug.print(ordered=True)(fmt, ...)``,
      the function that prints.

    Example:
      >>> jax.jit(lambda x: jax.debug.print("x = {}", x) or x * 2)(jnp.arange(3))
      x = [0 1 2]
      Array([0, 2, 4], dtype=int32)
    """

    def _debug_print(fmt: str, *c_args, **c_kwargs):
        if not skip_format_check:
            _format_checker.format(fmt, *c_args, **c_kwargs)
        # Only the template's first piece matters: does a field follow it?
        # (Without fields the values are printed after the text, space-separated.)
        first_piece = next(iter(string.Formatter().parse(fmt)), None) if fmt else None
        has_placeholders = first_piece is not None and first_piece[1] is not None
        tree, operands, statics = _split_callback_args(c_args, c_kwargs)
        _bind(debug_print_p, operands, dict(
            fmt=fmt, ordered=ordered, partitioned=partitioned, in_tree=tree,
            static_args=tuple(statics.items()), np_printoptions=tuple(np.get_printoptions().items()),
            has_placeholders=has_placeholders,
            logging_record=_logging_record(logging.INFO) if _use_logging else None))

    return _call_now_or_later("debug_print", _debug_print, fmt, args, kwargs)


def debug_log(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,
              skip_format_check: bool = False, _use_logging: bool = True,
              **kwargs) -> Callable[..., None] | None:
    """``jax.debug.log``: :func:`debug_print`, but the message goes to the
    ``pyjax._src.debugging`` logger at INFO level, as a record naming the
    line that called it (JAX 0.11 logs to ``jax._src.debugging``).

    Example:
      >>> logging.basicConfig(level=logging.INFO)
      >>> jax.jit(lambda x: jax.debug.log("x = {}", x))(1.0)  # doctest: +SKIP
      INFO:pyjax._src.debugging:x = 1.0
    """
    return debug_print(fmt, *args, ordered=ordered, partitioned=partitioned,
                       skip_format_check=skip_format_check, _use_logging=_use_logging, **kwargs)
