"""Array creation: array, asarray, zeros/ones/full/empty and their *_like
forms, arange, linspace, logspace, geomspace, eye, identity, tri, tril, triu,
meshgrid, indices, ix_, fromfunction and the from* readers.

Concrete data (Python scalars, lists, NumPy arrays) becomes an Array with a
canonical dtype. Made inside a trace, a new constant is handed to the trace
(`Trace.lift_constant`): a staging trace writes scalars inline as literals,
as JAX does, and larger values as constvars. Python scalars stay weakly
typed through `array` and `asarray` unless a dtype is given (JAX 0.11).
"""

from __future__ import annotations

import functools
import operator
import types

import numpy as np

from pyjax._src import shape_poly
from pyjax._src import config, core, dtypes, errors
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.avals import canonicalize_shape as _canonicalize_shape
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src import dispatch
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    check_arraylike,
    convert_element_type,
    ensure_arraylike,
    lax_convert,
)
from pyjax._src.numpy.util import (
    full as lax_full,
)

_PY_SCALARS = (bool, int, float, complex)


def _constant(value: np.ndarray, weak_type: bool):
    aval = ShapedArray(value.shape, value.dtype, weak_type)
    lift = getattr(core.current_trace(), "lift_constant", None)
    return lift(value, aval) if lift is not None else Array(value, aval)


def _is_array(x) -> bool:
    return type(x) is Array or isinstance(x, (core.Tracer, Array))


def _leaves(obj) -> list:
    if isinstance(obj, (list, tuple)):
        out = []
        for o in obj:
            out.extend(_leaves(o))
        return out
    return [obj]


@functools.lru_cache(maxsize=1024)
def _ndarray_aval(shape: tuple, dtype: np.dtype, context: int) -> ShapedArray:
    # The aval of jnp.array(a NumPy array of this shape and dtype) under one
    # configuration (`context`: enable_x64 decides the canonical dtype).
    try:
        return ShapedArray(shape, dtypes.canonicalize_array_dtype(dtype), False)
    except TypeError:  # (a non-native byte order) JAX's words for jnp.array's refusal
        raise TypeError("Error interpreting argument to stage as a JAX value. The problematic value is of type "
                        "<class 'numpy.ndarray'> and was passed to stage at position 0.\n") from None


def _canonical_value(leaf):
    # A NumPy view of a concrete leaf with its canonical dtype, for np.asarray.
    if type(leaf) is Array:
        return np.asarray(leaf._value)
    if type(leaf) in _PY_SCALARS:
        return leaf
    value = np.asarray(leaf)
    return value.astype(dtypes.canonicalize_dtype(value.dtype)) if value.dtype != object else value


def array(object, dtype=None, *args, copy: bool = True, order: str | None = "K", ndmin: int = 0, device=None,
          out_sharding=None):
    """Creates an array from `object` (a scalar, nested lists/tuples, a NumPy
    array or an Array).

    Python scalars give weakly typed arrays when no `dtype` is given; an
    Array or tracer argument is copied (a `copy` equation under a trace).

    Example:
      >>> jnp.array([[1, 2], [3, 4]], dtype=jnp.float32)
      Array([[1., 2.],
             [3., 4.]], dtype=float32)
    """
    out = _array(object, dtype, *args, copy=copy, order=order, ndmin=ndmin)
    # (under set_mesh, a host value put on the device lives replicated on the mesh, as JAX's)
    return dispatch.constant_on_context_mesh(out)


