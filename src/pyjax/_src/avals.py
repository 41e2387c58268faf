"""Abstract values: what a tracer knows about the array it stands for.

An aval is a type, never a value: shape, dtype, weak type, and the placement
slots (sharding, memory space) that later issues give meaning to. Avals are
immutable and hashable because they are cache keys (abstract-eval caches,
jit's cache) and because jaxpr variables carry them.

    ShapedArray((2, 3), float32)   str -> 'float32[2,3]', short -> 'f32[2,3]'
"""

from __future__ import annotations

import math
import operator
import os

import numpy as np

from pyjax._src import dtypes

_INT64_MAX = 2**63 - 1


def _physical_memory() -> int:
    # Read once: an eager buffer larger than the machine's memory can never be
    # allocated, and NumPy would otherwise hand out a zero-stride view that
    # spins for minutes in the first reduction over it.
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return _INT64_MAX


MEMORY_LIMIT = _physical_memory()

_NEGATIVE = "{name} must have every element be nonnegative, got {shape}."
# JAX's wording where a shape is first broadcast against others (randint, bernoulli).
NEGATIVE_BROADCAST = "Only non-negative indices are allowed when broadcasting static shapes, but got shape {shape}."
_SEEN: dict = {}  # canonical tuples of ints already checked (a set keyed on the tuple itself)


def canonicalize_shape(shape, name: str = "shape", *, negative: str = _NEGATIVE,
                       context: str = "") -> tuple[int, ...]:
    """`shape` (an integer or a sequence of them) as a tuple of Python ints.

    The one canonicalisation every public shape goes through. A non-integer
    or traced dimension is JAX's TypeError ("Shapes must be 1D sequences of
    concrete values of integer type, ..."); a negative one is a TypeError
    worded by `negative` (formatted with `name` and the shape), JAX's
    "broadcast_in_dim shape must have every element be nonnegative" unless
    an entry point words it as JAX does there. `context` is appended to the
    integer-type message.
    """
    if type(shape) is tuple:
        # The common case, a tuple of ints seen before: a hit is only trusted
        # when every element is exactly an int, since 2.0 and np.float32(2)
        # hash and compare equal to 2.
        try:
            if _SEEN[shape] is None and tuple(map(type, shape)).count(int) == len(shape):
                return shape
        except (KeyError, TypeError):  # (TypeError: a tracer dimension)
            pass
    elif isinstance(shape, (list, tuple)):
        pass
    elif np.ndim(shape) == 0 and not isinstance(shape, str):
        shape = (shape,)
    try:
        dims = tuple(map(operator.index, shape))
    except TypeError:
        dims = _symbolic_dims(shape)  # shape polymorphism (jax.export): DimExpr dimensions
        if dims is None:
            raise_shape_type_error(shape, context)
        if any(type(d) is int and d < 0 for d in dims):
            raise TypeError(negative.format(name=name, shape=tuple(shape)))
        return dims
    if dims and min(dims) < 0:
        shown = tuple(shape) if not isinstance(shape, tuple) else shape
        raise TypeError(negative.format(name=name, shape=shown))
    if len(_SEEN) < 65536:
        _SEEN[dims] = None
    return dims


def _symbolic_dims(shape) -> tuple | None:
    # The dimensions when each is an integer or a symbolic dimension, else None.
    from pyjax._src.shape_poly import DimExpr

    dims = []
    for d in shape:
        if type(d) is DimExpr:
            dims.append(d)
            continue
        try:
            dims.append(operator.index(d))
        except TypeError:
            return None
    return tuple(dims)


def raise_shape_type_error(shape, context: str = ""):
    """Raises JAX's TypeError for a shape with a non-integer or traced dimension."""
    from pyjax._src import core, errors  # (core imports this module)

    message = f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
    if context:
        message += f" {context}."
    dims = shape if isinstance(shape, (tuple, list)) else ()
    tracers = [d for d in dims if isinstance(d, core.Tracer)]
    if tracers:
        message += ("\nIf using `jit`, try using `static_argnums` or applying `jit` to "
                    "smaller subfunctions.")
        for tracer in tracers:
            origin = errors._origin(tracer)
            message += f"\n{origin}" if origin else ""
    raise TypeError(message) from None


