"""Pytrees: the public functions of ``pyjax.tree_util``.

A pytree is a nest of containers (tuples, lists, dicts, None, namedtuples,
OrderedDicts, defaultdicts and any registered type) whose non-container values
are the *leaves*. This module holds the functions users call — flatten and
unflatten, ``tree_map`` and friends, the key-path variants, the registration
decorators, ``Partial`` — and the prefix-mismatch errors ``tree_map`` raises.
The engine underneath (registry, walkers, PyTreeDef) is ``tree_util_treedef``;
key-path entries are ``tree_util_keys``.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from pyjax._src import tree_util_registry as _reg
from pyjax._src import tree_util_treedef as _engine
from pyjax._src.tree_util_errors import prefix_errors
from pyjax._src.tree_util_keys import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    SequenceKey,
    keystr,
)
from pyjax._src.tree_util_treedef import PyTreeDef

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial",
    "PyTreeDef", "SequenceKey", "all_leaves", "broadcast_prefix", "build_tree",
    "default_registry", "flatten_one_level", "flatten_one_level_with_keys",
    "is_tree_node", "keystr", "prefix_errors", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_reduce_associative",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children",
    "treedef_is_leaf", "treedef_tuple",
]

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type[Any])
Leaf = Any
PyTree = Any

_flatten = _engine.flatten


class _Unspecified:
    def __repr__(self) -> str:
        return "<unspecified>"


_UNSPECIFIED = _Unspecified()


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Leaf], PyTreeDef]:
    """Flattens a pytree into its leaves and its structure.

    Args:
      tree: a pytree to flatten.
      is_leaf: an optional predicate called on every node, the root included,
        before its type is looked up; returning True makes that node a leaf.

    Returns:
      A pair ``(leaves, treedef)``: the leaves in order (dict entries by sorted
      key) and a ``PyTreeDef`` describing the structure.

    Example:
      >>> tree_flatten({'b': [1, 2], 'a': None})
      ([1, 2], PyTreeDef({'a': None, 'b': [*, *]}))
    """
    return _flatten(tree, is_leaf)


# A placeholder leaf: a tree is unflattened with it to read its structure
# (JAX's api_util.SENTINEL; a pytree type that validates its leaves lets it pass).
SENTINEL = object()


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Leaf]) -> Any:
    """Rebuilds a pytree from a treedef and an iterable of leaves.

    Example:
      >>> leaves, treedef = tree_flatten([1, (2, 3)])
      >>> tree_unflatten(treedef, [4, 5, 6])
      [4, (5, 6)]
    """
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Leaf]:
    """Returns the leaves of a pytree, in flattening order."""
    return _flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """Returns the ``PyTreeDef`` of a pytree."""
    return _flatten(tree, is_leaf)[1]


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """Makes a tuple treedef from an iterable of child treedefs.

    Example:
      >>> treedef_tuple([tree_structure([1]), tree_structure(None)])
      PyTreeDef(([*], None))
    """
    return _engine.tuple_treedef(treedefs)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """Returns the treedefs of the root's immediate children.

    Example:
      >>> treedef_children(tree_structure([(1, 2), 3, {'a': 4}]))
      [PyTreeDef((*, *)), PyTreeDef(*), PyTreeDef({'a': *})]
    """
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """Returns True if the treedef has a single node (a leaf, None or an empty container)."""
    return treedef.num_nodes == 1


def treedef_is_strict_leaf(treedef: PyTreeDef) -> bool:
    """Returns True if the treedef is exactly one leaf."""
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def build_tree(treedef: PyTreeDef, xs: Any) -> Any:
    """Builds a pytree of ``treedef``'s structure from nested iterables of children.

    Each internal node of ``treedef`` takes its children from iterating the
    matching value of ``xs``; leaf positions take the value as it is.

    Example:
      >>> build_tree(tree_structure((1, [2, 3])), (5, (6, 7)))
      (5, [6, 7])
    """
    return treedef.from_iterable_tree(xs)


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Tests whether every element of ``iterable`` is a leaf.

    Example:
      >>> all_leaves([1, 2.0, 'x']), all_leaves([1, (2,)]), all_leaves([None])
      (True, False, False)
    """
    items = list(iterable)
    if is_leaf is None:
        return all(_reg.kind_of(type(item)) == _reg.LEAF for item in items)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(
        item is leaf for item, leaf in zip(items, leaves, strict=True))


