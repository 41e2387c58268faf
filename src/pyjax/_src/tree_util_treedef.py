"""The pytree engine: flattening walkers, unflattening and PyTreeDef.

This is pyjax's counterpart of the C++ pytree module JAX ships in jaxlib
(the registry it consults is ``tree_util_registry``).

* **Flattening** walks the value depth first, appending leaves to a list and
  one *token* per node to a post-order *spec* list.  A token is ``0`` for a
  leaf, ``1`` for None, and a small tuple ``(kind, arity, ...)`` otherwise.
* A **PyTreeDef** wraps the spec as a tuple.  Equality and hashing are plain
  tuple operations (C speed, hash cached).  Unflattening first runs a small
  stack machine over the spec; from the second call on a treedef compiles
  itself into a straight-line Python function (``_unflatten_source``), which is
  what makes re-building outputs of a jitted function cheap.
* A nested view of the spec (``_Node``) is built lazily for the structural
  queries: ``children``, ``flatten_up_to``, ``repr``, ``walk``.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any

from pyjax._src.tree_util_registry import (
    CUSTOM,
    DICT,
    LEAF,
    LEAF_RUNS,
    LIST,
    LIST_TOKENS,
    NAMEDTUPLE,
    NONE,
    NONE_PREFIX_HINT,
    SMALL,
    TUPLE,
    TUPLE_TOKENS,
    build_node,
    child_keys,
    children_up_to,
    classify,
    dict_token,
    kind_cache,
    kind_of,
    leaf_types,
    node_children,
    node_data_of,
    registrations,
    sorted_dict_tokens,
    token_for,
    unsorted_dict_tokens,
)

# ---- flattening --------------------------------------------------------------

def _walk(x, kind, leaves, spec, kind_get=kind_cache.get,
          sorted_dict_token=sorted_dict_tokens.get,
          unsorted_dict_token=unsorted_dict_tokens.get,
          all_leaf_types=leaf_types.issuperset):
    # Defaults bind the memo lookups as locals: this is the hot path.
    if kind is DICT:
        order = tuple(x)
        values = x.values()
        token = sorted_dict_token(order)
        if token is not None:
            children = values
        else:
            token = unsorted_dict_token(order)
            if token is None:
                token = dict_token(order)
            keys = token[2]
            children = values if keys is order else map(x.__getitem__, keys)
    elif kind is TUPLE or kind is LIST:
        children = values = x
        n = len(x)
        if n < SMALL:
            token = TUPLE_TOKENS[n] if kind is TUPLE else LIST_TOKENS[n]
        else:
            token = (kind, n)
    elif kind is LEAF:  # only reached for a child whose type was not memoized yet
        leaves.append(x)
        spec.append(LEAF)
        return
    else:
        children, token = node_children(x, kind)
        values = children
    n = token[1]
    if n > 3 and all_leaf_types(map(type, values)):
        # Many leaves in one container: no per-child Python work. (For two or
        # three children the loop below is cheaper than this check.)
        leaves.extend(children)
        spec.extend(LEAF_RUNS[n] if n < SMALL else (LEAF,) * n)
        spec.append(token)
        return
    for child in children:
        child_kind = kind_get(type(child))
        if child_kind is LEAF:
            leaves.append(child)
            spec.append(LEAF)
        elif child_kind is NONE:
            spec.append(NONE)
        elif child_kind is None:
            _walk(child, classify(type(child)), leaves, spec)
        else:
            _walk(child, child_kind, leaves, spec)
    spec.append(token)


def _check_is_leaf(answer: Any) -> bool:
    if answer is True:
        return True
    if answer is False or answer is None:
        return False
    raise ValueError(
        f"is_leaf predicate returned a non-boolean value {answer!r}; expected a boolean")


def _walk_is_leaf(x, is_leaf, leaves, spec):
    if _check_is_leaf(is_leaf(x)):
        leaves.append(x)
        spec.append(LEAF)
        return
    kind = kind_of(type(x))
    if kind is LEAF:
        leaves.append(x)
        spec.append(LEAF)
        return
    children, token = node_children(x, kind)
    for child in children:
        _walk_is_leaf(child, is_leaf, leaves, spec)
    spec.append(token)


def flatten(tree: Any, is_leaf: Callable[[Any], Any] | None = None) -> tuple[list, PyTreeDef]:
    """Flattens ``tree`` into (leaves, treedef)."""
    if is_leaf is None:
        kind = kind_cache.get(type(tree))
        if kind is None:
            kind = classify(type(tree))
        if kind is LEAF:
            return [tree], _LEAF_TREEDEF
        if kind is TUPLE and len(tree) < _FAST_TUPLES:
            # Fast path: a short tuple of leaves has a shared, precompiled treedef.
            for child in tree:
                if kind_cache.get(type(child)) is not LEAF:
                    break
            else:
                return list(tree), _LEAF_TUPLE_TREEDEFS[len(tree)]
        leaves: list = []
        spec: list = []
        if kind is NONE:
            return leaves, _NONE_TREEDEF
        _walk(tree, kind, leaves, spec)
    else:
        leaves = []
        spec = []
        _walk_is_leaf(tree, is_leaf, leaves, spec)
    return leaves, _make_treedef(tuple(spec), len(leaves))




def _walk_with_path(x, path, is_leaf, out, spec):
    if is_leaf is not None and _check_is_leaf(is_leaf(path, x)):
        out.append((path, x))
        spec.append(LEAF)
        return
    kind = kind_of(type(x))
    if kind is LEAF:
        out.append((path, x))
        spec.append(LEAF)
        return
    keys, children, token = child_keys(x, kind)
    for key, child in zip(keys, children, strict=True):
        _walk_with_path(child, (*path, key), is_leaf, out, spec)
    spec.append(token)


def flatten_with_path(tree: Any, is_leaf: Callable[[Any, Any], Any] | None = None
                      ) -> tuple[list, PyTreeDef]:
    """Flattens ``tree`` into ([(key_path, leaf), ...], treedef)."""
    out: list = []
    spec: list = []
    _walk_with_path(tree, (), is_leaf, out, spec)
    return out, _make_treedef(tuple(spec), len(out))







def _unflatten_interpreted(spec: tuple, leaves: list | tuple) -> Any:
    stack: list = []
    push = stack.append
    next_leaf = 0
    for token in spec:
        if token is LEAF:
            push(leaves[next_leaf])
            next_leaf += 1
        elif token is NONE:
            push(None)
        else:
            start = len(stack) - token[1]
            children = stack[start:]
            del stack[start:]
            push(build_node(token, children))
    return stack[0]


_MAX_COMPILED_NODES = 20000
_MAX_COMPILED_DEPTH = 48


def _literal_key(key: Any) -> bool:
    # Keys written into the source as literals; others become constants.
    return type(key) is str or (type(key) is int and -2**62 < key < 2**62)


def _unflatten_source(root: _Node, constants: dict) -> str:
    """Python source of ``def _unflatten(leaves)`` that rebuilds ``root``."""
    leaf_names = [f"a{i}" for i in range(root.num_leaves)]
    next_leaf = iter(leaf_names)

    def constant(value: Any) -> str:
        name = f"_c{len(constants)}"
        constants[name] = value
        return name

    def emit(node: _Node) -> str:
        token = node.token
        if token is LEAF:
            return next(next_leaf)
        if token is NONE:
            return "None"
        parts = [emit(child) for child in node.children]
        kind = token[0]
        if kind == TUPLE or kind == CUSTOM:
            items = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
            if kind == TUPLE:
                return items
            unflatten = registrations[token[2]].unflatten
            return f"{constant(unflatten)}({constant(token[3])}, {items})"
        if kind == LIST:
            return "[" + ", ".join(parts) + "]"
        if kind == DICT:
            keys = [repr(k) if _literal_key(k) else constant(k) for k in token[2]]
            return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, parts, strict=True)) + "}"
        if kind == NAMEDTUPLE:
            return f"{constant(token[2])}({', '.join(parts)})"
        registration = registrations[token[2]]
        names = registration.meta_fields + registration.data_fields
        values = [constant(m) for m in token[3]] + parts
        if all(n.isidentifier() and not keyword.iskeyword(n) for n in names):
            arguments = ", ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))
            return f"{constant(token[2])}({arguments})"
        items = ", ".join(f"{n!r}: {v}" for n, v in zip(names, values, strict=True))
        return f"{constant(token[2])}(**{{{items}}})"

    body = emit(root)
    unpack = f"    {', '.join(leaf_names)}, = leaves\n" if leaf_names else ""
    return f"def _unflatten(leaves):\n{unpack}    return {body}\n"


def _compile_unflatten(treedef: PyTreeDef) -> Callable[[Any], Any]:
    spec = treedef._spec
    if spec == (LEAF,):
        return itemgetter(0)
    if treedef._num_leaves == len(spec) - 1 and type(spec[-1]) is tuple:
        if spec[-1][0] == TUPLE:
            return tuple
        if spec[-1][0] == LIST:
            return list
    root = treedef._root()
    if len(spec) > _MAX_COMPILED_NODES or root.depth > _MAX_COMPILED_DEPTH:
        return lambda leaves: _unflatten_interpreted(spec, leaves)
    constants: dict = {}
    source = _unflatten_source(root, constants)
    exec(compile(source, "<pyjax unflatten>", "exec"), constants)  # noqa: S102
    return constants["_unflatten"]


# ---- the nested view ---------------------------------------------------------

class _Node:
    """One node of a parsed spec; ``start:end`` is its subtree's slice of the spec."""

    __slots__ = ("token", "children", "num_leaves", "start", "end", "depth")

    def __init__(self, token, children, num_leaves, start, end, depth):
        self.token = token
        self.children = children
        self.num_leaves = num_leaves
        self.start = start
        self.end = end
        self.depth = depth


