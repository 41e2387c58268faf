"""The general reduction primitive, `reduce`, and the tracing of reduction
computations (shared with the general `reduce_window`).

`lax.reduce(operands, init_values, computation, dimensions)` folds
`computation` over `dimensions`. When the computation is one of lax's
monoids (add, mul, max, min, bitwise and/or/xor) with its identity as a
concrete initial value, the wrapper emits the specialised primitive
(reduce_sum, reduce_max, ...), as JAX does; otherwise it traces the
computation on scalars of the initial values' types into a jaxpr and emits
`reduce`, which carries that jaxpr (and the Python computation) as params.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.staging import DebugInfo, func_src_info, register_staging_cache, trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import reductions as red
from pyjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = ["reduce", "reduce_p"]


# ---------------------------------------------------------------------------
# The computation param


class Computation:
    """A Python reduction function kept as a primitive param.

    Compared and hashed by the function's identity. Printed as JAX prints
    params: the function's repr with its address masked (`at 0xXXXXXXXXXXXX`),
    so jaxpr text does not depend on where the function lives in memory.
    """

    __slots__ = ("fun",)

    def __init__(self, fun: Callable):
        self.fun = fun

    def __call__(self, *args):
        return self.fun(*args)

    def __eq__(self, other):
        return type(other) is Computation and other.fun is self.fun

    def __hash__(self):
        return hash(id(self.fun))

    def __str__(self):
        return re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), repr(self.fun))

    __repr__ = __str__


# ---------------------------------------------------------------------------
# Tracing a reduction computation

# computation -> {(flat avals, treedef, what): (jaxpr, out treedef)}. Reusing
# the jaxpr matters beyond speed: the printer shows a jaxpr met twice once,
# as a shared `let`, exactly as JAX does with its cached reduction jaxprs.
_jaxpr_cache: weakref.WeakKeyDictionary = register_staging_cache(weakref.WeakKeyDictionary())


def _is_valid_jaxtype(x) -> bool:
    if isinstance(x, core.Tracer) or hasattr(x, "aval"):
        return True
    if type(x) in (bool, int, float, complex):
        return True
    return isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "biufc"


def reduction_jaxpr(computation: Callable, flat_avals: tuple, tree, what: str) -> tuple[Jaxpr, Any]:
    """Traces `computation(xs, ys)` (xs, ys: pytrees `tree` of scalars with
    `flat_avals`) into a closed jaxpr of 2n inputs; returns it and the
    output treedef. `what` names the trace in errors ('reduce comp')."""
    key = (flat_avals, tree, what)
    try:
        per_fun = _jaxpr_cache.setdefault(computation, {})
    except TypeError:  # not weakly referenceable: trace every time
        per_fun = {}
    hit = per_fun.get(key)
    if hit is not None:
        return hit
    n = len(flat_avals)
    out_tree_box = []

    def flat_computation(*flat_args):
        xs = tree_unflatten(tree, flat_args[:n])
        ys = tree_unflatten(tree, flat_args[n:])
        out_flat, out_tree = tree_flatten(computation(xs, ys))
        for leaf in out_flat:
            if not _is_valid_jaxtype(leaf):
                raise TypeError(
                    f"function {func_src_info(computation)} traced for {what} returned a value of type "
                    f"{type(leaf)}, which is not a valid JAX type"
                )
        out_tree_box.append(out_tree)
        return out_flat

    debug = DebugInfo(what, func_src_info(computation), None)
    jaxpr, _ = trace_to_jaxpr(flat_computation, [*flat_avals, *flat_avals], debug)
    if any(isinstance(c, core.Tracer) for c in jaxpr.consts):
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue at "
            "https://github.com/jax-ml/jax."
        )
    result = per_fun[key] = (jaxpr, out_tree_box[0])
    return result


# ---------------------------------------------------------------------------
# The primitive

reduce_p = Primitive("reduce", multiple_results=True)


@reduce_p.def_abstract_eval
def _reduce_abstract_eval(*avals: ShapedArray, computation, jaxpr, dimensions) -> list[ShapedArray]:
    operands, inits = avals[: len(avals) // 2], avals[len(avals) // 2:]
    if any(init.shape != () for init in inits):
        raise ValueError(f"reduce found non-scalar initial value: {[init.shape for init in inits]}")
    # np.delete raises JAX's IndexError for an out-of-range dimension.
    shapes = [tuple(int(d) for d in np.delete(np.array(op.shape, dtype=np.int64), dimensions)) for op in operands]
    if [op.dtype for op in operands] != [init.dtype for init in inits]:
        raise TypeError(
            "reduce operand dtypes should match corresponding initial value dtypes, got "
            f"operands={list(operands)} and initial_values={list(inits)}"
        )
    return [
        ShapedArray(shape, op.dtype, op.weak_type and init.weak_type)
        for shape, op, init in zip(shapes, operands, inits, strict=True)
    ]


# ---------------------------------------------------------------------------
# Monoids


def max_identity(dtype) -> np.ndarray:
    """The identity of max for `dtype`: -inf, the smallest integer, False."""
    dtype = np.dtype(dtype)
    if dtypes.issubdtype(dtype, np.inexact):
        return np.array(-np.inf, dtype)
    if dtypes.issubdtype(dtype, np.integer):
        return np.array(np.iinfo(dtype).min, dtype)
    if dtype == np.bool_:
        return np.array(False)
    raise ValueError(f"Unsupported dtype for max: {dtype}")


def min_identity(dtype) -> np.ndarray:
    """The identity of min for `dtype`: inf, the largest integer, True."""
    dtype = np.dtype(dtype)
    if dtypes.issubdtype(dtype, np.inexact):
        return np.array(np.inf, dtype)
    if dtypes.issubdtype(dtype, np.integer):
        return np.array(np.iinfo(dtype).max, dtype)
    if dtype == np.bool_:
        return np.array(True)
    raise ValueError(f"Unsupported dtype for min: {dtype}")


def concrete_scalar(x):
    """The value of `x` when it is a concrete scalar (not a tracer), else None."""
    if isinstance(x, core.Tracer):
        return None
    aval = core.get_aval(x)
    if aval.shape != ():
        return None
    return np.asarray(x)


def _reduce_prod(operand, axes: Sequence[int]):
    # JAX's reduce_prod has no out_sharding param (so none is printed).
    return red.reduce_prod_p.bind(operand, axes=tuple(int(a) for a in axes))


def _monoid_reducer(computation: Callable, inits: Sequence) -> Callable | None:
    if len(inits) != 1:
        return None
    init = inits[0]
    value = concrete_scalar(init)
    if value is None:
        return None
    dtype = core.get_aval(init).dtype
    intlike = dtype == np.bool_ or dtypes.issubdtype(dtype, np.integer)
    if computation is ew.add:
        return red.reduce_sum if np.equal(value, 0) else None
    if computation is ew.mul:
        return _reduce_prod if np.equal(value, 1) else None
    if computation is ew.bitwise_or and intlike:
        return red.reduce_or if np.equal(value, np.array(0).astype(dtype)) else None
    if computation is ew.bitwise_and and intlike:
        return red.reduce_and if np.equal(value, np.array(-1).astype(dtype)) else None
    if computation is ew.bitwise_xor and intlike:
        return red.reduce_xor if np.equal(value, np.array(0).astype(dtype)) else None
    if computation is ew.max:
        return red.reduce_max if np.equal(value, max_identity(dtype)) else None
    if computation is ew.min:
        return red.reduce_min if np.equal(value, min_identity(dtype)) else None
    return None


# ---------------------------------------------------------------------------
# The wrapper


def reduce(operands: Any, init_values: Any, computation: Callable[[Any, Any], Any], dimensions: Sequence[int],
           out_sharding=None) -> Any:
    """Wraps XLA's Reduce operator.

    `init_values` and `computation` together must form a monoid: the initial
    values must be an identity of `computation`, and `computation` must be
    associative. XLA may exploit both; if either is violated the result is
    undefined.

    Args:
      operands: an array or a pytree of arrays of one shape.
      init_values: scalars, in a pytree of the same structure as `operands`.
      computation: (xs, ys) -> zs over pytrees of scalars of that structure.
      dimensions: the dimensions to reduce.
      out_sharding: the result's sharding (for the reduce_sum monoid).

    Returns:
      The reduced array(s), in the structure of `operands`.

    Example:
      >>> lax.reduce(jnp.arange(6.).reshape(2, 3), 0., lax.add, (0,))
      Array([3., 5., 7.], dtype=float32)
    """
    flat_operands, operand_tree = tree_flatten(operands)
    flat_inits, init_tree = tree_flatten(init_values)
    if operand_tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {operand_tree} vs. {init_tree}"
        )
    if len(flat_operands) != len(flat_inits):
        raise ValueError(
            "Must have same total number of operands as init_values:  "
            f"{len(flat_operands)} vs. {len(flat_inits)}"
        )
    monoid = _monoid_reducer(computation, flat_inits)
    if monoid is not None:
        # The specialised reducers keep the operand's weak type; reduce's
        # rule makes the result weak only when the initial value is weak too.
        weak = all(dtypes.is_weakly_typed(x) for x in flat_operands) and all(
            dtypes.is_weakly_typed(x) for x in flat_inits)
        if out_sharding is not None and monoid is not red.reduce_sum:
            raise NotImplementedError(f"lax.reduce: out_sharding is supported only for sums, not for {monoid.__name__}")
        kwargs = {"out_sharding": out_sharding} if out_sharding is not None else {}
        out = monoid(*flat_operands, dimensions, **kwargs)
        return ew._convert_element_type(out, core.get_aval(out).dtype, weak_type=weak)
    flat_avals = tuple(core.get_aval(x) for x in flat_inits)
    jaxpr, out_tree = reduction_jaxpr(computation, flat_avals, init_tree, "reduce comp")
    out = reduce_p.bind(*flat_operands, *flat_inits, computation=Computation(computation), jaxpr=jaxpr,
                        dimensions=tuple(int(d) for d in dimensions))
    return tree_unflatten(out_tree, out)


# ---------------------------------------------------------------------------
# Autodiff rules. The specialised monoids (reduce_sum, reduce_max, ...) carry
# their own rules in reductions.py. The general reduce is differentiated as
# JAX does: the JVP of a balanced tree of the computation, vmapped over the
# kept dimensions (whatever the computation, as long as the initial values'
# tangents are zero). It has no transpose: its tangents are not linear
# equations of their own.

from pyjax._src.ad_util import Zero as _Zero
from pyjax._src.ad_util import instantiate as _instantiate
from pyjax._src.jaxpr import eval_jaxpr as _eval_jaxpr
from pyjax._src.rules import NOT_LINEAR as _NOT_LINEAR


def _reduce_tree_jvp(reducer: Callable, init_values: Sequence, primals: Sequence, tangents: Sequence,
                     axes: tuple) -> tuple[list, list]:
    """The JVP of reducing `primals` over `axes` with the elementwise
    `reducer`: the reduced axes moved to the front as one, then halved again
    and again (the odd element out padded with the initial value)."""
    from pyjax._src.api import vmap
    from pyjax._src.interpreters.jvp import jvp_flat
    from pyjax._src.lax import shapes, slicing

    input_shape = np.array(core.get_aval(primals[0]).shape, dtype=int)
    n = np.prod(input_shape[list(axes)])
    non_axes = np.delete(np.arange(len(input_shape)), axes)
    permutation = axes + tuple(int(d) for d in non_axes)
    new_shape = (n, *input_shape[non_axes])
    primals = [shapes.reshape(x, new_shape, permutation) for x in primals]
    tangents = [shapes.reshape(t, new_shape, permutation) for t in tangents]
    # One vmap per output dimension, and one for the halves' shared axis.
    for _ in range(len(non_axes) + 1):
        reducer = vmap(reducer)

    def reduce_tree(*xs):
        while core.get_aval(xs[0]).shape[0] > 1:
            size = core.get_aval(xs[0]).shape[0]
            first, second = (size + 1) // 2, size - (size + 1) // 2
            halves1 = [slicing.slice_in_dim(x, 0, first) for x in xs]
            halves2 = [slicing.slice_in_dim(x, first, None) for x in xs]
            if second != first:
                paddings = [(0, 0, 0)] * len(core.get_aval(xs[0]).shape)
                paddings[0] = (0, 1, 0)
                halves2 = [slicing.pad(x, init, paddings) for x, init in zip(halves2, init_values, strict=True)]
            xs = reducer(*halves1, *halves2)
        if core.get_aval(xs[0]).shape[0] == 0:
            kept = tuple(int(d) for d in input_shape[non_axes])
            return [shapes.broadcast_in_dim(init, kept, ()) for init in init_values]
        return [shapes.squeeze(x, (0,)) for x in xs]

    return jvp_flat(reduce_tree, primals, tangents)


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
    half = len(primals) // 2
    operands, inits = primals[:half], primals[half:]
    operand_tangents, init_tangents = tangents[:half], tangents[half:]
    if any(type(t) is not _Zero for t in init_tangents):
        raise NotImplementedError(
            "Gradient of general lax.reduce with non-zero tangents for initial values to reduction not "
            "implemented"
        )
    reducer = lambda *args: _eval_jaxpr(jaxpr, jaxpr.consts, *args)
    outs, out_tangents = _reduce_tree_jvp(reducer, inits, operands, [_instantiate(t) for t in operand_tangents],
                                          dimensions)
    return outs, [_instantiate(t) for t in out_tangents]


reduce_p.def_jvp(_reduce_jvp)
reduce_p.def_transpose(_NOT_LINEAR)


# ---------------------------------------------------------------------------
# Batching rule: the operands' batch axes move to the front and the reduced
# dimensions shift past it (JAX 0.11's placement). Batched initial values
# would need a different computation per example; JAX has no rule for them.

from pyjax._src.interpreters import batching as _batching  # noqa: E402
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402
from pyjax._src.lax import sharding_rules


def _reduce_batch(axis_data, args, dims, *, computation, jaxpr, dimensions):
    n = len(args) // 2
    if any(d is not _batching.not_mapped for d in dims[n:]):
        raise NotImplementedError("Batching rule for 'reduce' not implemented (batched initial values)")
    operands = []
    for x, d in zip(args[:n], dims[:n], strict=True):
        # x: (B, ...); an unbatched operand is broadcast (NumPy dims, as JAX)
        operands.append(_batching_util.broadcast_batch(x, axis_data.size, 0) if d is _batching.not_mapped
                        else _batching_util.moveaxis(x, d, 0))
    outs = reduce_p.bind(*operands, *args[n:], computation=computation, jaxpr=jaxpr,
                         dimensions=tuple(d + 1 for d in dimensions))
    return outs, [0] * n


reduce_p.def_batch(_reduce_batch)
reduce_p.def_sharding_rule(sharding_rules.reduce_rule)
