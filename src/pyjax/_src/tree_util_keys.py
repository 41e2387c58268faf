"""Key-path entries for pytrees: SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey.

A key path is a tuple of these entries, one per level, naming how to reach a
leaf from the root of a pytree (``tree_flatten_with_path`` produces them).
Each entry is a small immutable, hashable value that prints the way JAX prints
it: ``str`` gives the Python accessor (``[0]``, ``['a']``, ``.x``) and ``repr``
gives the constructor (``SequenceKey(idx=0)``). ``keystr`` joins a path.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "SequenceKey",
    "keystr",
]


def _bad_arguments(cls: type, signature: str, value: Any) -> TypeError:
    # Same shape as the binding error JAX's C++ key classes raise.
    return TypeError(
        "__init__(): incompatible function arguments. The following argument "
        f"types are supported:\n    1. __init__(self, {signature}) -> None\n\n"
        f"Invoked with types: {cls.__name__}, {type(value).__name__}"
    )


class _KeyEntry:
    """Shared machinery: one immutable slot, equality within the same class."""

    __slots__ = ("_value",)
    _field = ""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"property of '{type(self).__name__}' object has no setter"
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._value == self._value  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._value))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._field}={self._value!r})"

    def __reduce__(self):
        return (type(self), (self._value,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class SequenceKey(_KeyEntry):
    """Key for the ``idx``-th child of a list, tuple or other sequence node.

    Prints as ``[idx]``.
    """

    __slots__ = ()
    __module__ = "pyjax.tree_util"
    __match_args__ = ("idx",)
    _field = "idx"

    def __init__(self, idx: int):
        if not isinstance(idx, int):
            raise _bad_arguments(SequenceKey, "idx: int", idx)
        object.__setattr__(self, "_value", int(idx))

    @property
    def idx(self) -> int:
        return self._value

    def __str__(self) -> str:
        return f"[{self._value!r}]"


class DictKey(_KeyEntry):
    """Key for the child stored under ``key`` in a dict-like node.

    Prints as ``[repr(key)]``, e.g. ``['w']``.
    """

    __slots__ = ()
    __module__ = "pyjax.tree_util"
    __match_args__ = ("key",)
    _field = "key"

    def __init__(self, key: Hashable):
        object.__setattr__(self, "_value", key)

    @property
    def key(self) -> Hashable:
        return self._value

    def __str__(self) -> str:
        return f"[{self._value!r}]"


class GetAttrKey(_KeyEntry):
    """Key for the child stored in attribute ``name`` (namedtuples, dataclasses).

    Prints as ``.name``.
    """

    __slots__ = ()
    __module__ = "pyjax.tree_util"
    __match_args__ = ("name",)
    _field = "name"

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise _bad_arguments(GetAttrKey, "name: str", name)
        object.__setattr__(self, "_value", name)

    @property
    def name(self) -> str:
        return self._value

    def __str__(self) -> str:
        return f".{self._value}"


class FlattenedIndexKey(_KeyEntry):
    """Key for the ``key``-th flattened child of a custom node without keys.

    Prints as ``[<flat index key>]``.
    """

    __slots__ = ()
    __module__ = "pyjax.tree_util"
    __match_args__ = ("key",)
    _field = "key"

    def __init__(self, key: int):
        if not isinstance(key, int):
            raise _bad_arguments(FlattenedIndexKey, "key: int", key)
        object.__setattr__(self, "_value", int(key))

    @property
    def key(self) -> int:
        return self._value

    def __str__(self) -> str:
        return f"[<flat index {self._value}>]"


KeyEntry = Any
KeyPath = tuple[Any, ...]

_KEY_CLASSES = (SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey)


def _simple_entry_str(entry: Any) -> str:
    if type(entry) in _KEY_CLASSES:
        return str(entry._value)
    return str(entry)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Helper to pretty-print a tuple of keys.

    Args:
      keys: A tuple of ``KeyEntry`` or any class that can be converted to string.
      simple: If True, use a simplified string representation for keys. The
        simple representation is more compact than the default but ambiguous in
        some cases (``0`` might be the first item of a list or the dict key 0).
      separator: The separator used to join the string forms of the keys.

    Returns:
      A string that joins all string representations of the keys.

    Examples:
      >>> params = {'foo': {'bar': {'baz': 1, 'bat': [2, 3]}}}
      >>> for path, _ in tree_leaves_with_path(params):
      ...   print(keystr(path), keystr(path, simple=True, separator='/'))
      ['foo']['bar']['bat'][0] foo/bar/bat/0
      ['foo']['bar']['bat'][1] foo/bar/bat/1
      ['foo']['bar']['baz'] foo/bar/baz
    """
    to_str = _simple_entry_str if simple else str
    return separator.join([to_str(entry) for entry in keys])
