"""Explaining pytree structure mismatches in JAX's words.

``prefix_errors`` finds where one tree fails to be a prefix of another and
returns error factories (``name -> ValueError``); ``tree_map`` and
``tree_broadcast`` raise the first one. ``equality_errors`` describes where two
trees that should match differ (for messages of the kind ``cond`` and ``scan``
print). Both walk one level at a time with ``flatten_one_level``.
"""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

from pyjax._src import tree_util_registry as _registry
from pyjax._src import tree_util_treedef as _engine
from pyjax._src.tree_util_keys import KeyPath, keystr

__all__ = ["equality_errors", "prefix_errors"]

ErrorFactory = Callable[[str], ValueError]


def _is_strict_leaf(tree: Any, is_leaf: Callable[[Any], bool] | None) -> bool:
    treedef = _engine.flatten(tree, is_leaf)[1]
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def _one_level(tree: Any) -> tuple[tuple, Any, tuple]:
    """Children, metadata and child keys of a node."""
    children, meta = _registry.flatten_one_level(tree)
    pairs, _ = _registry.flatten_one_level_with_keys(tree)
    return tuple(children), meta, tuple(key for key, _ in pairs)


def prefix_errors(prefix_tree: Any, full_tree: Any,
                  is_leaf: Callable[[Any], bool] | None = None) -> list[ErrorFactory]:
    """Error factories for each place ``prefix_tree`` is not a prefix of ``full_tree``."""
    return list(_prefix_errors((), prefix_tree, full_tree, is_leaf))


def _different_types(path: KeyPath, prefix: Any, full: Any) -> ErrorFactory:
    return lambda name: ValueError(
        "pytree structure error: different types at key path\n"
        f"    {name}{keystr(path)}\n"
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\n"
        "but at the same key path the full pytree has a subtree of different type\n"
        f"    {type(full)}.")


def _different_lengths(path: KeyPath, prefix: Any, full: Any) -> ErrorFactory:
    kind = type(prefix).__name__
    return lambda name: ValueError(
        f"pytree structure error: different lengths of {kind} at key path\n"
        f"    {name}{keystr(path)}\n"
        f"At that key path, the prefix pytree {name} has a subtree of type "
        f"{kind} of length {len(prefix)}, but the full pytree has a subtree of the "
        f"same type but of length {len(full)}.")


def _different_arity(path: KeyPath, prefix: Any, prefix_keys: tuple,
                     full_keys: tuple) -> ErrorFactory:
    try:
        difference = set(prefix_keys).symmetric_difference(set(full_keys))
    except Exception:
        difference = None
    return lambda name: ValueError(
        "pytree structure error: different numbers of pytree children at key path\n"
        f"    {name}{keystr(path)}\n"
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\n"
        f"with {len(prefix_keys)} child keys\n"
        f"    {' '.join(str(k) for k in prefix_keys)}\n"
        "but at the same key path the full pytree has a subtree of the same "
        f"type but with {len(full_keys)} child keys\n"
        f"    {' '.join(str(k) for k in full_keys)}\n"
        + ("" if difference is None else
           "so the symmetric difference on key sets is\n"
           f"    {' '.join(str(k) for k in difference)}"))


def _different_metadata(path: KeyPath, prefix: Any, prefix_meta: Any,
                        full_meta: Any) -> ErrorFactory:
    prefix_text, full_text = str(prefix_meta), str(full_meta)
    diff = textwrap.indent(
        "\n".join(difflib.ndiff(prefix_text.splitlines(), full_text.splitlines())),
        prefix="    ")
    return lambda name: ValueError(
        "pytree structure error: different pytree metadata at key path\n"
        f"    {name}{keystr(path)}\n"
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix)}\n"
        "with metadata\n"
        f"    {prefix_text}\n"
        "but at the same key path the full pytree has a subtree of the same "
        "type but with metadata\n"
        f"    {full_text}\n"
        "so the diff in the metadata at these pytree nodes is\n"
        f"{diff}")


def _prefix_errors(path: KeyPath, prefix: Any, full: Any,
                   is_leaf: Callable[[Any], bool] | None) -> Iterator[ErrorFactory]:
    if _is_strict_leaf(prefix, is_leaf):
        return  # a leaf is a prefix of anything
    if type(prefix) is not type(full):
        yield _different_types(path, prefix, full)
        return
    prefix_children, prefix_meta, prefix_keys = _one_level(prefix)
    full_children, full_meta, full_keys = _one_level(full)
    if isinstance(prefix, (list, tuple)):
        if len(prefix) != len(full):
            yield _different_lengths(path, prefix, full)
            return
    elif len(prefix_children) != len(full_children):
        yield _different_arity(path, prefix, prefix_keys, full_keys)
        return
    if prefix_meta != full_meta:
        yield _different_metadata(path, prefix, prefix_meta, full_meta)
        return
    # Same node on both sides: the mismatch is further down. Like JAX, the
    # predicate only applies at the top level.
    for key, prefix_child, full_child in zip(prefix_keys, prefix_children, full_children,
                                             strict=True):
        yield from _prefix_errors((*path, key), prefix_child, full_child, None)


def equality_errors(tree1: Any, tree2: Any, is_leaf: Callable[[Any], bool] | None = None
                    ) -> Iterator[tuple[KeyPath, str, str, str]]:
    """Describes where two pytrees' structures differ.

    Yields ``(key_path, thing1, thing2, explanation)`` for each difference, e.g.
    ``((SequenceKey(idx=1),), 'tuple of length 2', 'tuple of length 3',
    'the lengths do not match')``.
    """
    yield from _equality_errors((), tree1, tree2, is_leaf)


def _children_phrase(tree: Any, count: int) -> str:
    return f"{type(tree)} with {count} child{'ren' if count > 1 else ''}"


def _equality_errors(path: KeyPath, tree1: Any, tree2: Any,
                     is_leaf: Callable[[Any], bool] | None
                     ) -> Iterator[tuple[KeyPath, str, str, str]]:
    if _is_strict_leaf(tree1, is_leaf) and _is_strict_leaf(tree2, is_leaf):
        return
    if type(tree1) is not type(tree2):
        yield path, str(type(tree1)), str(type(tree2)), "their Python types differ"
        return
    if isinstance(tree1, (list, tuple)) and len(tree1) != len(tree2):
        kind = type(tree1).__name__
        yield (path, f"{kind} of length {len(tree1)}", f"{kind} of length {len(tree2)}",
               "the lengths do not match")
        return
    children1, meta1, keys1 = _one_level(tree1)
    children2, meta2, keys2 = _one_level(tree2)
    if len(children1) != len(children2):
        try:
            difference = " ".join(repr(k.key) for k in
                                  set(keys1).symmetric_difference(set(keys2)))
        except Exception:
            difference = ""
        yield (path, _children_phrase(tree1, len(children1)),
               _children_phrase(tree2, len(children2)),
               "the numbers of children do not match" + (
                   difference and
                   f", with the symmetric difference of key sets: {{{difference}}}"))
        return
    if meta1 != meta2:
        yield (path, f"{type(tree1)} with pytree metadata {meta1}",
               f"{type(tree2)} with pytree metadata {meta2}",
               "the pytree node metadata does not match")
        return
    for key, child1, child2 in zip(keys1, children1, children2, strict=True):
        yield from _equality_errors((*path, key), child1, child2, is_leaf)
