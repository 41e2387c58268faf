"""jax.dlpack: arrays from other libraries' buffers through DLPack.

`from_dlpack` takes any object with ``__dlpack__`` and ``__dlpack_device__``
(NumPy arrays, PyTorch CPU tensors, CuPy via host, other pyjax Arrays) and
returns a pyjax Array holding a copy of it, in the dtype JAX would use
(64-bit types become 32-bit unless x64 is on). pyjax Arrays export
themselves with ``__dlpack__``, so ``np.from_dlpack(x)`` and
``torch.from_dlpack(x)`` read them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyjax._src import dtypes

__all__ = ["from_dlpack", "is_supported_dtype"]

# DLPack carries these (JAX's list): bool, ints, uints, floats (with bfloat16), complexes.
_SUPPORTED = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_)) | {np.dtype(dtypes.bfloat16)}


def is_supported_dtype(dtype: Any) -> bool:
    """Check if dtype is supported by jax.dlpack."""
    return np.dtype(dtype) in _SUPPORTED


def from_dlpack(external_array: Any, device: Any = None, copy: bool | None = None) -> Any:
    """Returns a :class:`~jax.Array` representation of a DLPack tensor.

    The returned array holds a copy of the data (pyjax Arrays own immutable
    buffers), converted to the canonical dtype.

    Args:
      external_array: An array object that has ``__dlpack__`` and
        ``__dlpack_device__`` methods.
      device: The (optional) device on which to place the array: pyjax's one
        CPU device (or None).
      copy: Accepted for compatibility; pyjax always copies (its Arrays own
        immutable buffers).

    Returns:
      A jax.Array
    """
    import pyjax.numpy as jnp

    if not (hasattr(external_array, "__dlpack__") and hasattr(external_array, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ methods.")
    device_type, _ = external_array.__dlpack_device__()
    if int(device_type) not in (1, 3):  # kDLCPU, kDLCUDAHost: memory the host can read
        raise TypeError(f"from_dlpack: the array lives on DLPack device type {device_type}; pyjax computes in "
                        "host memory and can import only CPU (kDLCPU) tensors.")
    host = np.from_dlpack(external_array)
    if not is_supported_dtype(host.dtype):
        raise TypeError(f"from_dlpack: dtype {host.dtype} is not supported by DLPack in JAX")
    return jnp.array(host, copy=True, device=device) if device is not None else jnp.array(host, copy=True)