def _parse(spec: tuple) -> _Node:
    stack: list[_Node] = []
    for position, token in enumerate(spec):
        if token is LEAF or token is NONE:
            stack.append(_Node(token, (), int(token is LEAF), position, position + 1, 0))
            continue
        arity = token[1]
        children = tuple(stack[len(stack) - arity:])
        del stack[len(stack) - arity:]
        start = children[0].start if children else position
        stack.append(_Node(token, children, sum(c.num_leaves for c in children),
                           start, position + 1,
                           1 + max((c.depth for c in children), default=0)))
    if len(stack) != 1:
        raise ValueError("PyTreeDef traversal did not yield a singleton.")
    return stack[0]


def _node_repr(node: _Node) -> str:
    token = node.token
    if token is LEAF:
        return "*"
    if token is NONE:
        return "None"
    parts = [_node_repr(child) for child in node.children]
    kind = token[0]
    if kind == TUPLE:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if kind == LIST:
        return "[" + ", ".join(parts) + "]"
    if kind == DICT:
        return "{" + ", ".join(
            f"{key!r}: {part}" for key, part in zip(token[2], parts, strict=True)) + "}"
    if kind == NAMEDTUPLE:
        label = f"namedtuple[{token[2].__name__}]"
    else:
        label = f"{token[2].__name__}[{token[3]}]"
    return f"CustomNode({label}, [{', '.join(parts)}])"




