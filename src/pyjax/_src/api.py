"""User-facing entry points of the tracing machine: make_jaxpr, eval_shape,
typeof, block_until_ready, ShapeDtypeStruct.

The transformations themselves (grad, vmap, ...) live with their
interpreters; this module holds what turns a Python function and its
arguments into a jaxpr or into abstract results.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.jaxpr import Jaxpr
from pyjax._src.jit import JitWrapped, trace_flat
from pyjax._src.tree_util import tree_leaves, tree_map, tree_unflatten


class ShapeDtypeStruct:
    """A shape, a dtype (and weak type, sharding): an array's type without data."""

    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.sharding = sharding
        self.weak_type = weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    @property
    def aval(self) -> ShapedArray:
        return ShapedArray(self.shape, dtypes.canonicalize_dtype(self.dtype), self.weak_type)

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) == (other.shape, other.dtype, other.weak_type))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


def _static_argnums(static_argnums) -> tuple:
    if static_argnums is None:
        return ()
    return (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (), axis_env=None,
               return_shape: bool = False, abstracted_axes=None) -> Callable[..., Jaxpr]:
    """Creates a function that produces the jaxpr of `fun` for given arguments.

    Args:
      fun: the function to trace. Its arguments and outputs may be pytrees.
      static_argnums: positional arguments that are used as Python values
        while tracing instead of being abstracted.
      return_shape: also return the output structure as ShapeDtypeStructs.

    Returns:
      A function that takes the same arguments as `fun` and returns its
      (closed) jaxpr, and, with return_shape, the output shapes.

    Example:
      >>> print(make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0))
      { lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }
    """
    static = _static_argnums(static_argnums)
    target = fun._fun if isinstance(fun, JitWrapped) else fun

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        norm = tuple(i % len(args) if i < 0 else i for i in static)
        for i in norm:
            if i >= len(args):
                raise ValueError(f"jitted function has static_argnums={static}, but only accepts {len(args)} positional arguments.")
        if isinstance(fun, JitWrapped):
            # make_jaxpr of a jitted function shows one jit equation.
            jaxpr, _, out_tree, _ = trace_flat(lambda *a, **k: fun(*a, **k), args, kwargs, norm)
        else:
            jaxpr, _, out_tree, _ = trace_flat(target, args, kwargs, norm)
        if return_shape:
            shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in jaxpr.out_avals]
            return jaxpr, tree_unflatten(out_tree, shapes)
        return jaxpr

    return make_jaxpr_f


def eval_shape(fun: Callable, *args, **kwargs):
    """The shapes and dtypes of fun(*args, **kwargs), computed by tracing only."""
    jaxpr, _, out_tree, _ = trace_flat(fun, args, kwargs, ())
    return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in jaxpr.out_avals])


def typeof(x) -> ShapedArray:
    """The abstract value (type) of an array, tracer or scalar: `float32[2,3]`."""
    return core.get_aval(x)


def block_until_ready(x: Any) -> Any:
    """Waits for every array in a pytree to be computed; returns it unchanged."""
    if type(x) is Array:  # the common case, kept cheap: NumPy results are always ready
        return x
    for leaf in tree_leaves(x):
        ready = getattr(leaf, "block_until_ready", None)
        if ready is not None:
            ready()
    return x


def device_get(x: Any) -> Any:
    """Copies every array in a pytree to a NumPy array on the host."""
    return tree_map(lambda leaf: np.asarray(leaf) if hasattr(leaf, "__array__") else leaf, x)
