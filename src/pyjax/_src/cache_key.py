"""Cache keys made of Python values, and the rule for storing an entry.

Every cache keyed on values a user passed (jit's static arguments, the
jax.numpy fast paths' options) builds its key with `typed_key`: Python's
`1 == 1.0 == True` and `0.0 == -0.0` would otherwise let one call reuse a
trace or plan built for another value that merely compares equal, and
give that call's answer (or error) instead of its own.

Every such cache stores an entry only once the call that built it has
succeeded (`remember_after`): a call that raises leaves the cache as it
found it, so it cannot poison later, correct calls.

Primitive params are not user values: the lax wrappers canonicalise them
(shapes are tuples of ints, ...), so caches keyed on params (the eager
plans, the abstract-eval memo) stay untagged on their hot lookups. They
still never store an entry built from params holding a float or a NumPy
scalar (`params_storable`), so such a call cannot answer for an int one.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import numpy as np

_pack_d = struct.Struct("<d").pack
_pack_2d = struct.Struct("<2d").pack

# Values keyed as themselves: nothing of another type compares equal to one
# of them and also takes this path (a bool, a float, an int subclass are tagged).
_BARE = frozenset({int, str, type(None)})


def typed_key(value: Any) -> Any:
    """`value` as a cache-key part that compares equal to another one only
    when both are of the same types throughout, with the same bits for
    floats: `1`, `True` and `1.0` give three keys, `0.0` and `-0.0` two,
    and a NaN equals itself. Tuples and frozensets are tagged element by
    element; ints, strings and None are keyed as they are (the common
    case costs one type test); anything else is keyed by (type, value),
    by its own `__eq__` and `__hash__`, which this does not call (an
    unhashable value makes an unhashable key)."""
    t = type(value)
    if t in _BARE:
        return value
    if t is tuple:
        for v in value:
            if type(v) not in _BARE:
                return (tuple, *[typed_key(v) for v in value])
        return value  # only ints, strings and None: equal only to the same
    if t is float:
        # Equal floats differ in bits only as ±0.0 or NaNs: those by their bits.
        return (float, value if value and value == value else _pack_d(value))
    if t is bool:
        return (bool, value)
    if t is complex:
        v = value
        plain = v.real and v.imag and v == v
        return (complex, v if plain else _pack_2d(v.real, v.imag))
    if t is frozenset:
        return (frozenset, frozenset([typed_key(v) for v in value]))
    if isinstance(value, np.generic) and value.dtype.kind != "O":
        return (t, value.dtype.str, value.tobytes())
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple: by its fields too
        return (t, *[typed_key(v) for v in value])
    return (t, value)


def params_storable(values) -> bool:
    """Whether a memo keyed on primitive param `values` (untagged) may store
    an entry for them: not when they hold a float, complex or NumPy scalar
    anywhere (nested in tuples), whose key would equal an int's."""
    for v in values:
        t = type(v)
        if t is tuple:
            if not params_storable(v):
                return False
        elif t is float or t is complex or isinstance(v, np.generic):
            return False
    return True


def remember_after(memo: dict, key: Any, value: Any, call: Callable, *args) -> Any:
    """`call(*args)`, storing `memo[key] = value` only once it has returned:
    an entry is remembered only after the call it serves succeeded."""
    out = call(*args)
    memo[key] = value
    return out
