"""The NumPy backend's execution table: primitive -> NumPy function.

Each impl takes NumPy buffers (or Python scalars, which NumPy treats as weak,
exactly like JAX does) plus the primitive's params, and returns a value of
the dtype abstract evaluation promised. Where NumPy's semantics differ from
XLA's (integer division, float->int casts, out-of-range shifts, rounding
half away from zero) the impl says so and does what XLA does.

One module per primitive family, each with a table of its own; `IMPLS` is
standard.py's table with the others merged in (the same dict object: the
call impls there run bodies with the merged table). The control-flow
primitives' eager impls compile their bodies (codegen/control_flow.py):
install() merges them in, so this package imports no code generator.
"""

from __future__ import annotations

from pyjax._src.backends.numpy.impls.standard import IMPLS
from pyjax._src.backends.numpy.impls import collectives, convolution, fft, linalg, misc, random, slicing, sorting
from pyjax._src.backends.numpy.impls import markers, pallas, special, spmd, state, windowed
from pyjax._src.backends.numpy.xla import fma

__all__ = ["IMPLS"]

for _family in (convolution, fft, linalg, misc, collectives, slicing, sorting, special, windowed, random, fma, spmd, state, markers, pallas):
    IMPLS.update(_family.IMPLS)  # (random's eq/ne compare keys, then defer to the standard ones)
