"""Abstract values: what a tracer knows about the array it stands for.

An aval is a type, never a value: shape, dtype, weak type, and the placement
slots (sharding, memory space) that later issues give meaning to. Avals are
immutable and hashable because they are cache keys (abstract-eval caches,
jit's cache) and because jaxpr variables carry them.

    ShapedArray((2, 3), float32)   str -> 'float32[2,3]', short -> 'f32[2,3]'
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes


class ShapedArray:
    """The abstract value of an array: shape, dtype, weak type and placement.

    Avals are interned: equal avals are the same object, so hashing and
    comparing them (on every abstract-eval cache lookup and jit cache hit)
    costs an identity check.
    """

    __slots__ = ("shape", "dtype", "weak_type", "sharding", "memory_space", "__weakref__")
    _interned: dict = {}

    def __new__(cls, shape, dtype, weak_type=False, sharding=None, memory_space=None):
        key = (shape, dtype, weak_type, sharding, memory_space)
        try:
            return cls._interned[key]
        except (KeyError, TypeError):
            pass
        shape = tuple(int(d) for d in shape)
        # Extended dtypes (PRNG keys) are not NumPy dtypes and stay as they are.
        dtype = dtype if type(dtype) is np.dtype or isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        weak_type = bool(weak_type)
        canonical_key = (shape, dtype, weak_type, sharding, memory_space)
        self = cls._interned.get(canonical_key)
        if self is None:
            self = object.__new__(cls)
            self.shape, self.dtype, self.weak_type = shape, dtype, weak_type
            self.sharding, self.memory_space = sharding, memory_space
            cls._interned[canonical_key] = self
        try:
            cls._interned[key] = self
        except TypeError:
            pass
        return self

    def __reduce__(self):
        return ShapedArray, (self.shape, self.dtype, self.weak_type, self.sharding, self.memory_space)

    ndim = property(lambda self: len(self.shape))

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def update(self, shape=None, dtype=None, weak_type=None, sharding=None, memory_space=None):
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
            self.sharding if sharding is None else sharding,
            self.memory_space if memory_space is None else memory_space,
        )

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self, short_dtypes: bool = True) -> str:
        """'f32[2,3]', the form the jaxpr printer uses."""
        name = dtypes.short_dtype_name(self.dtype) if short_dtypes else str(self.dtype)
        return f"{name}[{_shape_str(self.shape, self.sharding)}]"

    def __str__(self):
        return f"{'~' if self.weak_type else ''}{dtype_str(self.dtype)}[{_shape_str(self.shape, self.sharding)}]"

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({dtype_str(self.dtype)}[{_shape_str(self.shape, self.sharding)}]{weak})"

    def at_least_vspace(self) -> ShapedArray:
        """The aval of this value's tangents and cotangents."""
        return ShapedArray(self.shape, dtypes.tangent_dtype(self.dtype), self.weak_type)


def dtype_str(dtype) -> str:
    return getattr(dtype, "name", None) or str(dtype)


def _shape_str(shape, sharding) -> str:
    spec = getattr(sharding, "shape_annotations", None)
    if spec is None:
        return ",".join(map(str, shape))
    return ",".join(f"{d}{a}" for d, a in zip(shape, spec(len(shape)), strict=True))
