"""Mutable array references (`jax.Ref`): their abstract value, the eager
reference, and the indexers that address part of one.

A reference is a box whose contents change in place. Its aval is an
`AbstractRef` wrapping the aval of the contents, printed `Ref{f32[3]}`. On
the NumPy backend a reference's buffer is a `RefBuffer` (a NumPy array that
its primitives overwrite): the eager `Ref` holds one, and compiled code passes
one to the impls of `get`, `swap` and `addupdate` like any other buffer.

An indexer is static structure (`Indexer`, an equation's `tree` param) plus
dynamic operands (the integer indices and dynamic slice starts), as JAX
flattens its `NDIndexer`s into an equation's operands.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.avals import AbstractValue, ShapedArray

__all__ = ["AbstractRef", "Ref", "RefBuffer", "Slice", "ds", "Indexer", "IndexEntry"]


class AbstractRef(AbstractValue):
    """The abstract value of a mutable array reference: the aval of its contents."""

    __slots__ = ("inner_aval", "memory_space", "kind")

    def __init__(self, inner_aval: AbstractValue, memory_space: Any = None, kind: Any = None):
        self.inner_aval = inner_aval
        self.memory_space = memory_space
        self.kind = kind

    # The contents' metadata, as a tracer reads it (r.shape, r.dtype, len(r)).
    shape = property(lambda r: r.inner_aval.shape)
    dtype = property(lambda r: r.inner_aval.dtype)
    weak_type = property(lambda self: self.inner_aval.weak_type)
    size = property(lambda self: self.inner_aval.size)
    ndim = property(lambda self: len(self.inner_aval.shape))
    sharding = None
    too_big = False

    def update(self, **changes) -> AbstractRef:
        return AbstractRef(self.inner_aval.update(**changes), self.memory_space, self.kind)

    def strip_weak_type(self) -> AbstractRef:
        return AbstractRef(self.inner_aval.strip_weak_type(), self.memory_space, self.kind)

    def to_tangent_aval(self) -> AbstractRef:
        return AbstractRef(self.inner_aval.to_tangent_aval(), self.memory_space, self.kind)

    def str_short(self, short_dtypes: bool = True) -> str:
        space = f"<{self.memory_space}>" if self.memory_space is not None else ""  # (JAX's: Ref<any>{...})
        return f"Ref{space}{{{self.inner_aval.str_short(short_dtypes)}}}"

    def __str__(self):
        return self.str_short(short_dtypes=False)

    __repr__ = __str__

    def __eq__(self, other):
        return (type(other) is AbstractRef and self.inner_aval == other.inner_aval
                and self.memory_space == other.memory_space and self.kind == other.kind)

    def __hash__(self):
        return hash((AbstractRef, self.inner_aval, self.memory_space, self.kind))

    # A traced reference reads and writes through its aval, as in JAX; the
    # functions are registered by ref_primitives (a higher layer).
    def _getitem(self, tracer, idx):
        return _OPS["get"](tracer, idx)

    def _setitem(self, tracer, idx, value):
        return _OPS["set"](tracer, idx, value)


_OPS: dict = {}  # "get" / "set" -> jax.ref.get / jax.ref.set, registered by ref_primitives


class RefBuffer:
    """The buffer of a reference on the NumPy backend: `value`, overwritten in place."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray):
        self.value = value

    dtype = property(lambda self: self.value.dtype)
    shape = property(lambda self: self.value.shape)

    def __repr__(self):
        return f"RefBuffer({self.value!r})"


class Ref(Array):
    """A mutable array reference (JAX's `jax.Ref`): `r[idx]` reads,
    `r[idx] = v` writes, `jax.freeze(r)` gives its contents as an Array.

    Made by `jax.new_ref`; it may be passed to (not returned from) a jitted
    function, which then reads and writes it in place.
    """

    __slots__ = ()

    def __init__(self, aval, refs):
        # JAX's constructor order: the aval, then the buffer.
        super().__init__(refs, aval)

    def __getitem__(self, idx):
        return _OPS["get"](self, idx)

    def __setitem__(self, idx, value):
        _OPS["set"](self, idx, value)

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __repr__(self):
        inner = Array(np.array(self._value.value), self.aval.inner_aval)
        return "Ref" + repr(inner)[len("Array"):]

    __str__ = __repr__

    # A reference is not an array: no arithmetic and no array methods (JAX's Ref has none).
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__
    __iter__ = None

    def __array__(self, *args, **kwargs):
        raise TypeError("a mutable array reference is not an array; read it with r[...] or jax.freeze(r)")


def hide_array_methods(names) -> None:
    """Array's operators and methods (installed by the numpy layer, which
    calls this with their names) are not a reference's: arithmetic gives
    Python's TypeError, a method AttributeError."""
    for name in names:
        if name in Ref.__dict__ or name in ("__getitem__",):
            continue
        if name.startswith("__"):
            setattr(Ref, name, _not_implemented)
        else:
            setattr(Ref, name, property(_no_attribute(name)))


def _not_implemented(*args, **kwargs):
    return NotImplemented


def _no_attribute(name: str):
    def get(self):
        raise AttributeError(f"'Ref' object has no attribute '{name}'")

    return get


# ---------------------------------------------------------------------------
# Indexers


class Slice(NamedTuple):
    """`size` elements from `start` (an int or a traced scalar), `stride` apart."""

    start: Any
    size: int
    stride: int = 1


