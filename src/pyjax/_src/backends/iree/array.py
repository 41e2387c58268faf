"""Arrays whose buffer lives on an IREE device.

A jitted call on the IREE backend returns `IreeArray`s: the result stays
the IREE runtime's buffer (`device_buffer`), which the next IREE-jitted
call takes as it is. Reading the value from NumPy's side (`np.asarray`,
printing, an eager operation) copies the buffer to the host once, on first
read, and keeps that copy (read-only) beside the device buffer.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray

# The base class's slot, read and written under the property below.
_HOST_SLOT = Array._value


def host_copy(buffer) -> np.ndarray:
    """A NumPy copy of an IREE `DeviceArray`, the mapping it read through
    released at once: a mapping that outlives the runtime (an array freed
    while the interpreter shuts down) unmaps into a destroyed device and
    crashes the process."""
    value = np.array(buffer.to_host(), copy=True)
    if getattr(buffer, "_mapped_memory", None) is not None:  # (iree.runtime's cached mapping)
        buffer._host_array = buffer._mapped_memory = None
    return value


class IreeArray(Array):
    """An Array holding an IREE device buffer, copied to the host on first read."""

    __slots__ = ("device_buffer",)

    def __init__(self, device_buffer, aval: ShapedArray):
        self.device_buffer = device_buffer
        _HOST_SLOT.__set__(self, None)
        self.aval = aval

    @property
    def _value(self):
        value = _HOST_SLOT.__get__(self)
        if value is None:
            buffer = self.device_buffer
            if buffer is None:  # (delete() replaced the host value as well)
                raise RuntimeError(f"Array has been deleted with shape={self.aval.strip_weak_type()}.")
            value = host_copy(buffer)
            value.flags.writeable = False  # (Arrays are immutable)
            _HOST_SLOT.__set__(self, value)
        return value

    @_value.setter
    def _value(self, value) -> None:
        # Array.delete() stores a deleted-buffer marker: the device buffer goes too.
        _HOST_SLOT.__set__(self, value)
        self.device_buffer = None

    def on_host(self) -> bool:
        """Whether the value has been read on the host already (tests and docs)."""
        return _HOST_SLOT.__get__(self) is not None

    def block_until_ready(self) -> IreeArray:
        # The runtime's invocations are synchronous: a returned buffer is ready.
        return self