def allocation_error(aval) -> Exception:
    """The error XLA raises on allocating a buffer of `aval` that cannot exist:
    an element count past int64, or more bytes than the machine has."""
    from pyjax._src.errors import JaxRuntimeError

    if math.prod(aval.shape) > _INT64_MAX:
        return RuntimeError("Bad StatusOr access: INVALID_ARGUMENT: overflow in static extent product: "
                            f"dimensions=[{', '.join(map(str, aval.shape))}].")
    return JaxRuntimeError(f"RESOURCE_EXHAUSTED: Out of memory allocating {aval.nbytes} bytes.")


def any_too_big(out) -> bool:
    """Whether an abstract-eval result (an aval or a list of them) holds an
    aval no buffer can be allocated for."""
    if type(out) is ShapedArray:
        return out.too_big
    if isinstance(out, (list, tuple)):
        return any(getattr(a, "too_big", False) for a in out)
    return getattr(out, "too_big", False)


def check_allocatable(out) -> None:
    """Raises XLA's allocation error where an abstract-eval result cannot be
    allocated; run by whatever executes (eager dispatch, compiled programs)."""
    if any_too_big(out):
        for aval in out if isinstance(out, (list, tuple)) else (out,):
            if getattr(aval, "too_big", False):
                raise allocation_error(aval)


def _too_big(shape: tuple, dtype) -> bool:
    if any(type(d) is not int for d in shape):
        return False  # symbolic: checked when the shape is made concrete
    size = math.prod(shape)
    return size > _INT64_MAX or size * getattr(dtype, "itemsize", 0) > MEMORY_LIMIT


class AbstractValue:
    """The base of abstract values (JAX's `jax.core.AbstractValue`): what a
    tracer stands for. pyjax has one kind, ShapedArray."""

    __slots__ = ()


class ShapedArray(AbstractValue):
    """The abstract value of an array: shape, dtype, weak type and placement.

    Avals are interned: equal avals are the same object, so hashing and
    comparing them (on every abstract-eval cache lookup and jit cache hit)
    costs an identity check.
    """

    __slots__ = ("shape", "dtype", "weak_type", "sharding", "memory_space", "too_big", "vma", "__weakref__")
    _interned: dict = {}

    def __new__(cls, shape, dtype, weak_type=False, sharding=None, memory_space=None, vma=()):
        # vma: the manual mesh axes (shard_map) the value varies over, a tuple
        # in mesh order; printed `{V:x}`.
        key = (shape, dtype, weak_type, sharding, memory_space, vma) if vma else \
            (shape, dtype, weak_type, sharding, memory_space)
        try:
            return cls._interned[key]
        except (KeyError, TypeError):
            pass
        # The miss path only: a backstop for shapes that reach here without
        # passing a public entry point's canonicalisation.
        shape = canonicalize_shape(shape)
        # Extended dtypes (PRNG keys) are not NumPy dtypes and stay as they are.
        dtype = dtype if type(dtype) is np.dtype or isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        weak_type = bool(weak_type)
        vma = tuple(vma)
        canonical_key = (shape, dtype, weak_type, sharding, memory_space, vma) if vma else \
            (shape, dtype, weak_type, sharding, memory_space)
        self = cls._interned.get(canonical_key)
        if self is None:
            self = object.__new__(cls)
            self.shape, self.dtype, self.weak_type = shape, dtype, weak_type
            self.sharding, self.memory_space, self.vma = sharding, memory_space, vma
            # True where no buffer of this type can be allocated (checked by
            # whatever executes, never by tracing: JAX traces such shapes).
            self.too_big = _too_big(shape, dtype)
            cls._interned[canonical_key] = self
        try:
            cls._interned[key] = self
        except TypeError:
            pass
        return self

    def __reduce__(self):
        return ShapedArray, (self.shape, self.dtype, self.weak_type, self.sharding, self.memory_space, self.vma)

    ndim = property(lambda self: len(self.shape))

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # exact: np.prod in int64 wraps for huge shapes

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * getattr(self.dtype, "itemsize", 0)

    def update(self, shape=None, dtype=None, weak_type=None, sharding=None, memory_space=None, vma=None):
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
            self.sharding if sharding is None else sharding,
            self.memory_space if memory_space is None else memory_space,
            self.vma if vma is None else vma,
        )

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self, short_dtypes: bool = True) -> str:
        """'f32[2,3]', the form the jaxpr printer uses."""
        name = dtypes.short_dtype_name(self.dtype) if short_dtypes else str(self.dtype)
        return f"{name}{_space_str(self.memory_space)}[{_shape_str(self.shape, self.sharding)}]{_vma_str(self.vma)}"

    def __str__(self):
        return (f"{'~' if self.weak_type else ''}{dtype_str(self.dtype)}{_space_str(self.memory_space)}"
                f"[{_shape_str(self.shape, self.sharding)}]{_vma_str(self.vma)}")

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return (f"ShapedArray({dtype_str(self.dtype)}{_space_str(self.memory_space)}"
                f"[{_shape_str(self.shape, self.sharding)}]{weak})")

    def at_least_vspace(self) -> ShapedArray:
        """The aval of this value's tangents and cotangents (placed as the value is)."""
        return ShapedArray(self.shape, dtypes.tangent_dtype(self.dtype), self.weak_type, self.sharding, None, self.vma)

    def to_tangent_aval(self) -> ShapedArray:
        """The aval of this value's tangents (float0 for integers and booleans)."""
        return self.at_least_vspace()

    def to_ct_aval(self) -> ShapedArray:
        """The aval of this value's cotangents."""
        return self.at_least_vspace()


