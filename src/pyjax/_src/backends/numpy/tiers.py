"""The tiers the NumPy backend's code generator asks for plans.

compile.py writes every jaxpr as Python over the impls; a *tier* offers a
faster way to run part of it, and the code generator asks each registered
tier for its plan instead of importing it:

- a *program* tier: `program(jaxpr, impls)` -> a tier object for the whole
  straight-line program, or None (native/: the program as C);
- a *loop* tier: `loop(eqn, impls)` -> a tier object for a `scan` or
  `while` equation, or None (native/: the loop as C);
- *region* tiers, in order: `plan(jaxpr, items, tiers)` turns a list of
  equation indices into one where runs the tier takes are replaced by its
  region objects (parallel/tile.py: tiled regions on the cores;
  native/rows.py: row-wise runs as native row loops; native/glue.py:
  runs of small-value equations as native programs), each region naming
  the values it reads as `invars` (a later tier plans around them), and
  `emit(builder, region, env)` writes a region's code; a region tier may
  also define `prepare(builder, jaxpr) -> jaxpr`, a rewrite of the
  equations applied before any tier plans (interpreters/recompute.py: cheap values
  recomputed where a later row loop reads them);
- a *split* tier: `ufunc(ufunc, shape, dtype)` and `matmul(m, k, n, batch=1)` ->
  a callable running the operation across the cores, or None
  (parallel/split.py).

The tiers a compilation uses travel with it as a `Tiers` value, explicitly:
a tiled region's block is compiled with `tiers.for_block()` (no regions,
no splits: the block already has its core), a row region's own Python code
with `tiers.without("rows")`. `registered()` is every tier install()
registered; `Tiers()` is none (pure Python over the impls).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Protocol

__all__ = ["RegionTier", "SplitTier", "Tiers", "register", "registered"]


class RegionTier(Protocol):
    """A tier that takes runs of equations (see the module docstring); it may
    also define `prepare(builder, jaxpr) -> jaxpr`, looked up with getattr."""

    name: str

    def plan(self, jaxpr, items: list, tiers: Tiers) -> list | None: ...

    def emit(self, builder, region, env: dict) -> None: ...


class SplitTier(Protocol):
    def ufunc(self, ufunc, shape: tuple, dtype) -> Callable | None: ...

    def matmul(self, rows: int, contract: int, cols: int, batch: int = 1) -> Callable | None: ...


@dataclasses.dataclass(frozen=True)
class Tiers:
    """The tiers one compilation may use."""

    program: Callable[[Any, dict], Any] | None = None
    loop: Callable[[Any, dict], Any] | None = None
    regions: tuple = ()
    split: SplitTier | None = None
    in_block: bool = False  # compiling a tiled region's block (row regions size themselves for one core)

    def without(self, *names: str) -> Tiers:
        """These tiers without the region tiers named."""
        return dataclasses.replace(self, regions=tuple(r for r in self.regions if r.name not in names))

    def for_block(self) -> Tiers:
        """The tiers of a tiled region's block: no tiling and no splitting inside it."""
        return dataclasses.replace(self.without("tile"), split=None, in_block=True)


_registry: dict[str, Any] = {"program": None, "loop": None, "regions": [], "split": None}
_current: list[Tiers] = [Tiers()]


def register(*, program: Callable | None = None, loop: Callable | None = None,
             region: RegionTier | None = None, split: SplitTier | None = None) -> None:
    """Registers a tier (install() registers the backend's); region tiers plan in registration order."""
    if program is not None:
        _registry["program"] = program
    if loop is not None:
        _registry["loop"] = loop
    if region is not None:
        _registry["regions"] = [r for r in _registry["regions"] if r.name != region.name] + [region]
    if split is not None:
        _registry["split"] = split
    _current[0] = Tiers(_registry["program"], _registry["loop"], tuple(_registry["regions"]), _registry["split"])


def registered() -> Tiers:
    """Every registered tier: what a compilation uses unless told otherwise."""
    return _current[0]
