"""`jax.experimental.io_callback` and `jax.effects_barrier`.

`io_callback` binds `io_callback_p`, a primitive carrying the `IO` effect
(`OrderedIO` when `ordered=True`), so dead-code elimination keeps it even
when its results are unused. The NumPy backend runs a program's equations
in program order on the calling thread, and a jitted call returns only once
its program has run, so ordered effects are sequenced without tokens:
within a program (loop and branch bodies included) and across calls.
`effects_barrier` therefore has nothing to wait for.

What JAX refuses, pyjax refuses with its messages: an ordered IO callback
under vmap, any IO callback under JVP or transposition. An unordered one
under vmap becomes a scan of per-example calls, as in JAX.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.jaxpr import Effect
from pyjax._src.lax._standard import as_array
from pyjax._src.lax.callbacks import _check_shape_dtype, _FlatCallback, checked_results, host_arrays
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = ["IOEffect", "OrderedIOEffect", "effects_barrier", "io_callback", "io_callback_p"]


class IOEffect(Effect):
    """The effect of an unordered IO callback: kept by DCE, never reordered
    with respect to the program's data flow."""

    def __str__(self) -> str:
        return "IO"


class OrderedIOEffect(IOEffect):
    """The effect of an ordered IO callback: runs in program order with the
    other ordered effects (and across jitted calls)."""

    def __str__(self) -> str:
        return "OrderedIO"


io_effect, ordered_io_effect = IOEffect(), OrderedIOEffect()

io_callback_p = Primitive("io_callback", multiple_results=True)
io_callback_p.declare(sharding_reason='host callback: results typed by the declared result shapes')
io_callback_p.effects_of = lambda params: frozenset({ordered_io_effect if params["ordered"] else io_effect})


@io_callback_p.def_abstract_eval
def _io_callback_abstract_eval(*avals, callback, result_avals, sharding, ordered):
    return list(result_avals)


def io_callback_impl(*args, callback, result_avals, sharding, ordered) -> list:
    """Calls the callback on host Arrays (eagerly, or from jit's compiled code)."""
    return checked_results(callback(*host_arrays(args)), result_avals)


def _io_callback_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


def _io_callback_transpose(cts, *args, **params):
    raise ValueError("IO callbacks do not support transpose.")


def _io_callback_batch(axis_data, args, dims, *, callback, result_avals, sharding, ordered):
    # JAX: an ordered callback cannot be split into per-example calls whose
    # order would be the batch's, not the program's; an unordered one is a
    # scan of per-example calls.
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    from pyjax._src.lax.batching_util import moveaxis
    from pyjax._src.lax.control_flow import scan

    mapped = [d is not batching.not_mapped for d in dims]
    args = [moveaxis(x, d, 0) if m else x for x, d, m in zip(args, dims, mapped, strict=True)]
    unbatched = [x for x, m in zip(args, mapped, strict=True) if not m]
    batched = [x for x, m in zip(args, mapped, strict=True) if m]

    def body(carry, xs):
        fixed, per_example = iter(unbatched), iter(xs)
        merged = [next(per_example) if m else next(fixed) for m in mapped]
        return carry, io_callback_p.bind(*merged, callback=callback, result_avals=result_avals,
                                         sharding=sharding, ordered=ordered)

    _, outs = scan(body, (), batched, length=axis_data.size)
    return list(outs), [0] * len(outs)


io_callback_p.def_jvp(_io_callback_jvp)
io_callback_p.def_transpose(_io_callback_transpose)
io_callback_p.def_batch(_io_callback_batch)


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                sharding: Any = None, ordered: bool = False, **kwargs: Any) -> Any:
    """Calls an impure Python callback from inside a traced program.

    Unlike :func:`jax.pure_callback`, the call is never removed when its
    results are unused, and with ``ordered=True`` it runs in program order
    with respect to other ordered callbacks and prints, also across jitted
    calls and inside loop and branch bodies.

    Args:
      callback: the function to run on the host; it receives Arrays for the
        array arguments and must return values matching ``result_shape_dtypes``.
      result_shape_dtypes: a pytree of objects with ``shape`` and ``dtype``
        (e.g. :class:`jax.ShapeDtypeStruct`), or None for no results.
      *args: the positional arguments to the callback.
      sharding: optional sharding of the results (one device: unused).
      ordered: run in program order with the other ordered effects. An
        ordered callback cannot be vmapped.
      **kwargs: the keyword arguments to the callback.

    Returns:
      the callback's results, with the structure of ``result_shape_dtypes``.

    Example:
      >>> log = []
      >>> def record(x):
      ...   log.append(x); return x
      >>> f = jax.jit(lambda x: io_callback(record, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True))
      >>> f(1.0)
      Array(1., dtype=float32)
    """
    flat_args, in_tree = tree_flatten((args, kwargs))
    tree_map(_check_shape_dtype, result_shape_dtypes)
    result_avals = tree_map(lambda s: ShapedArray(tuple(s.shape), np.dtype(s.dtype)), result_shape_dtypes)
    flat_result_avals, out_tree = tree_flatten(result_avals)
    outs = io_callback_p.bind(*[as_array(a) for a in flat_args], callback=_FlatCallback(callback, in_tree),
                              ordered=ordered, result_avals=tuple(flat_result_avals), sharding=sharding)
    return tree_unflatten(out_tree, outs)


def effects_barrier() -> None:
    """Waits until every effect of the computations dispatched so far has run.

    pyjax runs computations synchronously on the calling thread, their
    effects (callbacks, prints) in program order, so there is never anything
    left to wait for: this returns at once, as JAX's does once its queue is
    empty.
    """
    return None
