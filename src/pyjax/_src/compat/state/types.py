"""`jax._src.state.types`: AbstractRef, the aval of a mutable reference.

No pyjax value has it (pyjax has no references yet), so `isinstance(aval,
AbstractRef)` is False for every traced or concrete array, as in JAX for
every value that is not a Ref.
"""

from __future__ import annotations

from pyjax._src.avals import AbstractValue


class AbstractRef(AbstractValue):
    """The abstract value of a mutable array reference, wrapping its inner aval."""

    __slots__ = ("inner_aval", "memory_space", "kind")

    def __init__(self, inner_aval, memory_space=None, kind=None):
        raise NotImplementedError("mutable array references (jax.new_ref / jax.Ref) are not implemented in pyjax")


__all__ = ["AbstractRef"]
