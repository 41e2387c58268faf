"""Devices: the virtual CPU devices of the one backend.

`jax_num_cpu_devices` (or `JAX_NUM_CPU_DEVICES`) says how many there are
per process. The list is made on first use (`jax.devices()`, a placement, a
mesh) and is then fixed: changing the option afterwards raises JAX's
RuntimeError, as JAX does once its backends are initialised.

With several processes (`jax.distributed.initialize`, _src/distributed.py)
the list is global: process p owns the devices p*n ... p*n + n - 1, and
each Device carries its `process_index`. The default device is this
process's first.
"""

from __future__ import annotations

from typing import Any

from pyjax._src import config

_NUM_DEVICES_ERROR = (
    "jax_num_cpu_devices config should be updated before backends are initialized i.e. before any JAX "
    "operation is executed. You should initialize this config immediately after `import jax`.")


class DeviceMemory:
    """A memory space of a device (``device.default_memory()``)."""

    __slots__ = ("device", "kind")

    def __init__(self, device: Device, kind: str):
        self.device, self.kind = device, kind

    @property
    def process_index(self) -> int:
        return self.device.process_index

    def addressable_by_devices(self) -> list[Device]:
        return [self.device]

    def __repr__(self) -> str:
        name = {"device": "CpuDeviceMemory", "pinned_host": "PinnedHostMemory",
                "unpinned_host": "UnpinnedHostMemory"}[self.kind]
        return f"{name}(id={self.device.id}, process_index={self.device.process_index}, client=cpu)"

    def __str__(self) -> str:
        return {"device": f"CPU_DEVICE_{self.device.id}", "pinned_host": "PINNED_HOST",
                "unpinned_host": "UNPINNED_HOST"}[self.kind]


MEMORY_KINDS = ("device", "pinned_host", "unpinned_host")


class Device:
    """A CPU device: ``CpuDevice(id=3)``, ``str`` gives ``cpu:3``."""

    __slots__ = ("id", "process_index", "_memories", "__weakref__")
    platform = "cpu"
    device_kind = "cpu"

    def __init__(self, id: int, process_index: int = 0):
        self.id = id
        self.process_index = process_index
        self._memories = {kind: DeviceMemory(self, kind) for kind in MEMORY_KINDS}

    local_hardware_id = property(lambda self: self.id - self.process_index * _local_count())
    host_id = property(lambda self: self.process_index)
    task_id = property(lambda self: self.process_index)

    def default_memory(self) -> DeviceMemory:
        return self._memories["device"]

    def addressable_memories(self) -> list[DeviceMemory]:
        return list(self._memories.values())

    def memory(self, kind: str) -> DeviceMemory:
        try:
            return self._memories[kind]
        except KeyError:
            raise ValueError(f"Could not find memory addressable by device {self!r}. Device {self!r} can "
                             f"address the following memory kinds: {', '.join(MEMORY_KINDS)}. "
                             f"Got memory kind: {kind}") from None

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})"

    def __str__(self) -> str:
        return f"cpu:{self.id}"

    def __reduce__(self):
        return _device_by_id, (self.id,)


# One device exists before the list is made, so that an unplaced Array can
# name its device without fixing the device count (with several processes
# it becomes this process's first device when the list is made).
_FIRST = Device(0)
_devices: list[Device] | None = None
# (this process's index, the number of processes): set by jax.distributed.initialize.
_process = [0, 1]


def set_processes(index: int, count: int) -> None:
    """Makes this process `index` of `count` (before the devices are made)."""
    if _devices is not None:
        raise RuntimeError("jax.distributed.initialize() must be called before any JAX calls that might "
                           "initialise the XLA backend. This includes any computation, but also calls to "
                           "jax.devices, jax.device_put, and others.")
    _process[:] = [index, count]


def process_index() -> int:
    return _process[0]


def process_count() -> int:
    return _process[1]


def _local_count() -> int:
    return len(devices()) // _process[1]


def _device_by_id(i: int) -> Device:
    return devices()[i]


def devices(backend: Any = None) -> list[Device]:
    """The devices of the (CPU) backend, made on first use."""
    global _devices
    if backend is not None and backend != "cpu" and getattr(backend, "platform", None) != "cpu":
        name = getattr(backend, "platform", backend)
        raise RuntimeError(f"Unknown backend: '{name}' requested, but no platforms that are instances of "
                           f"{name} are present. Platforms present are: cpu")
    if _devices is None:
        n = _count(config.num_cpu_devices.value)
        me, count = _process
        _FIRST.id, _FIRST.process_index = me * n, me
        _devices = [_FIRST if i == me * n else Device(i, i // n) for i in range(n * count)]
    return _devices


def local_devices(process: int | None = None) -> list[Device]:
    """The devices process `process` (default: this one) owns."""
    me = _process[0] if process is None else process
    return [d for d in devices() if d.process_index == me]


def initialized() -> bool:
    return _devices is not None


def _count(n) -> int:
    return 1 if n is None or n < 1 else n


def _check_unchanged() -> None:
    # Runs after the option changed: once devices exist, a change of their
    # number is refused (setting the number in use again is not a change).
    if _devices is not None and _count(config.num_cpu_devices.value) != len(_devices) // _process[1]:
        config.num_cpu_devices._global = len(_devices) // _process[1]
        raise RuntimeError(_NUM_DEVICES_ERROR)


config.num_cpu_devices.add_change_hook(_check_unchanged)


def default_device() -> Device:
    return _FIRST
