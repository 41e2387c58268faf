"""Records JAX 0.11's pytree behaviour into trees.json.

Run with the reference JAX (not pyjax):

    /tmp/jax-ref/bin/python tests/golden/record_trees.py

The cases and the functions that turn a case into JSON-able facts live here
and take the tree_util module as an argument, so the recorder (with
``jax.tree_util``) and ``tests/test_tree_util.py`` (with ``pyjax.tree_util``)
compute the facts the same way. What is recorded:

* ``trees``: for each tree (plain containers, namedtuples, OrderedDict,
  defaultdict, registered classes, dataclasses, Partial, static nodes, with
  and without ``is_leaf``): the leaves, the treedef's repr, num_leaves and
  num_nodes, node_data, children, the key paths (``keystr`` plain and
  simple), the tree rebuilt from stand-in leaves, ``flatten_one_level``;
* ``outcomes``: one value or one error (class and message) per named call:
  mismatched ``tree_map``, ``flatten_up_to`` errors for each node kind,
  unflatten with the wrong number of leaves, duplicate registration,
  ``register_dataclass`` errors, unsortable dict keys, ``tree_transpose``,
  ``tree_broadcast``, reductions, keystr, equality of treedefs, ...
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import json
import operator
import pathlib
import re
import sys
from typing import Any

import numpy as np

OUT = pathlib.Path(__file__).with_name("trees.json")


# ---- classes used by the cases (stable reprs whatever module runs this) ------

def _stable(cls):
    cls.__module__ = "cases"
    return cls


Point = _stable(collections.namedtuple("Point", ["x", "y"]))
Empty = _stable(collections.namedtuple("Empty", []))


@_stable
class Box:
    """Registered with register_pytree_node: children (a, b), aux ``tag``."""

    def __init__(self, a, b, tag):
        self.a, self.b, self.tag = a, b, tag

    def __repr__(self):
        return f"Box({self.a!r}, {self.b!r}, tag={self.tag!r})"


@_stable
class Keyed:
    """Registered with keys: children named ``.left`` and ``['right']``."""

    def __init__(self, left, right):
        self.left, self.right = left, right

    def __repr__(self):
        return f"Keyed({self.left!r}, {self.right!r})"


@_stable
class Pair:
    """register_pytree_node_class: children (first, second), no aux data."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def tree_flatten(self):
        return (self.first, self.second), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    def __repr__(self):
        return f"Pair({self.first!r}, {self.second!r})"


@_stable
class Named:
    """register_pytree_with_keys_class."""

    def __init__(self, value, label):
        self.value, self.label = value, label

    def tree_flatten_with_keys(self):
        return ((_KEY_FACTORY("value"), self.value),), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children[0], label)

    def __repr__(self):
        return f"Named({self.value!r}, {self.label!r})"


_KEY_FACTORY: Any = None  # GetAttrKey of the module under test, set by setup()


@_stable
@dataclasses.dataclass
class Params:
    """register_dataclass with field metadata: ``name`` is static."""
    w: Any
    b: Any
    name: str = dataclasses.field(default="p", metadata=dict(static=True))


@_stable
@dataclasses.dataclass
class Explicit:
    """register_dataclass with explicit data_fields / meta_fields."""
    x: Any
    y: Any
    mode: str


@_stable
class Plain:
    """Not a dataclass: register_dataclass with explicit fields."""

    def __init__(self, a, k):
        self.a, self.k = a, k

    def __repr__(self):
        return f"Plain({self.a!r}, {self.k!r})"


@_stable
class Tag(str):
    """register_static: a string that is a node without leaves."""


@_stable
class Unregistered:
    def __repr__(self):
        return "Unregistered()"


@_stable
@dataclasses.dataclass
class Dup:
    a: Any
    b: Any
    c: int = dataclasses.field(default=0, init=False)


_done: set = set()


def setup(tu) -> None:
    """Registers the case classes with ``tu`` (a tree_util module) once."""
    global _KEY_FACTORY
    _KEY_FACTORY = tu.GetAttrKey
    if id(tu) in _done:
        return
    _done.add(id(tu))
    tu.register_pytree_node(Box, lambda b: ((b.a, b.b), b.tag),
                            lambda tag, ch: Box(ch[0], ch[1], tag))
    tu.register_pytree_with_keys(
        Keyed,
        lambda k: (((tu.GetAttrKey("left"), k.left), (tu.DictKey("right"), k.right)), None),
        lambda _, ch: Keyed(*ch))
    tu.register_pytree_node_class(Pair)
    tu.register_pytree_with_keys_class(Named)
    tu.register_dataclass(Params)
    tu.register_dataclass(Explicit, data_fields=["x", "y"], meta_fields=["mode"])
    tu.register_dataclass(Plain, data_fields=["a"], meta_fields=["k"])
    tu.register_static(Tag)


