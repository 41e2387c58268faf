"""Operators and methods of Array and of tracers.

Both classes get the same set, defined once here on top of pyjax.numpy:
`x + y` is `jnp.add(x, y)`, `x.sum()` is `jnp.sum(x)`, and so on. This is
the one place an upper layer extends a lower one's classes (JAX does the
same); it keeps core and array free of any numpy-layer import.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, dispatch, dtypes
from pyjax._src.array import Array
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.numpy import (
    at,
    contractions,
    creation,
    cumulative,
    indexing,
    joining,
    matrices,
    nonzero,
    reductions,
    shape_ops,
    take,
    ufuncs,
    ufuncs_extra,
)
from pyjax._src.numpy.util import convert_element_type


class _LazyMethod:
    """A method whose jnp module loads at its first lookup (sorting, misc:
    not part of `import pyjax`): the lookup puts the function itself on
    Array and Tracer, so later lookups, and calls, are as for any method."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __get__(self, obj, cls=None):
        import importlib

        fn = getattr(importlib.import_module(f"pyjax._src.numpy.{self.module}"), self.name)
        for klass in (Array, core.Tracer):
            if klass.__dict__.get(self.name) is self:
                setattr(klass, self.name, fn)
        get = getattr(type(fn), "__get__", None)  # (bound as a class attribute's lookup binds it)
        return fn if get is None else get(fn, obj, cls)


def _swap(fn):
    return lambda self, other: fn(other, self)


def _defer(fn):
    # Return NotImplemented for operands jnp does not accept (lists, tuples,
    # foreign objects) so Python can try the reflected operation.
    def method(self, other):
        tx = type(other)
        if tx is list or tx is tuple or tx is dict or tx is set or tx is str:
            raise TypeError(f"unsupported operand type(s) for {fn.__name__}: '{type(self).__name__}' and '{tx.__name__}'")
        if getattr(tx, "_defer_binops_to_me", False):  # e.g. sparse arrays: their reflected method runs
            return NotImplemented
        return fn(self, other)

    return method


def _astype(self, dtype, copy: bool = False, device=None):
    if type(self) is Array and isinstance(self.aval.dtype, dtypes.ExtendedDType):
        # JAX's concrete key arrays have no astype (a traced key's reaches
        # convert_element_type, which refuses it).
        raise NotImplementedError("Cannot call abstract method astype")
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "astype")
    if dtypes.issubdtype(self.aval.dtype, np.complexfloating) and dtype == np.bool_:
        # convert_element_type(complex, bool) would look at the real part only.
        self = ufuncs.not_equal(self, np.zeros((), self.aval.dtype)[()])
    if dtypes.issubdtype(self.aval.dtype, np.complexfloating) and not dtypes.issubdtype(dtype, np.complexfloating):
        return lax_ew._convert_element_type(self, dtype, False, warn_on_complex_to_real_cast=False)
    return convert_element_type(self, dtype, False)


_astype = dispatch.fast_path(_astype)  # eager calls run a compiled program (dispatch.py)


def _iter(self):
    shape = self.aval.shape
    if not shape:
        raise TypeError("iteration over a 0-d array")
    if isinstance(self, core.Tracer):
        # Traced, the rows are one `unstack` equation, as in JAX 0.11
        # (`a, b = keys`, `for row in x` under jit, grad or vmap).
        from pyjax._src.lax.stack import unstack

        return iter(unstack(self, 0))
    return (indexing.getitem(self, i, check_keys=False) for i in range(shape[0]))


def _flatten(self, order="C"):
    return shape_ops.ravel(self, order)


def _real(self):
    return ufuncs.real(self)


def _imag(self):
    return ufuncs.imag(self)


def _conj(self):
    return ufuncs.conjugate(self)


def _nonzero(self, *, fill_value=None, size=None):
    return nonzero.nonzero(self, fill_value=fill_value, size=size)


def _round(self, decimals=0, out=None):
    return ufuncs_extra.round(self, decimals, out)


def _clip(self, min=None, max=None):
    return ufuncs_extra.clip(self, min, max)


def _copy(self, order=None):
    return creation.copy(self, order)


def _view(self, dtype=None, type=None):
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    from pyjax._src.lax import elementwise as ew

    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "view")
    if np.dtype(dtype).itemsize != self.aval.dtype.itemsize:
        raise NotImplementedError("view with a dtype of another item size is not supported in pyjax")
    return ew.bitcast_convert_type(self, dtype)


