"""Argument handling shared by pyjax.numpy: type checks, dtype promotion and
rank promotion, done the way jax.numpy does them so that the same program
stages the same equations.

Promotion follows JAX's lattice (dtypes.binary_promote). A Python scalar
operand stays a Python scalar when the promoted dtype is its own default
dtype (so it becomes a weak literal in a jaxpr, and NumPy keeps it weak in
eager mode); otherwise it is converted to a NumPy scalar of the result dtype.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.jaxpr import Literal
from pyjax._src import shape_poly
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes

_PY_SCALARS = (bool, int, float, complex)
_PY_KIND = {bool: "b", int: "i", float: "f", complex: "c"}
_KIND_TO_PYTYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def is_arraylike(x) -> bool:
    return (
        type(x) is Array
        or type(x) in _PY_SCALARS
        or isinstance(x, (np.ndarray, np.generic, core.Tracer, Array))
        or hasattr(x, "__jax_array__")
    )


def check_arraylike(fun_name: str, *args, emit_warning: bool = False, stacklevel: int = 3) -> None:
    """Raises JAX's TypeError for an argument that is not array-like (a list,
    say); with `emit_warning`, JAX's DeprecationWarning instead."""
    for i, arg in enumerate(args):
        if not is_arraylike(arg):
            msg = f"{fun_name} requires ndarray or scalar arguments, got {type(arg)} at position {i}."
            if emit_warning:
                warnings.warn(msg + " In a future JAX release this will be an error.", DeprecationWarning,
                              stacklevel=stacklevel)
                return
            raise TypeError(msg)