def is_tree_node(typ: type) -> bool:
    """Returns True if ``typ`` is a pytree node type (built-in, namedtuple or registered)."""
    return _reg.kind_of(typ) != _reg.LEAF


# ---- registration --------------------------------------------------------------

def register_pytree_node(nodetype: type[T],
                         flatten_func: Callable[[T], tuple[Iterable[Any], Hashable]],
                         unflatten_func: Callable[[Hashable, Iterable[Any]], T],
                         flatten_with_keys_func: Callable[[T], tuple[Iterable[tuple[KeyEntry, Any]], Hashable]] | None = None,
                         ) -> None:
    """Extends the set of types that are considered internal nodes in pytrees.

    Args:
      nodetype: a Python type to register as a pytree node.
      flatten_func: takes a value of ``nodetype`` and returns ``(children,
        aux_data)``: an iterable of children to flatten recursively and hashable
        auxiliary data kept in the treedef.
      unflatten_func: takes ``(aux_data, children)`` (children as a tuple) and
        returns an instance of ``nodetype``.
      flatten_with_keys_func: optional; like ``flatten_func`` but returns
        ``(key, child)`` pairs, used by the ``*_with_path`` functions.

    Raises:
      ValueError: if ``nodetype`` is already registered.

    Example:
      >>> class Box:
      ...   def __init__(self, x): self.x = x
      >>> register_pytree_node(Box, lambda b: ((b.x,), None), lambda _, xs: Box(*xs))
      >>> tree_leaves([Box(1), Box((2, 3))])
      [1, 2, 3]
    """
    _reg.register_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: registers ``cls`` using its ``tree_flatten`` method and
    ``tree_unflatten`` classmethod. Returns ``cls`` unchanged."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype: type[T],
                              flatten_with_keys: Callable[[T], tuple[Iterable[tuple[KeyEntry, Any]], Hashable]],
                              unflatten_func: Callable[[Hashable, Iterable[Any]], T],
                              flatten_func: Callable[[T], tuple[Iterable[Any], Hashable]] | None = None,
                              ) -> None:
    """Registers a pytree node type whose flatten function also names its children.

    Args:
      nodetype: a Python type to treat as an internal pytree node.
      flatten_with_keys: returns ``(((key, child), ...), aux_data)``; the keys
        appear in the key paths of ``tree_flatten_with_path``.
      unflatten_func: takes ``(aux_data, children)`` and returns a ``nodetype``.
      flatten_func: optional faster flatten without keys; it must give the
        children in the same order and the same aux data.
    """
    if not flatten_func:
        def flatten_func(tree: Any) -> tuple[list, Hashable]:
            pairs, aux_data = flatten_with_keys(tree)
            return [child for _, child in pairs], aux_data
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator: registers ``cls`` using its ``tree_flatten_with_keys``
    method (and ``tree_flatten`` if it has one) and ``tree_unflatten``."""
    flatten_func = (operator.methodcaller("tree_flatten")
                    if hasattr(cls, "tree_flatten") else None)
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


def _dataclass_fields(nodetype: type, data_fields: Sequence[str] | None,
                      meta_fields: Sequence[str] | None) -> tuple[tuple, tuple]:
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields must both be specified"
                f" when either is specified. Got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required when"
                f" nodetype is not a dataclass. Got {nodetype=}.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    return tuple(data_fields), tuple(meta_fields)


def register_dataclass(nodetype: Typ, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> Typ:
    """Registers a dataclass-like type as a pytree node, field by field.

    Data fields become children; meta fields become static aux data (hashable,
    part of the treedef). For a :func:`dataclasses.dataclass`, both lists may be
    omitted: fields are data unless declared with ``field(metadata=dict(static=True))``
    (or ``pyjax.tree.static()``).

    Args:
      nodetype: the class; rebuilt as ``nodetype(**fields)``.
      data_fields: names of the array-like fields.
      meta_fields: names of the static fields.
      drop_fields: dataclass fields with ``init=True`` to leave out.

    Returns:
      ``nodetype`` unchanged, so this can be used as a decorator.

    Example:
      >>> @register_dataclass
      ... @dataclasses.dataclass
      ... class Op:
      ...   x: Any
      ...   name: str = dataclasses.field(metadata=dict(static=True))
      >>> tree_structure(Op(1, 'add'))
      PyTreeDef(CustomNode(Op[('add',)], [*]))
    """
    data_fields, meta_fields = _dataclass_fields(nodetype, data_fields, meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
        init_fields.difference_update(drop_fields)
        if {*meta_fields, *data_fields} != init_fields:
            message = ("data_fields and meta_fields must include all dataclass fields"
                       " with ``init=True`` and only them.")
            if missing := init_fields - {*meta_fields, *data_fields}:
                message += (f" Missing fields: {missing}. Add them to drop_fields to"
                            " suppress this error.")
            if unexpected := {*meta_fields, *data_fields} - init_fields:
                message += f" Unexpected fields: {unexpected}."
            raise ValueError(message)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError("data_fields and meta_fields must not overlap. Overlapping"
                         f" fields: {overlap}.")
    _reg.register_dataclass_node(nodetype, data_fields, meta_fields)
    return nodetype


def register_static(cls: type[T]) -> type[T]:
    """Registers ``cls`` as a pytree node with no children: instances are static.

    The instance itself is the treedef's aux data, so it must be hashable.

    Example:
      >>> @register_static
      ... class Tag(str): pass
      >>> tree_leaves([1, Tag('a')])
      [1]
    """
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _: obj)
    return cls


def static(**kwargs: Any) -> Any:
    """A :func:`dataclasses.field` marked ``static=True`` for :func:`register_dataclass`.

    Takes the same arguments as ``dataclasses.field``.

    Example:
      >>> @register_dataclass
      ... @dataclasses.dataclass
      ... class Op:
      ...   x: Any
      ...   name: str = static(default='add')
      >>> tree_structure(Op(1))
      PyTreeDef(CustomNode(Op[('add',)], [*]))
    """
    metadata = {"static": True, **(kwargs.pop("metadata", {}) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)


# ---- maps and reductions -------------------------------------------------------

def _prefix_mismatch(name: str, tree: Any, other: Any, is_leaf: Any,
                     error: Exception) -> Exception:
    found = prefix_errors(tree, other, is_leaf)
    return found[0](name) if found else error


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Maps a function over the leaves of one or more pytrees.

    Args:
      f: called with one leaf from ``tree`` and the matching value of each of ``rest``.
      tree: the pytree whose structure the result has.
      *rest: pytrees that each have ``tree``'s structure or have it as a prefix.
      is_leaf: optional predicate marking extra nodes of ``tree`` as leaves.

    Returns:
      A pytree shaped like ``tree`` holding ``f(x, *xs)`` at each leaf.

    Example:
      >>> tree_map(lambda x, y: x + y, {'a': 1, 'b': (2, 3)}, {'a': 10, 'b': (20, 30)})
      {'a': 11, 'b': (22, 33)}
    """
    leaves, treedef = _flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    all_leaves_ = [leaves]
    for other in rest:
        try:
            all_leaves_.append(treedef.flatten_up_to(other))
        except Exception as e:
            raise _prefix_mismatch("tree_map tree", tree, other, is_leaf, e) from None
    return treedef.unflatten([f(*xs) for xs in zip(*all_leaves_, strict=True)])


