"""Array creation: array, asarray, zeros, ones, full, *_like, empty, arange.

Concrete data (Python scalars, lists, NumPy arrays) becomes an Array with a
canonical dtype. Made inside a trace, a new constant is handed to the trace
(`Trace.lift_constant`): a staging trace writes scalars inline as literals,
as JAX does, and larger values as constvars.
"""

from __future__ import annotations

import math


import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import aval_of

_PY_SCALARS = (bool, int, float, complex)


def _constant(value: np.ndarray, weak_type: bool):
    aval = ShapedArray(value.shape, value.dtype, weak_type)
    trace = core.current_trace()
    lift = getattr(trace, "lift_constant", None)
    if lift is not None:
        return lift(value, aval)
    return Array(value, aval)


def _to_numpy(obj, dtype):
    """NumPy value of nested lists/tuples/scalars/arrays (tracers are refused)."""
    if isinstance(obj, (list, tuple)):
        leaves = [_to_numpy(o, None) for o in obj]
        if dtype is None:
            dtype = dtypes.result_type(*[leaf if leaf.shape else leaf[()] for leaf in leaves]) if leaves else dtypes.default_float_dtype()
        return np.array([np.asarray(leaf, dtype) for leaf in leaves], dtype) if leaves else np.zeros((0,), dtype)
    if type(obj) is Array:
        return np.asarray(obj._value)
    if isinstance(obj, core.Tracer):
        raise TypeError("tracers inside nested lists are handled by jnp.stack")
    if type(obj) in _PY_SCALARS:
        return np.asarray(obj, dtypes.scalar_type_to_dtype(type(obj), obj) if dtype is None else dtype)
    return np.asarray(obj)


def array(object, dtype=None, copy: bool = True, order=None, ndmin: int = 0):
    """Creates an array (strongly typed, unlike asarray on a Python scalar)."""
    return _array(object, dtype, ndmin, weak_from_scalar=False)


def asarray(a, dtype=None, order=None, *, copy=None):
    """Converts `a` to an array; Python scalars stay weakly typed."""
    if dtype is None and (type(a) is Array or isinstance(a, core.Tracer)):
        return a
    return _array(a, dtype, 0, weak_from_scalar=True)


def _array(obj, dtype, ndmin: int, weak_from_scalar: bool):
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "array")
    if type(obj) is Array or isinstance(obj, core.Tracer):
        out = obj if dtype is None else lax_ew._convert_element_type(obj, dtype, False)
        if dtype is None and obj.aval.weak_type and not weak_from_scalar:
            out = lax_ew._convert_element_type(obj, obj.aval.dtype, False)
    elif isinstance(obj, (list, tuple)) and _contains_tracer(obj):
        from pyjax._src.numpy.shape_ops import stack

        out = stack([_array(o, dtype, 0, weak_from_scalar) for o in obj])
    else:
        weak = weak_from_scalar and dtype is None and type(obj) in _PY_SCALARS and type(obj) is not bool
        if hasattr(obj, "__jax_array__"):
            return _array(obj.__jax_array__(), dtype, ndmin, weak_from_scalar)
        value = _to_numpy(obj, dtype)
        if value.dtype == object:
            raise TypeError(f"JAX does not support object arrays; got {obj!r}")
        target = dtypes.canonicalize_dtype(value.dtype) if dtype is None else dtype
        if value.dtype != target:
            value = value.astype(target)
        elif isinstance(obj, np.ndarray):
            value = value.copy()
        out = _constant(value, weak)
    if ndmin > aval_of(out).ndim:
        shape = aval_of(out).shape
        pad = ndmin - len(shape)
        out = lax_shapes.broadcast_in_dim(out, (1,) * pad + shape, tuple(range(pad, ndmin)))
    return out


def _contains_tracer(obj) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(_contains_tracer(o) for o in obj)
    return isinstance(obj, (core.Tracer, Array))


def _shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)) or hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def full(shape, fill_value, dtype=None, *, device=None):
    """An array of `shape` filled with `fill_value`."""
    shape = _shape(shape)
    if dtype is None:
        fill = asarray(fill_value)
        dtype, weak = aval_of(fill).dtype, False
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full")
    if getattr(fill_value, "aval", None) is not None:
        fill = lax_ew._convert_element_type(fill_value, dtype, False)
        return lax_shapes.broadcast_in_dim(fill, shape, ()) if not fill.aval.shape else broadcast_to_shape(fill, shape)
    scalar = np.asarray(fill_value, dtype)
    if not shape and not scalar.shape:
        return _constant(scalar, False)
    if scalar.shape:
        return broadcast_to_shape(_constant(scalar, False), shape)
    return lax_shapes.broadcast_in_dim_p.bind(scalar[()], shape=shape, broadcast_dimensions=(), sharding=None)


def broadcast_to_shape(x, shape):
    from pyjax._src.numpy.shape_ops import broadcast_to

    return broadcast_to(x, shape)


def zeros(shape, dtype=None, *, device=None):
    """An array of zeros (float32 by default)."""
    return full(shape, 0, dtypes.default_float_dtype() if dtype is None else dtype)


def ones(shape, dtype=None, *, device=None):
    """An array of ones (float32 by default)."""
    return full(shape, 1, dtypes.default_float_dtype() if dtype is None else dtype)


def empty(shape, dtype=None, *, device=None):
    """Like zeros: JAX arrays are never uninitialised."""
    return zeros(shape, dtype)


def _like(name: str, fill):
    def fn(a, dtype=None, shape=None, *, device=None):
        aval = aval_of(a)
        return full(aval.shape if shape is None else shape, fill, aval.dtype if dtype is None else dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"An array of {fill} with the shape and dtype of `a`."
    return fn


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)
empty_like = _like("empty_like", 0)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """An array of `fill_value` with the shape and dtype of `a`."""
    aval = aval_of(a)
    return full(aval.shape if shape is None else shape, fill_value, aval.dtype if dtype is None else dtype)


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in [start, stop): an iota, shifted and scaled."""
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(value, core.Tracer):
            raise core_concretization(value, name)
    if stop is None and step is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if dtype is None:
        dtype = dtypes.result_type(*[v for v in (start, stop, step) if v is not None])
        dtype = dtypes.canonicalize_dtype(dtype)
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "arange")
    start_v, stop_v, step_v = (np.asarray(v).item() for v in (start, stop, step))
    size = max(0, math.ceil((stop_v - start_v) / step_v))
    out = lax_shapes.iota(dtype, size)
    if step_v != 1:
        out = lax_ew.mul_p.bind(out, np.asarray(step_v, dtype)[()])
    if start_v != 0:
        out = lax_ew.add_p.bind(np.asarray(start_v, dtype)[()], out)
    return out


def core_concretization(tracer, name):
    from pyjax._src import errors

    return errors.ConcretizationTypeError(tracer, f"It arose in the jnp.arange argument '{name}'.\n")


def eye(N: int, M: int | None = None, k: int = 0, dtype=None):
    """A 2-D array with ones on the k-th diagonal."""
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "eye")
    M = N if M is None else M
    rows = lax_shapes.broadcasted_iota(np.int32, (N, M), 0)
    cols = lax_shapes.broadcasted_iota(np.int32, (N, M), 1)
    if k:
        rows = lax_ew.add_p.bind(rows, np.int32(k))
    return lax_ew._convert_element_type(lax_ew.eq_p.bind(rows, cols), dtype, False)


def identity(n: int, dtype=None):
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


