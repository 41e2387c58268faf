"""Autodiff entry points: jvp, linearize, vjp, grad, value_and_grad.

These wrap the interpreters (interpreters/jvp.py, partial_eval.py,
transpose.py) in JAX's user-facing signatures: pytrees in and out, argnums,
has_aux, holomorphic, allow_int, and JAX's argument checks and messages.
The Jacobian builders (jacfwd, jacrev, hessian), linear_transpose and
closure_convert live in api_jac.py, on top of these.
"""

from __future__ import annotations

import functools
import inspect
import operator
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.tree_util import Partial, tree_flatten, tree_leaves, tree_map, tree_unflatten

# ---------------------------------------------------------------------------
# Argument handling shared by the autodiff entry points


def check_callable(fun) -> None:
    """JAX's check that a transformation was given a function."""
    if isinstance(fun, staticmethod):
        raise TypeError(f"staticmethod arguments are not supported, got {fun}")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}")


def ensure_index(x: Any) -> int | tuple[int, ...]:
    """An index, or a tuple of indices (argnums as the user may spell them)."""
    try:
        return operator.index(x)
    except TypeError:
        return tuple(map(operator.index, x))


def argnums_partial(fun: Callable, argnums: int | Sequence[int], args: Sequence, kwargs: dict):
    """`fun` as a function of the arguments selected by `argnums` only
    (the others, and the keyword arguments, fixed); and those arguments."""
    argnums_t = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    dyn_argnums = []
    for i in argnums_t:
        if not -len(args) <= i < len(args):
            raise ValueError(
                "Positional argument indices, e.g. for `static_argnums`, must have value greater than or "
                f"equal to -len(args) and less than len(args), but got value {i} for len(args) == {len(args)}."
            )
        dyn_argnums.append(i % len(args))

    def f_partial(*dyn_args):
        full = list(args)
        for i, value in zip(dyn_argnums, dyn_args, strict=True):
            full[i] = value
        return fun(*full, **kwargs)

    return f_partial, tuple(args[i] for i in dyn_argnums)


def check_arg(x) -> None:
    """Differentiated arguments must be JAX values (arrays, scalars, tracers)."""
    if isinstance(x, (core.Tracer, Array, ShapedArray)):
        return
    try:
        core.get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def _docstring(fun: Callable, template: str, argnums) -> str | None:
    name = getattr(fun, "__name__", None)
    if name is None:
        return None
    return template.format(fun=name, argnums=argnums)


def _wraps(fun: Callable, template: str, argnums):
    """functools.wraps, plus JAX's generated docstring naming `fun` and argnums."""

    def decorate(wrapper):
        wrapper = functools.wraps(fun, updated=())(wrapper)
        # A callable without a __name__ (a functools.partial) gets no docstring.
        wrapper.__doc__ = _docstring(fun, template, argnums)
        return wrapper

    return decorate


# ---------------------------------------------------------------------------
# Flattening and results


def _flatten_fun(fun: Callable, in_tree, out_store: list):
    def flat(*leaves):
        out = fun(*tree_unflatten(in_tree, leaves))
        out_leaves, out_tree = tree_flatten(out)
        out_store.append(out_tree)
        return out_leaves

    return flat


def _strip_tracers(aux, trace):
    """Auxiliary outputs are returned as values of the enclosing trace: the
    primal of any tracer of `trace` (the one that differentiated fun)."""
    from pyjax._src.interpreters.jvp import JVPTracer

    def strip(x):
        while type(x) is JVPTracer and x._trace is trace:
            x = x.primal
        return x

    return tree_map(strip, aux)


def _flatten_fun_aux(fun: Callable, in_tree, out_store: list):
    """Flattens a has_aux function: `out_store` receives (out_tree, aux)."""

    def flat(*leaves):
        result = fun(*tree_unflatten(in_tree, leaves))
        if not isinstance(result, (list, tuple)) or len(result) != 2:
            raise TypeError(
                "expected function with aux output to return a two-element tuple, but got type "
                f"{type(result)} with value {result!r}"
            )
        out, aux = result
        out_leaves, out_tree = tree_flatten(out)
        out_store.append((out_tree, _strip_tracers(aux, core.current_trace())))
        return out_leaves

    return flat