def tree_reduce(function: Callable[[T, Any], T], tree: Any, initializer: Any = _UNSPECIFIED,
                is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Reduces the leaves of a pytree left to right with ``function``.

    Example:
      >>> tree_reduce(operator.add, [1, (2, 3)], 10)
      16
    """
    if initializer is _UNSPECIFIED:
        return functools.reduce(function, tree_leaves(tree, is_leaf))
    return functools.reduce(function, tree_leaves(tree, is_leaf), initializer)


def _halving_reduce(items: list, operation: Callable, identity: Any) -> Any:
    if not items:
        if identity is _UNSPECIFIED:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(items) == 1:
        return items[0]
    middle = len(items) // 2
    return operation(_halving_reduce(items[:middle], operation, identity),
                     _halving_reduce(items[middle:], operation, identity))


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *,
                            identity: Any = _UNSPECIFIED,
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Reduces the leaves with an associative ``operation`` as a balanced tree.

    Example:
      >>> tree_reduce_associative(lambda a, b: (a, b), [1, 2, 3, 4])
      ((1, 2), (3, 4))
    """
    return _halving_reduce(tree_leaves(tree, is_leaf), operation, identity)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Returns True if every leaf of ``tree`` is truthy."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turns a tree of trees inside out: outer-of-inner becomes inner-of-outer.

    Args:
      outer_treedef: structure of the outer tree.
      inner_treedef: structure of each inner tree; inferred from the first one
        if None.
      pytree_to_transpose: a tree of ``outer_treedef`` with an ``inner_treedef``
        tree at each leaf.

    Example:
      >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
      ([1, 3], [2, 4])
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size = inner_treedef.num_leaves
    outer_size = outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    columns = [outer_treedef.unflatten(column) for column in zip(*rows, strict=True)]
    return inner_treedef.unflatten(columns)


def broadcast_prefix(prefix_tree: Any, full_tree: Any,
                     is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """Repeats each leaf of ``prefix_tree`` once per leaf of the matching subtree of ``full_tree``."""
    result: list = []

    def add_leaves(x: Any, subtree: Any) -> None:
        result.extend([x] * tree_structure(subtree).num_leaves)

    try:
        tree_map(add_leaves, prefix_tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        found = prefix_errors(prefix_tree, full_tree)
        raise found[0]("broadcast_prefix prefix_tree") from None
    return result


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Broadcasts a tree prefix into the full structure of another tree.

    Example:
      >>> tree_broadcast([1, {'a': 2}], [(5, 6), {'a': [7, 8]}])
      [(1, 1), {'a': [2, 2]}]
    """
    leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_structure(full_tree).unflatten(leaves)


# ---- key paths -----------------------------------------------------------------

def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Flattens a pytree like ``tree_flatten``, pairing each leaf with its key path.

    Example:
      >>> tree_flatten_with_path({'a': [1]})
      ([((DictKey(key='a'), SequenceKey(idx=0)), 1)], PyTreeDef({'a': [*]}))
    """
    predicate = is_leaf
    if is_leaf is not None and not is_leaf_takes_path:
        predicate = lambda _, x: is_leaf(x)  # noqa: E731
    return _engine.flatten_with_path(tree, predicate)


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """Returns ``(key_path, leaf)`` pairs in flattening order."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like ``tree_map`` but ``f`` also receives each leaf's key path first.

    Example:
      >>> tree_map_with_path(lambda p, x: keystr(p), {'a': [0, 0]})
      {'a': ["['a'][0]", "['a'][1]"]}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    columns = [[path for path, _ in pairs], [leaf for _, leaf in pairs]]
    for other in rest:
        try:
            columns.append(treedef.flatten_up_to(other))
        except Exception as e:
            raise _prefix_mismatch("tree_map_with_path tree", tree, other, is_leaf, e) from None
    return treedef.unflatten([f(*xs) for xs in zip(*columns, strict=True)])


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """Flattens one level of a pytree node: returns ``(children, aux_data)``.

    Raises:
      ValueError: if ``tree`` is a leaf.

    Example:
      >>> flatten_one_level({'a': [1, 2], 'b': {'c': 3}})
      (([1, 2], {'c': 3}), ('a', 'b'))
    """
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[KeyEntry, Any]], Hashable]:
    """Flattens one level of a pytree node: returns ``((key, child), ...), aux_data``."""
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


class PyTreeRegistry:
    """The registry's methods, as ``jax.tree_util.default_registry`` exposes them.

    pyjax has a single registry; this object is its face.
    """

    def flatten(self, tree: Any, leaf_predicate: Callable[[Any], bool] | None = None
                ) -> tuple[list, PyTreeDef]:
        """Like ``tree_flatten``."""
        return _flatten(tree, leaf_predicate)

    def flatten_with_path(self, tree: Any, leaf_predicate: Callable[[Any, Any], bool] | None = None
                          ) -> tuple[list, PyTreeDef]:
        """Like ``tree_flatten_with_path``; the predicate takes ``(path, x)``."""
        return _engine.flatten_with_path(tree, leaf_predicate)

    def is_node(self, typ: type) -> bool:
        """Like ``is_tree_node``."""
        return is_tree_node(typ)

    def register_node(self, nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                      flatten_with_keys_func: Callable | None = None) -> None:
        """Like ``register_pytree_node``."""
        _reg.register_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)

    def register_dataclass_node(self, nodetype: type, data_fields: Sequence[str],
                                meta_fields: Sequence[str]) -> None:
        """Registers a dataclass-like node by field names (no checks, unlike ``register_dataclass``)."""
        _reg.register_dataclass_node(nodetype, data_fields, meta_fields)

    def flatten_one_level(self, tree: Any) -> tuple[Iterable[Any], Hashable] | None:
        """``(children, aux_data)`` of a node, or None for a leaf."""
        return _reg.flatten_one_level(tree)

    def flatten_one_level_with_keys(self, tree: Any) -> tuple[Iterable[Any], Hashable] | None:
        """``((key, child), ...), aux_data`` of a node, or None for a leaf."""
        return _reg.flatten_one_level_with_keys(tree)

    def __repr__(self) -> str:
        return "pyjax.tree_util.default_registry"


default_registry = PyTreeRegistry()


# ---- Partial -------------------------------------------------------------------

class _CallableBox:
    """Hides a functools.partial from partial's constructor, which would merge it.

    Calls, equality and hashing go to the wrapped callable.
    """

    def __init__(self, fun: Callable):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __hash__(self) -> int:
        return hash(self.fun)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _CallableBox):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self) -> str:
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A version of ``functools.partial`` that is a pytree.

    The bound positional and keyword arguments are the children; the function
    is static aux data. ``Partial(func, *args, **kwargs)`` can therefore be
    passed through ``jit`` and other transformations, and its bound arguments
    are traced.

    Example:
      >>> add_one = Partial(operator.add, 1)
      >>> add_one(2)
      3
      >>> tree_structure(add_one)
      PyTreeDef(CustomNode(Partial[<built-in function add>], [(*,), {}]))
    """

    def __new__(klass, func, *args, **kw):
        if isinstance(func, functools.partial):
            # Keep the inner partial's arguments out of this pytree: box it so
            # partial.__new__ does not flatten the two into one.
            inner = func
            func = _CallableBox(inner)
            out = super().__new__(klass, func, *args, **kw)
            func.func = inner.func
            func.args = inner.args
            func.keywords = inner.keywords
            return out
        return super().__new__(klass, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda partial_: ((partial_.args, partial_.keywords), partial_.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),
)

register_pytree_with_keys(
    collections.OrderedDict,
    lambda x: (tuple((DictKey(k), x[k]) for k in x), tuple(x)),
    lambda keys, values: collections.OrderedDict(zip(keys, values, strict=True)),
)


def _flatten_defaultdict_with_keys(d: collections.defaultdict):
    keys = tuple(sorted(d))
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict,
    _flatten_defaultdict_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values, strict=True)),
)


# Public objects report the public module, as JAX's do (and pickle by it).
for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", None) == __name__:
        _obj.__module__ = "pyjax.tree_util"
del _name, _obj


# JAX's type -> (to_iter, from_iter) mapping of registered node types, which
# libraries read (jax._src.tree_util._registry): a view of pyjax's registry.
_RegistryEntry = _reg.RegistryEntry
_registry = _reg.RegistryView()