def aval_of(x):
    """(dtype, weak_type, shape) of an array-like, cheaply."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    return core.concrete_aval(x)


def promote_dtypes(fun_name: str, *args, inexact: bool = False):
    """Converts `args` to their common JAX dtype (weak types respected);
    `inexact`: to that dtype's floating counterpart, each argument converted
    once, straight to it (a weak -1 beside a uint32 becomes -1.0, not
    4294967295.0)."""
    if len(args) == 2:
        avals = a, b = aval_of(args[0]), aval_of(args[1])
        try:
            dtype, weak = dtypes.binary_promote(a.dtype, a.weak_type, b.dtype, b.weak_type)
        except ValueError:
            _refuse_extended(fun_name, (a, b))
            raise
    else:
        avals = [aval_of(x) for x in args]
        try:
            dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
        except ValueError:
            _refuse_extended(fun_name, avals)
            raise
    if inexact and not dtypes.issubdtype(dtype, np.inexact):
        dtype = dtypes.to_inexact_dtype(dtype)
    return [_cast(x, a, dtype, weak) for x, a in zip(args, avals, strict=True)]


def _refuse_extended(fun_name: str, avals) -> None:
    # Keys promote with nothing but themselves: JAX's error names the function.
    if any(isinstance(a.dtype, dtypes.ExtendedDType) for a in avals):
        raise TypeError(f"{fun_name} does not accept dtypes {', '.join(str(a.dtype) for a in avals)}.")


def _cast(x, aval, dtype, weak):
    same = (aval.dtype is dtype or aval.dtype == dtype) and aval.weak_type == weak
    tx = type(x)
    if tx is Array or isinstance(x, core.Tracer):
        return x if same else convert_element_type(x, dtype, weak)
    if tx in _PY_SCALARS:
        pytype = _KIND_TO_PYTYPE.get(dtype.kind)
        if pytype is not None and pytype is not bool and weak and core.concrete_aval(pytype(0)).dtype == dtype:
            value = pytype(x)
        else:
            value = np.asarray(x, dtype)[()]
    elif isinstance(x, (np.ndarray, np.generic)):
        value = x if same else (np.asarray(x, dtype) if x.shape else np.asarray(x, dtype)[()])
    else:
        return x if same else convert_element_type(x, dtype, weak)
    # JAX converts every host operand with lax, so under a staging trace it
    # becomes a (literal or constvar) tracer and later operations on it alone
    # are staged (`-loc` prints `neg 0.5:f32[]`); eagerly the host value is
    # kept, which NumPy computes with identically and faster.
    # A weakly typed Python scalar stays as it is: the staging trace writes it
    # as the same weak literal, and evaluating that literal keeps it weak.
    if weak and tx in _PY_SCALARS:
        return value
    lift = getattr(core.current_trace(), "lift_constant", None)
    if lift is None:
        return value
    return lift(np.asarray(value, dtype), core.ShapedArray(np.shape(value), dtype, weak))


def literal_value(x):
    """The value of `x` if it is a scalar constant written inline in the jaxpr
    being staged (`jnp.asarray(2.0)` under a trace), else None."""
    var = getattr(x, "_var", None)
    if var is not None and type(var) is Literal:
        return var.val
    return None


def convert_element_type(x, dtype, weak_type: bool = False):
    """lax's convert_element_type, folded for inline scalar constants.

    JAX's staging trace folds a conversion of a literal into a new literal
    (its const-fold rule for convert_element_type), so `jnp.asarray(2.0)`
    promoted to float32 prints as `2.0:f32[]`, not as an equation; pyjax's
    staging trace has no such rule yet, so the numpy layer folds here.
    """
    value = literal_value(x)
    if value is not None and isinstance(x, core.Tracer):
        return lax_ew._convert_element_type(np.asarray(value), dtype, weak_type)
    return lax_ew._convert_element_type(x, dtype, weak_type)


def promote_shapes(fun_name: str, *args):
    """Broadcasts non-scalar operands of different ranks to a common rank by
    prepending size-1 axes (rank-0 operands are left alone)."""
    shapes = [np.shape(x) if getattr(x, "aval", None) is None else x.aval.shape for x in args]
    ranks = {len(s) for s in shapes if s}
    if len(ranks) < 2:
        return list(args)
    # Operands of different ranks are checked here, before the rank
    # promotion, as JAX does (hence its ValueError rather than lax's TypeError).
    try:
        shape_poly.broadcast_shapes(*shapes)  # (np.broadcast_shapes, accepting symbolic dimensions)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}") from None
    rank = max(ranks)
    return [
        x if not s or len(s) == rank else lax_shapes.broadcast_in_dim(x, (1,) * (rank - len(s)) + tuple(s), tuple(range(rank - len(s), rank)))
        for x, s in zip(args, shapes, strict=True)
    ]


def promote_args(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(fun_name, *args))


def promote_args_inexact(fun_name: str, *args):
    """Promotes to a common dtype, then to floating point if integer/bool."""
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(fun_name, *args, inexact=True))


def ensure_array(x, dtype=None):
    """A value that lax accepts: Arrays and tracers as they are, others via asarray."""
    if type(x) is Array or isinstance(x, core.Tracer):
        return x
    from pyjax._src.numpy.creation import asarray

    return asarray(x, dtype)


def canonicalize_axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)  # a float axis is a TypeError, as in JAX
    if not -ndim <= axis < max(ndim, 1) and not (ndim == 0 and axis in (0, -1)):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else 0


def shape_of(x) -> tuple:
    aval = getattr(x, "aval", None)
    return aval.shape if aval is not None else np.shape(x)


def lax_convert(x, new_dtype):
    """lax.convert_element_type (a strong result; the user dtype is checked and
    canonicalized), folded for inline scalar constants."""
    return convert_element_type(x, dtypes.check_and_canonicalize_user_dtype(new_dtype, "convert_element_type"), False)


def full(shape, fill_value, dtype, weak_type: bool = False, *, sharding=None):
    """lax.full: a broadcast of `fill_value` converted to `dtype` (a literal
    when `fill_value` is a Python or NumPy scalar), placed by `sharding`."""
    value = convert_element_type(fill_value, dtype, weak_type)
    shape = tuple(shape)
    if shape_of(value) == shape and sharding is None:
        return value
    return lax_shapes.broadcast_in_dim(value, shape, tuple(range(len(shape) - len(shape_of(value)), len(shape))),
                                       out_sharding=sharding)


def full_like(x, fill_value, dtype=None, shape=None):
    """lax.full_like: `fill_value` in the shape and dtype of `x` (weakly typed
    when `x` is and no dtype is given)."""
    aval = aval_of(x)
    weak = dtype is None and aval.weak_type
    return full(aval.shape if shape is None else shape, fill_value, aval.dtype if dtype is None else dtype, weak)


def promote_dtypes_numeric(*args):
    """Promotes to a common dtype, booleans to the default integer type."""
    dtype, weak = dtypes.lattice_result_type(*args)
    dtype = dtypes.to_numeric_dtype(dtype)
    return [_cast(x, aval_of(x), dtype, weak) for x in args]


def promote_dtypes_inexact(*args):
    """Promotes to a common inexact dtype."""
    dtype, weak = dtypes.lattice_result_type(*args)
    dtype = dtypes.to_inexact_dtype(dtype)
    return [_cast(x, aval_of(x), dtype, weak) for x in args]


def promote_dtypes_complex(*args):
    """Promotes to a common complex dtype."""
    dtype, weak = dtypes.lattice_result_type(*args)
    dtype = dtypes.to_complex_dtype(dtype)
    return [_cast(x, aval_of(x), dtype, weak) for x in args]


def promote_args_numeric(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def promote_args_complex(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_complex(*args))


def ensure_arraylike(fun_name: str, *args):
    """check_arraylike, then every argument as an array (a tuple unless one)."""
    check_arraylike(fun_name, *args)
    out = tuple(ensure_array(a) for a in args)
    return out[0] if len(out) == 1 else out


def constant_like(x, value):
    """lax._const: `value` in the dtype of `x`. For a weakly typed scalar `x`
    it is a Python scalar (a weak literal, printed at full precision); else a
    NumPy scalar of x's dtype (a strong literal)."""
    dtype = aval_of(x).dtype
    if dtypes.is_weakly_typed_scalar(x):
        value = dtypes.scalar_type_of(x)(value)
        return value if core.concrete_aval(value).dtype == dtype else np.asarray(value, dtype)[()]
    return np.asarray(value, dtype)[()]


def canonicalize_axis_tuple(axis, ndim: int, name: str = "axis") -> tuple:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"repeated axis in {name}: {tuple(axis)}")
        return axes
    return (canonicalize_axis(axis, ndim),)