def ds(start: int | Array | None, size: int | Array | None = None, stride: int | None = None) -> slice | Slice:
    """A dynamic slice: `size` elements from `start` (which may be traced), `stride` apart.

    `ds(n)` (no size) is `Slice(0, n)`; `ds(None, n)` is the whole dimension."""
    if size is None:
        if not isinstance(start, int):
            raise ValueError("Non-static `dslice`")
        return Slice(0, start, 1 if stride is None else stride)
    if start is None:
        return slice(None)  # (as JAX's: the whole dimension)
    return Slice(start, size, 1 if stride is None else stride)


class IndexEntry(NamedTuple):
    """One dimension of an indexer. `kind`: "int" (one scalar operand, the
    dimension goes), "array" (one integer-array operand), or "slice" (`start`
    static, or None for a scalar operand; `size` and `stride` static)."""

    kind: str
    start: int | None = None
    size: int = 0
    stride: int = 1


class Indexer(NamedTuple):
    """The static part of a reference's indexer (an equation's `tree` param):
    one entry per dimension of `shape`, the reference's shape."""

    entries: tuple
    shape: tuple

    def out_shape(self, operand_shapes: list) -> tuple:
        """The shape read or written, given the operands' shapes (NumPy's rule:
        integer indices broadcast together, first if they are not adjacent)."""
        shapes, positions = [], []
        it = iter(operand_shapes)
        for i, e in enumerate(self.entries):
            if e.kind == "slice" and e.start is None:
                next(it)
            elif e.kind in ("int", "array"):
                shapes.append(next(it))
                positions.append(i)
        sliced = [e.size for e in self.entries if e.kind == "slice"]
        if not positions:
            return tuple(sliced)
        bshape = np.broadcast_shapes(*shapes)
        if positions == list(range(positions[0], positions[-1] + 1)):
            before = sum(1 for e in self.entries[:positions[0]] if e.kind == "slice")
            return tuple(sliced[:before]) + bshape + tuple(sliced[before:])
        return bshape + tuple(sliced)


def _static_int(x):
    if isinstance(x, (bool, np.bool_)):
        return None
    try:
        return operator.index(x)
    except TypeError:
        if isinstance(x, float):
            return int(x)
        return None


def _entry(i, dim: int, shape, full_idx):
    """(IndexEntry, operands) for one dimension's index `i`."""
    if isinstance(i, slice):
        start, stop, step = i.indices(dim)
        size = max(0, (stop - start + (step - (1 if step > 0 else -1))) // step) if step else 0
        if step < 0:
            raise NotImplementedError("negative strides on a reference are not supported")
        if size == 0 and start >= dim and dim > 0:
            raise ValueError(f"Out of bound slice: start={start}, dim={dim}.")
        return IndexEntry("slice", start, size, step), []
    if isinstance(i, Slice):
        start = _static_int(i.start)
        if start is not None and (start < 0 or start + (i.size - 1) * i.stride + 1 > dim) and i.size:
            raise ValueError(f"Out of bound slice: start={start}, size={i.size}, stride={i.stride}, dim={dim}.")
        return IndexEntry("slice", start, i.size, i.stride), ([] if start is not None else [i.start])
    if isinstance(i, core.Tracer):
        return IndexEntry("int" if not i.shape else "array"), [i]
    if isinstance(i, (Array, np.ndarray)) and np.ndim(i) > 0:
        return IndexEntry("array"), [i]
    static = _static_int(i) if not isinstance(i, Array) else int(np.asarray(i._value))
    if static is None:
        raise TypeError(f"Invalid index into a reference: {i!r}")
    if static >= dim:
        raise ValueError(f"Out of bound indexer: idx={static}, dim={dim}.")
    return IndexEntry("int"), [static]


def make_indexer(shape: tuple, idx) -> tuple[Indexer | None, list]:
    """The static indexer and the dynamic operands for `ref[idx]` on a
    reference of `shape`; `(None, [])` for the whole reference (`...`, `()`,
    None)."""
    if idx is None or idx is Ellipsis or (type(idx) is tuple and not idx):
        return None, []
    if type(idx) is not tuple:
        idx = (idx,)
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if any(i is Ellipsis for i in idx):
        k = idx.index(Ellipsis)
        fill = len(shape) - (len(idx) - 1)
        idx = idx[:k] + (slice(None),) * max(fill, 0) + idx[k + 1:]
    if len(idx) > len(shape):
        raise ValueError(f"`indices` must not be longer than `shape`: indices={idx}, shape={shape}")
    idx = idx + (slice(None),) * (len(shape) - len(idx))
    entries, operands = [], []
    for i, dim in zip(idx, shape):
        entry, ops = _entry(i, dim, shape, idx)
        entries.append(entry)
        operands.extend(ops)
    return Indexer(tuple(entries), tuple(shape)), operands


def indexer_numpy_index(indexer: Indexer, operands) -> tuple:
    """NumPy's index for `indexer` on the given concrete operands: integer
    indices wrap once if negative and clamp into range, as XLA's gather and
    dynamic slices do."""
    out, it = [], iter(operands)
    for e, dim in zip(indexer.entries, indexer.shape):
        if e.kind == "slice":
            start = e.start if e.start is not None else int(np.asarray(next(it)))
            if e.start is None:
                start = min(max(start + (dim if start < 0 else 0), 0), max(dim - ((e.size - 1) * e.stride + 1), 0))
            out.append(slice(start, start + e.size * e.stride, e.stride) if e.size else slice(start, start))
        else:
            i = np.asarray(next(it)).astype(np.int64)
            i = np.where(i < 0, i + dim, i)
            out.append(np.clip(i, 0, max(dim - 1, 0)))
    return tuple(out)
