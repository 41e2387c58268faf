"""Operators and methods of Array and of tracers.

Both classes get the same set, defined once here on top of pyjax.numpy:
`x + y` is `jnp.add(x, y)`, `x.sum()` is `jnp.sum(x)`, and so on. This is
the one place an upper layer extends a lower one's classes (JAX does the
same); it keeps core and array free of any numpy-layer import.
"""

from __future__ import annotations

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.numpy import at, contractions, creation, indexing, reductions, shape_ops, ufuncs
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src import dtypes


def _swap(fn):
    return lambda self, other: fn(other, self)


def _defer(fn):
    # Return NotImplemented for operands jnp does not accept (lists, tuples,
    # foreign objects) so Python can try the reflected operation.
    def method(self, other):
        tx = type(other)
        if tx is list or tx is tuple or tx is dict or tx is set or tx is str:
            raise TypeError(f"unsupported operand type(s) for {fn.__name__}: '{type(self).__name__}' and '{tx.__name__}'")
        return fn(self, other)

    return method


def _astype(self, dtype, copy: bool = False, device=None):
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "astype")
    return lax_ew._convert_element_type(self, dtype, False)


def _reshape(self, *args, order="C", **kwargs):
    shape = args[0] if len(args) == 1 else args
    if "shape" in kwargs:
        shape = kwargs["shape"]
    return shape_ops.reshape(self, shape, order)


def _transpose(self, *args):
    axes = None if not args else (args[0] if len(args) == 1 and not isinstance(args[0], int) else args)
    return shape_ops.transpose(self, axes)


def _iter(self):
    shape = self.aval.shape
    if not shape:
        raise TypeError("iteration over a 0-d array")
    return (indexing.getitem(self, i) for i in range(shape[0]))


_METHODS = {
    "__add__": ufuncs.add.method,
    "__radd__": ufuncs.add.reflected,
    "__sub__": ufuncs.subtract.method,
    "__rsub__": ufuncs.subtract.reflected,
    "__mul__": ufuncs.multiply.method,
    "__rmul__": ufuncs.multiply.reflected,
    "__truediv__": ufuncs.true_divide.method,
    "__rtruediv__": ufuncs.true_divide.reflected,
    "__floordiv__": _defer(ufuncs.floor_divide),
    "__rfloordiv__": _defer(_swap(ufuncs.floor_divide)),
    "__mod__": _defer(ufuncs.remainder),
    "__rmod__": _defer(_swap(ufuncs.remainder)),
    "__pow__": _defer(ufuncs.power),
    "__rpow__": _defer(_swap(ufuncs.power)),
    "__matmul__": _defer(contractions.matmul),
    "__rmatmul__": _defer(_swap(contractions.matmul)),
    "__and__": ufuncs.bitwise_and.method,
    "__rand__": ufuncs.bitwise_and.reflected,
    "__or__": ufuncs.bitwise_or.method,
    "__ror__": ufuncs.bitwise_or.reflected,
    "__xor__": ufuncs.bitwise_xor.method,
    "__rxor__": ufuncs.bitwise_xor.reflected,
    "__lt__": ufuncs.less.method,
    "__le__": ufuncs.less_equal.method,
    "__gt__": ufuncs.greater.method,
    "__ge__": ufuncs.greater_equal.method,
    "__eq__": ufuncs.equal.method,
    "__ne__": ufuncs.not_equal.method,
    "__neg__": ufuncs.negative,
    "__pos__": ufuncs.positive,
    "__abs__": ufuncs.absolute,
    "__invert__": ufuncs.invert,
    "__getitem__": indexing.getitem,
    "__iter__": _iter,
    "sum": reductions.sum,
    "prod": reductions.prod,
    "max": reductions.max,
    "min": reductions.min,
    "mean": reductions.mean,
    "all": reductions.all,
    "any": reductions.any,
    "argmax": reductions.argmax,
    "argmin": reductions.argmin,
    "astype": _astype,
    "reshape": _reshape,
    "transpose": _transpose,
    "ravel": shape_ops.ravel,
    "flatten": shape_ops.ravel,
    "squeeze": shape_ops.squeeze,
    "swapaxes": shape_ops.swapaxes,
    "dot": contractions.dot,
    "T": property(lambda self: shape_ops.transpose(self)),
    "mT": property(lambda self: shape_ops.matrix_transpose(self)),
    "real": property(lambda self: lax_ew.real_p.bind(self) if self.dtype.kind == "c" else self),
    "imag": property(lambda self: lax_ew.imag_p.bind(self) if self.dtype.kind == "c" else creation.zeros_like(self)),
    "at": at.at_property,
    "conj": lambda self: lax_ew.conj(self) if self.dtype.kind == "c" else self,
}


def install() -> None:
    for name, method in _METHODS.items():
        setattr(Array, name, method)
        setattr(core.Tracer, name, method)
    # Defining __eq__ removes the inherited __hash__; both stay unhashable, as in JAX.
    Array.__hash__ = Array.__dict__.get("__hash__") or _unhashable("ArrayImpl")
    core.Tracer.__hash__ = _unhashable_tracer


def _unhashable(name):
    def __hash__(self):
        raise TypeError(f"unhashable type: '{name}'")

    return __hash__


def _unhashable_tracer(self):
    raise TypeError(f"unhashable type: '{type(self).__name__}'")
