"""Pallas names that need a TPU or GPU: device meshes (`kernel`,
`core_map`), semaphores (`semaphore`, `semaphore_read/signal/wait`,
`get_global`), remote copies (`DeviceIdType`), `delay` and `select_ref`
(a ref chosen at run time, for DMAs).

pyjax runs Pallas kernels in interpret mode only (docs/pallas.md), where JAX
0.11 cannot run these either (on CPU it fails when lowering or evaluating
them). Here they exist with JAX's signatures and raise NotImplementedError
saying so when used; `DeviceIdType` and the `semaphore` dtype class are
plain values and behave as JAX's.
"""

from __future__ import annotations

import enum
from typing import Any

from pyjax._src.dtype_names import extended


def _unsupported(name: str, why: str) -> NotImplementedError:
    return NotImplementedError(
        f"pl.{name} needs {why}, which only TPU and GPU Pallas backends have; pyjax runs Pallas kernels in "
        "interpret mode on the CPU (as JAX 0.11 on CPU, it cannot run them)")


class DeviceIdType(enum.Enum):
    """How a remote copy or semaphore signal names its target device."""

    MESH = "mesh"
    LOGICAL = "logical"


class semaphore_dtype(extended):
    """The scalar class of Pallas semaphore dtypes."""


class semaphore(semaphore_dtype):
    """The dtype of a regular Pallas semaphore (TPU/GPU scratch)."""


def kernel(body: Any = None, out_type: object = (), *, mesh: Any, scratch_types: Any = (),
           compiler_params: Any = None, interpret: Any = False, cost_estimate: Any = None, debug: bool = False,
           name: str | None = None, metadata: dict[str, str] | None = None):
    """A kernel run on every core of a device `mesh` (TPU/GPU only here: raises)."""
    raise _unsupported("kernel", "a device mesh of TPU or GPU cores")


def core_map(mesh, *, compiler_params: Any = None, interpret: bool = False, debug: bool = False,
             cost_estimate: Any = None, name: str | None = None, metadata: dict[str, str] | None = None,
             scratch_shapes: Any = ()):
    """Runs a function on every core of a device `mesh` (TPU/GPU only here:
    the decorated function raises when called)."""
    def wrapped(f):
        def run(*args, **kwargs):
            raise _unsupported("core_map", "a device mesh of TPU or GPU cores")
        return run
    return wrapped


def semaphore_read(sem_or_view):
    """The value of a semaphore (TPU/GPU only here: raises)."""
    raise _unsupported("semaphore_read", "semaphores")


def semaphore_signal(sem_or_view, inc: Any = 1, *, device_id: Any = None,
                     device_id_type: DeviceIdType = DeviceIdType.MESH, core_index: Any = None):
    """Increments a (possibly remote) semaphore (TPU/GPU only here: raises)."""
    raise _unsupported("semaphore_signal", "semaphores")


def semaphore_wait(sem_or_view, value: Any = 1, *, decrement: bool = True):
    """Waits until a semaphore reaches `value` (TPU/GPU only here: raises)."""
    raise _unsupported("semaphore_wait", "semaphores")


def get_global(what: Any):
    """A reference that persists across kernel invocations (TPU/GPU only here: raises)."""
    raise _unsupported("get_global", "global scratch memory")


def delay(nanos: Any) -> None:
    """Sleeps for `nanos` nanoseconds inside a kernel (TPU/GPU only here: raises)."""
    raise _unsupported("delay", "a device clock")


def select_ref(idx: Any, *refs):
    """The ref of `refs` chosen by the run-time index `idx`, for DMAs (TPU/GPU only here: raises)."""
    if len(refs) <= 1:
        raise ValueError("At least two refs are required for pl.select_ref.")
    raise _unsupported("select_ref", "DMA engines")