# ---- the trees ---------------------------------------------------------------

def _defaultdict():
    d = collections.defaultdict(list)
    d["z"] = 1
    d["a"] = (2, 3)
    return d


def tree_cases(tu) -> dict[str, tuple[Any, Any]]:
    """name -> (tree, is_leaf or None)."""
    setup(tu)
    is_tuple = lambda x: isinstance(x, tuple)  # noqa: E731
    is_none = lambda x: x is None  # noqa: E731
    return {
        "leaf_int": (1, None),
        "leaf_str": ("abc", None),
        "leaf_array": (np.arange(3), None),
        "none": (None, None),
        "empty_tuple": ((), None),
        "empty_list": ([], None),
        "empty_dict": ({}, None),
        "tuple3": ((1, 2, 3), None),
        "tuple1": ((1,), None),
        "list_nested": ([1, [2, [3, [4]]]], None),
        "dict_sorted_keys": ({"b": 1, "a": 2, "c": 3}, None),
        "dict_nested": ({"layers": ({"w": 1, "b": 2}, {"w": 3, "b": 4}), "scale": 5.0}, None),
        "dict_int_keys": ({3: "c", 1: "a", 2: "b"}, None),
        "dict_float_int_keys": ({1.5: 1, 0: 2, -1: 3}, None),
        "dict_tuple_keys": ({(1, "b"): 1, (1, "a"): 2, (0, "z"): 3}, None),
        "dict_none_key": ({None: 1}, None),
        "dict_quoted_keys": ({"it's": 1, 'say "hi"': 2}, None),
        "none_inside": ([None, (None,), {"a": None, "b": 1}], None),
        "empties_inside": ([(), [], {}, None], None),
        "namedtuple": (Point(1, (2, 3)), None),
        "namedtuple_empty": (Empty(), None),
        "namedtuple_in_dict": ({"p": Point(x=[1], y=None)}, None),
        "ordereddict": (collections.OrderedDict([("z", 1), ("a", [2, 3])]), None),
        "defaultdict": (_defaultdict(), None),
        "custom_node": (Box(1, [2, 3], "meta"), None),
        "custom_tuple_aux": (Box((1,), None, ("t", 2)), None),
        "custom_nested": ([Box(Box(1, 2, "in"), 3, "out")], None),
        "custom_with_keys": (Keyed({"a": 1}, [2, 3]), None),
        "node_class": (Pair(1, (2, 3)), None),
        "keys_class": (Named([1, 2], "lbl"), None),
        "dataclass_static_field": (Params(w=[1, 2], b=3, name="dense"), None),
        "dataclass_explicit": (Explicit(x=1, y={"q": 2}, mode="fast"), None),
        "not_dataclass_fields": (Plain(a=(1, 2), k="k"), None),
        "static": ([1, Tag("s"), 2], None),
        "partial": (tu.Partial(operator.add, 1), None),
        "partial_kwargs": (tu.Partial(operator.mul, 2, y=[3, 4]), None),
        "partial_of_partial": (tu.Partial(functools.partial(operator.add, 1)), None),
        "unregistered_is_leaf": ([Unregistered(), 1], None),
        "mixed_everything": ({"a": [1, (2, None)], "b": Point(3, {"c": 4}),
                              "d": collections.OrderedDict(y=5, x=6), "e": Box(7, 8, "t")}, None),
        "is_leaf_tuple": ([1, (2, 3), [(4,)]], is_tuple),
        "is_leaf_root": ((1, 2), is_tuple),
        "is_leaf_none": ([1, None, {"a": None}], is_none),
        "is_leaf_namedtuple": ({"p": Point(1, 2)}, is_tuple),
    }


