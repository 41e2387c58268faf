"""`jax.experimental.layout`: Layout and Format as values (flax reads them).

pyjax's CPU buffers are NumPy arrays in row-major order, so a layout is a
description only: `with_layout_constraint` returns its operand.
"""

from __future__ import annotations

from typing import Any


class Layout:
    """A device-local memory layout: the dimensions, major to minor."""

    def __init__(self, major_to_minor: tuple[int, ...], tiling: tuple[tuple[int, ...], ...] | None = None,
                 sub_byte_element_size_in_bits: int = 0):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = None if tiling is None else tuple(map(tuple, tiling))
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    def _key(self):
        return self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
                f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")


class Format:
    """A layout together with a sharding."""

    def __init__(self, layout: Any = None, sharding: Any = None):
        if isinstance(layout, Layout) and sharding is None:
            raise ValueError(
                f"Sharding has to be concrete when layout is of type {type(layout)}. Please pass a "
                "`jax.sharding.NamedSharding` or `jax.sharding.SingleDeviceSharding` to the sharding argument. "
                f"Got sharding {sharding}")
        self.layout, self.sharding = layout, sharding

    def __eq__(self, other):
        return isinstance(other, Format) and (self.layout, self.sharding) == (other.layout, other.sharding)

    def __hash__(self):
        return hash((self.layout, self.sharding))

    def __repr__(self):
        return f"Format(layout={self.layout!r}, sharding={self.sharding!r})"


def with_layout_constraint(x: Any, layout: Any) -> Any:
    """`x` with its layout constrained (a no-op on NumPy's row-major buffers)."""
    return x


__all__ = ["Format", "Layout", "with_layout_constraint"]
