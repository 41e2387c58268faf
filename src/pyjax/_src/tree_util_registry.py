"""The pytree node registry: which types are nodes and how to take them apart.

``registrations`` maps each custom type to its flatten/unflatten functions
(or, for dataclass-like nodes, its data and meta field names). ``kind_cache``
memoizes ``type -> kind`` for every type ever looked up, leaf types
included, so the flattening hot path costs one dict lookup per value.

Node kinds are small ints. A node's *token*, the entry a treedef's spec holds
for it, is ``LEAF`` (0) or ``NONE`` (1) themselves, or a tuple ``(kind, arity,
...)``: ``(TUPLE, n)``, ``(LIST, n)``, ``(DICT, n, keys)``, ``(NAMEDTUPLE, n,
cls)``, ``(CUSTOM, n, cls, aux_data)``, ``(DATACLASS, n, cls, meta_values)``.
Everything here works one node at a time: children and token of a value,
the value back from children and token, children checked against a token.
"""

from __future__ import annotations

import collections
import collections.abc

from collections.abc import Callable, Iterable
from typing import Any

from pyjax._src.tree_util_keys import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey

# Node kinds. LEAF and NONE double as the tokens of those nodes (small ints
# are singletons in CPython, so the walkers may compare them with `is`).
LEAF = 0
NONE = 1
TUPLE = 2
LIST = 3
DICT = 4
NAMEDTUPLE = 5
CUSTOM = 6
DATACLASS = 7


class _Registration:
    """How one registered type is flattened and rebuilt."""

    __slots__ = ("kind", "nodetype", "flatten", "unflatten", "flatten_with_keys",
                 "data_fields", "meta_fields")

    def __init__(self, kind, nodetype, flatten=None, unflatten=None,
                 flatten_with_keys=None, data_fields=(), meta_fields=()):
        self.kind = kind
        self.nodetype = nodetype
        self.flatten = flatten
        self.unflatten = unflatten
        self.flatten_with_keys = flatten_with_keys
        self.data_fields = tuple(data_fields)
        self.meta_fields = tuple(meta_fields)


_BUILTIN_KINDS = {type(None): NONE, tuple: TUPLE, list: LIST, dict: DICT}
registrations: dict[type, _Registration] = {}
# Memo of type -> kind for every type seen (leaf types too); rebuilt from the
# registry when it grows too big so that throwaway classes do not pile up.
kind_cache: dict[type, int] = dict(_BUILTIN_KINDS)
_KIND_CACHE_LIMIT = 8192
# The types memoized as leaves, as a set: ``leaf_types.issuperset(map(type,
# children))`` tells in one C call that a container holds only leaves.
leaf_types: set[type] = set()


def classify(nodetype: type) -> int:
    """Works out and memoizes the kind of a type not in ``kind_cache`` yet."""
    registration = registrations.get(nodetype)
    if registration is not None:
        kind = registration.kind
    elif issubclass(nodetype, tuple) and hasattr(nodetype, "_fields"):
        kind = NAMEDTUPLE
    else:
        kind = LEAF
    if len(kind_cache) > _KIND_CACHE_LIMIT:
        kind_cache.clear()
        kind_cache.update(_BUILTIN_KINDS)
        kind_cache.update({t: r.kind for t, r in registrations.items()})
        leaf_types.clear()
    kind_cache[nodetype] = kind
    if kind is LEAF:
        leaf_types.add(nodetype)
    return kind


def _register(registration: _Registration) -> None:
    nodetype = registration.nodetype
    if nodetype in registrations or nodetype in _BUILTIN_KINDS:
        raise ValueError(
            f"Duplicate custom PyTreeDef type registration for {nodetype!r}.")
    registrations[nodetype] = registration
    kind_cache[nodetype] = registration.kind
    leaf_types.discard(nodetype)


def register_node(nodetype: type, flatten: Callable, unflatten: Callable,
                  flatten_with_keys: Callable | None = None) -> None:
    """Registers ``nodetype`` as a custom node (the engine side of register_pytree_node)."""
    _register(_Registration(CUSTOM, nodetype, flatten, unflatten, flatten_with_keys))


def register_dataclass_node(nodetype: type, data_fields: Iterable[str],
                            meta_fields: Iterable[str]) -> None:
    """Registers ``nodetype`` as a dataclass-like node with data and meta fields."""
    _register(_Registration(DATACLASS, nodetype, data_fields=data_fields,
                            meta_fields=meta_fields))


