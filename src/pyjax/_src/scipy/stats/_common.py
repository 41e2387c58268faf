"""What the distribution modules share: argument promotion and scalar constants."""

from __future__ import annotations

import numpy as np

from pyjax._src.array import Array
from pyjax._src.numpy.util import aval_of, ensure_array, promote_args_inexact

__all__ = ["const", "promote"]


def promote(name: str, *args):
    """Promotes the arguments to a common floating dtype and rank, as JAX's
    promote_args_inexact does (the name appears in errors)."""
    # Host values become Arrays: arithmetic on them then runs as pyjax's
    # (silent where NumPy's would warn, as JAX is: pareto's y ** -b below
    # its support).
    return [x if isinstance(x, Array) else ensure_array(x) for x in promote_args_inexact(name, *args)]


def const(like, value):
    """`value` as a scalar of `like`'s dtype (lax._const): a literal in jaxprs."""
    return np.array(value, aval_of(like).dtype)[()]
