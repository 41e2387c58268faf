"""Tests for pyjax.tree_util and pyjax.tree (src/pyjax/_src/tree_util*.py).

Most facts come from tests/golden/trees.json, recorded from JAX 0.11.0 by
tests/golden/record_trees.py: the same functions compute them here with
pyjax, and every tree and every outcome must match. The tests after those
cover what a recording cannot see: the compiled unflatten path, the caches,
registration after a type was memoized as a leaf, pickling, and call order.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import importlib.util
import json
import pathlib
import pickle
import sys
from typing import Any

import numpy as np
import pytest

import pyjax.tree
import pyjax.tree_util as tu
from pyjax._src import tree_util_registry, tree_util_treedef

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
_spec = importlib.util.spec_from_file_location("record_trees", GOLDEN_DIR / "record_trees.py")
record_trees = importlib.util.module_from_spec(_spec)
sys.modules["record_trees"] = record_trees
_spec.loader.exec_module(record_trees)
GOLDEN = json.loads((GOLDEN_DIR / "trees.json").read_text())
TREE_CASES = record_trees.tree_cases(tu)
OUTCOME_CASES = record_trees.outcome_cases(tu)


# ---- against the recording -------------------------------------------------------

def test_golden_was_recorded_from_jax_0_11():
    assert GOLDEN["jax_version"] == "0.11.0"
    assert len(GOLDEN["trees"]) >= 40
    assert set(GOLDEN["trees"]) == set(TREE_CASES)
    assert set(GOLDEN["outcomes"]) == set(OUTCOME_CASES)


@pytest.mark.parametrize("name", sorted(GOLDEN["trees"]))
def test_tree_matches_jax(name):
    tree, is_leaf = TREE_CASES[name]
    facts = record_trees.tree_facts(tu, tree, is_leaf)
    expected = GOLDEN["trees"][name]
    for field in expected:
        assert facts[field] == expected[field], field
    assert set(facts) == set(expected)


@pytest.mark.parametrize("name", sorted(GOLDEN["outcomes"]))
def test_outcome_matches_jax(name):
    assert record_trees.run_outcome(OUTCOME_CASES[name]) == GOLDEN["outcomes"][name]


def test_tree_namespace_has_jax_names():
    public = sorted(n for n in dir(pyjax.tree) if not n.startswith("_"))
    assert public == GOLDEN["tree_namespace"]
    assert pyjax.tree.map is tu.tree_map and pyjax.tree.leaves is tu.tree_leaves


# ---- unflatten: interpreted, compiled, shared ------------------------------------

TREES_FOR_BUILDERS = [
    {"layers": ({"w": 1, "b": 2}, {"w": 3, "b": 4}), "scale": None},
    [1, (2,), [], {}, ()],
    collections.OrderedDict(z=1, a=[2, 3]),
    {3: "c", 1.5: "a", -2: "b"},
    {(1, "k"): "b", (0, "z"): "n"},
    {None: "n"},
    record_trees.Point(1, record_trees.Box(2, 3, ("aux", 1))),
    record_trees.Params(w=[1], b=2, name="n"),
    {"if": 1, "class": 2, "x y": 3},  # keys that are not identifiers
    tu.Partial(print, 1, sep=[2]),
]


@pytest.mark.parametrize("tree", TREES_FOR_BUILDERS, ids=range(len(TREES_FOR_BUILDERS)))
def test_compiled_unflatten_matches_interpreted(tree):
    leaves, treedef = tu.tree_flatten(tree)
    stand_ins = [f"leaf{i}" for i in range(len(leaves))]
    first = treedef.unflatten(stand_ins)  # interpreted
    compiled = tree_util_treedef._compile_unflatten(treedef)
    second = compiled(stand_ins)
    assert tu.tree_leaves(second) == stand_ins
    assert record_trees._describe(tu, first) == record_trees._describe(tu, second)
    assert type(first) is type(second)


def test_compiled_unflatten_keeps_key_objects():
    # 1.0 and 1 are equal keys; the rebuilt dict must hold the recorded one.
    treedef = tu.tree_structure({1.0: 0})
    for _ in range(3):
        (key,) = treedef.unflatten([5])
        assert type(key) is float


def test_reused_treedef_gets_compiled_builder():
    treedef = tu.tree_structure({"a": (1, 2), "b": [3]})
    treedef.unflatten([1, 2, 3])
    treedef.unflatten([1, 2, 3])
    assert treedef.unflatten([4, 5, 6]) == {"a": (4, 5), "b": [6]}
    assert callable(treedef._builder)


def test_equal_treedefs_share_compiled_builder():
    tree = {"shared": [1, 2], "x": {"y": 3}}
    tu.tree_structure(tree).unflatten([1, 2, 3])
    tu.tree_structure(tree).unflatten([1, 2, 3])
    fresh = tu.tree_structure(tree)
    assert fresh.unflatten([7, 8, 9]) == {"shared": [7, 8], "x": {"y": 9}}
    assert fresh._builder is tree_util_treedef._builders[fresh][1]


def test_unflatten_with_unhashable_aux_data():
    class Holder:
        def __init__(self, x):
            self.x = x

    tu.register_pytree_node(Holder, lambda h: ((h.x,), [1, 2]), lambda aux, ch: Holder(*ch))
    treedef = tu.tree_structure(Holder(1))
    hash(treedef)  # falls back to a hash without the aux data
    for value in (5, 6, 7):
        assert treedef.unflatten([value]).x == value


def test_deep_tree_is_unflattened_without_compiling():
    tree: Any = 0
    for _ in range(200):
        tree = [tree]
    leaves, treedef = tu.tree_flatten(tree)
    for _ in range(3):
        assert treedef.unflatten([1]) == tu.tree_map(lambda x: 1, tree)


def test_unflatten_accepts_any_iterable_and_rejects_non_iterables():
    treedef = tu.tree_structure([1, (2,)])
    assert treedef.unflatten(x for x in "ab") == ["a", ("b",)]
    assert treedef.unflatten({"p": 0, "q": 1}) == ["p", ("q",)]
    with pytest.raises(TypeError):
        treedef.unflatten(5)


def test_unflatten_gives_fresh_containers():
    leaves = [1, 2, 3]
    treedef = tu.tree_structure([0, 0, 0])
    for _ in range(3):
        out = treedef.unflatten(leaves)
        assert out == leaves and out is not leaves


# ---- registry and memo ---------------------------------------------------------

def test_registering_a_type_already_seen_as_a_leaf():
    class Later:
        def __init__(self, x):
            self.x = x

    assert tu.tree_leaves([Later(1)])[0].x == 1  # memoized as a leaf
    tu.register_pytree_node(Later, lambda v: ((v.x,), None), lambda _, ch: Later(*ch))
    assert tu.tree_leaves([Later(1), Later(2)]) == [1, 2]
    assert tu.tree_leaves([Later(1)] * 5) == [1] * 5  # the all-leaves fast path too
    assert tu.all_leaves([Later(1)]) is False


def test_registered_namedtuple_becomes_custom_node():
    Pt = collections.namedtuple("Pt", ["a", "b"])
    assert repr(tu.tree_structure(Pt(1, 2))) == "PyTreeDef(CustomNode(namedtuple[Pt], [*, *]))"
    tu.register_pytree_node(Pt, lambda p: ((p.a,), p.b), lambda b, ch: Pt(ch[0], b))
    assert repr(tu.tree_structure(Pt(1, 2))) == "PyTreeDef(CustomNode(Pt[2], [*]))"


def test_kind_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(tree_util_registry, "_KIND_CACHE_LIMIT", 5)
    classes = [type(f"Leaf{i}", (), {}) for i in range(10)]
    assert len(tu.tree_leaves([c() for c in classes])) == 10
    assert len(tree_util_registry.kind_cache) <= 5 + 1 + len(tree_util_registry.registrations)
    assert tu.tree_leaves({"a": (1, None), "b": record_trees.Box(2, 3, "t")}) == [1, 2, 3]


def test_dict_subclasses_and_tuple_subclasses_are_leaves():
    class MyDict(dict):
        pass

    class MyTuple(tuple):
        pass

    assert tu.tree_leaves([MyDict(a=1), MyTuple((1, 2))]) == [MyDict(a=1), MyTuple((1, 2))]


def test_tuple_subclass_with_fields_is_a_namedtuple():
    class FakeNamedTuple(tuple):
        _fields = ("a", "b")

    assert repr(tu.tree_structure(FakeNamedTuple((1, 2)))) == (
        "PyTreeDef(CustomNode(namedtuple[FakeNamedTuple], [*, *]))")


def test_dict_keys_in_cached_order_are_not_confused():
    # The sorted-order memo only takes all-string keys: int keys keep their type.
    assert repr(tu.tree_structure({1: "a", 2: "b"})) == "PyTreeDef({1: *, 2: *})"
    assert repr(tu.tree_structure({1.0: "a", 2: "b"})) == "PyTreeDef({1.0: *, 2: *})"
    assert tu.tree_leaves({"b": 1, "a": 2}) == [2, 1]
    assert tu.tree_leaves({"b": 1, "a": 2}) == [2, 1]  # memo hit
    assert tu.tree_leaves({"a": 2, "b": 1}) == [2, 1]  # already sorted


def test_custom_flatten_must_return_a_pair():
    class Bad:
        pass

    tu.register_pytree_node(Bad, lambda b: 5, lambda a, c: Bad())
    with pytest.raises(ValueError, match="should return a \\(children, aux_data\\) tuple, got 5"):
        tu.tree_flatten(Bad())


def test_custom_children_may_be_a_generator_and_arrive_as_a_tuple():
    seen = []

    class Gen:
        def __init__(self, items):
            self.items = items

    tu.register_pytree_node(Gen, lambda g: ((x for x in g.items), None),
                            lambda _, ch: (seen.append(ch), Gen(list(ch)))[1])
    leaves, treedef = tu.tree_flatten(Gen([1, 2, 3]))
    assert leaves == [1, 2, 3]
    assert treedef.unflatten([4, 5, 6]).items == [4, 5, 6]
    assert seen == [(4, 5, 6)]


# ---- treedef objects -------------------------------------------------------------

def test_treedef_pickles_and_copies():
    point = collections.namedtuple("point", ["x", "y"])
    globals()["point"] = point  # picklable by reference
    treedef = tu.tree_structure({"a": [1, (2, None)], "b": point(3, 4),
                                 "c": collections.OrderedDict(k=5)})
    clone = pickle.loads(pickle.dumps(treedef))
    assert clone == treedef and hash(clone) == hash(treedef)
    assert clone.unflatten(range(5)) == treedef.unflatten(range(5))
    assert copy.copy(treedef) is treedef and copy.deepcopy(treedef) is treedef


def test_keys_pickle_and_are_immutable():
    key = tu.DictKey("a")
    assert pickle.loads(pickle.dumps(key)) == key
    with pytest.raises(AttributeError):
        key.key = "b"
    match tu.SequenceKey(3):
        case tu.SequenceKey(idx=i):
            assert i == 3


def test_treedef_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="no constructor defined"):
        tu.PyTreeDef()


def test_treedef_hash_is_cached_and_consistent_with_equality():
    a = tu.tree_structure({"x": [1, 2], "y": (3,)})
    b = tu.tree_structure({"x": [5, 6], "y": (7,)})
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert a != tu.tree_structure({"x": [5, 6], "y": [7]})


def test_walk_and_from_node_data_and_children():
    treedef = tu.tree_structure((1, {"b": 2, "a": 3}))
    walked = treedef.walk(lambda children, aux: ("node", children, aux), lambda x: x * 10,
                          [1, 2, 3])
    assert walked == ("node", (10, ("node", (20, 30), ["a", "b"])), None)
    rebuilt = tu.PyTreeDef.from_node_data_and_children(
        tu.default_registry, treedef.node_data(), treedef.children())
    assert rebuilt == treedef


def test_flatten_up_to_leaves_subtrees_whole():
    treedef = tu.tree_structure({"a": 0, "b": [0, 0]})
    assert treedef.flatten_up_to({"a": (1, 2), "b": [{"c": 3}, None]}) == [(1, 2), {"c": 3}, None]


# ---- functions -------------------------------------------------------------------

def test_is_leaf_is_asked_before_the_type_on_every_node():
    asked = []

    def is_leaf(x):
        asked.append(type(x).__name__)
        return isinstance(x, list)

    leaves, treedef = tu.tree_flatten((1, [2, 3], None), is_leaf=is_leaf)
    assert asked == ["tuple", "int", "list", "NoneType"]
    assert leaves == [1, [2, 3]] and repr(treedef) == "PyTreeDef((*, *, None))"
    assert tu.tree_leaves([1], is_leaf=lambda x: True) == [[1]]


def test_tree_map_calls_f_in_leaf_order():
    calls = []
    out = tu.tree_map(lambda x: calls.append(x) or -x, {"b": [2, 3], "a": 1})
    assert calls == [1, 2, 3] and out == {"a": -1, "b": [-2, -3]}


def test_tree_map_with_arrays_and_none():
    tree = {"w": np.ones(2), "b": None}
    out = tu.tree_map(lambda x, y: x + y, tree, {"w": np.ones(2), "b": None})
    assert out["b"] is None and np.array_equal(out["w"], [2.0, 2.0])


def test_partial_is_a_pytree_and_a_partial():
    add = tu.Partial(lambda x, y, z=0: x + y + z, 1, z=10)
    leaves, treedef = tu.tree_flatten(add)
    assert leaves == [1, 10]
    doubled = treedef.unflatten([2, 20])
    assert isinstance(doubled, tu.Partial) and doubled(3) == 25
    inner = tu.Partial(tu.Partial(lambda a, b: a - b, 10), 3)
    assert tu.tree_leaves(inner) == [3] and inner() == 7


def test_register_dataclass_decorator_and_static_fields():
    @tu.register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: Any
        act: str = pyjax.tree.static(default="relu")

    leaves, treedef = tu.tree_flatten(Layer(w=[1, 2]))
    assert leaves == [1, 2]
    assert repr(treedef) == "PyTreeDef(CustomNode(Layer[('relu',)], [[*, *]]))"
    assert treedef.unflatten([3, 4]) == Layer(w=[3, 4])
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Layer(w=5))] == [".w"]


def test_register_dataclass_drop_fields():
    @dataclasses.dataclass
    class WithDerived:
        a: Any
        cache: Any = None

    tu.register_dataclass(WithDerived, ["a"], [], drop_fields=["cache"])
    assert tu.tree_leaves(WithDerived(1, cache="x")) == [1]


def test_register_static_nodes_have_no_leaves():
    @tu.register_static
    class Config(tuple):
        pass

    config = Config((1, 2))
    leaves, treedef = tu.tree_flatten({"c": config, "x": 3})
    assert leaves == [3]
    assert treedef.unflatten([4])["c"] is config


def test_flatten_with_path_uses_registered_keys():
    pairs = tu.tree_leaves_with_path(record_trees.Keyed({"a": 1}, [2]))
    assert [tu.keystr(p) for p, _ in pairs] == [".left['a']", "['right'][0]"]
    assert [v for _, v in pairs] == [1, 2]


def test_build_tree_and_treedef_tuple_round_trip():
    treedef = tu.tree_structure((1, [2, 3]))
    assert tu.build_tree(treedef, (5, (6, 7))) == (5, [6, 7])
    both = tu.treedef_tuple([treedef, tu.tree_structure(None)])
    assert both == tu.tree_structure(((1, [2, 3]), None))
    assert tu.treedef_children(both) == [treedef, tu.tree_structure(None)]


def test_default_registry_facade():
    leaves, treedef = tu.default_registry.flatten({"a": 1})
    assert leaves == [1] and treedef == tu.tree_structure({"a": 0})
    assert tu.default_registry.is_node(dict) and not tu.default_registry.is_node(int)
    assert tu.default_registry.flatten_one_level(1) is None


def test_shared_builder_distinguishes_equal_keys_of_different_types():
    # {1: x} and {1.0: x} have equal treedefs; each must rebuild its own key type.
    int_def = tu.tree_structure({1: 0})
    for _ in range(3):
        int_def.unflatten([5])
    float_def = tu.tree_structure({1.0: 0})
    for _ in range(3):
        (key,) = float_def.unflatten([5])
        assert type(key) is float