def dtype_str(dtype) -> str:
    if dtype is dtypes.float0 or (type(dtype) is np.dtype and dtype == dtypes.float0):
        return "float0"  # (NumPy names the structured dtype standing for it "void")
    return getattr(dtype, "name", None) or str(dtype)


def _vma_str(vma: tuple) -> str:
    # JAX's `{V:x}` / `{V:(x,y)}` after the shape of a value varying over manual axes.
    if not vma:
        return ""
    return f"{{V:{vma[0]}}}" if len(vma) == 1 else f"{{V:({','.join(map(str, vma))})}}"


def _space_str(space) -> str:
    # A memory space other than the device's shows after the dtype: float32<host>[8].
    return "" if space is None else f"<{space.name.lower()}>"


def _shape_str(shape, sharding) -> str:
    spec = getattr(sharding, "shape_annotations", None)
    if spec is None:
        return ",".join(map(str, shape))
    return ",".join(f"{d}{a}" for d, a in zip(shape, spec(len(shape)), strict=True))


class ShapeDtypeStruct:
    """A shape, a dtype (and weak type, sharding): an array's type without data."""

    # JAX's class lives in jax._src.api: type reprs and pickles name it there
    # (pyjax._src.api re-exports it).
    __module__ = "pyjax._src.api"
    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False):
        # Checked here, once, rather than when the first trace meets it.
        self.shape = canonicalize_shape(tuple(shape), "ShapeDtypeStruct shape")
        # (np.dtype would turn a key dtype into its buffer's record dtype.)
        self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        self.sharding = sharding
        self.weak_type = weak_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def aval(self) -> ShapedArray:
        dtype = dtypes.canonicalize_dtype(self.dtype, allow_extended_dtype=True)
        if self.sharding is None:
            return ShapedArray(self.shape, dtype, self.weak_type)
        # A placed struct types its tracers as the array would be typed.
        from pyjax._src.sharding.named import aval_sharding, check_divisible, memory_kind_to_space

        kind = getattr(self.sharding, "memory_kind", None)
        sharding = aval_sharding(self.sharding, len(self.shape))
        if sharding is not None:
            check_divisible(self.shape, sharding)  # (JAX's ValueError when the type is made)
        return ShapedArray(self.shape, dtype, self.weak_type, sharding,
                           memory_kind_to_space(None if kind == "device" else kind))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        sharding = f", sharding={self.sharding!r}" if self.sharding is not None else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"

    def _identity(self) -> tuple:
        # What equality and hashing compare (the sharding is not part of it).
        return self.shape, self.dtype, self.weak_type

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and self._identity() == other._identity()

    def __hash__(self):
        return hash(self._identity())