def _array(object, dtype=None, *args, copy: bool = True, order: str | None = "K", ndmin: int = 0):
    if (type(object) is np.ndarray and dtype is None and not args and ndmin == 0 and order in (None, "K")
            and object.dtype.kind in "biufc" and dispatch.active_trace() is None):
        # Eagerly, a NumPy array: a copy in its canonical dtype (the path below, without its walk).
        aval = _ndarray_aval(object.shape, object.dtype, config.trace_context_id())
        return Array(object.astype(aval.dtype), aval)
    if args:
        if len(args) > 3:
            raise TypeError(f"array() takes at most 5 positional arguments but {len(args) + 2} were given")
        copy, order, ndmin = (list(args) + [copy, order, ndmin][len(args):])[:3]
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    if dtype is None and ndmin == 0 and isinstance(object, core.Tracer) and _concrete(object) is None:
        return lax_ew.copy_p.bind(object) if copy else object
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "array")
    jax_array = getattr(object, "__jax_array__", None)
    if jax_array is not None and not _is_array(object):
        object = jax_array()
    weak_type = dtype is None and dtypes.is_weakly_typed(object)
    leaves = _leaves(object)
    if any(leaf is None for leaf in leaves):
        raise ValueError("None is not a valid value for jnp.array")
    leaves = [leaf.__jax_array__() if hasattr(leaf, "__jax_array__") and not _is_array(leaf) else leaf
              for leaf in leaves]
    if dtype is None:
        try:
            dtype = dtypes.lattice_result_type(*leaves)[0] if leaves else dtypes.default_float_dtype()
        except TypeError:
            leaves = [np.asarray(leaf) for leaf in leaves]
            dtype = dtypes.lattice_result_type(*leaves)[0]
        dtype = dtypes.canonicalize_dtype(dtype, allow_extended_dtype=True)  # jnp.array(key) is a key
    if not any(_is_array(leaf) for leaf in leaves):
        if isinstance(object, (list, tuple)):
            out = np.asarray(_rebuild(object), dtype=dtype) if leaves or object else np.array([], dtype=dtype)
        else:
            out = np.asarray(_canonical_value(object), dtype=dtype)
        if out.dtype == np.object_:
            raise TypeError(f"JAX does not support object arrays; got {object!r}")
        result = _constant(out if out.dtype == dtype else out.astype(dtype), weak_type)
    elif _is_array(object):
        result = lax_ew.copy_p.bind(object) if copy else object
        result = convert_element_type(result, dtype, weak_type)
    else:
        parts = [lax_shapes.expand_dims(array(elt, dtype=dtype, copy=False), (0,)) for elt in object]
        # Concatenate in groups of 16, as JAX does, to keep equations small.
        while len(parts) > 16:
            parts = [lax_shapes.concatenate(parts[i:i + 16], 0) for i in range(0, len(parts), 16)]
        result = lax_shapes.concatenate(parts, 0)
        result = convert_element_type(result, dtype, weak_type)
    ndim = aval_of(result).ndim
    if ndmin > ndim:
        result = lax_shapes.expand_dims(result, tuple(range(ndmin - ndim)))
    return result


def _rebuild(obj):
    if isinstance(obj, (list, tuple)):
        return [_rebuild(o) for o in obj]
    return _canonical_value(obj)


def _concrete(x):
    from pyjax._src.numpy.indexing import concrete_value

    return concrete_value(x)


def asarray(a, dtype=None, order: str | None = None, *, copy: bool | None = None, device=None, out_sharding=None):
    """Converts `a` to an array without copying it when it already is one
    (Python scalars stay weakly typed)."""
    if dtype is None and (type(a) is Array or isinstance(a, core.Tracer)):
        return a
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "asarray")
    return array(a, dtype=dtype, copy=bool(copy), order=order)


def copy(a, order: str | None = None):
    """A copy of `a`."""
    check_arraylike("copy", a)
    return array(a, copy=True, order=order)


def _check_forgot_shape_tuple(name, shape, dtype):
    if isinstance(dtype, int) and isinstance(shape, int):
        raise TypeError(f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally write "
                        f"`jax.numpy.{name}({shape}, {dtype})` when you meant "
                        f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple argument for the shape?")


def canonicalize_shape(shape, context: str = "") -> tuple:
    """A static shape tuple: avals.canonicalize_shape, worded as JAX's
    creation functions (their shapes go to broadcast_in_dim)."""
    if isinstance(shape, types.GeneratorType):
        raise TypeError("expected sequence object with len >= 0 or a single integer")
    return _canonicalize_shape(shape, "broadcast_in_dim shape", context=context)


@dispatch.fast_path
def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of zeros (float32 by default)."""
    _check_forgot_shape_tuple("zeros", shape, dtype)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "zeros")
    return lax_full(canonicalize_shape(shape), 0, dtype, sharding=out_sharding)


@dispatch.fast_path
def ones(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of ones (float32 by default)."""
    _check_forgot_shape_tuple("ones", shape, dtype)
    shape = canonicalize_shape(shape)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "ones")
    return lax_full(shape, 1, dtype, sharding=out_sharding)