_METHODS = {
    "__add__": ufuncs.add.method,
    "__radd__": ufuncs.add.reflected,
    "__sub__": ufuncs.subtract.method,
    "__rsub__": ufuncs.subtract.reflected,
    "__mul__": ufuncs.multiply.method,
    "__rmul__": ufuncs.multiply.reflected,
    "__truediv__": ufuncs.true_divide.method,
    "__rtruediv__": ufuncs.true_divide.reflected,
    "__floordiv__": _defer(ufuncs_extra.floor_divide),
    "__rfloordiv__": _defer(_swap(ufuncs_extra.floor_divide)),
    "__divmod__": _defer(ufuncs_extra.divmod),
    "__rdivmod__": _defer(_swap(ufuncs_extra.divmod)),
    "__mod__": _defer(ufuncs_extra.remainder),
    "__rmod__": _defer(_swap(ufuncs_extra.remainder)),
    "__pow__": _defer(ufuncs_extra.power),
    "__rpow__": _defer(_swap(ufuncs_extra.power)),
    "__matmul__": _defer(contractions.matmul),
    "__rmatmul__": _defer(_swap(contractions.matmul)),
    "__and__": ufuncs.bitwise_and.method,
    "__rand__": ufuncs.bitwise_and.reflected,
    "__or__": ufuncs.bitwise_or.method,
    "__ror__": ufuncs.bitwise_or.reflected,
    "__xor__": ufuncs.bitwise_xor.method,
    "__rxor__": ufuncs.bitwise_xor.reflected,
    "__lshift__": _defer(ufuncs.left_shift),
    "__rlshift__": _defer(_swap(ufuncs.left_shift)),
    "__rshift__": _defer(ufuncs.right_shift),
    "__rrshift__": _defer(_swap(ufuncs.right_shift)),
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
    "__round__": _round,
    "all": reductions.all,
    "any": reductions.any,
    "argmax": reductions.argmax,
    "argmin": reductions.argmin,
    "argpartition": _LazyMethod("sorting", "argpartition"),
    "argsort": _LazyMethod("sorting", "argsort"),
    "astype": _astype,
    "choose": _LazyMethod("misc", "choose"),
    "clip": _clip,
    "compress": nonzero.compress,
    "conj": _conj,
    "conjugate": _conj,
    "copy": _copy,
    "cumprod": cumulative.cumprod,
    "cumsum": cumulative.cumsum,
    "diagonal": matrices.diagonal,
    "dot": contractions.dot,
    "flatten": _flatten,
    "max": reductions.max,
    "mean": reductions.mean,
    "min": reductions.min,
    "nonzero": _nonzero,
    "prod": reductions.prod,
    "ptp": reductions.ptp,
    "ravel": shape_ops.ravel,
    "repeat": joining.repeat,
    "reshape": shape_ops.array_reshape,
    "round": _round,
    "searchsorted": _LazyMethod("sorting", "searchsorted"),
    "sort": _LazyMethod("sorting", "sort"),
    "squeeze": shape_ops.squeeze,
    "std": reductions.std,
    "sum": reductions.sum,
    "swapaxes": shape_ops.swapaxes,
    "take": take.take,
    "trace": matrices.trace,
    "transpose": shape_ops.array_transpose,
    "var": reductions.var,
    "view": _view,
    "T": property(lambda self: shape_ops.transpose(self)),
    "mT": property(lambda self: shape_ops.matrix_transpose(self)),
    "real": property(_real),
    "imag": property(_imag),
    "at": at.at_property,
}


def install() -> None:
    for name, method in _METHODS.items():
        setattr(Array, name, method)
        setattr(core.Tracer, name, method)
    core.Tracer.__getitem__ = _tracer_getitem
    # Defining __eq__ removes the inherited __hash__; both stay unhashable, as in JAX.
    Array.__hash__ = Array.__dict__.get("__hash__") or _unhashable("ArrayImpl")
    core.Tracer.__hash__ = _unhashable_tracer


def _tracer_getitem(self, idx):
    getter = getattr(self.aval, "_getitem", None)
    if getter is not None:  # a traced mutable array reference (jax.Ref) reads through its aval
        return getter(self, idx)
    return indexing.getitem(self, idx)


def _unhashable(name):
    def __hash__(self):
        raise TypeError(f"unhashable type: '{name}'")

    return __hash__


def _unhashable_tracer(self):
    raise TypeError(f"unhashable type: '{type(self).__name__}'")
