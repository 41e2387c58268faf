"""What the distribution modules share: argument promotion and scalar constants."""

from __future__ import annotations

import numpy as np

from pyjax._src.numpy.util import aval_of, promote_args_inexact

__all__ = ["const", "promote"]


def promote(name: str, *args):
    """Promotes the arguments to a common floating dtype and rank, as JAX's
    promote_args_inexact does (the name appears in errors)."""
    return promote_args_inexact(name, *args)


def const(like, value):
    """`value` as a scalar of `like`'s dtype (lax._const): a literal in jaxprs."""
    return np.array(value, aval_of(like).dtype)[()]
