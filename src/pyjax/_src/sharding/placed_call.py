"""A jitted call on Arrays placed over a mesh of several devices, handed to
the per-device path (spmd_eager.py installs it) instead of running on the
operands' assembled values.

jit's eager run reads each argument's buffer through `buffer`; a placed
Array there raises `Placed`, whose `run` tries the per-device path and,
where it declines, runs the entry again on the assembled values, as before.
The plain-Array path never reaches `buffer`.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Callable

from pyjax._src.sharding.sharded_array import ShardedArray

# (jaxpr, flat_args) -> the outputs, or NotImplemented (spmd_eager.py).
RUN: list = [None]
_assembled: ContextVar[bool] = ContextVar("pyjax_placed_call_assembled", default=False)


class Placed(Exception):
    """A jit argument is an Array placed over several devices."""

    def run(self, entry: Any, flat_args) -> list:
        outs = RUN[0](entry.jaxpr, flat_args)
        if outs is not NotImplemented:
            return outs
        token = _assembled.set(True)
        try:
            return entry.run(flat_args, None, True)  # (keys, if any, were checked by the first run)
        finally:
            _assembled.reset(token)


def buffer(x: Any, to_numpy: Callable) -> Any:
    """The buffer a jitted program runs on for the argument `x` (not a plain Array)."""
    if type(x) is ShardedArray and RUN[0] is not None and not _assembled.get():
        raise Placed
    return to_numpy(x)
