"""User-facing entry points of the tracing machine: make_jaxpr, eval_shape,
typeof, block_until_ready, ShapeDtypeStruct, vmap (and, re-exported, the
autodiff API of api_ad.py and api_jac.py).

The transformations themselves (grad, vmap, ...) live with their
interpreters; this module holds what turns a Python function and its
arguments into a jaxpr or into abstract results.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core, dispatch
from pyjax._src import jit as jit_lib

# The autodiff entry points live in api_ad.py and api_jac.py; they are
# re-exported here, where the rest of the package has always found them.
from pyjax._src.api_ad import as_array as _as_array
from pyjax._src.api_ad import grad, jvp, linearize, value_and_grad, vjp  # noqa: F401
from pyjax._src.array import Array
from pyjax._src.avals import ShapeDtypeStruct, ShapedArray  # noqa: F401  (ShapeDtypeStruct: re-exported)
from pyjax._src.interpreters import batching
from pyjax._src.jaxpr import Jaxpr
from pyjax._src.tokens import AbstractToken
from pyjax._src.jit import JitWrapped, trace_flat
from pyjax._src.tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten


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
      axis_env: a sequence of ``(name, size)`` pairs: named axes bound while
        tracing, so collectives over them (``psum``, ``all_gather``, ...)
        trace as they would inside a map of that size.
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

    @functools.wraps(fun, updated=())
    def make_jaxpr_f(*args, **kwargs):
        norm = tuple(i % len(args) if i < 0 else i for i in static)
        for i in norm:
            if i >= len(args):
                raise ValueError(f"jitted function has static_argnums={static}, but only accepts {len(args)} positional arguments.")
        with batching.extend_axis_env(axis_env or ()):
            if isinstance(fun, JitWrapped):
                # make_jaxpr of a jitted function shows one jit equation.
                jaxpr, _, out_tree, _ = trace_flat(lambda *a, **k: fun(*a, **k), args, kwargs, norm)
            else:
                jaxpr, _, out_tree, _ = trace_flat(target, args, kwargs, norm)
        if return_shape:
            shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type, sharding=a.sharding) for a in jaxpr.out_avals]
            return jaxpr, tree_unflatten(out_tree, shapes)
        return jaxpr

    return make_jaxpr_f


def eval_shape(fun: Callable, *args, **kwargs):
    """Find the shapes and dtypes ``fun(*args, **kwargs)`` would return, without computing it.

    ``fun`` is traced with abstract values only, so no array data is touched
    and nothing is compiled or run.

    Args:
      fun: the function to inspect.
      *args, **kwargs: its arguments: arrays, or anything with ``shape`` and
        ``dtype`` such as :class:`ShapeDtypeStruct`.

    Returns:
      A pytree like ``fun``'s output, with a :class:`ShapeDtypeStruct` per leaf.

    Example:
      >>> jax.eval_shape(jnp.outer, jax.ShapeDtypeStruct((3,), jnp.float32), jnp.ones(4))
      ShapeDtypeStruct(shape=(3, 4), dtype=float32)
    """
    jaxpr, _, out_tree, _ = trace_flat(fun, args, kwargs, ())
    return tree_unflatten(out_tree, [a if type(a) is AbstractToken else  # (a token's shape is its aval, as in JAX)
                                     ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type, sharding=a.sharding)
                                     for a in jaxpr.out_avals])


def typeof(x) -> ShapedArray:
    """The abstract value (type) of an array, tracer or scalar: `float32[2,3]`."""
    aval = core.get_aval(x)
    if type(aval) is ShapedArray and aval.sharding is None:
        from pyjax._src.sharding.typeof_view import no_mesh_view

        return no_mesh_view(aval)  # (JAX types it on the empty mesh)
    return aval


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
    return tree_map(_device_get, x)


def _device_get(leaf: Any) -> Any:
    from pyjax._src import dtypes
    from pyjax._src.sharding.sharded_array import host_buffer

    aval = getattr(leaf, "aval", None)
    if isinstance(leaf, Array) and isinstance(getattr(aval, "dtype", None), dtypes.ExtendedDType):
        # (no NumPy form: a key array comes back whole, unplaced, as JAX's does)
        return Array(host_buffer(leaf), ShapedArray(aval.shape, aval.dtype, aval.weak_type))
    return np.asarray(leaf) if hasattr(leaf, "__array__") else leaf


# ---------------------------------------------------------------------------
# vmap


def _flat_axes(axes, tree, what: str, count: int) -> list:
    """Per-leaf axes from a prefix tree of axes (ints or None)."""
    from pyjax._src.tree_util import broadcast_prefix

    try:
        return broadcast_prefix(axes, tree, is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(f"{what} specification must be a tree prefix of the corresponding value, got specification {axes} for value tree {tree_flatten(tree)[1]}.") from e


def _describe_arg(names, i) -> str:
    return f"argument {names[i]}" if names and i < len(names) else f"argument {i}"


def _vmap_axis_data(axis_name, size: int, spmd_axis_name, flat_args, in_dims):
    # The mapped axis, with the Explicit mesh axes the inputs' batch dimension
    # is split over (JAX's checks and spmd_axis_name's handling: sharding/vmap_axes.py).
    from pyjax._src.interpreters import batching
    from pyjax._src.sharding import vmap_axes

    ema = vmap_axes.explicit_mesh_axis(flat_args, in_dims, batching.not_mapped)
    return batching.AxisData(axis_name, size, vmap_axes.spmd_name_for(spmd_axis_name, ema), ema)


def vmap(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size: int | None = None,
         spmd_axis_name=None) -> Callable:
    """Vectorizing map: `fun` mapped over an array axis of its arguments.

    Args:
      fun: the function to map; written for one example.
      in_axes: an int, None, or a (prefix) tree of them matching the
        positional arguments: which axis of each argument is mapped (None:
        not mapped). Keyword arguments are always mapped over axis 0.
      out_axes: where the mapped axis appears in the outputs (a prefix tree).
      axis_name: a name for the mapped axis, for collectives (psum, ...).
      axis_size: the mapped size, needed when no argument is mapped.

    Returns:
      The batched function.

    Example:
      >>> vmap(jnp.dot)(jnp.ones((32, 5)), jnp.ones((32, 5))).shape
      (32,)
    """
    from pyjax._src.interpreters import batching
    from pyjax._src.tree_util import tree_flatten

    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple, dict) or hasattr(in_axes, "__index__")):
        raise TypeError(f"vmap in_axes must be an int, None, or (nested) container with those types as leaves, but got {in_axes}.")

    @functools.wraps(fun, updated=())
    def vmap_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                f"positional arguments passed to the function, but got len(in_axes)={len(in_axes)}, len(args)={len(args)}"
            )
        flat_args, in_tree = tree_flatten((args, kwargs), is_leaf=lambda x: x is None)
        flat_args, in_tree = tree_flatten((args, kwargs))
        positional_axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
        flat_axes = _flat_axes((positional_axes, {k: 0 for k in kwargs}), (args, kwargs), "vmap in_axes", len(flat_args))
        from pyjax._src.jit import _arg_names

        names = _arg_names(fun, args, kwargs, ())
        in_dims, sizes = [], []
        for i, (x, axis) in enumerate(zip(flat_args, flat_axes, strict=True)):
            if axis is None:
                in_dims.append(batching.not_mapped)
                continue
            aval = core.get_aval(x)
            if not -aval.ndim <= axis < aval.ndim:
                raise ValueError(
                    f"vmap was requested to map its argument along axis {axis}, which implies that its rank "
                    f"should be at least {axis + 1 if axis >= 0 else -axis}, but is only {aval.ndim} (its shape is {aval.shape})"
                )
            axis = axis % aval.ndim
            in_dims.append(axis)
            sizes.append((aval.shape[axis], axis, i, aval))
        size = axis_size
        if sizes:
            distinct = {s for s, *_ in sizes}
            if len(distinct) > 1 or (axis_size is not None and axis_size not in distinct):
                lines = [f"  * one axis had size {s}: axis {a} of {_describe_arg(names, i)} of type {aval.strip_weak_type()}"
                         for s, a, i, aval in sizes]
                raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines))
            size = sizes[0][0]
        elif size is None:
            raise ValueError("vmap must have at least one non-None value in in_axes")
        axis_data = _vmap_axis_data(axis_name, size, spmd_axis_name, flat_args, in_dims)
        out_store: list = []

        def flat_fun(*leaves):
            a, kw = tree_unflatten(in_tree, leaves)
            out = fun(*a, **kw)
            out_leaves, out_tree = tree_flatten(out)
            out_store.append((out, out_tree))
            return out_leaves

        def out_dims_thunk(n):
            out, out_tree = out_store[0]
            flat = _flat_axes(out_axes, out, "vmap out_axes", n)
            dims = []
            for leaf, axis in zip(tree_flatten(out)[0], flat, strict=True):
                if axis is None:
                    dims.append(batching.not_mapped)
                else:
                    ndim = core.get_aval(leaf).ndim + 1
                    dims.append(axis % ndim)
            return dims

        from pyjax._src.lax.batching_util import matchaxis

        infos = batching.batch_flat(flat_fun, flat_args, in_dims, axis_data)
        out_dims = out_dims_thunk(len(infos))
        outs = [matchaxis(v, d, od, size, axis_data.explicit_mesh_axis) for (v, d), od in zip(infos, out_dims, strict=True)]
        # An output that stays unmapped (out_axes None) comes back as the
        # value it was: a Python scalar or NumPy value is not made an Array.
        outs = [o if d is batching.not_mapped and od is batching.not_mapped else _as_array(o)
                for o, (_, d), od in zip(outs, infos, out_dims, strict=True)]
        return tree_unflatten(out_store[0][1], outs)

    return vmap_f


# ---------------------------------------------------------------------------
# How dispatch.py's eager sites trace and compile (dispatch sits below jit
# and api, so they are installed from here).


def _trace_eager(fn: Callable, arrays: list) -> Jaxpr:
    return make_jaxpr(fn)(*arrays)


def _compile_eager(closed: Jaxpr, buffers: list, program: dispatch.EagerProgram) -> None:
    # Op by op in JAX: its top-level equations are separate computations.
    # (jit's compile_for_backend, looked up per call: every compilation goes through it.)
    compiled = jit_lib.compile_for_backend(closed, fused=False)
    fill = getattr(compiled, "eager_program", None)
    if fill is not None:
        fill(closed, buffers, program)  # the backend's one-output call, tiering up by itself
    else:
        program.run = lambda *b: compiled(*b)[0]


dispatch.set_eager_compiler(_trace_eager, _compile_eager)
