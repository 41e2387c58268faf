"""Pieces shared by the autodiff interpreters and the rules: symbolic zeros,
the `add_any` primitive (tangent/cotangent accumulation) and the zeros of an
aval.

`Zero(aval)` stands for a tangent or cotangent known to be zero; rules skip
it instead of multiplying by zeros, and it is materialised only when a value
is really needed (`instantiate`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive


class Zero:
    """A symbolic zero of the given aval (tangent or cotangent)."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval})"


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """Tangents of integer and boolean values are float0, as in JAX."""
    dtype = aval.dtype
    if isinstance(dtype, dtypes.ExtendedDType):  # (its rule: float0 for keys, primal_tangent_dtype's own)
        return ShapedArray(aval.shape, dtypes.tangent_dtype(dtype), False)
    if np.issubdtype(dtype, np.inexact) or dtypes.issubdtype(dtype, np.inexact):
        return aval
    return ShapedArray(aval.shape, dtypes.float0, False)


# aval type -> a function building a concrete zero of such an aval. Filled by
# lax (a zero is a broadcast literal there), so that this module, which the
# interpreters import, knows no library.
aval_zeros_likers: dict[type, Callable] = {}


def zeros_like_aval(aval: ShapedArray):
    """A concrete zero of `aval` (via the current trace: a broadcast literal)."""
    return aval_zeros_likers[type(aval)](aval)


def instantiate(tangent):
    """A real value for a possibly symbolic zero."""
    return zeros_like_aval(tangent.aval) if type(tangent) is Zero else tangent


# Elementwise (an add of equal shapes): the backends' fused row loops and
# tiled regions take it with the adds around it in a backward pass. Not
# `fusible` in the XLA model of the NumPy backend's rewrites: whether XLA
# contracts a multiply into it (it lowers to an add) is not yet checked.
add_any_p = Primitive("add_any").declare(elementwise=True, fusible=False, cost="cheap")


@add_any_p.def_abstract_eval
def _add_any_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    return ShapedArray(x.shape, x.dtype, x.weak_type and y.weak_type)


def add_tangents(x, y):
    """x + y for tangents/cotangents, where either may be a symbolic zero."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_any_p.bind(x, y)