def as_array(x):
    """Results and primal inputs are Arrays (or tracers): wrap raw NumPy
    values and Python scalars (these stay weakly typed). float0 zeros stay
    NumPy arrays, as in JAX."""
    if type(x) in (bool, int, float, complex):
        aval = core.concrete_aval(x)
        if core.current_trace() is core._default_trace[0]:
            return Array(np.asarray(x, aval.dtype), aval)
        return x
    if isinstance(x, (np.ndarray, np.generic)) and core.current_trace() is core._default_trace[0]:
        value = np.asarray(x)
        if value.dtype == dtypes.float0:
            return value
        dtype = dtypes.canonicalize_dtype(value.dtype)
        return Array(value.astype(dtype, copy=False), ShapedArray(value.shape, dtype, False))
    return x


def zeros_for(x):
    """Concrete zeros of the tangent type of `x`."""
    from pyjax._src.ad_util import tangent_aval

    return instantiate_zeros(tangent_aval(core.get_aval(x)))


def instantiate_zeros(aval: ShapedArray):
    """Zeros of `aval`. float0 zeros are a NumPy array when computed eagerly
    and, under a trace, a broadcast float0 literal (JAX's equation)."""
    from pyjax._src.ad_util import zeros_like_aval
    from pyjax._src.lax import shapes

    if aval.dtype != dtypes.float0:
        if core.current_trace() is core._default_trace[0]:
            # an Array of the aval itself: a zero tangent keeps its weak type
            return Array(np.zeros(aval.shape, aval.dtype), aval)
        return zeros_like_aval(aval)
    if core.current_trace() is core._default_trace[0] or not aval.shape:
        return np.zeros(aval.shape, dtypes.float0)
    return shapes.broadcast_in_dim(np.zeros((), dtypes.float0), aval.shape, ())


# ---------------------------------------------------------------------------
# jvp and linearize


def jvp_unchecked(fun: Callable, primals, tangents, has_aux: bool = False):
    """jvp without the argument checks (jacfwd builds its tangents itself):
    flat pytrees of primals and tangents, all output tangents instantiated."""
    from pyjax._src.ad_util import Zero, tangent_aval
    from pyjax._src.interpreters.jvp import jvp_flat

    raw_primals, in_tree = tree_flatten(tuple(primals))
    raw_tangents, _ = tree_flatten(tuple(tangents))
    # The function sees typed values (Python scalars as weakly typed Arrays),
    # but a value it returns unchanged comes back as it was given: JAX's jvp
    # returns (1.0, 1.0) for the identity at 1.0.
    flat_primals = [as_array(p) for p in raw_primals]
    tangents_in = [Zero(tangent_aval(core.get_aval(p))) if core.get_aval(t).dtype == dtypes.float0 else as_array(t)
                   for p, t in zip(flat_primals, raw_tangents, strict=True)]
    given = {id(v): raw for v, raw in zip(flat_primals + tangents_in, raw_primals + raw_tangents, strict=True)}
    store: list = []

    def flat(*leaves):
        result = fun(*tree_unflatten(in_tree, leaves))
        if has_aux:
            result, aux = result  # JAX unpacks without a check here
            store.append(_strip_tracers(aux, core.current_trace()))
        out_leaves, out_tree = tree_flatten(result)
        store.insert(0, out_tree)
        return out_leaves

    outs, out_tangents = jvp_flat(flat, flat_primals, tangents_in)
    outs = [given.get(id(o), o) for o in outs]
    out_tangents = [instantiate_zeros(t.aval) if type(t) is Zero else given.get(id(t), t) for t in out_tangents]
    out_tree = store[0]
    result = (tree_unflatten(out_tree, outs), tree_unflatten(out_tree, out_tangents))
    return (*result, store[1]) if has_aux else result


