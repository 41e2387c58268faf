"""`jax_explain_cache_misses`: say why jit traced a function again.

When the option is on, every tracing-cache miss of a jitted function logs a
WARNING in JAX 0.11's words: a never-seen function (and whether another
function was defined on the same line, the usual cause of endless
retracing), or, against the closest previously seen key, the arguments whose
pytree structure or types differ.
"""

from __future__ import annotations

import logging
import sys
import weakref
from typing import Sequence

from pyjax._src.tree_util import keystr
from pyjax._src.tree_util_errors import equality_errors

logger = logging.getLogger("pyjax._src.interpreters.partial_eval")

_seen_functions: weakref.WeakSet = weakref.WeakSet()
_seen_lines: dict = {}
_WEAK_TYPES_DOC = "https://docs.jax.dev/en/latest/type_promotion.html#weak-types"


def _definition_site(fun) -> tuple[str, str]:
    target = getattr(fun, "__wrapped__", fun)
    target = getattr(target, "func", target)
    code = getattr(target, "__code__", None)
    name = getattr(target, "__name__", type(target).__name__)
    if code is None:
        return name, "<unknown>"
    return name, f"{code.co_filename}:{code.co_firstlineno}"


def _call_site() -> str:
    from pyjax._src.interpreters.staging import _PACKAGE_DIR

    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    if 0 <= index < len(positions) and positions[index][2]:
        where += f":{positions[index][2]}"
    return f"{where} ({frame.f_code.co_name})"


def _type_str(aval, other) -> str:
    text = aval.str_short()
    if aval.weak_type != other.weak_type:
        if (aval.shape, aval.dtype) == (other.shape, other.dtype):
            return f"{text}{{weak_type={aval.weak_type}}}"
        return f"{text}({{}}){{weak_type={aval.weak_type}}}"
    return text


def _difference(new_key, old_key, arg_names: Sequence[str]) -> list[str]:
    new_tree, new_avals, new_static, new_ctx = new_key
    old_tree, old_avals, old_static, old_ctx = old_key
    if new_tree != old_tree:
        lines = ["  different input pytree:"]
        new_example = new_tree.unflatten([_Leaf()] * new_tree.num_leaves)
        old_example = old_tree.unflatten([_Leaf()] * old_tree.num_leaves)
        for path, thing1, thing2, explanation in equality_errors(new_example, old_example):
            thing1, thing2 = (t.replace(str(_Leaf), "pytree leaf") for t in (thing1, thing2))
            lines.append(f"  * at input path {keystr(path)}, now {thing1} and before {thing2}, so {explanation}")
        return lines
    if new_avals != old_avals:
        lines = ["  different input types:"]
        for i, (new, old) in enumerate(zip(new_avals, old_avals, strict=True)):
            if new != old:
                name = arg_names[i] if i < len(arg_names) else f"args[{i}]"
                weak = new.weak_type != old.weak_type
                line = f"  * at {name}, now {_type_str(new, old)} and before {_type_str(old, new)}"
                lines.append(line + (_WEAK_TYPES_DOC if weak else ""))
        return lines
    if new_ctx != old_ctx:
        return ["  tracing context doesn't match, e.g. due to config or context manager"]
    return ["  Debug info doesn't match."]


class _Leaf:
    """A placeholder leaf for comparing two treedefs' structures."""


def _closeness(new_key, old_key) -> tuple:
    return (new_key[0] == old_key[0], sum(a == b for a, b in zip(new_key[1], old_key[1])), new_key[2] == old_key[2])


def explain(fun, new_key, previous_keys: list, arg_names: Sequence[str]) -> None:
    """Logs why `fun` is traced again under `new_key` (a jit cache key)."""
    logger.warning(explanation(fun, new_key, previous_keys, arg_names))


def explanation(fun, new_key, previous_keys: list, arg_names: Sequence[str]) -> str:
    """The text `explain` logs: why `fun` is traced again under `new_key`."""
    name, defined_at = _definition_site(fun)
    header = f"TRACING CACHE MISS at {_call_site()}:"
    target = getattr(fun, "__wrapped__", fun)
    try:
        seen = target in _seen_functions
    except TypeError:
        seen = bool(previous_keys)
    if not seen or not previous_keys:
        lines = [header, "  never seen function:", f"    {name} id={id(target)} defined at {defined_at}"]
        if _seen_lines.get(defined_at, 0) > (1 if seen else 0):
            lines += ["  but seen another function defined on the same line; maybe the function is",
                      "  being re-defined repeatedly, preventing caching?"]
    else:
        closest = max(previous_keys, key=lambda old: _closeness(new_key, old))
        lines = [header, f"  for {name} defined at {defined_at}",
                 "  all previously seen cache keys differ. For the closest previous key:"]
        lines += _difference(new_key, closest, arg_names)
    return "\n".join(lines)


def note_traced(fun) -> None:
    """Remembers `fun` (and its definition line) as traced."""
    target = getattr(fun, "__wrapped__", fun)
    try:
        if target not in _seen_functions:
            _seen_functions.add(target)
            _, defined_at = _definition_site(fun)
            _seen_lines[defined_at] = _seen_lines.get(defined_at, 0) + 1
    except TypeError:
        pass
