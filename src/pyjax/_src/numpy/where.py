"""jnp.where (the three-argument form): a jitted `_where`, as in JAX, so it
shows up in jaxprs as one `jit[name=_where]` equation."""

from __future__ import annotations

import numpy as np

from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.numpy.shape_ops import broadcast_arrays
from pyjax._src.numpy.util import aval_of, check_arraylike, promote_dtypes


@jit
def _where(condition, x, y):
    if aval_of(condition).dtype != np.bool_:
        condition = lax_ew.ne_p.bind(condition, aval_of(condition).dtype.type(0))
    x, y = promote_dtypes("where", x, y)
    condition, x, y = broadcast_arrays(condition, x, y)
    return lax_ew.select_n_p.bind(condition, y, x)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """Elementwise `x if condition else y`, broadcasting all three."""
    if x is None and y is None:
        raise NotImplementedError("the one-argument form of jnp.where (nonzero) is not implemented yet")
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided to jax.numpy.where, got {} and {}.".format(x, y))
    check_arraylike("where", condition, x, y)
    return _where(condition, x, y)


