"""PartitionSpec (``P``): which mesh axes each array dimension is split over."""

from __future__ import annotations

import enum
from typing import Any


class UnconstrainedSingleton:
    """``P.UNCONSTRAINED``: the dimension's placement is left to the compiler."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNCONSTRAINED"

    def __reduce__(self):
        return (_get_unconstrained, ())


UNCONSTRAINED = UnconstrainedSingleton()


def _get_unconstrained():
    return UNCONSTRAINED


def _canonical_entry(entry: Any) -> Any:
    # A one-axis tuple is that axis; a list is a tuple.
    if isinstance(entry, list):
        entry = tuple(entry)
    if isinstance(entry, tuple):
        return entry[0] if len(entry) == 1 else entry
    return entry


class PartitionSpec:
    """A tuple whose elements name the mesh axes an array dimension is sharded over.

    Each entry is ``None`` (the dimension is replicated), a mesh axis name,
    a tuple of axis names (the dimension is split over their product, major
    first), or ``P.UNCONSTRAINED``. A spec shorter than the array's rank
    leaves the remaining dimensions replicated.

    >>> P('x', None)
    P('x', None)
    """

    __slots__ = ("_partitions", "unreduced", "reduced")
    UNCONSTRAINED = UNCONSTRAINED

    def __init__(self, *partitions: Any, unreduced: Any = frozenset(), reduced: Any = frozenset()):
        self._partitions = tuple(_canonical_entry(p) for p in partitions)
        self.unreduced = frozenset(unreduced)
        self.reduced = frozenset(reduced)

    def __repr__(self) -> str:
        body = ", ".join(repr(p) for p in self._partitions)
        if len(self._partitions) == 1:
            body += ","
        extra = []
        if self.unreduced:
            extra.append(f"unreduced={set(sorted(self.unreduced))!r}, unreduced_kind=sum")
        if self.reduced:
            extra.append(f"reduced={set(sorted(self.reduced))!r}")
        if extra:
            body = ", ".join(([body.rstrip(",")] if self._partitions else []) + extra)
        return f"P({body})"

    __str__ = __repr__

    def __getitem__(self, i):
        return self._partitions[i]

    def __len__(self) -> int:
        return len(self._partitions)

    def __iter__(self):
        return iter(self._partitions)

    def __eq__(self, other) -> bool:
        if isinstance(other, PartitionSpec):
            return (self._partitions == other._partitions and self.unreduced == other.unreduced
                    and self.reduced == other.reduced)
        if isinstance(other, tuple):
            return not self.unreduced and not self.reduced and self._partitions == other
        return False

    def __hash__(self) -> int:
        # Trailing Nones do not change the placement: equal-up-to-padding specs hash alike.
        return hash((self._normalized(), self.unreduced, self.reduced))

    def __add__(self, other):
        if isinstance(other, PartitionSpec):
            return PartitionSpec(*self, *other, unreduced=self.unreduced | other.unreduced,
                                 reduced=self.reduced | other.reduced)
        if isinstance(other, tuple):
            return PartitionSpec(*self, *other, unreduced=self.unreduced, reduced=self.reduced)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, tuple):
            return PartitionSpec(*other, *self, unreduced=self.unreduced, reduced=self.reduced)
        return NotImplemented

    def index(self, value) -> int:
        return self._partitions.index(value)

    def count(self, value) -> int:
        return self._partitions.count(value)

    def __reduce__(self):
        return (_rebuild, (self._partitions, self.unreduced, self.reduced))

    def _normalized(self) -> tuple:
        parts = list(self._partitions)
        while parts and parts[-1] is None:
            parts.pop()
        return tuple(parts)

    def _normalized_spec_for_aval(self, ndim: int) -> PartitionSpec:
        """This spec padded with ``None`` to `ndim` entries."""
        if len(self._partitions) >= ndim:
            return self
        return PartitionSpec(*self._partitions, *([None] * (ndim - len(self._partitions))),
                             unreduced=self.unreduced, reduced=self.reduced)

    def with_partitions(self, new_partitions) -> PartitionSpec:
        return PartitionSpec(*new_partitions, unreduced=self.unreduced, reduced=self.reduced)


# JAX 0.11 names the class `jax.P` (PartitionSpec is its alias); pyjax.P here.
PartitionSpec.__name__ = PartitionSpec.__qualname__ = "P"
PartitionSpec.__module__ = "pyjax"


def _rebuild(partitions, unreduced, reduced):
    return PartitionSpec(*partitions, unreduced=unreduced, reduced=reduced)


def axes_of(entry: Any) -> tuple:
    """The mesh axes a spec entry names (None and UNCONSTRAINED name none)."""
    if entry is None or entry is UNCONSTRAINED:
        return ()
    if isinstance(entry, tuple):
        return entry
    return (entry,)


class UnreducedKind(enum.Enum):
    """How the partial values of an unreduced axis combine."""

    sum = 1
    max = 2
    min = 3


UnreducedKind.__module__ = "pyjax.sharding"


class ManualAxisType:
    """How a value varies over the Manual mesh axes of a shard_map body (JAX's
    `jax.sharding.ManualAxisType`): the axes it varies over, the axes it is
    unreduced / reduced over, and how unreduced partial values combine.
    Immutable; equal ones are the same object."""

    __slots__ = ("varying", "unreduced", "reduced", "unreduced_kind", "__weakref__")
    _interned: dict = {}

    def __new__(cls, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset(),
                unreduced_kind: UnreducedKind | None = None):
        if set(varying) & set(unreduced):
            raise ValueError("varying and unreduced cannot have common mesh axes. Got"
                             f" varying={varying} and unreduced={unreduced}")
        if set(varying) & set(reduced):
            raise ValueError("varying and reduced cannot have common mesh axes. Got"
                             f" varying={varying} and reduced={reduced}")
        if unreduced and unreduced_kind is None:
            unreduced_kind = UnreducedKind.sum
        if not unreduced and unreduced_kind is not None:
            raise ValueError("`unreduced_kind` should be `None` when `unreduced` is an empty set."
                             f" Got {unreduced_kind=} and {unreduced=}")
        key = (frozenset(varying), frozenset(unreduced), frozenset(reduced), unreduced_kind)
        obj = cls._interned.get(key)
        if obj is None:
            obj = object.__new__(cls)
            for name, value in zip(cls.__slots__, key):
                object.__setattr__(obj, name, value)
            cls._interned[key] = obj
        return obj

    def __setattr__(self, name, value):
        raise AttributeError(f"ManualAxisType is immutable: cannot set {name}")

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return hash((self.varying, self.unreduced, self.reduced, self.unreduced_kind))

    def __repr__(self):
        # JAX 0.11's text, its misplaced parenthesis included.
        return (f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
                f"reduced={self.reduced}), unreduced_kind={self.unreduced_kind}")


ManualAxisType.__module__ = "pyjax.sharding"