@dispatch.fast_path
def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of the given shape (zeros: JAX arrays are never uninitialised)."""
    _check_forgot_shape_tuple("empty", shape, dtype)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "empty")
    # JAX binds an `empty` primitive here; pyjax's lax has none, so the
    # (unspecified) contents are zeros.
    return lax_full(canonicalize_shape(shape), 0, dtype, sharding=out_sharding)


@dispatch.fast_path
def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of `shape` filled with `fill_value` (broadcast if it is an array)."""
    from pyjax._src.numpy.shape_ops import broadcast_to

    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full")
    check_arraylike("full", fill_value)
    if np.ndim(fill_value) == 0 if not _is_array(fill_value) else aval_of(fill_value).ndim == 0:
        shape = canonicalize_shape(shape)
        if dtype is None:
            return lax_full(shape, fill_value, dtypes.dtype(fill_value, canonicalize=True),
                            dtypes.is_weakly_typed(fill_value), sharding=out_sharding)
        return lax_full(shape, fill_value, dtype, sharding=out_sharding)
    return broadcast_to(asarray(fill_value, dtype=dtype), shape)


def _like(name: str, value):
    def fn(a, dtype=None, shape=None, *, device=None, out_sharding=None):
        if not (hasattr(a, "dtype") and hasattr(a, "shape")):
            check_arraylike(name, a)
        if dtype is not None:
            dtype = dtypes.check_and_canonicalize_user_dtype(dtype, name)
        if shape is not None:
            shape = canonicalize_shape(shape)
        return _full_like(a, value, dtype, shape)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"An array of {value}s with the shape and dtype of `a` (or the given ones)."
    return fn


def _full_like(a, fill_value, dtype, shape):
    aval = aval_of(a) if hasattr(a, "aval") or not hasattr(a, "dtype") else ShapedArray(
        tuple(a.shape), dtypes.dtype(a, canonicalize=True))  # (JAX's error for a non-native byte order)
    weak = dtype is None and aval.weak_type
    return lax_full(aval.shape if shape is None else shape, fill_value, aval.dtype if dtype is None else dtype, weak)


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)
empty_like = _like("empty_like", 0)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """An array of `fill_value` with the shape and dtype of `a` (or the given ones)."""
    from pyjax._src.numpy.shape_ops import broadcast_to

    if hasattr(a, "dtype") and hasattr(a, "shape"):
        check_arraylike("full_like", 0, fill_value)
    else:
        check_arraylike("full_like", a, fill_value)
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full_like")
    if shape is not None:
        shape = canonicalize_shape(shape)
    if np.ndim(fill_value) == 0 if not _is_array(fill_value) else aval_of(fill_value).ndim == 0:
        return _full_like(a, fill_value, dtype, shape)
    shape = aval_of(a).shape if shape is None else shape
    dtype = dtypes.result_type(a) if dtype is None else dtype
    return broadcast_to(asarray(fill_value, dtype=dtype), shape)


# ---------------------------------------------------------------------------
# Ranges


def _concrete_or_error(value, context: str):
    if value is None:
        return None
    if isinstance(value, core.Tracer):
        concrete = _concrete(value)
        if concrete is None:
            raise errors.ConcretizationTypeError(value, context)
        return concrete
    if type(value) is Array:
        return np.asarray(value._value)
    return value


def _arange_symbolic(start, stop, step, dtype):
    # A length that is a dimension expression: start + step * iota(length), as JAX builds it.
    if not all(shape_poly.is_symbolic_dim(v) or shape_poly.is_constant_dim(v) for v in (start, stop, step)):
        raise ValueError("In arange with non-constant arguments all of start, stop, and step must be either "
                         f"dimension expressions or integers: start={start}, stop={stop}, step={step}")
    if step == 0:
        raise ValueError("arange has step == 0")
    up = shape_poly.step_is_positive(step, "arange with non-constant arguments")
    gap = step if up else -step
    size = shape_poly.dim_max(0, ((stop - start) if up else (start - stop)) + gap - 1) // gap
    return array(start, dtype=dtype) + array(step, dtype=dtype) * lax_shapes.iota(dtype, size)