def kind_of(nodetype: type) -> int:
    """The node kind of ``nodetype`` (LEAF for a leaf type)."""
    kind = kind_cache.get(nodetype)
    return classify(nodetype) if kind is None else kind


# ---- tokens ----------------------------------------------------------------

SMALL = 256
TUPLE_TOKENS = [(TUPLE, n) for n in range(SMALL)]
LEAF_RUNS = [(LEAF,) * n for n in range(SMALL)]
LIST_TOKENS = [(LIST, n) for n in range(SMALL)]


# Insertion-order key tuple -> the dict's token (DICT, n, sorted keys), for
# dicts whose keys are all strings (parameter dicts), split by whether the
# insertion order is already sorted (then the dict's values() are its
# children in order). A hit replaces a sort by a hash lookup and hands every
# treedef of that shape the same token, so comparing them is identity checks.
# Other keys are sorted each time: 1 == 1.0 == True would let a cache hit
# change which key objects the treedef holds.
sorted_dict_tokens: dict[tuple, tuple] = {}
unsorted_dict_tokens: dict[tuple, tuple] = {}
_DICT_TOKENS_LIMIT = 4096


def dict_token(order: tuple) -> tuple:
    """The token of a dict whose keys, in insertion order, are ``order``."""
    token = sorted_dict_tokens.get(order) or unsorted_dict_tokens.get(order)
    if token is not None:
        return token
    try:
        keys = tuple(sorted(order))
    except Exception:
        raise ValueError(
            "Comparator raised exception while sorting pytree dictionary keys."
        ) from None
    if keys == order:
        keys = order
    token = (DICT, len(keys), keys)
    if all(type(k) is str for k in keys):
        table = sorted_dict_tokens if keys is order else unsorted_dict_tokens
        if len(table) >= _DICT_TOKENS_LIMIT:
            table.clear()
        table[order] = token
    return token


def sorted_keys(mapping: dict) -> tuple:
    """The keys of ``mapping`` in sorted order, as a tuple."""
    return dict_token(tuple(mapping))[2]


def custom_children(x: Any, registration: _Registration) -> tuple[list, tuple]:
    """Calls a custom node's flatten function; returns (children, token)."""
    if registration.kind == DATACLASS:
        children = [getattr(x, name) for name in registration.data_fields]
        meta = tuple([getattr(x, name) for name in registration.meta_fields])
        return children, (DATACLASS, len(children), registration.nodetype, meta)
    result = registration.flatten(x)
    if not isinstance(result, tuple) or len(result) != 2:
        raise ValueError(
            "The to_iterable function for a custom PyTree node should return a "
            f"(children, aux_data) tuple, got {result!r}")
    try:
        iterator = iter(result[0])
    except TypeError:
        raise ValueError(
            "The to_iterable function for a custom PyTree node should return a "
            "(children, aux_data) tuple where 'children' is iterable, "
            f"got {result!r}") from None
    children = list(iterator)
    return children, (CUSTOM, len(children), registration.nodetype, result[1])


def node_children(x: Any, kind: int) -> tuple[Any, Any]:
    """Children of a non-leaf value ``x`` of ``kind``, and its spec token."""
    if kind == TUPLE:
        n = len(x)
        return x, (TUPLE_TOKENS[n] if n < SMALL else (TUPLE, n))
    if kind == LIST:
        n = len(x)
        return x, (LIST_TOKENS[n] if n < SMALL else (LIST, n))
    if kind == DICT:
        token = dict_token(tuple(x))
        return [x[k] for k in token[2]], token
    if kind == NONE:
        return (), NONE
    if kind == NAMEDTUPLE:
        # tuple's own length: a named tuple may define __len__ for its contents
        # (jax.scipy.spatial.transform.Rotation does), which is not its arity.
        return x, (NAMEDTUPLE, tuple.__len__(x), type(x))
    return custom_children(x, registrations[type(x)])




