"""Array: the immutable, concrete value that eager code and jit return.

On the NumPy backend an Array holds a NumPy buffer and its aval (the aval
carries what NumPy cannot: the weak type and, later, the sharding). Arrays
are never mutated; `np.asarray(x)` gives a read-only view. Operators and
array methods (`x + 1`, `x.sum()`, `x.at[...]`) are installed by the numpy
layer, the same set as on tracers.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.sharding import devices as _devices
from pyjax._src.sharding.named import SingleDeviceSharding


# The device an unplaced Array lives on, and its sharding.
_DEFAULT_DEVICE = _devices.default_device()
_DEFAULT_SHARDING = SingleDeviceSharding(_DEFAULT_DEVICE)


class _ArrayMeta(type):
    # `isinstance(tracer, jax.Array)` is True in JAX: a traced value is an Array too.
    def __instancecheck__(cls, instance):
        return type.__instancecheck__(cls, instance) or isinstance(instance, core.Tracer)


class Array(metaclass=_ArrayMeta):
    """A concrete array: a NumPy buffer and its aval."""

    # (_consumed, _source_info: a typed key's state under jax_debug_key_reuse,
    # set only there; interpreters/key_reuse.py.)
    __slots__ = ("_value", "aval", "_consumed", "_source_info", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value, aval: ShapedArray):
        self._value = value
        self.aval = aval

    # --- metadata
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    sharding = property(lambda self: _DEFAULT_SHARDING)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    def devices(self) -> set:
        return {_DEFAULT_DEVICE}

    @property
    def device(self):
        return _DEFAULT_DEVICE

    def block_until_ready(self) -> Array:
        return self

    is_fully_addressable = property(lambda self: True)
    is_fully_replicated = property(lambda self: True)

    @property
    def addressable_shards(self) -> list:
        from pyjax._src.sharding.sharded_array import Shard

        return [Shard(_DEFAULT_DEVICE, (slice(None),) * self.ndim, 0, self)]

    global_shards = addressable_shards

    def addressable_data(self, index: int) -> Array:
        return [self][index]

    def copy_to_host_async(self) -> None:
        return None

    # --- conversions to Python and NumPy
    def __array__(self, dtype=None, copy=None):
        if isinstance(self.aval.dtype, dtypes.ExtendedDType):  # e.g. PRNG keys: the dtype decides
            return self.aval.dtype._rules.to_numpy(self.aval.dtype, self._value)
        value = np.asarray(self._value)
        if dtype is not None and value.dtype != dtype:
            return value.astype(dtype)
        if copy:
            return value.copy()
        view = value.view()
        view.flags.writeable = False
        return view

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Exports the buffer as a DLPack capsule (NumPy's, read-only: Arrays are immutable)."""
        if isinstance(self.aval.dtype, dtypes.ExtendedDType):
            raise BufferError(f"DLPack export is not supported for arrays of dtype {self.aval.dtype}")
        view = np.asarray(self._value).view()
        view.flags.writeable = False
        kwargs = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device), ("copy", copy))
                  if v is not None}
        if stream is not None:
            kwargs["stream"] = stream
        return view.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple:
        """The DLPack device of the buffer: the host CPU, device 0."""
        return np.empty(0).__dlpack_device__()

    def __bool__(self):
        if isinstance(self.aval.dtype, dtypes.ExtendedDType):  # a key's record buffer is always truthy
            raise TypeError("key array cannot be converted to boolean.")
        return bool(self._value)

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __complex__(self):
        return complex(self._value)

    def __index__(self):
        if not np.issubdtype(self.aval.dtype, np.integer):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        return int(self._value)

    def item(self, *args):
        return np.asarray(self._value).item(*args)

    def tolist(self):
        return np.asarray(self._value).tolist()

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __hash__(self):
        raise TypeError("unhashable type: 'ArrayImpl'")

    def __reduce__(self):
        # (copy.copy and copy.deepcopy go through here too.) An extended
        # dtype (a PRNG key's) travels with the buffer: the buffer's record
        # dtype alone would come back as a plain void array.
        if isinstance(self.aval.dtype, dtypes.ExtendedDType):
            return _reconstruct, (np.asarray(self._value), self.aval.weak_type, self.aval.dtype)
        return _reconstruct, (np.asarray(self._value), self.aval.weak_type)

    def __format__(self, spec):
        if self.aval.shape or isinstance(self.aval.dtype, dtypes.ExtendedDType):
            return format(str(self), spec)
        return format(np.asarray(self._value).item(), spec)

    # --- printing
    def __repr__(self):
        if isinstance(self.aval.dtype, dtypes.ExtendedDType):
            return self.aval.dtype._rules.repr(self.aval, self._value)
        prefix = "Array("
        value = np.asarray(self._value)
        dtype = self.aval.dtype
        if value.size == 0:
            body = f"[], shape={value.shape}"
        else:
            body = np.array2string(value, prefix=prefix, suffix=",", separator=", ")
        weak = ", weak_type=True" if self.aval.weak_type else ""
        return f"{prefix}{body}, dtype={dtype.name}{weak})"

    def __str__(self):
        if isinstance(self.aval.dtype, dtypes.ExtendedDType):
            return repr(self)
        return str(np.asarray(self._value))

    def __setitem__(self, index, value):
        raise TypeError(
            "JAX arrays are immutable and do not support in-place item assignment. Instead of "
            "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
            "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
        )

    # --- donation
    def delete(self) -> None:
        """Releases the buffer; any later use raises JAX's 'Array has been deleted'."""
        self._value = _DeletedBuffer(self.aval)

    def is_deleted(self) -> bool:
        return type(self._value) is _DeletedBuffer


class _DeletedBuffer:
    """Stands in for a donated or deleted buffer. NumPy consults these hooks
    before computing anything, so every use raises the error, while live
    arrays pay nothing for the check."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def _error(self, *args, **kwargs):
        raise RuntimeError(f"Array has been deleted with shape={self.aval.strip_weak_type()}.")

    __array__ = __array_ufunc__ = __array_function__ = _error
    __float__ = __int__ = __bool__ = __index__ = __complex__ = _error


def guard_forwarded(fn, jaxpr):
    """`fn`, the executable of `jaxpr`, raising JAX's 'Array has been
    deleted' for a deleted input the program returns as it is: nothing reads
    such a buffer, so its own hooks never fire."""
    forwarded = [i for i, v in enumerate(jaxpr.invars) if any(o is v for o in jaxpr.outvars)]
    if not forwarded:
        return fn

    def guarded(*buffers):
        for i in forwarded:
            if type(buffers[i]) is _DeletedBuffer:
                buffers[i]._error()
        return fn(*buffers)

    return guarded


def _reconstruct(value, weak_type, dtype=None):
    return Array(value, ShapedArray(value.shape, value.dtype if dtype is None else dtype, weak_type))


def device_put_numpy(value: np.ndarray, weak_type: bool = False) -> Array:
    """Wraps a NumPy value (already of a canonical dtype) as an Array."""
    return Array(value, ShapedArray(value.shape, value.dtype, weak_type))