def _describe(tu, value: Any) -> str:
    """repr, except OrderedDict/defaultdict, whose repr changed in Python 3.12."""
    if isinstance(value, collections.OrderedDict):
        items = ", ".join(f"{k!r}: {_describe(tu, v)}" for k, v in value.items())
        return f"OrderedDict{{{items}}}"
    if isinstance(value, collections.defaultdict):
        items = ", ".join(f"{k!r}: {_describe(tu, v)}" for k, v in value.items())
        return f"defaultdict({value.default_factory!r}){{{items}}}"
    if type(value) is dict:
        items = ", ".join(f"{k!r}: {_describe(tu, v)}" for k, v in value.items())
        return f"{{{items}}}"
    if type(value) in (list, tuple):
        parts = [_describe(tu, v) for v in value]
        if type(value) is list:
            return f"[{', '.join(parts)}]"
        return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"
    if isinstance(value, tu.Partial):
        return (f"Partial({value.func!r}, args={_describe(tu, value.args)}, "
                f"keywords={_describe(tu, value.keywords)})")
    return repr(value)


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
# Python 3.11 prints OrderedDict([('a', 1)]), 3.12 prints OrderedDict({'a': 1}).
_OLD_ORDEREDDICT = re.compile(r"OrderedDict\(\[((?:\('[^']*', [^()]*\)(?:, )?)*)\]\)")
_OLD_ITEM = re.compile(r"\(('[^']*'), ([^()]*)\)")


def _new_ordereddict(match: re.Match) -> str:
    return "OrderedDict({" + _OLD_ITEM.sub(r"\1: \2", match.group(1)) + "})"


def normalise(text: str) -> str:
    """Drops memory addresses, the module JAX's C++ classes live in, and the
    OrderedDict repr difference between Python versions."""
    text = _ADDRESS.sub(" at 0x", text)
    text = _OLD_ORDEREDDICT.sub(_new_ordereddict, text)
    return text.replace("jaxlib._jax.pytree.", "").replace("pyjax.tree_util.", "jax.tree_util.")


def tree_facts(tu, tree: Any, is_leaf: Any) -> dict[str, Any]:
    """Everything recorded about one tree."""
    leaves, treedef = tu.tree_flatten(tree, is_leaf=is_leaf)
    stand_ins = [f"L{i}" for i in range(len(leaves))]
    facts: dict[str, Any] = {
        "leaves": [_describe(tu, leaf) for leaf in leaves],
        "treedef": normalise(repr(treedef)),
        "num_leaves": treedef.num_leaves,
        "num_nodes": treedef.num_nodes,
        "node_data": normalise(repr(treedef.node_data())),
        "children": [normalise(repr(c)) for c in treedef.children()],
        "rebuilt": _describe(tu, tu.tree_unflatten(treedef, stand_ins)),
        "roundtrip": _describe(tu, tu.tree_unflatten(treedef, leaves)) == _describe(tu, tree),
        "is_treedef_leaf": tu.treedef_is_leaf(treedef),
        "structure_equal": tu.tree_structure(tree, is_leaf=is_leaf) == treedef,
    }
    pairs = tu.tree_leaves_with_path(tree, is_leaf=is_leaf)
    facts["paths"] = [tu.keystr(path) for path, _ in pairs]
    facts["paths_simple"] = [tu.keystr(path, simple=True, separator="/") for path, _ in pairs]
    facts["path_reprs"] = [normalise(repr(path)) for path, _ in pairs]
    facts["mapped"] = _describe(tu, tu.tree_map(lambda x: ("m", x), tree, is_leaf=is_leaf))
    if is_leaf is None and tu.is_tree_node(type(tree)):
        children, aux = tu.flatten_one_level(tree)
        facts["one_level"] = [_describe(tu, list(children)), normalise(repr(aux))]
        keyed, _ = tu.flatten_one_level_with_keys(tree)
        facts["one_level_keys"] = [normalise(repr(k)) for k, _ in keyed]
    return facts


# ---- calls with one outcome ------------------------------------------------------