def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """Evaluate ``fun`` and its Jacobian-vector product at ``primals``, in forward mode.

    Args:
      fun: the function to differentiate; its arguments and outputs are arrays,
        scalars or pytrees of them.
      primals: the point, a tuple or list with one entry per positional argument.
      tangents: the direction, a tuple or list matching ``primals`` in structure,
        shapes and (tangent) dtypes.
      has_aux: when ``True``, ``fun`` returns ``(output, aux)`` and ``aux`` is
        passed through undifferentiated (default ``False``).

    Returns:
      ``(primals_out, tangents_out)``, or ``(primals_out, tangents_out, aux)``
      when ``has_aux`` is set.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jax.jvp(jnp.square, (3.0,), (1.0,))
      (Array(9., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
    """
    from pyjax._src.ad_util import tangent_aval

    check_callable(fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jax.jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    flat_primals, in_tree = tree_flatten(tuple(primals))
    flat_tangents, tangent_tree = tree_flatten(tuple(tangents))
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
    return jvp_unchecked(fun, primals, tangents, has_aux)


def _linearize_flat(fun: Callable, primals: Sequence, has_aux: bool):
    """Shared by linearize and vjp: (outs, linear jaxpr, nonzero, out_tree,
    in_tree, aux)."""
    from pyjax._src.interpreters.dce import dce_jaxpr
    from pyjax._src.interpreters.partial_eval import linearize_flat

    flat_primals, in_tree = tree_flatten(primals)
    # Python scalars become typed values (JAX's TypedFloat): what the
    # function returns unchanged is then a weakly typed Array.
    flat_primals = [as_array(p) for p in flat_primals]
    for p in flat_primals:
        check_arg(p)
    store: list = []
    flat = (_flatten_fun_aux if has_aux else _flatten_fun)(fun, in_tree, store)
    outs, linear, nonzero = linearize_flat(flat, flat_primals)
    # JAX DCEs the linear jaxpr with the primitives' rules (unused residuals go).
    linear, _ = dce_jaxpr(linear, prune_bodies=True)
    out_tree, aux = store[0] if has_aux else (store[0], None)
    return outs, linear, nonzero, out_tree, in_tree, aux


def linearize(fun: Callable, *primals, has_aux: bool = False):
    """Evaluate ``fun`` at ``primals`` and return its JVP there as a function.

    The forward pass runs once; the returned function replays only the linear
    part that was recorded, so it is cheap to call for many tangents.

    Args:
      fun: the function to differentiate.
      *primals: the point, one value per positional argument.
      has_aux: when ``True``, ``fun`` returns ``(output, aux)`` (default ``False``).

    Returns:
      ``(primals_out, f_jvp)``, plus ``aux`` when ``has_aux`` is set; ``f_jvp``
      maps tangents shaped like ``primals`` to tangents shaped like the output.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> y, f_jvp = jax.linearize(jnp.square, 3.0)
      >>> f_jvp(2.0)
      Array(12., dtype=float32, weak_type=True)
    """
    from pyjax._src.ad_util import tangent_aval
    from pyjax._src.jaxpr import eval_jaxpr

    check_callable(fun)
    outs, linear, nonzero, out_tree, in_tree, aux = _linearize_flat(fun, primals, has_aux)
    out_tangent_avals = [tangent_aval(core.get_aval(o)) for o in outs]
    num_res = len(linear.consts)

    def lifted_jvp(*args):
        residuals, tangents = args[:num_res], args[num_res:]
        flat_tangents, tangent_tree = tree_flatten(tangents)
        if tangent_tree != in_tree:
            raise TypeError(f"linearized function called on tangent values inconsistent with the original function: expected {in_tree}, got {tangent_tree}")
        results = iter(eval_jaxpr(linear, list(residuals), *flat_tangents))
        out_tangents = [next(results) if nz else instantiate_zeros(aval)
                        for aval, nz in zip(out_tangent_avals, nonzero, strict=True)]
        return tree_unflatten(out_tree, out_tangents)

    # a pytree whose leaves are the residuals (as in JAX): it can be returned
    # from make_jaxpr / jit, and the residuals are staged as outputs
    f_jvp = Partial(lifted_jvp, *linear.consts)
    out = tree_unflatten(out_tree, outs)
    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


# ---------------------------------------------------------------------------
# vjp, grad, value_and_grad


def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
    """Evaluate ``fun`` at ``primals`` and return its vector-Jacobian product function.

    This is reverse mode; :func:`jax.grad` is the special case of a scalar output
    pulled back with cotangent one.

    Args:
      fun: the function to differentiate; its arguments and outputs are arrays,
        scalars or pytrees of them.
      *primals: the point, one value per positional argument.
      has_aux: when ``True``, ``fun`` returns ``(output, aux)`` (default ``False``).

    Returns:
      ``(primals_out, vjp_fun)``, plus ``aux`` when ``has_aux`` is set; ``vjp_fun``
      maps a cotangent shaped like the output to a tuple with one cotangent per
      primal.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> out, vjp_fun = jax.vjp(lambda x, y: x * y, 2.0, 5.0)
      >>> vjp_fun(1.0)
      (Array(5., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
    """
    from pyjax._src.ad_util import Zero
    from pyjax._src.interpreters.transpose import backward_pass

    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to vjp is deprecated")
    check_callable(fun)
    outs, linear, nonzero, out_tree, in_tree, aux = _linearize_flat(fun, primals, has_aux)
    out_avals = [core.get_aval(o) for o in outs]
    num_res = len(linear.consts)

    def vjp_apply(*args):
        residuals, (cotangent,) = args[:num_res], args[num_res:]
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
        cts = [ct for ct, nz in zip(flat_cts, nonzero, strict=True) if nz]
        in_cts = backward_pass(linear, list(residuals), cts)
        in_cts = [instantiate_zeros(c.aval) if type(c) is Zero else c for c in in_cts]
        return tree_unflatten(in_tree, in_cts)

    # a pytree whose leaves are the residuals, like JAX's VJP object
    vjp_fun = Partial(vjp_apply, *linear.consts)
    out = tree_unflatten(out_tree, outs)
    return (out, vjp_fun, aux) if has_aux else (out, vjp_fun)


def check_input_dtype_revderiv(name: str, holomorphic: bool, allow_int: bool, x) -> None:
    """Inputs of reverse-mode derivatives (grad, jacrev): inexact, or
    integer/bool with allow_int; complex with holomorphic."""
    check_arg(x)
    dtype = core.get_aval(x).dtype
    if holomorphic and not dtypes.issubdtype(dtype, np.complexfloating):
        raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, but got {dtype.name}.")
    if dtypes.issubdtype(dtype, dtypes.extended) or dtypes.issubdtype(dtype, np.integer) or dtypes.issubdtype(dtype, np.bool_):
        if not allow_int:
            raise TypeError(
                f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
                f"np.inexact), but got {dtype.name}. If you want to use Boolean- or integer-valued "
                "inputs, use vjp or set allow_int to True."
            )
    elif not dtypes.issubdtype(dtype, np.inexact):
        raise TypeError(
            f"{name} requires numerical-valued inputs (input dtype that is a sub-dtype of np.bool_ "
            f"or np.number), but got {dtype.name}."
        )


def check_output_dtype_revderiv(name: str, holomorphic: bool, x) -> None:
    """Outputs of reverse-mode derivatives: real floating, or complex with holomorphic."""
    dtype = core.get_aval(x).dtype
    if dtypes.issubdtype(dtype, dtypes.extended):
        raise TypeError(f"{name} with output element type {dtype.name}")
    if holomorphic:
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, but got {dtype.name}.")
    elif dtypes.issubdtype(dtype, np.complexfloating):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
            f"but got {dtype.name}. For holomorphic differentiation, pass holomorphic=True. "
            "For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly."
        )
    elif not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
            f"but got {dtype.name}. For differentiation of functions with integer outputs, use "
            "jax.vjp directly."
        )


