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
from pyjax._src.tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten


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

    @functools.wraps(fun, updated=())
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


# ---------------------------------------------------------------------------
# Autodiff entry points: jvp, linearize, vjp, grad, value_and_grad


def _flatten_fun(fun: Callable, in_tree, out_store: list):
    def flat(*leaves):
        out = fun(*tree_unflatten(in_tree, leaves))
        out_leaves, out_tree = tree_flatten(out)
        out_store.append(out_tree)
        return out_leaves

    return flat


def _flatten_fun_aux(fun: Callable, in_tree, out_store: list):
    def flat(*leaves):
        result = fun(*tree_unflatten(in_tree, leaves))
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError("has_aux=True requires the function to return a pair (output, auxiliary data)")
        out, aux = result
        out_leaves, out_tree = tree_flatten(out)
        out_store.append((out_tree, aux))
        return out_leaves

    return flat


def _as_array(x):
    """Results and primal inputs are Arrays (or tracers): wrap raw NumPy
    values and Python scalars (these stay weakly typed)."""
    if type(x) in (bool, int, float, complex):
        aval = core.concrete_aval(x)
        if core.current_trace() is core._default_trace[0]:
            return Array(np.asarray(x, aval.dtype), aval)
        return x
    if isinstance(x, (np.ndarray, np.generic)) and core.current_trace() is core._default_trace[0]:
        value = np.asarray(x)
        dtype = dtypes.canonicalize_dtype(value.dtype)
        return Array(value.astype(dtype, copy=False), ShapedArray(value.shape, dtype, False))
    return x


def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """Computes the (forward-mode) Jacobian-vector product of `fun`.

    Args:
      fun: the function to differentiate.
      primals: a tuple (or list) of the points at which to evaluate.
      tangents: a tuple of tangent vectors, of the same structure and types.
      has_aux: whether `fun` returns (output, aux).

    Returns:
      (primals_out, tangents_out), plus aux with has_aux.
    """
    from pyjax._src.ad_util import Zero, tangent_aval
    from pyjax._src.interpreters.jvp import jvp_flat
    from pyjax._src.tree_util import tree_flatten

    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jax.jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    flat_primals, in_tree = tree_flatten(tuple(primals))
    flat_tangents, tangent_tree = tree_flatten(tuple(tangents))
    flat_primals = [_as_array(p) for p in flat_primals]
    flat_tangents = [_as_array(t) if core.get_aval(t).dtype != dtypes.float0 else t for t in flat_tangents]
    if in_tree != tangent_tree:
        raise TypeError(
            "primal and tangent arguments to jax.jvp must have the same tree structure; "
            f"primals have tree structure {in_tree} whereas tangents have tree structure {tangent_tree}."
        )
    for p, t in zip(flat_primals, flat_tangents, strict=True):
        pa, ta = core.get_aval(p), core.get_aval(t)
        expected = tangent_aval(pa)
        if ta.dtype != expected.dtype:
            raise TypeError(
                "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case "
                "of int/bool primal dtype the tangent dtype must be float0.Got primal dtype "
                f"{pa.dtype} and so expected tangent dtype {expected.dtype}, but got tangent dtype {ta.dtype} instead."
            )
        if ta.shape != pa.shape:
            raise ValueError(
                "jvp called with different primal and tangent shapes;Got primal shape "
                f"{pa.shape} and tangent shape as {ta.shape}"
            )
    store: list = []
    flat = (_flatten_fun_aux if has_aux else _flatten_fun)(fun, in_tree, store)
    tangents_in = [Zero(tangent_aval(core.get_aval(p))) if core.get_aval(t).dtype == dtypes.float0 else t
                   for p, t in zip(flat_primals, flat_tangents, strict=True)]
    outs, out_tangents = jvp_flat(flat, flat_primals, tangents_in)
    from pyjax._src.ad_util import instantiate

    out_tangents = [_as_array(instantiate(t)) for t in out_tangents]
    out_tree = store[0][0] if has_aux else store[0]
    result = (tree_unflatten(out_tree, [_as_array(o) for o in outs]), tree_unflatten(out_tree, out_tangents))
    return (*result, store[0][1]) if has_aux else result