def outcome_cases(tu) -> dict[str, Any]:
    """name -> a thunk whose value (or error) is recorded."""
    setup(tu)
    S = tu.tree_structure
    first = lambda *xs: xs[0]  # noqa: E731

    def tree_map2(a, b):
        return lambda: tu.tree_map(first, a, b)

    def up_to(a, b):
        return lambda: S(a).flatten_up_to(b)

    def register_twice():
        tu.register_pytree_node(Box, lambda b: ((), None), lambda a, c: None)

    return {
        # tree_map with mismatched structures
        "map_tuple_length": tree_map2((1, 2), (1, 2, 3)),
        "map_type": tree_map2((1, 2), [1, 2]),
        "map_dict_keys": tree_map2({"a": 1}, {"b": 1}),
        "map_dict_extra_key": tree_map2({"a": 1}, {"a": 1, "b": 2}),
        "map_nested_dict": tree_map2({"a": {"c": 1}}, {"a": {"c": 1, "d": 3}}),
        "map_nested_type": tree_map2((1, (2, 3)), (1, 4)),
        "map_none_vs_leaf": tree_map2((1, None), (1, 4)),
        "map_leaf_vs_none_ok": tree_map2((1, 4), (1, None)),
        "map_prefix_ok": lambda: tu.tree_map(lambda x, y: (x, y), (1, 4), (1, [2, 3])),
        "map_custom_aux": tree_map2(Box(1, 2, "m"), Box(1, 2, "n")),
        "map_custom_vs_leaf": tree_map2(Box(1, 2, "m"), 5),
        "map_list_vs_none": tree_map2([1, 2], None),
        "map_deep_list": tree_map2([1, [2, 3]], [1, [2, 3, 4]]),
        "map_namedtuple_child": tree_map2(Point(1, (2, 3)), Point(1, (2,))),
        "map_namedtuple_vs_tuple": tree_map2({"x": Point(1, 2)}, {"x": (1, 2)}),
        "map_dataclass_child": tree_map2(Params((1, 2), 3), Params((1,), 3)),
        "map_three_trees": lambda: tu.tree_map(lambda *a: a, [1, 2], [3, 4], [5, 6]),
        "map_with_path_mismatch": lambda: tu.tree_map_with_path(
            lambda p, x, y: x, {"a": [1, 2]}, {"a": [3]}),
        "map_with_path": lambda: tu.tree_map_with_path(
            lambda p, x, y: (tu.keystr(p), x, y), {"a": [1, 2]}, {"a": [3, 4]}),
        # flatten_up_to, one per node kind
        "up_to_tuple_arity": up_to((1, 2), (1,)),
        "up_to_tuple_type": up_to((1, 2), [1, 2]),
        "up_to_tuple_vs_namedtuple": up_to((1, 2), Point(1, 2)),
        "up_to_list_arity": up_to([1, 2], [1]),
        "up_to_list_type": up_to([1, 2], 3),
        "up_to_dict_keys": up_to({"a": 1, "b": 2}, {"c": 1, "b": 2}),
        "up_to_dict_type": up_to({"a": 1}, collections.OrderedDict(a=1)),
        "up_to_none": up_to(None, 1),
        "up_to_none_vs_empty": up_to(None, ()),
        "up_to_namedtuple_type": up_to(Point(1, 2), Empty()),
        "up_to_namedtuple_vs_tuple": up_to(Point(1, 2), (1, 2)),
        "up_to_custom_type": up_to(Box(1, 2, "m"), 3),
        "up_to_custom_aux": up_to(Box(1, 2, "m"), Box(1, 2, "n")),
        "up_to_dataclass_type": up_to([Params(1, 2)], [Explicit(1, 2, "m")]),
        "up_to_dataclass_meta": up_to(Params(1, 2, "a"), Params(1, 2, "b")),
        "up_to_ordereddict_order": up_to(collections.OrderedDict(a=1, b=2),
                                         collections.OrderedDict(b=1, a=2)),
        "up_to_prefix": up_to([1, {"a": 2}], [(5, 6), {"a": [7, 8]}]),
        # unflatten
        "unflatten_too_few": lambda: tu.tree_unflatten(S({"a": (1, 2)}), [1]),
        "unflatten_too_many": lambda: tu.tree_unflatten(S({"a": (1, 2)}), [1, 2, 3]),
        "unflatten_iterator": lambda: _describe(tu, tu.tree_unflatten(S([1, (2,)]), iter("ab"))),
        "unflatten_none": lambda: tu.tree_unflatten(S(None), []),
        # registration
        "register_twice": register_twice,
        "register_builtin": lambda: tu.register_pytree_node(tuple, lambda x: ((), None),
                                                            lambda a, c: ()),
        "dataclass_missing_meta": lambda: tu.register_dataclass(Dup, ["a"]),
        "dataclass_overlap": lambda: tu.register_dataclass(Dup, ["a", "b"], ["a"]),
        "dataclass_init_false": lambda: tu.register_dataclass(Dup),
        "dataclass_fields_mismatch": lambda: tu.register_dataclass(Dup, ["a"], ["c"]),
        "dataclass_not_dataclass": lambda: tu.register_dataclass(Unregistered),
        # flatten errors
        "unsortable_keys": lambda: tu.tree_flatten({1: "a", "b": 2}),
        "unsortable_complex_keys": lambda: tu.tree_flatten({1j: 1, 2j: 2}),
        "single_complex_key": lambda: repr(S({1j: 1})),
        "ordereddict_unsortable_ok": lambda: repr(S(collections.OrderedDict({1: 1, "a": 2}))),
        "is_leaf_non_bool": lambda: tu.tree_leaves([1], is_leaf=lambda x: 1),
        "is_leaf_none_answer": lambda: tu.tree_leaves([1, (2,)], is_leaf=lambda x: None),
        "is_leaf_call_order": lambda: _is_leaf_calls(tu),
        # treedef operations
        "treedef_tuple": lambda: repr(tu.treedef_tuple([S({"a": (1, 2)}), S(1), S(None)])),
        "treedef_tuple_empty": lambda: repr(tu.treedef_tuple([])),
        "children_roundtrip": lambda: tu.treedef_tuple(S((1, [2], {"a": 3})).children())
        == S((1, [2], {"a": 3})),
        "compose": lambda: repr(S((1, 2)).compose(S({"x": 1, "y": [2]}))),
        "eq_different_keys": lambda: S({"a": 1}) == S({"b": 1}),
        "eq_dict_vs_ordereddict": lambda: S({"a": 1}) == S(collections.OrderedDict(a=1)),
        "eq_int_float_keys": lambda: S({1: 1}) == S({1.0: 1}),
        "eq_custom_aux": lambda: S(Box(1, 2, "m")) == S(Box(1, 2, "m")),
        "eq_custom_aux_differs": lambda: S(Box(1, 2, "m")) == S(Box(1, 2, "n")),
        "eq_leaf_vs_none": lambda: S(1) == S(None),
        "eq_other_type": lambda: S(1) == 1,
        "hash_equal": lambda: hash(S({"a": (1, 2)})) == hash(S({"a": (3, 4)})),
        "float_key_unflatten": lambda: repr(tu.tree_unflatten(S({1.0: 1}), [5])),
        "treedef_is_leaf_none": lambda: tu.treedef_is_leaf(S(None)),
        "treedef_is_leaf_list": lambda: tu.treedef_is_leaf(S([1])),
        "all_leaves_true": lambda: tu.all_leaves([1, "a", np.float32(2)]),
        "all_leaves_none": lambda: tu.all_leaves([1, None]),
        "all_leaves_is_leaf": lambda: tu.all_leaves([1, (2,)], is_leaf=lambda x: isinstance(x, tuple)),
        "is_tree_node": lambda: [tu.is_tree_node(t) for t in (dict, int, type(None), Point, Box)],
        # transpose, broadcast, reductions
        "transpose": lambda: tu.tree_transpose(S([1, 2]), S((1, 2)), [(1, 2), (3, 4)]),
        "transpose_inferred": lambda: tu.tree_transpose(S([1, 2]), None, [(1, 2), (3, 4)]),
        "transpose_mismatch": lambda: tu.tree_transpose(S([1, 2]), S((1, 2)), [(1, 2), (3, 4, 5)]),
        "transpose_dict": lambda: tu.tree_transpose(S({"a": 1, "b": 2}), S([1, 2]),
                                                    {"a": [1, 2], "b": [3, 4]}),
        "broadcast": lambda: tu.tree_broadcast([1, {"a": 2}], [(5, 6), {"a": [7, 8]}]),
        "broadcast_mismatch": lambda: tu.tree_broadcast([1, 2], [(5, 6), {"a": [7, 8]}, 3]),
        "broadcast_is_leaf": lambda: tu.tree_broadcast(
            [1, {"a": 2}], [(5, 6), {"a": [7, 8]}], is_leaf=lambda x: isinstance(x, dict)),
        "reduce": lambda: tu.tree_reduce(operator.add, [1, (2, 3)]),
        "reduce_initializer": lambda: tu.tree_reduce(operator.add, [], 10),
        "reduce_empty": lambda: tu.tree_reduce(operator.add, []),
        "reduce_associative": lambda: tu.tree_reduce_associative(lambda a, b: (a, b),
                                                                 [1, 2, 3, 4, 5]),
        "reduce_associative_empty": lambda: tu.tree_reduce_associative(operator.add, []),
        "tree_all_true": lambda: tu.tree_all([1, True, (3,)]),
        "tree_all_false": lambda: tu.tree_all([1, 0]),
        "tree_all_none_leaf": lambda: tu.tree_all([1, None], is_leaf=lambda x: x is None),
        # keys
        "keystr_default": lambda: tu.keystr((tu.DictKey("a"), tu.SequenceKey(0),
                                             tu.GetAttrKey("x"), tu.FlattenedIndexKey(2))),
        "keystr_simple": lambda: tu.keystr((tu.DictKey("a"), tu.SequenceKey(0),
                                            tu.GetAttrKey("x"), tu.FlattenedIndexKey(2)),
                                           simple=True, separator="."),
        "keystr_plain_objects": lambda: tu.keystr((1, "a")),
        "keystr_empty": lambda: tu.keystr(()),
        "key_reprs": lambda: [repr(k) for k in (tu.DictKey(1), tu.DictKey((1, "a")),
                                               tu.SequenceKey(3), tu.GetAttrKey("w"),
                                               tu.FlattenedIndexKey(0))],
        "key_equality": lambda: [tu.SequenceKey(0) == tu.SequenceKey(0),
                                 tu.SequenceKey(0) == tu.FlattenedIndexKey(0),
                                 tu.DictKey(0) == tu.SequenceKey(0),
                                 hash(tu.DictKey("a")) == hash(tu.DictKey("a"))],
        "key_match_args": lambda: [k.__match_args__ for k in (tu.SequenceKey, tu.DictKey,
                                                              tu.GetAttrKey,
                                                              tu.FlattenedIndexKey)],
        "path_is_leaf_takes_path": lambda: [
            tu.keystr(p) for p, _ in tu.tree_leaves_with_path(
                [1, (2, 3)], is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True)],
        "build_tree": lambda: tu.build_tree(S((1, [2, 3])), (5, (6, 7))) if hasattr(
            tu, "build_tree") else _from_iterable(S((1, [2, 3])), (5, (6, 7))),
        "partial_call": lambda: tu.Partial(operator.add, 1)(2),
        "partial_of_partial_call": lambda: tu.Partial(functools.partial(operator.sub, 10), 3)(),
        "static_field": lambda: repr(S(_static_op(tu)(x=1))),
        "leaves_sorted_dict_order": lambda: tu.tree_leaves({"b": [3], "a": 1, "c": {"z": 4, "y": 5}}),
    }