def _check_scalar(x) -> None:
    message = "Gradient only defined for scalar-output functions. Output {}.".format
    try:
        aval = core.get_aval(x)
    except TypeError:
        raise TypeError(message(f"was {x}")) from None
    if aval.shape != ():
        raise TypeError(message(f"had shape: {aval.shape}"))


def _one_like(x):
    """The seed cotangent of grad: a scalar 1 of x's dtype and weak type
    (eagerly an Array, so grad of the identity returns an Array, as in JAX;
    under a trace a literal)."""
    aval = core.get_aval(x)
    mesh = _seed_mesh(aval)
    if mesh is not None:
        return _one_on_mesh(aval, mesh)
    if core.current_trace() is core._default_trace[0]:
        return Array(np.ones((), aval.dtype), aval)
    if aval.weak_type and aval.dtype == dtypes.default_float_dtype():
        return 1.0  # a Python scalar is weakly typed
    if aval.weak_type and aval.dtype == dtypes.default_complex_dtype():
        return 1 + 0j
    return np.ones((), aval.dtype)[()]


def _seed_mesh(aval):
    """The abstract mesh grad's seed is resharded onto (None: not resharded).
    As JAX 0.11 stages it: the value's mesh; not under a `set_mesh` of Auto
    axes only, where the constant is already typed on it."""
    from pyjax._src.sharding.mesh import get_mesh

    if aval.sharding is None:
        return None
    context = get_mesh()
    if not context.empty and all(t.name == "Auto" for t in context.axis_types):
        return None
    return aval.sharding.mesh


