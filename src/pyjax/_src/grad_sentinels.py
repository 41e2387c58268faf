"""`jax.ad`: the sentinels of a VJP function's `with_refs` arguments.

JAX 0.11's `f_vjp.with_refs(*entries)` takes, per primal argument, a `Ref`
to accumulate the gradient into, `GradValue()` (return it as a value, the
default) or `DontWant()` (skip it); the results read `GradRef()` where a
gradient went into a reference and `DidntWant()` where it was skipped.
pyjax has the sentinels (frozen dataclasses; the two that stand in results
are empty pytrees, the two passed in are leaves) but its VJP functions have
no `with_refs` yet (docs/refs.md).
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from pyjax._src.tree_util import register_dataclass

__all__ = ["DidntWant", "DontWant", "GradRef", "GradValue", "ad"]


@dataclasses.dataclass(slots=True, frozen=True)
class GradValue:
    """Return this argument's gradient as a value (the default)."""


@register_dataclass
@dataclasses.dataclass(slots=True, frozen=True)
class GradRef:
    """In a VJP's results: the gradient was accumulated into a reference."""


@dataclasses.dataclass(slots=True, frozen=True)
class DontWant:
    """Skip computing this argument's gradient."""


@register_dataclass
@dataclasses.dataclass(slots=True, frozen=True)
class DidntWant:
    """In a VJP's results: this argument's gradient was not computed."""


ad = SimpleNamespace(DontWant=DontWant, DidntWant=DidntWant, GradRef=GradRef, GradValue=GradValue)