def linearize(fun: Callable, *primals, has_aux: bool = False):
    """The primal output of `fun` and a function evaluating its JVP at `primals`.

    The linear function is a jaxpr: calling it does not re-run `fun`.
    """
    from pyjax._src.interpreters.partial_eval import linearize_flat
    from pyjax._src.jaxpr import eval_jaxpr
    from pyjax._src.tree_util import tree_flatten

    flat_primals, in_tree = tree_flatten(primals)
    flat_primals = [_as_array(p) for p in flat_primals]
    store: list = []
    flat = (_flatten_fun_aux if has_aux else _flatten_fun)(fun, in_tree, store)
    outs, linear, nonzero = linearize_flat(flat, flat_primals, store if has_aux else None)
    out_tree = store[0][0] if has_aux else store[0]

    def f_jvp(*tangents):
        flat_tangents, tangent_tree = tree_flatten(tangents)
        if tangent_tree != in_tree:
            raise TypeError(f"linearized function called on tangent values inconsistent with the original function: expected {in_tree}, got {tangent_tree}")
        results = iter(eval_jaxpr(linear, linear.consts, *[_as_array(t) for t in flat_tangents]))
        out_tangents = [next(results) if nz else _zeros_for(o) for o, nz in zip(outs, nonzero, strict=True)]
        return tree_unflatten(out_tree, [_as_array(t) for t in out_tangents])

    out = tree_unflatten(out_tree, [_as_array(o) for o in outs])
    return (out, f_jvp, store[0][1]) if has_aux else (out, f_jvp)


def _zeros_for(x):
    from pyjax._src.ad_util import tangent_aval, zeros_like_aval

    return zeros_like_aval(tangent_aval(core.get_aval(x)))


def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
    """The output of `fun` at `primals` and its VJP function (reverse mode).

    Returns:
      (primals_out, vjp_fun) — plus aux with has_aux — where
      `vjp_fun(cotangent)` returns a tuple of cotangents, one per primal.
    """
    from pyjax._src.interpreters.partial_eval import linearize_flat
    from pyjax._src.interpreters.transpose import backward_pass
    from pyjax._src.tree_util import tree_flatten

    flat_primals, in_tree = tree_flatten(primals)
    flat_primals = [_as_array(p) for p in flat_primals]
    store: list = []
    flat = (_flatten_fun_aux if has_aux else _flatten_fun)(fun, in_tree, store)
    outs, linear, nonzero = linearize_flat(flat, flat_primals, store if has_aux else None)
    out_tree = store[0][0] if has_aux else store[0]
    out_avals = [core.get_aval(o) for o in outs]

    def vjp_fun(cotangent):
        flat_cts, ct_tree = tree_flatten(cotangent)
        if ct_tree != out_tree:
            raise ValueError(
                "unexpected tree structure of argument to vjp function: got "
                f"{ct_tree}, but expected to match {out_tree}"
            )
        for ct, aval in zip(flat_cts, out_avals, strict=True):
            ct_aval = core.get_aval(ct)
            if ct_aval.shape != aval.shape:
                raise ValueError(
                    "unexpected JAX type (e.g. shape/dtype) for argument to vjp function: got "
                    f"{ct_aval.str_short()}, but expected {aval.str_short()} because the "
                    "corresponding output of the function had JAX type "
                    f"{aval.str_short()}"
                )
        cts = [_as_array(ct) for ct, nz in zip(flat_cts, nonzero, strict=True) if nz]
        in_cts = backward_pass(linear, linear.consts, cts)
        from pyjax._src.ad_util import Zero, zeros_like_aval

        in_cts = [_as_array(zeros_like_aval(c.aval)) if type(c) is Zero else _as_array(c) for c in in_cts]
        return tree_unflatten(in_tree, in_cts)

    out = tree_unflatten(out_tree, [_as_array(o) for o in outs])
    return (out, vjp_fun, store[0][1]) if has_aux else (out, vjp_fun)


def _check_input_dtype_grad(holomorphic: bool, allow_int: bool, x) -> None:
    dtype = core.get_aval(x).dtype
    if holomorphic and not np.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"grad with holomorphic=True requires inputs with complex dtype, but got {dtype.name}.")
    if not (np.issubdtype(dtype, np.inexact) or dtypes.issubdtype(dtype, np.inexact)) and not allow_int:
        raise TypeError(
            "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
            f"np.inexact), but got {dtype.name}. If you want to use Boolean- or integer-valued "
            "inputs, use vjp or set allow_int to True."
        )