def _hash_fallback(spec: tuple) -> int:
    # Custom aux data may be unhashable; JAX's hash ignores node data entirely,
    # so drop it here rather than fail.
    return hash(tuple(t[:3] if type(t) is tuple and t[0] >= CUSTOM else t for t in spec))






def _flatten_up_to(spec: tuple, position: int, x: Any, out: list) -> int:
    # Reads the post-order spec backwards, which is a pre-order walk that
    # visits children right to left: no parsed tree is needed. ``out`` comes
    # out reversed; returns the position of the next token to read.
    token = spec[position]
    position -= 1
    if token is LEAF:
        out.append(x)
    elif token is NONE:
        if x is not None:
            raise ValueError(f"Expected None, got {x!r}.{NONE_PREFIX_HINT}")
    else:
        children = children_up_to(token, x)
        if type(children) is not list and type(children) is not tuple:
            children = list(children)
        for child in reversed(children):
            position = _flatten_up_to(spec, position, child, out)
    return position


# Compiled builders shared by equal treedefs, so a structure that is flattened
# and unflattened over and over (tree_map in a training loop) is compiled
# once. A treedef seen once maps to None; the second sighting compiles.
_builders: dict[PyTreeDef, tuple] = {}  # treedef -> (spec it was made for, builder or None)
_BUILDERS_LIMIT = 2048
_MISSING = object()


