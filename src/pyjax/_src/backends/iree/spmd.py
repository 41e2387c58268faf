"""Programs holding shard_map on the IREE backend: per device, with IREE
compiling each device's program between collectives.

IREE 3.13 has no Shardy dialect and no collectives across pyjax's devices,
so a sharded module cannot be handed to it whole. Such a program runs as it
does on the NumPy backend, per device on the arguments' own shards, through
the lockstep runtime (backends/numpy/impls/spmd.py: collectives exchange
host buffers between the devices), except that each run of a body's
equations that exchange nothing (spmd_runs.py) is lowered to StableHLO and
compiled by IREE, one module per run, called once per device on that
device's buffers. A lone equation between two collectives, and the
equations of the program outside the shard_map, run on the NumPy backend.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from pyjax._src.jaxpr import Jaxpr, subjaxprs


def holds_shard_map(jaxpr: Jaxpr) -> bool:
    """Whether a shard_map equation appears in `jaxpr` (nested bodies too)."""
    return any(eqn.primitive.name == "shard_map" or any(holds_shard_map(sub) for sub in subjaxprs(eqn.params))
               for eqn in jaxpr.eqns)


def executable(jaxpr: Jaxpr, name: str):
    """jit's executable of a program holding shard_map, for the IREE platform."""
    from pyjax._src import jit as jit_lib
    from pyjax._src.backends.numpy.impls import spmd_runs

    entry = jit_lib._CacheEntry(jaxpr, None, name)

    def call(flat_args: Sequence[Any]) -> list:
        with spmd_runs.compiled_by(compile_run):
            return entry.run(flat_args, backend="cpu")  # (the per-device path; runs compiled by IREE)

    return call


def compile_run(jaxpr: Jaxpr):
    """A run's per-device program compiled by IREE: fn(*arrays) -> host arrays."""
    from pyjax._src.backends.iree import compile as compile_lib

    program = compile_lib.compile_jaxpr(jaxpr, "shard_map_run")
    out_dtypes = [a.dtype for a in jaxpr.out_avals]

    def fn(*arrays):
        return [np.asarray(out).astype(dtype, copy=False) for out, dtype in zip(program(arrays), out_dtypes)]

    return fn
