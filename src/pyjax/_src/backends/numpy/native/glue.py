"""Runs of equations on small values amid a large program, each one native program.

A training step's loss and its gradient at the logits (a log-softmax over
ten classes, a mean, their derivatives: some forty equations on values of a
few KB) cost a NumPy call each, a microsecond or two of dispatch for a few
nanoseconds of arithmetic, between products that take hundreds of
microseconds. The program tier (plans.py `native_program`) takes a jitted
program whole only when every value of it is small. This region tier takes
each run of consecutive equations that read and write only small values
(at most `settings._MAX_VALUE_BYTES` each) and that native code may compute,
as one straight-line native program (emit.py `_program_source`), tiering
like any other (native/loop.py): the run's Python code runs until the
program is built and has matched it bitwise on one call, and a call whose
inputs differ in dtype or shape runs the Python code.

Only a compiled function's own body is planned, and only one computing a
large value (else the program tier takes it whole): not a block written in
line into another function (a loop's body, which the loop tier takes whole,
or another region's Python code), and not a tiled region's block.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.numpy import native as native_lib
from pyjax._src.backends.numpy.codegen.control_flow import emit_native_region
from pyjax._src.backends.numpy.native.csource import _Unsupported
from pyjax._src.backends.numpy.native.keys import physical
from pyjax._src.backends.numpy.native.settings import _MAX_VALUE_BYTES
from pyjax._src.jaxpr import DropVar, Jaxpr, Literal

__all__ = ["GlueTier"]

# The fewest equations of a run worth a native call (each NumPy call it
# replaces costs about five times the call).
MIN_EQNS = 3
# Equations that are views or renamings to NumPy: no call to save.
_FREE = frozenset({"reshape", "squeeze", "expand_dims", "broadcast_in_dim", "transpose", "copy", "copy_p"})

class GlueRegion:
    """Equations `jaxpr.eqns` of a program, computed by `native` (a
    straight-line native program) once it is live."""

    def __init__(self, jaxpr: Jaxpr, native):
        self.jaxpr, self.native = jaxpr, native
        self.invars = jaxpr.invars


class GlueTier:
    """The region tier (tiers.py) of runs of small-value equations: it plans
    after the others, over the equations they left."""

    name = "glue"

    def plan(self, builder, jaxpr: Jaxpr, items: list) -> list | None:
        if builder.parent is not None or builder.tiers.in_block or not native_lib.available():
            return None
        if all(_small(v) for e in jaxpr.eqns for v in e.outvars):
            return None  # (the program tier's: every value it computes is small)
        qualifies = [type(item) is int and _small_eqn(jaxpr.eqns[item], builder.impls) for item in items]
        if sum(qualifies) < MIN_EQNS:
            return None
        last_read = _last_reads(jaxpr, items)
        planned, start = [], 0
        while start < len(items):
            if not qualifies[start]:
                planned.append(items[start])
                start += 1
                continue
            stop = start
            while stop < len(items) and qualifies[stop]:
                stop += 1
            region = _region(jaxpr, items[start:stop], stop, last_read, builder.impls)
            planned.extend(items[start:stop] if region is None else [(self, region)])
            start = stop
        return planned

    def emit(self, builder, region: GlueRegion, env: dict) -> None:
        """Emits `region` into `builder` (compile.py): its native program
        first, else its equations' Python code, which then reports to it."""
        emit_native_region(builder, region.jaxpr, region.native, env, name="native_glue", tag="g",
                           what=f"{len(region.jaxpr.eqns)} equations on small values",
                           steps=region.native.steps_per_call, tiers=builder.tiers.without("glue"))


def _small(v) -> bool:
    # As emit.py `_check_values` sizes a native program's values (a key: its words).
    if type(v) is Literal:
        return True
    try:
        aval = physical(v.aval)
    except _Unsupported:  # (keys native code does not take: rbg's)
        return False
    return isinstance(aval.dtype, np.dtype) and aval.size * aval.dtype.itemsize <= _MAX_VALUE_BYTES


def _small_eqn(eqn, impls: dict) -> bool:
    return (not eqn.effects and all(_small(v) for v in (*eqn.invars, *eqn.outvars))
            and native_lib.plausible_eqn(eqn, impls))


def _last_reads(jaxpr: Jaxpr, items: list) -> dict:
    """The position in `items` of each value's last reader (the program's
    outputs: past the end)."""
    last = {}
    for at, item in enumerate(items):
        reads = jaxpr.eqns[item].invars if type(item) is int else item[1].invars
        for v in reads:
            if type(v) is not Literal:
                last[v] = at
    for v in jaxpr.outvars:
        if type(v) is not Literal:
            last[v] = len(items)
    return last


def _region(jaxpr: Jaxpr, run: list, stop: int, last_read: dict, impls: dict) -> GlueRegion | None:
    """The region of the equations `run` (indices, consecutive in the plan,
    which ends at position `stop`), or None where it is too short or native
    code cannot take it."""
    eqns = [jaxpr.eqns[i] for i in run]
    if sum(e.primitive.name not in _FREE for e in eqns) < MIN_EQNS:
        return None
    defined = {v for e in eqns for v in e.outvars}
    invars = list(dict.fromkeys(v for e in eqns for v in e.invars if type(v) is not Literal and v not in defined))
    outvars = [v for e in eqns for v in e.outvars if type(v) is not DropVar and last_read.get(v, -1) >= stop]
    if not outvars:
        return None
    region = Jaxpr([], invars, outvars, eqns)
    native = native_lib.native_program(region, impls)
    return None if native is None else GlueRegion(region, native)
