"""Property tests for pytrees (src/pyjax/_src/tree_util*.py) over random nests.

Hypothesis builds random trees of tuples, lists, dicts (string or int keys),
None, a namedtuple, OrderedDicts and defaultdicts around int/float/str leaves.
For each: unflatten(flatten(x)) rebuilds x exactly (types included), the
leaves come out in JAX's order (written out independently below), key paths
lead back to their leaves, and treedef equality, hashing, flatten_up_to,
the compiled unflatten and pickling all agree with each other.
"""

from __future__ import annotations

import collections
import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax.tree_util as tu

Pair = collections.namedtuple("Pair", ["left", "right"])

leaf_values = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, width=32),
                        st.text(max_size=3))
str_keys = st.text(alphabet="abcxyz", min_size=1, max_size=3)


def _containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(str_keys, children, max_size=4),
        st.dictionaries(st.integers(-3, 3), children, max_size=3),
        st.builds(Pair, children, children),
        st.dictionaries(str_keys, children, max_size=3).map(collections.OrderedDict),
        st.dictionaries(str_keys, children, max_size=3).map(
            lambda d: collections.defaultdict(list, d)),
    )


trees = st.recursive(st.one_of(leaf_values, st.none()), _containers, max_leaves=25)


# ---- JAX's rule, written out independently ------------------------------------

def expected_leaves(tree: Any) -> list:
    """Leaves in JAX's order: dicts and defaultdicts by sorted key, OrderedDicts
    by insertion, sequences in order, None has none."""
    if tree is None:
        return []
    if isinstance(tree, collections.OrderedDict):
        return [leaf for value in tree.values() for leaf in expected_leaves(value)]
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in expected_leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for child in tree for leaf in expected_leaves(child)]
    return [tree]


def node_count(tree: Any) -> int:
    if isinstance(tree, dict):
        return 1 + sum(node_count(v) for v in tree.values())
    if isinstance(tree, (list, tuple)):
        return 1 + sum(node_count(c) for c in tree)
    return 1


def same_tree(a: Any, b: Any) -> bool:
    """Equal values with equal container types all the way down (and dict order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (list(a) == list(b) and all(same_tree(a[k], b[k]) for k in a)
                and getattr(a, "default_factory", None) == getattr(b, "default_factory", None))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def follow(tree: Any, path: tuple) -> Any:
    for key in path:
        match key:
            case tu.SequenceKey(idx=i):
                tree = tree[i]
            case tu.DictKey(key=k):
                tree = tree[k]
            case tu.GetAttrKey(name=name):
                tree = getattr(tree, name)
    return tree


def sorted_like_jax(tree: Any) -> Any:
    """What unflatten gives back: plain dicts and defaultdicts in sorted key order."""
    if isinstance(tree, collections.OrderedDict):
        return collections.OrderedDict((k, sorted_like_jax(v)) for k, v in tree.items())
    if isinstance(tree, collections.defaultdict):
        return collections.defaultdict(
            tree.default_factory, {k: sorted_like_jax(tree[k]) for k in sorted(tree)})
    if isinstance(tree, dict):
        return {k: sorted_like_jax(tree[k]) for k in sorted(tree)}
    if isinstance(tree, Pair):
        return Pair(sorted_like_jax(tree.left), sorted_like_jax(tree.right))
    if isinstance(tree, (list, tuple)):
        return type(tree)(sorted_like_jax(c) for c in tree)
    return tree


# ---- properties ----------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(trees)
def test_unflatten_of_flatten_rebuilds_the_tree(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert same_tree(tu.tree_unflatten(treedef, leaves), sorted_like_jax(tree))
    assert treedef.num_leaves == len(leaves)
    assert treedef.num_nodes == node_count(tree)


@settings(max_examples=300, deadline=None)
@given(trees)
def test_leaf_order_follows_jax_rule(tree):
    assert tu.tree_leaves(tree) == expected_leaves(tree)


@settings(max_examples=200, deadline=None)
@given(trees)
def test_key_paths_lead_to_their_leaves(tree):
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert treedef == tu.tree_structure(tree)
    assert [leaf for _, leaf in pairs] == tu.tree_leaves(tree)
    for path, leaf in pairs:
        assert follow(tree, path) == leaf


@settings(max_examples=200, deadline=None)
@given(trees)
def test_structure_survives_map_and_compiled_unflatten(tree):
    leaves, treedef = tu.tree_flatten(tree)
    mapped = tu.tree_map(lambda x: ("new", x), tree, is_leaf=lambda x: isinstance(x, str))
    other = tu.tree_structure(tree)
    assert other == treedef and hash(other) == hash(treedef)
    stand_ins = [f"v{i}" for i in range(len(leaves))]
    results = [treedef.unflatten(stand_ins) for _ in range(3)]  # interpreted, then compiled
    assert all(same_tree(r, results[0]) for r in results)
    assert treedef.flatten_up_to(results[0]) == stand_ins
    assert len(tu.tree_leaves(mapped, is_leaf=lambda x: isinstance(x, tuple)
                              and x[:1] == ("new",))) == len(tu.tree_leaves(
                                  tree, is_leaf=lambda x: isinstance(x, str)))


@settings(max_examples=100, deadline=None)
@given(trees, trees)
def test_equality_matches_structure(a, b):
    same_structure = same_tree(tu.tree_map(lambda _: 0, sorted_like_jax(a)),
                               tu.tree_map(lambda _: 0, sorted_like_jax(b)))
    ta, tb = tu.tree_structure(a), tu.tree_structure(b)
    assert (ta == tb) == same_structure
    if ta == tb:
        assert hash(ta) == hash(tb)


@settings(max_examples=100, deadline=None)
@given(trees)
def test_treedef_pickles(tree):
    treedef = tu.tree_structure(tree)
    assert pickle.loads(pickle.dumps(treedef)) == treedef