@dispatch.fast_path
def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values in [start, stop) with spacing `step`.

    The arguments must be concrete (the length is static). Example:
      >>> jnp.arange(1, 7, 2.0)
      Array([1., 3., 5.], dtype=float32)
    """
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "arange")
    for v in (start, stop, step):
        if v is not None and not (type(v) in _PY_SCALARS or isinstance(v, (np.ndarray, np.generic)) or _is_array(v)
                                  or shape_poly.is_symbolic_dim(v)):
            raise TypeError(f"arange requires ndarray, scalar, or None arguments, got {type(v)} at position "
                            f"{(start, stop, step).index(v)}.")
    start_name = "stop" if stop is None and step is None else "start"
    start = _concrete_or_error(start, f"It arose in the jnp.arange argument '{start_name}'")
    stop = _concrete_or_error(stop, "It arose in the jnp.arange argument 'stop'")
    step = _concrete_or_error(step, "It arose in the jnp.arange argument 'step'")
    if any(shape_poly.is_symbolic_dim(v) for v in (start, stop, step)):
        if stop is None:
            start, stop = 0, start
        return _arange_symbolic(start, stop, 1 if step is None else step, dtype or dtypes.default_int_dtype())
    for name, val in ((start_name, start), ("stop", stop), ("step", step)):
        if val is not None and np.ndim(val) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={val}")
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(dtypes.result_type(start, *(x for x in (stop, step) if x is not None)))
    if any(isinstance(v, (complex, np.complexfloating)) or np.iscomplexobj(v) for v in (start, stop, step)
           if v is not None):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer supported starting in JAX v0.10.0.")
    if stop is None:
        start, stop = 0, start
    if step is not None and out_sharding is not None:
        from pyjax._src.sharding.api import reshard

        return reshard(arange(start, stop, step, dtype), out_sharding)
    if step is not None:
        working = np.dtype(np.float32) if (dtypes.issubdtype(dtype, np.floating)
                                           and dtypes.finfo(dtype).bits < 32) else dtype
        size = max(0, int(np.ceil((stop - start) / step)))
        return lax_convert(
            lax_ew.add(lax_convert(start, working),
                       lax_ew.mul(lax_convert(step, working),
                                  lax_shapes.broadcasted_iota(working, (size,), 0))), dtype)
    if start == 0:
        return lax_shapes.broadcasted_iota(dtype, (max(0, int(np.ceil(stop))),), 0, out_sharding=out_sharding)
    if out_sharding is not None:
        from pyjax._src.sharding.api import reshard  # (placed as asked: JAX's arange reshards)

        return reshard(arange(start, stop, step, dtype), out_sharding)
    size = max(0, int(np.ceil(stop - start)))
    return lax_ew.add(lax_convert(start, dtype), lax_shapes.broadcasted_iota(dtype, (size,), 0))


@dispatch.fast_path
def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis: int = 0,
             *, device=None):
    """`num` evenly spaced samples from `start` to `stop` (inclusive unless
    `endpoint=False`); `start` and `stop` may be arrays (the samples run
    along `axis`).

    Example:
      >>> jnp.linspace(0, 1, 5)
      Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num = operator.index(_concrete_or_error(num, "'num' argument of jnp.linspace"))
    axis = operator.index(_concrete_or_error(axis, "'axis' argument of jnp.linspace"))
    return _linspace(start, stop, num, endpoint, retstep, dtype, axis)


@jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    from pyjax._src.numpy.shape_ops import broadcast_to

    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = ensure_arraylike("linspace", start, stop)
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "linspace")
    computation_dtype = dtypes.to_inexact_dtype(dtype)
    start = start.astype(computation_dtype)
    stop = stop.astype(computation_dtype)
    bounds_shape = list(np.broadcast_shapes(aval_of(start).shape, aval_of(stop).shape))
    broadcast_start = broadcast_to(start, bounds_shape)
    broadcast_stop = broadcast_to(stop, bounds_shape)
    axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
    bounds_shape.insert(axis, 1)
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = lax_convert(stop - start, computation_dtype) / asarray(div, dtype=computation_dtype)
        iota_shape = [1] * len(bounds_shape)
        iota_shape[axis] = div
        real_dtype = dtypes.finfo(computation_dtype).dtype
        step = lax_shapes.iota(real_dtype, div).reshape(iota_shape) / asarray(div, real_dtype)
        step = step.astype(computation_dtype)
        out = broadcast_start.reshape(bounds_shape) * (1 - step) + broadcast_stop.reshape(bounds_shape) * step
        if endpoint:
            out = lax_shapes.concatenate([out, lax_shapes.expand_dims(broadcast_stop, (axis,))],
                                         canonicalize_axis(axis, aval_of(out).ndim))
    elif num == 1:
        delta = asarray(np.nan if endpoint else stop - start, dtype=computation_dtype)
        out = broadcast_start.reshape(bounds_shape)
    else:
        empty_shape = list(np.broadcast_shapes(aval_of(start).shape, aval_of(stop).shape))
        empty_shape.insert(axis, 0)
        delta = lax_full((), np.nan, computation_dtype)
        out = empty(empty_shape, dtype)
    if dtypes.issubdtype(dtype, np.integer) and not dtypes.issubdtype(aval_of(out).dtype, np.integer):
        out = lax_ew.floor(out)
    result = convert_element_type(out, dtype)
    return (result, delta) if retstep else result


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0):
    """`num` samples spaced evenly on a log scale: base**linspace(start, stop)."""
    num = operator.index(_concrete_or_error(num, "'num' argument of jnp.logspace"))
    axis = operator.index(_concrete_or_error(axis, "'axis' argument of jnp.logspace"))
    return _logspace(start, stop, num, endpoint, base, dtype, axis)


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    from pyjax._src.numpy.ufuncs_extra import power

    if dtype is None:
        dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "logspace")
    computation_dtype = dtypes.to_inexact_dtype(dtype)
    start, stop = ensure_arraylike("logspace", start, stop)
    start = start.astype(computation_dtype)
    stop = stop.astype(computation_dtype)
    lin = linspace(start, stop, num, endpoint=endpoint, retstep=False, dtype=None, axis=axis)
    return lax_convert(power(base, lin), dtype)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """`num` samples spaced evenly on a log scale between `start` and `stop`
    (a geometric progression; negative bounds keep their sign)."""
    num = operator.index(_concrete_or_error(num, "'num' argument of jnp.geomspace"))
    axis = operator.index(_concrete_or_error(axis, "'axis' argument of jnp.geomspace"))
    return _geomspace(start, stop, num, endpoint, dtype, axis)


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    from pyjax._src.numpy.ufuncs import log10, sign

    if dtype is None:
        dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "geomspace")
    computation_dtype = dtypes.to_inexact_dtype(dtype)
    start, stop = ensure_arraylike("geomspace", start, stop)
    start = start.astype(computation_dtype)
    stop = stop.astype(computation_dtype)
    s = sign(start)
    res = s * logspace(log10(start / s), log10(stop / s), num, endpoint=endpoint, base=10.0,
                       dtype=computation_dtype, axis=0)
    axis = canonicalize_axis(axis, aval_of(res).ndim)
    if axis != 0:
        res = lax_shapes.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, aval_of(res).ndim)))
    return lax_convert(res, dtype)


# ---------------------------------------------------------------------------
# Matrices of ones and zeros


@dispatch.fast_path
def eye(N, M=None, k=0, dtype=None, *, device=None):
    """A 2-D array with ones on the k-th diagonal and zeros elsewhere."""
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "eye")
    if isinstance(k, int):
        info = np.iinfo(np.int32)
        k = int(np.clip(k, info.min, info.max))
    offset = ensure_arraylike("eye", k)
    if not (aval_of(offset).shape == () and dtypes.issubdtype(aval_of(offset).dtype, np.integer)):
        raise ValueError(f"k must be a scalar integer; got {k}")
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    if n < 0 or m < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    i = lax_shapes.broadcasted_iota(aval_of(offset).dtype, (n, m), 0)
    j = lax_shapes.broadcasted_iota(aval_of(offset).dtype, (n, m), 1)
    return (i + offset == j).astype(dtype)


def identity(n, dtype=None):
    """The n x n identity matrix."""
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "identity")
    return eye(n, dtype=dtype)


def _tri(dtype, shape, offset):
    offset = asarray(offset)
    if not dtypes.issubdtype(aval_of(offset).dtype, np.integer):
        raise TypeError(f"offset must be an integer, got {offset!r}")
    index_dtype = np.dtype(np.int64) if any(d > np.iinfo(np.int32).max for d in shape) else np.dtype(np.int32)
    info, limits = np.iinfo(aval_of(offset).dtype), np.iinfo(index_dtype)
    if info.min < limits.min or info.max > limits.max:
        index_dtype = np.dtype(np.int64)
    below = lax_ew.ge(lax_ew.add(lax_shapes.broadcasted_iota(index_dtype, shape, 0), offset.astype(index_dtype)),
                      lax_shapes.broadcasted_iota(index_dtype, shape, 1))
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "tri")
    if dtype == np.bool_:
        return below  # a no-op conversion is dropped, as JAX's forwarding rule drops it
    return lax_ew.convert_element_type_p.bind(below, new_dtype=dtype, weak_type=False, sharding=None)


def tri(N: int, M: int | None = None, k: int = 0, dtype=None):
    """An (N, M) array with ones at and below the k-th diagonal."""
    dtype = np.dtype(np.float32) if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "tri")
    return _tri(dtype, (N, N if M is None else M), k)


