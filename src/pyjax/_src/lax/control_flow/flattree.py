"""Flat trees: the `ft_in` / `ft_out` params of `scan`, as JAX 0.11 forms them.

A scan equation says how its flat operands and results group into (consts,
carry, xs) and (carry, ys) with two small tree values whose *text* is part
of the jaxpr:

    ft_in=((), (None,), (None,))
    ft_out=((None,), (RightsOnly(Right(None)),))

The cases are the ones JAX uses: a tuple of flat trees, a singleton leaf, a
pytree of leaves with its treedef, and a *filtered* tree whose leaves are
`Left(x)` (dropped: an output forwarded from an input, a zero tangent) or
`Right(x)` (kept). Only the kept leaves count in `len`, `vals` and `update`,
so a filtered tree still remembers the structure it was cut from.

    nones(2)                              -> (None, None)
    pack((nones(0), nones(1)))            -> ((), (None,))
    nones(2).filter_with_mask([True, False])
        -> (RightsOnly(Right(None)), RightsOnly(Left(None)))   # len 1

Rules build new trees from old ones with the same operations JAX's rules
use (update, filter_with_mask, unfilter, zipstar, ...), which is what makes
a transformed scan print the same params as JAX's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pyjax._src.tree_util import tree_flatten, treedef_children

__all__ = [
    "Either",
    "FTFiltered",
    "FTPyTree",
    "FTSingleton",
    "FTTuple",
    "FlatTree",
    "flatten",
    "nones",
    "pack",
    "zipstar",
]


class Either:
    """A leaf of a filtered tree: `Right(x)` is kept, `Left(x)` is dropped."""

    __slots__ = ("is_right", "val")

    def __init__(self, is_right: bool, val: Any):
        self.is_right = is_right
        self.val = val

    @staticmethod
    def left(x) -> Either:
        return Either(False, x)

    @staticmethod
    def right(x) -> Either:
        return Either(True, x)

    def __repr__(self):
        return f"{'Right' if self.is_right else 'Left'}({self.val})"

    def __eq__(self, other):
        return type(other) is Either and self.is_right == other.is_right and self.val == other.val

    def __hash__(self):
        return hash((self.is_right, _hashable(self.val)))


def _hashable(x):
    try:
        hash(x)
        return x
    except TypeError:
        return id(x)


class FlatTree:
    """A structure over a flat list of values (see the module docstring).

    Subclasses implement `__len__`, `map`, `__repr__`, `__eq__`, `__hash__`;
    everything else derives from those.
    """

    __slots__ = ()

    def map(self, f: Callable) -> FlatTree:
        raise NotImplementedError

    @property
    def vals(self) -> tuple:
        out: list = []
        self.map(lambda x: out.append(x))
        return tuple(out)

    def __iter__(self):
        return iter(self.vals)

    def update(self, new_vals: Sequence) -> FlatTree:
        """The same structure holding `new_vals` (one per counted leaf)."""
        new_vals = list(new_vals)
        if len(new_vals) != len(self):
            raise ValueError(f"flat tree of {len(self)} leaves updated with {len(new_vals)} values")
        it = iter(new_vals)
        return self.map(lambda _: next(it))

    def map2(self, other: Sequence, f: Callable) -> FlatTree:
        return self.update([f(a, b) for a, b in zip(self.vals, list(other), strict=True)])

    def void(self) -> FlatTree:
        return self.map(lambda _: None)

    def unpack(self) -> tuple:
        raise TypeError(f"Not a FlatTree tuple: {self}")

    def unpack2(self) -> tuple:
        return tuple(t.unpack() for t in self.unpack())

    def filter_with_mask(self, mask: Sequence[bool]) -> FlatTree:
        """Keeps the leaves whose mask entry is True; the others stay in the
        structure as `Left` leaves (see `unfilter`)."""
        return _filtered(self.map2(mask, lambda x, keep: Either.right(x) if keep else Either.left(x)))

    def unfilter(self) -> FlatTree:
        raise TypeError("expected a FTTuple or a FTFiltered")

    def unflatten(self):
        raise TypeError(f"Not a FlatTree pytree or tuple: {self}")


class FTTuple(FlatTree):
    """A tuple of flat trees; prints as a Python tuple of its elements."""

    __slots__ = ("elts",)

    def __init__(self, *elts: FlatTree):
        self.elts = elts

    def __len__(self):
        return sum(len(e) for e in self.elts)

    def map(self, f):
        return FTTuple(*(e.map(f) for e in self.elts))

    def unpack(self):
        return self.elts

    def unfilter(self):
        return FTTuple(*(e.unfilter() for e in self.elts))

    def unflatten(self):
        return tuple(e.unflatten() for e in self.elts)

    def __repr__(self):
        return repr(self.elts)

    def __eq__(self, other):
        return type(other) is FTTuple and self.elts == other.elts

    def __hash__(self):
        return hash(self.elts)


class FTSingleton(FlatTree):
    """One leaf; prints as the leaf."""

    __slots__ = ("val",)

    def __init__(self, val):
        self.val = val

    def __len__(self):
        return 1

    def map(self, f):
        return FTSingleton(f(self.val))

    def unflatten(self):
        return self.val

    def __repr__(self):
        return repr(self.val)

    def __eq__(self, other):
        return type(other) is FTSingleton and self.val == other.val

    def __hash__(self):
        return hash(_hashable(self.val))


class FTPyTree(FlatTree):
    """Leaves with the treedef they flatten from."""

    __slots__ = ("tree", "xs")

    def __init__(self, xs, tree):
        self.xs = tuple(xs)
        self.tree = tree

    def __len__(self):
        return len(self.xs)

    def map(self, f):
        return FTPyTree(tuple(f(x) for x in self.xs), self.tree)

    def unpack(self):
        children = treedef_children(self.tree)
        out, start = [], 0
        for child in children:
            out.append(FTPyTree(self.xs[start:start + child.num_leaves], child))
            start += child.num_leaves
        return tuple(out)

    def unflatten(self):
        return self.tree.unflatten(self.xs)

    def __repr__(self):
        return f"Pytree(vals={list(self.xs)}, tree={self.tree})"

    def __eq__(self, other):
        return type(other) is FTPyTree and self.xs == other.xs and self.tree == other.tree

    def __hash__(self):
        return hash((tuple(_hashable(x) for x in self.xs), self.tree))


class FTFiltered(FlatTree):
    """A tree of `Either` leaves of which only the `Right` ones count."""

    __slots__ = ("val",)

    def __init__(self, val: FlatTree):
        self.val = val

    def __len__(self):
        return sum(1 for x in self.val.vals if x.is_right)

    def map(self, f):
        return FTFiltered(self.val.map(lambda x: Either.right(f(x.val)) if x.is_right else x))

    def unpack(self):
        return tuple(FTFiltered(t) for t in self.val.unpack())

    def unfilter(self):
        return self.val.map(lambda x: x.val)

    def __repr__(self):
        return f"RightsOnly({self.val})"

    def __eq__(self, other):
        return type(other) is FTFiltered and self.val == other.val

    def __hash__(self):
        return hash(self.val)


def _filtered(tree: FlatTree) -> FlatTree:
    # Tuples stay tuples (so the result still unpacks); anything else is wrapped.
    if type(tree) is FTTuple:
        return FTTuple(*(_filtered(e) for e in tree.elts))
    return FTFiltered(tree)


def pack(tree) -> FlatTree:
    """A (nested) tuple of flat trees as one flat tree."""
    if isinstance(tree, FlatTree):
        return tree
    if isinstance(tree, tuple):
        return FTTuple(*(pack(t) for t in tree))
    raise TypeError(f"cannot pack {type(tree)} into a flat tree")


def nones(n: int) -> FlatTree:
    """A tuple of `n` singleton `None` leaves (JAX's `ft.nones`)."""
    return FTTuple(*(FTSingleton(None) for _ in range(n)))


def flatten(tree) -> FTPyTree:
    """The leaves of a pytree with its treedef."""
    leaves, treedef = tree_flatten(tree)
    return FTPyTree(leaves, treedef)


def zipstar(tree: FlatTree) -> FlatTree:
    """((a1, a2, ...), (b1, b2, ...)) -> ((a1, b1), (a2, b2), ...)."""
    return pack(tuple(zip(*tree.unpack2(), strict=True)))