def child_keys(x: Any, kind: int) -> tuple[list, list, Any]:
    """Children of a non-leaf value with their key entries: (keys, children, token)."""
    if kind == TUPLE or kind == LIST:
        children, token = node_children(x, kind)
        return [SequenceKey(i) for i in range(len(x))], children, token
    if kind == DICT:
        children, token = node_children(x, kind)
        return [DictKey(k) for k in token[2]], children, token
    if kind == NONE:
        return [], [], NONE
    if kind == NAMEDTUPLE:
        return [GetAttrKey(name) for name in x._fields], list(x), (NAMEDTUPLE, tuple.__len__(x), type(x))
    registration = registrations[type(x)]
    if registration.kind == DATACLASS:
        children, token = custom_children(x, registration)
        return [GetAttrKey(name) for name in registration.data_fields], children, token
    if registration.flatten_with_keys is None:
        children, token = custom_children(x, registration)
        return [FlattenedIndexKey(i) for i in range(len(children))], children, token
    pairs, aux = registration.flatten_with_keys(x)
    pairs = list(pairs)
    keys = [key for key, _ in pairs]
    children = [child for _, child in pairs]
    return keys, children, (CUSTOM, len(children), registration.nodetype, aux)


def flatten_one_level(x: Any) -> tuple[Any, Any] | None:
    """``(children, aux_data)`` of one node as JAX reports them; None for a leaf."""
    kind = kind_of(type(x))
    if kind is LEAF:
        return None
    if kind == TUPLE or kind == LIST:
        return x, None
    if kind == DICT:
        keys = sorted_keys(x)
        return tuple([x[k] for k in keys]), keys
    if kind == NONE:
        return (), None
    if kind == NAMEDTUPLE:
        return list(x), type(x)
    registration = registrations[type(x)]
    if kind == DATACLASS:
        children, token = custom_children(x, registration)
        return children, token[3]
    children, aux = registration.flatten(x)
    return children, aux


def flatten_one_level_with_keys(x: Any) -> tuple[Any, Any] | None:
    """``((key, child), ...), aux_data`` of one node as JAX reports them; None for a leaf."""
    kind = kind_of(type(x))
    if kind is LEAF:
        return None
    keys, children, token = child_keys(x, kind)
    pairs = list(zip(keys, children, strict=True))
    if kind == NAMEDTUPLE:
        # JAX 0.11 names every namedtuple child after the first field here
        # (but not in tree_flatten_with_path); its prefix errors show it.
        first = GetAttrKey(x._fields[0]) if x._fields else None
        return [(first, child) for child in children], type(x)
    if kind <= DICT:
        return tuple(pairs), None if kind != DICT else token[2]
    return pairs, node_data_of(token)[1]


# ---- building nodes back -----------------------------------------------------


def build_node(token: Any, children: list) -> Any:
    """Builds the node described by ``token`` from its (already built) children."""
    if token is NONE:
        return None
    kind = token[0]
    if kind == TUPLE:
        return tuple(children)
    if kind == LIST:
        return list(children)
    if kind == DICT:
        return dict(zip(token[2], children, strict=True))
    if kind == NAMEDTUPLE:
        return token[2](*children)
    registration = registrations[token[2]]
    if kind == DATACLASS:
        kwargs = dict(zip(registration.meta_fields, token[3], strict=True))
        kwargs.update(zip(registration.data_fields, children, strict=True))
        return token[2](**kwargs)
    return registration.unflatten(token[3], tuple(children))


def node_data_of(token: Any) -> Any:
    """What ``PyTreeDef.node_data`` returns for a node with this token."""
    if token is LEAF:
        return None
    if token is NONE:
        return (type(None), None)
    kind = token[0]
    if kind == TUPLE:
        return (tuple, None)
    if kind == LIST:
        return (list, None)
    if kind == DICT:
        return (dict, list(token[2]))
    if kind == NAMEDTUPLE:
        return (token[2], None)
    return (token[2], token[3])


def token_for(node_data: Any, arity: int) -> Any:
    """The token of a node given as ``(type, aux_data)`` with ``arity`` children."""
    nodetype, aux = node_data
    kind = kind_of(nodetype)
    if kind is LEAF:
        raise RuntimeError(f"Could not find type: {nodetype!r}.")
    if kind == NONE:
        return NONE
    if kind == DICT:
        keys = tuple(aux)
        if len(keys) != arity:
            raise RuntimeError("Number of keys and entries does not match.")
        return (DICT, arity, keys)
    if kind == TUPLE or kind == LIST:
        return (kind, arity)
    if kind == NAMEDTUPLE:
        return (NAMEDTUPLE, arity, nodetype)
    return (kind, arity, nodetype, aux)