def _check_scalar_output(x, holomorphic: bool) -> None:
    aval = core.get_aval(x)
    if aval.shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: {aval.shape}.")
    if holomorphic:
        if not np.issubdtype(aval.dtype, np.complexfloating):
            raise TypeError(f"grad with holomorphic=True requires outputs with complex dtype, but got {aval.dtype.name}.")
    elif np.issubdtype(aval.dtype, np.integer) or aval.dtype == np.bool_:
        raise TypeError(
            "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
            f"but got {aval.dtype.name}. For differentiation of functions with integer outputs, use "
            "jax.vjp directly."
        )
    elif not (np.issubdtype(aval.dtype, np.floating) or dtypes.issubdtype(aval.dtype, np.floating)):
        raise TypeError(
            "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
            f"but got {aval.dtype.name}. For holomorphic differentiation, pass holomorphic=True. "
            "For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly."
        )


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """Creates a function that evaluates both `fun` and its gradient.

    Returns:
      A function with the same arguments as `fun` returning (value, gradient)
      — ((value, aux), gradient) with has_aux — where the gradient has the
      structure of the arguments selected by `argnums`.
    """
    from pyjax._src.tree_util import tree_leaves

    @functools.wraps(fun, updated=())
    def value_and_grad_f(*args, **kwargs):
        argnums_t = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for i in argnums_t:
            if not -len(args) <= i < len(args):
                raise TypeError(
                    f"differentiating with respect to argnums={argnums} requires at least "
                    f"{max(argnums_t) + 1} positional arguments to be passed by the caller, but got only "
                    f"{len(args)} positional arguments."
                )
        argnums_n = tuple(i % len(args) for i in argnums_t)
        diff_args = tuple(args[i] for i in argnums_n)
        for leaf in tree_leaves(diff_args):
            _check_input_dtype_grad(holomorphic, allow_int, leaf)

        def partial_fun(*diff):
            full = list(args)
            for i, value in zip(argnums_n, diff, strict=True):
                full[i] = value
            return fun(*full, **kwargs)

        if has_aux:
            ans, vjp_fun, aux = vjp(partial_fun, *diff_args, has_aux=True)
        else:
            ans, vjp_fun = vjp(partial_fun, *diff_args)
        _check_scalar_output(ans, holomorphic)
        ans_aval = core.get_aval(ans)
        # The seed cotangent keeps the output's weak type (a Python 1.0 is weak).
        one = 1.0 if ans_aval.weak_type and ans_aval.dtype == dtypes.default_float_dtype() else np.ones((), ans_aval.dtype)[()]
        grads = vjp_fun(one)
        grads = grads[0] if isinstance(argnums, int) else grads
        return ((ans, aux) if has_aux else ans), grads

    return value_and_grad_f


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """Creates a function that evaluates the gradient of `fun`.

    Args:
      fun: function to differentiate; its (first) output must be a real scalar.
      argnums: which positional argument(s) to differentiate with respect to.
      has_aux: whether `fun` returns (output, aux); aux is returned alongside.
      holomorphic: whether `fun` is holomorphic (complex in and out).
      allow_int: allow integer inputs (their gradient is float0 zeros).

    Returns:
      A function with the same arguments as `fun` returning the gradient
      (and aux with has_aux).

    Example:
      >>> grad(lambda x: jnp.sum(jnp.sin(x) ** 2))(jnp.ones(3))
    """
    value_and_grad_f = value_and_grad(fun, argnums, has_aux=has_aux, holomorphic=holomorphic, allow_int=allow_int)

    @functools.wraps(fun, updated=())
    def grad_f(*args, **kwargs):
        value, g = value_and_grad_f(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


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
        axis_data = batching.AxisData(axis_name, size, spmd_axis_name)
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
        outs = [matchaxis(v, d, od, axis_data.size) for (v, d), od in zip(infos, out_dims, strict=True)]
        return tree_unflatten(out_store[0][1], [_as_array(o) for o in outs])

    return vmap_f
