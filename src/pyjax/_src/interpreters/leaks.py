"""jax_check_tracer_leaks' report of why a leaked tracer is still alive: the
chain of objects holding it, innermost first, as JAX 0.11 words it
(``<list 1234>[0]``, ``<dict 5678>['leaked']``, ``__main__.leaked``).

The chain follows one holder at a time (gc's referrers, leaving out frames
and the checker's own lists) up to a module or a function, where the user
can recognise the holder.
"""

from __future__ import annotations

import gc
import inspect
import types
from typing import Any


def _holders(obj: Any, ignored: set[int]) -> list:
    return [r for r in gc.get_referrers(obj) if id(r) not in ignored and not inspect.isframe(r)]


def _describe_holder(holder: Any, child_id: int) -> str:
    """How `holder` holds the object with id `child_id`."""
    name = f"<{type(holder).__name__} {id(holder)}>"
    if isinstance(holder, types.ModuleType):
        keys = [k for k, v in vars(holder).items() if id(v) == child_id]
        return f"{holder.__name__}.{keys[0]}" if len(keys) == 1 else holder.__name__
    if isinstance(holder, (list, tuple)):
        places = [i for i, x in enumerate(holder) if id(x) == child_id]
        return f"{name}[{places[0]}]" if len(places) == 1 else f"{name} at indices " + ", ".join(map(str, places))
    if isinstance(holder, dict):
        keys = [k for k in holder if id(holder[k]) == child_id]
        return f"{name}[{keys[0]!r}]" if len(keys) == 1 else f"{name} at keys " + ", ".join(map(repr, keys))
    if hasattr(holder, "__dict__") and not isinstance(holder, types.FunctionType):
        keys = [k for k, v in vars(holder).items() if id(v) == child_id]
        if len(keys) == 1:
            return f"{name}.{keys[0]}"
    return name


_MAX_LINKS = 8  # (past a few links the chain is pyjax's or Python's own bookkeeping)


def why_alive(obj: Any, ignored: set[int]) -> str:
    """The chain of holders keeping `obj` alive, one line per link (each
    ending in a newline), up to a module or a function."""
    lines: list = []
    seen: set = set()
    child = obj
    while (id(child) not in seen and not isinstance(child, (types.ModuleType, types.FunctionType))
           and len(lines) < _MAX_LINKS):
        holder = _holder(child, ignored | {id(lines), id(seen)})
        if holder is None:
            break
        lines.append(f"<{type(child).__name__} {id(child)}> is referred to by {_describe_holder(holder, id(child))}\n")
        seen.add(id(child))
        child = holder
    return "".join(lines)


def _holder(child: Any, ignored: set[int]) -> Any:
    # One holder of `child` (the lists made here are dropped before the next
    # link is looked for: they would hold it too).
    holders = _holders(child, ignored)
    if not holders:
        return None
    # A namespace or container before a closure's cell (pyjax's own
    # closures may hold the user's objects while a trace runs).
    holder = min(holders, key=lambda h: isinstance(h, types.CellType))
    del holders
    if isinstance(holder, dict):  # a module's globals: name the module, as one link
        modules = [h for h in gc.get_referrers(holder) if isinstance(h, types.ModuleType) and vars(h) is holder]
        if modules:
            holder = modules[0]
    return holder


def check_batch_leaks(trace: Any, tracer_type: type, where: str | None, outputs: set[int]) -> None:
    """jax_check_tracer_leaks for vmap: raise if a tracer of the finished
    `trace` is still referenced from outside (JAX's message). `where` is the
    user's line that called vmap (where its input tracers were made)."""
    gc.collect()
    mine = [obj for obj in gc.get_objects()
            if type(obj) is tracer_type and obj._trace is trace and id(obj) not in outputs]
    ignored = {id(mine)}
    leaked = [t for t in mine if _holders(t, ignored)]
    if not leaked:
        return
    reports: list = []
    ignored |= {id(leaked), id(reports)}
    for t in leaked:  # (a loop, not a generator: a generator would hold the tracer too)
        head = f"VmapTracer(aval={t.aval}, batched={getattr(t.val, 'aval', t.val)})"
        origin = f"\nThis BatchTracer with object id {id(t)} was created on line:\n  {where}" if where else ""
        reports.append(f"{head}{origin}\n{why_alive(t, ignored)}")
    raise Exception("Leaked trace BatchTrace. Leaked tracer(s):\n\n" + "\n\n".join(reports))