NONE_PREFIX_HINT = (
    "\n\nIn previous releases of JAX, flatten-up-to used to consider None to be a "
    "tree-prefix of non-None values. To obtain the previous behavior, you can "
    "usually write:\n  jax.tree.map(lambda x, y: None if x is None else f(x, y), "
    "a, b, is_leaf=lambda x: x is None)")


def children_up_to(token: Any, x: Any) -> Any:
    """Children of ``x`` as a node of ``token``'s shape, or a ValueError in JAX's words."""
    kind = token[0]
    arity = token[1]
    if kind == TUPLE or kind == LIST:
        name, label = ("tuple", "Tuple") if kind == TUPLE else ("list", "List")
        if type(x) is not (tuple if kind == TUPLE else list):
            raise ValueError(f"Expected {name}, got {x!r}.")
        if len(x) != arity:
            raise ValueError(f"{label} arity mismatch: {len(x)} != {arity}; {name}: {x!r}.")
        return x
    if kind == DICT:
        if type(x) is not dict:
            raise ValueError(f"Expected dict, got {x!r}.")
        keys = sorted_keys(x)
        if keys != token[2]:
            raise ValueError(f"Dict key mismatch; expected keys: {list(token[2])!r}; "
                             f"present keys: {list(keys)!r}.")
        return [x[k] for k in keys]
    if kind == NAMEDTUPLE:
        if not isinstance(x, tuple) or not hasattr(type(x), "_fields"):
            raise ValueError(f"Expected named tuple, got {x!r}.")
        if tuple.__len__(x) != arity:
            raise ValueError(f"Named tuple arity mismatch: {tuple.__len__(x)} != {arity}; tuple: {x!r}.")
        if type(x) is not token[2]:
            raise ValueError(f"Named tuple type mismatch: expected type: {token[2]!r}, "
                             f"tuple: {x!r}.")
        return x
    what = "custom dataclass node" if kind == DATACLASS else "custom node"
    if type(x) is not token[2]:
        raise ValueError(f"{what[0].upper()}{what[1:]} type mismatch: expected type: "
                         f"{token[2]!r}, value: {x!r}.")
    children, actual = custom_children(x, registrations[token[2]])
    if actual[3] != token[3]:
        raise ValueError(f"Mismatch {what} data: {token[3]!r} != {actual[3]!r}; value: {x!r}.")
    if len(children) != arity:
        raise ValueError(f"Custom type arity mismatch: {len(children)} != {arity}; value: {x!r}.")
    return children


# ---------------------------------------------------------------------------
# The registry as JAX's Python-side mapping: type -> (to_iter, from_iter).

RegistryEntry = collections.namedtuple("RegistryEntry", ["to_iter", "from_iter"])
RegistryEntry.__name__ = RegistryEntry.__qualname__ = "_RegistryEntry"

_BUILTIN_ENTRIES = {
    tuple: RegistryEntry(lambda xs: (xs, None), lambda _, xs: tuple(xs)),
    list: RegistryEntry(lambda xs: (xs, None), lambda _, xs: list(xs)),
    dict: RegistryEntry(lambda xs: (tuple(xs[k] for k in sorted_keys(xs)), sorted_keys(xs)),
                        lambda keys, xs: dict(zip(keys, xs))),
    type(None): RegistryEntry(lambda z: ((), None), lambda _, xs: None),
}


def _entry(registration: _Registration) -> RegistryEntry:
    if registration.kind == DATACLASS:
        data, meta = registration.data_fields, registration.meta_fields
        nodetype = registration.nodetype

        def to_iter(x):
            return [getattr(x, f) for f in data], tuple(getattr(x, f) for f in meta)

        def from_iter(aux, children):
            return nodetype(**dict(zip(data, children)), **dict(zip(meta, aux)))

        return RegistryEntry(to_iter, from_iter)
    return RegistryEntry(registration.flatten, registration.unflatten)


class RegistryView(collections.abc.Mapping):
    """The registered node types (and the built-in containers) with their
    flatten and unflatten functions, read from `registrations`."""

    def __getitem__(self, nodetype):
        entry = _BUILTIN_ENTRIES.get(nodetype)
        if entry is not None:
            return entry
        return _entry(registrations[nodetype])

    def __iter__(self):
        yield from _BUILTIN_ENTRIES
        yield from registrations

    def __len__(self):
        return len(_BUILTIN_ENTRIES) + len(registrations)

    def __contains__(self, nodetype):
        return nodetype in _BUILTIN_ENTRIES or nodetype in registrations
