"""jnp.where: the three-argument form is a jitted `_where`, as in JAX (one
`jit[name=_where]` equation in jaxprs, and no broadcast constants
materialised in eager mode); the one-argument form is `nonzero`."""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.cache_key import typed_key
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src import dispatch
from pyjax._src.numpy.util import (
    aval_of,
    check_arraylike,
    constant_like,
    ensure_arraylike,
    promote_dtypes,
)


@jit
def _where(condition, x, y):
    from pyjax._src.numpy.shape_ops import broadcast_arrays

    condition, x, y = ensure_arraylike("where", condition, x, y)
    if aval_of(condition).dtype != np.bool_:
        condition = lax_ew.ne(condition, constant_like(condition, 0))
    x, y = promote_dtypes("where", x, y)
    if aval_of(condition).ndim == 0:
        # select_n takes a scalar predicate as it is.
        x, y = broadcast_arrays(x, y)
    else:
        condition, x, y = broadcast_arrays(condition, x, y)
    if 0 in aval_of(x).shape:
        return x
    return lax_ew.select(condition, x, y)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """Elementwise `x if condition else y`, broadcasting all three.

    With only `condition`, the indices of its nonzero elements (see
    `jnp.nonzero`; `size` and `fill_value` make the result shape static).

    Example:
      >>> jnp.where(jnp.arange(4) > 1, 1.0, -1.0)
      Array([-1., -1.,  1.,  1.], dtype=float32)
    """
    if type(condition) is Array and size is None and fill_value is None and dispatch.active_trace() is None:
        # Eager: the compiled program of this call's types (dispatch.py Site); a Python
        # scalar branch is an option of the key, as a trace would bake it in.
        tx, ty = type(x), type(y)
        r = None
        if tx is Array and ty is Array:
            r = _WHERE.three(condition, x, y)
        elif tx is Array and ty in _PY_SCALARS:
            # Tagged by type, and a zero or NaN float (or a complex) by its bits:
            # 0, 0.0, -0.0 and False differ (the program bakes the value in).
            tag = ty if ty is int or ty is bool or (ty is float and y and y == y) else typed_key(y)
            r = _WHERE_SCALAR_Y.two(condition, x, y, tag)
        elif tx in _PY_SCALARS and ty is Array:
            tag = tx if tx is int or tx is bool or (tx is float and x and x == x) else typed_key(x)
            r = _WHERE_SCALAR_X.two(condition, y, x, tag)
        if r is not None:
            return r
    if x is None and y is None:
        from pyjax._src.numpy.nonzero import nonzero

        condition = ensure_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    check_arraylike("where", condition, x, y)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided to "
                         f"jax.numpy.where, got {x} and {y}.")
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where function.")
    return _where(condition, x, y)


_PY_SCALARS = frozenset({bool, int, float, complex})


def _where_scalar_y(condition, x, *, y):
    return _where(condition, x, y)


def _where_scalar_x(condition, y, *, x):
    return _where(condition, x, y)


# The eager fast paths (dispatch.py Sites): three Arrays, or two and a Python scalar branch.
_WHERE = dispatch.Site("where", _where)
_WHERE_SCALAR_Y = dispatch.Site("where_x", _where_scalar_y, "y")
_WHERE_SCALAR_X = dispatch.Site("where_y", _where_scalar_x, "x")