def _from_iterable(treedef, value):
    return treedef.from_iterable_tree(value)


def _is_leaf_calls(tu) -> list:
    calls: list = []
    tu.tree_flatten({"b": [1, 2], "a": (3,)}, is_leaf=lambda x: calls.append(repr(x)) or False)
    return calls


_static_classes: dict = {}


def _static_op(tu):
    """A dataclass with a ``jax.tree.static`` field, made once per module."""
    if id(tu) not in _static_classes:
        tree = sys.modules[tu.__name__.replace("tree_util", "tree")]

        @dataclasses.dataclass
        class Op:
            x: Any
            op: str = tree.static(default="add")

        tu.register_dataclass(Op)
        _static_classes[id(tu)] = Op
    return _static_classes[id(tu)]


def run_outcome(thunk) -> dict[str, Any]:
    """A JSON-able record of calling ``thunk``: its value or its error."""
    try:
        value = thunk()
    except Exception as e:  # noqa: BLE001  (recording every error is the point)
        return {"error": type(e).__name__, "message": normalise(str(e))}
    return {"value": normalise(repr(value))}


def record(tu) -> dict[str, Any]:
    """All facts, computed with the tree_util module ``tu``."""
    trees = {name: tree_facts(tu, tree, is_leaf)
             for name, (tree, is_leaf) in tree_cases(tu).items()}
    outcomes = {name: run_outcome(thunk) for name, thunk in outcome_cases(tu).items()}
    return {"trees": trees, "outcomes": outcomes}


def main() -> None:
    import jax
    import jax.tree  # noqa: F401  (static() for _static_op)
    import jax.tree_util as tu

    facts = record(tu)
    facts = {"jax_version": jax.__version__,
             "tree_namespace": sorted(n for n in dir(jax.tree) if not n.startswith("_")),
             **facts}
    OUT.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(facts['trees'])} trees, {len(facts['outcomes'])} outcomes")


if __name__ == "__main__":
    main()