@jit(static_argnames=("k",))
def tril(m, k: int = 0):
    """The lower triangle of `m` (of its last two axes), zeros above the k-th
    diagonal."""
    m = ensure_arraylike("tril", m)
    shape = aval_of(m).shape
    if len(shape) < 2:
        raise ValueError("Argument to jax.numpy.tril must be at least 2D")
    mask = lax_shapes.broadcast(tri(shape[-2], shape[-1], k=k, dtype=bool), shape[:-2])
    return lax_ew.select(mask, m, zeros_like(m))


@jit(static_argnames=("k",))
def triu(m, k: int = 0):
    """The upper triangle of `m` (of its last two axes), zeros below the k-th
    diagonal."""
    m = ensure_arraylike("triu", m)
    shape = aval_of(m).shape
    if len(shape) < 2:
        raise ValueError("Argument to jax.numpy.triu must be at least 2D")
    mask = lax_shapes.broadcast(tri(shape[-2], shape[-1], k=k - 1, dtype=bool), shape[:-2])
    return lax_ew.select(mask, zeros_like(m), m)


# ---------------------------------------------------------------------------
# Grids


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """Coordinate grids from 1-D coordinate vectors ('xy': Cartesian, 'ij':
    matrix indexing; `sparse` keeps length-1 axes)."""
    args = [ensure_arraylike("meshgrid", x) for x in xi]
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(aval_of(a).ndim != 1 for a in args):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes {[aval_of(a).shape for a in args]}")
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else aval_of(a).shape[0] for a in args]

    def grid_shape(i, a):
        return [*shape[:i], aval_of(a).shape[0], *shape[i + 1:]] if sparse else shape

    output = [lax_shapes.broadcast_in_dim(a, grid_shape(i, a), (i,)) for i, a in enumerate(args)]
    if indexing == "xy" and len(args) >= 2:
        output[0], output[1] = output[1], output[0]
    return output


def indices(dimensions, dtype=None, sparse: bool = False):
    """The index grid of an array of shape `dimensions` (stacked along a new
    first axis, or a tuple of broadcastable arrays if `sparse`)."""
    from pyjax._src.numpy.joining import stack

    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype, "indices")
    dimensions = tuple(operator.index(_concrete_or_error(d, "dimensions argument of jnp.indices"))
                       for d in dimensions)
    n = len(dimensions)
    output = []
    s = dimensions
    for i, dim in enumerate(dimensions):
        idx = lax_shapes.iota(dtype, dim)
        if sparse:
            s = (1,) * i + (dim,) + (1,) * (n - i - 1)
        output.append(lax_shapes.broadcast_in_dim(idx, s, (i,)))
    if sparse:
        return tuple(output)
    return stack(output, 0) if output else array([], dtype=dtype)


def ix_(*args) -> tuple:
    """Open meshes from 1-D index sequences, for x[ix_(rows, cols)]."""
    args = [ensure_arraylike("ix", a) for a in args]
    n = len(args)
    output = []
    for i, a in enumerate(args):
        if aval_of(a).ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {aval_of(a).shape}")
        if aval_of(a).dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * n
        shape[i] = aval_of(a).shape[0]
        if aval_of(a).size == 0:
            output.append(lax_full(shape, np.zeros((), np.intp), dtypes.canonicalize_dtype(np.intp)))
        else:
            output.append(lax_shapes.broadcast_in_dim(a, shape, (i,)))
    return tuple(output)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """`function` evaluated on the index grid of `shape` (vectorized with vmap,
    so `function` is traced once)."""
    from pyjax._src.api import vmap

    shape = canonicalize_shape(shape)
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)


def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
    """An array from a bytes-like buffer (as numpy.frombuffer)."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype=float, count: int = -1, *, sep: str):
    """An array from text (as numpy.fromstring with a separator)."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def _impure(name: str):
    def fn(*args, **kwargs):
        raise NotImplementedError(
            f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use with JIT and "
            f"other JAX transformations. Consider using jnp.asarray(np.{name}(...)) instead, although care "
            f"should be taken if np.{name} is used within a jax transformations because of its potential "
            f"side-effect of consuming the {'file' if name == 'fromfile' else 'iterable'} object; for more "
            "information see https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Not implemented: jnp.{name} could read outside state (use jnp.asarray(np.{name}(...)))."
    return fn


fromfile = _impure("fromfile")
fromiter = _impure("fromiter")


def from_dlpack(x, /, *, device=None, copy=None):
    """An array from a DLPack-exporting object (through NumPy)."""
    return asarray(np.from_dlpack(x))