def _strictly_equal(a, b) -> bool:
    """Equal and of the same types all the way down: {1: x} and {1.0: x} have
    equal treedefs, but a builder compiled for one must not rebuild the other."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(_strictly_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _shared_builder(treedef: PyTreeDef) -> Callable[[Any], Any] | None:
    try:
        entry = _builders.get(treedef, _MISSING)
    except Exception:  # aux data whose == or hash misbehaves: just interpret
        return None
    if entry is _MISSING:
        if len(_builders) >= _BUILDERS_LIMIT:
            _builders.clear()
        _builders[treedef] = (treedef._spec, None)
        return None
    owner_spec, builder = entry
    if owner_spec is not treedef._spec and not _strictly_equal(owner_spec, treedef._spec):
        return _compile_unflatten(treedef)  # equal but not identical: its own builder
    if builder is None:
        builder = _compile_unflatten(treedef)
        _builders[treedef] = (owner_spec, builder)
    return builder


class PyTreeDef:
    """The structure of a pytree: every node but the leaves.

    Returned by ``tree_flatten``/``tree_structure``; immutable, hashable and
    comparable, so it can key a cache. ``unflatten`` rebuilds a tree of the
    same structure from new leaves.
    """

    __slots__ = ("_spec", "_num_leaves", "_hash", "_builder", "_parsed", "__weakref__")
    __module__ = "pyjax.tree_util"

    def __new__(cls, *args: Any, **kwargs: Any):
        raise TypeError("pyjax.tree_util.PyTreeDef: no constructor defined!")

    @property
    def num_leaves(self) -> int:
        """The number of leaves."""
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        """The number of nodes, leaves included."""
        return len(self._spec)

    def _root(self) -> _Node:
        try:
            return self._parsed
        except AttributeError:
            self._parsed = _parse(self._spec)
            return self._parsed

    def unflatten(self, leaves: Iterable[Any], /) -> Any:
        """Rebuilds a pytree with this structure from an iterable of leaves."""
        if type(leaves) is not list and type(leaves) is not tuple:
            leaves = list(leaves)
        if len(leaves) != self._num_leaves:
            if len(leaves) < self._num_leaves:
                raise ValueError(f"Too few leaves for PyTreeDef; expected "
                                 f"{self._num_leaves}, got {len(leaves)}")
            raise ValueError(
                f"Too many leaves for PyTreeDef; expected {self._num_leaves}.")
        try:
            builder = self._builder
        except AttributeError:
            builder = _shared_builder(self)
            if builder is None:
                return _unflatten_interpreted(self._spec, leaves)
            self._builder = builder
        return builder(leaves)

    def flatten_up_to(self, xs: Any, /) -> list[Any]:
        """Flattens ``xs`` down to this treedef's leaves (they may be subtrees)."""
        out: list = []
        _flatten_up_to(self._spec, len(self._spec) - 1, xs, out)
        out.reverse()
        return out

    def children(self) -> list[PyTreeDef]:
        """The treedefs of the root's children."""
        spec = self._spec
        return [_make_treedef(spec[c.start:c.end], c.num_leaves)
                for c in self._root().children]

    def node_data(self) -> Any:
        """The root's ``(type, aux_data)``, or None when the root is a leaf."""
        return node_data_of(self._spec[-1])

    def compose(self, inner: PyTreeDef, /) -> PyTreeDef:
        """The treedef with ``inner`` substituted for each of this treedef's leaves."""
        spec: list = []
        for token in self._spec:
            if token is LEAF:
                spec.extend(inner._spec)
            else:
                spec.append(token)
        return _make_treedef(tuple(spec), self._num_leaves * inner._num_leaves)

    def walk(self, f_node: Callable[[tuple, Any], Any], f_leaf: Callable[[Any], Any] | None,
             leaves: Iterable[Any], /) -> Any:
        """Folds ``f_node(children_results, aux_data)`` bottom up over the tree."""
        leaves = iter(leaves)
        stack: list = []
        for token in self._spec:
            if token is LEAF:
                try:
                    leaf = next(leaves)
                except StopIteration:
                    raise ValueError("Too few leaves for PyTreeDef") from None
                stack.append(leaf if f_leaf is None else f_leaf(leaf))
            else:
                arity = 0 if token is NONE else token[1]
                children = tuple(stack[len(stack) - arity:])
                del stack[len(stack) - arity:]
                stack.append(f_node(children, node_data_of(token)[1]))
        if next(leaves, _sentinel) is not _sentinel:
            raise ValueError("Too many leaves for PyTreeDef")
        return stack[0]

    def from_iterable_tree(self, subtrees: Any, /) -> Any:
        """Builds a tree of this structure from nested iterables of children."""
        def build(node: _Node, value: Any) -> Any:
            if node.token is LEAF:
                return value
            items = list(value)
            if len(items) != len(node.children):
                raise ValueError("Arity mismatch between trees")
            children = [build(c, v) for c, v in zip(node.children, items, strict=True)]
            return build_node(node.token, children)
        return build(self._root(), subtrees)

    @staticmethod
    def from_node_data_and_children(registry: Any, node_data: Any,
                                    children: Iterable[PyTreeDef]) -> PyTreeDef:
        """Makes a treedef from a root's ``node_data()`` and its children's treedefs."""
        children = list(children)
        if node_data is None:
            if children:
                raise RuntimeError("PyTreeDef traversal did not yield a singleton.")
            return _LEAF_TREEDEF
        token = token_for(node_data, len(children))
        spec = [t for child in children for t in child._spec]
        spec.append(token)
        return _make_treedef(tuple(spec), sum(c._num_leaves for c in children))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not PyTreeDef:
            return NotImplemented
        if self._num_leaves != other._num_leaves:
            return False
        return self._spec == other._spec

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            pass
        try:
            value = hash(self._spec)
        except TypeError:
            value = _hash_fallback(self._spec)
        self._hash = value
        return value

    def __repr__(self) -> str:
        return f"PyTreeDef({_node_repr(self._root())})"

    def __reduce__(self):
        return (_make_treedef, (self._spec, self._num_leaves))

    def __copy__(self) -> PyTreeDef:
        return self

    def __deepcopy__(self, memo: dict) -> PyTreeDef:
        return self


_sentinel = object()
_new_treedef = object.__new__


def _make_treedef(spec: tuple, num_leaves: int) -> PyTreeDef:
    treedef = _new_treedef(PyTreeDef)
    treedef._spec = spec
    treedef._num_leaves = num_leaves
    return treedef




def _precompiled(spec: tuple, num_leaves: int) -> PyTreeDef:
    treedef = _make_treedef(spec, num_leaves)
    treedef._builder = _compile_unflatten(treedef)
    return treedef


_LEAF_TREEDEF = _precompiled((LEAF,), 1)
_NONE_TREEDEF = _precompiled((NONE,), 0)
_FAST_TUPLES = 16
_LEAF_TUPLE_TREEDEFS = [_precompiled((LEAF,) * n + (TUPLE_TOKENS[n],), n)
                        for n in range(_FAST_TUPLES)]


def tuple_treedef(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """A tuple treedef whose children are ``treedefs``."""
    treedefs = list(treedefs)
    spec = [t for child in treedefs for t in child._spec]
    n = len(treedefs)
    spec.append(TUPLE_TOKENS[n] if n < SMALL else (TUPLE, n))
    return _make_treedef(tuple(spec), sum(t._num_leaves for t in treedefs))