def _one_on_mesh(aval, mesh):
    # The seed of a value typed on a mesh lives on that mesh too: the
    # constant is resharded there, as JAX's seed is.
    from pyjax._src.sharding.api import reshard_p
    from pyjax._src.sharding.named import abstract_sharding
    from pyjax._src.sharding.sharded_array import place_typed

    plain = ShapedArray((), aval.dtype, aval.weak_type)
    one = Array(np.ones((), aval.dtype), plain)
    target = abstract_sharding(mesh, ())
    if core.current_trace() is core._default_trace[0]:
        return place_typed(Array(one._value, plain.update(sharding=target)))
    literal = 1.0 if aval.weak_type and aval.dtype == dtypes.default_float_dtype() else np.ones((), aval.dtype)[()]
    return reshard_p.bind(literal, dst_sharding=target)


_VALUE_AND_GRAD_DOC = (
    "Value and gradient of {fun} with respect to positional argument(s) {argnums}. Takes the same "
    "arguments as {fun} but returns a two-element tuple where the first element is the value of "
    "{fun} and the second element is the gradient, which has the same shape as the arguments at "
    "positions {argnums}."
)
_GRAD_DOC = (
    "Gradient of {fun} with respect to positional argument(s) {argnums}. Takes the same arguments "
    "as {fun} but returns the gradient, which has the same shape as the arguments at positions {argnums}."
)


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """Make a function returning both ``fun``'s value and its gradient.

    Args:
      fun: the function to differentiate. It must return a real scalar (complex
        with ``holomorphic=True``); the arguments named by ``argnums`` are arrays,
        scalars or pytrees of them.
      argnums: which positional argument(s) to differentiate with respect to, an
        integer or a sequence of integers (default 0).
      has_aux: when ``True``, ``fun`` returns ``(output, aux)`` and ``aux`` is
        passed through undifferentiated (default ``False``).
      holomorphic: when ``True``, ``fun`` is promised to be complex-differentiable
        and its inputs and output must be complex (default ``False``).
      allow_int: when ``True``, integer inputs are accepted and get ``float0``
        gradients (default ``False``).

    Returns:
      A function taking ``fun``'s arguments and returning ``(value, gradient)``
      (``((value, aux), gradient)`` with ``has_aux``); the gradient is shaped like
      the argument(s) selected by ``argnums``.

    Example:
      >>> import pyjax as jax
      >>> jax.value_and_grad(lambda x: x ** 3)(2.0)
      (Array(8., dtype=float32, weak_type=True), Array(12., dtype=float32, weak_type=True))
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to grad is deprecated")
    check_callable(fun)
    argnums = ensure_index(argnums)

    @_wraps(fun, _VALUE_AND_GRAD_DOC, argnums)
    def value_and_grad_f(*args, **kwargs):
        max_argnum = max(argnums) if isinstance(argnums, tuple) else argnums
        if max_argnum >= len(args):
            raise TypeError(
                f"differentiating with respect to argnums={argnums} requires at least "
                f"{max_argnum + 1} positional arguments to be passed by the caller, but got only "
                f"{len(args)} positional arguments."
            )
        f_partial, dyn_args = argnums_partial(fun, argnums, args, kwargs)
        for leaf in tree_leaves(dyn_args):
            check_input_dtype_revderiv("grad", holomorphic, allow_int, leaf)
        value, pull_back, *aux = vjp(f_partial, *dyn_args, has_aux=has_aux)
        _check_scalar(value)
        check_output_dtype_revderiv("grad", holomorphic, value)
        # pulling back a cotangent of one gives the gradient
        per_argument = pull_back(_one_like(value))
        gradient = per_argument if isinstance(argnums, tuple) else per_argument[0]
        return ((value, *aux) if has_aux else value), gradient

    return value_and_grad_f


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """Make a function returning the gradient of the scalar-valued ``fun``.

    The arguments are those of :func:`value_and_grad`; only the gradient is kept.

    Returns:
      A function taking ``fun``'s arguments and returning the gradient, shaped
      like the argument(s) selected by ``argnums`` (``(gradient, aux)`` with
      ``has_aux``).

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jax.grad(jnp.sin)(0.0)
      Array(1., dtype=float32, weak_type=True)
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to grad is deprecated")
    value_and_grad_f = value_and_grad(fun, argnums, has_aux=has_aux, holomorphic=holomorphic, allow_int=allow_int)
    argnums = ensure_index(argnums)

    @_wraps(fun, _GRAD_DOC, argnums)
    def grad_f(*args, **kwargs):
        value, g = value_and_grad_f(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


__all__ = [
    "argnums_partial", "as_array", "check_arg", "check_callable", "check_input_dtype_revderiv",
    "check_output_dtype_revderiv", "ensure_index", "grad", "instantiate_zeros", "jvp", "jvp_unchecked", "linearize",
    "value_and_grad", "vjp", "zeros_for",
]
