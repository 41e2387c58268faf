"""The jax.numpy surface that jax.nn, jnp.linalg, jnp.fft and jax.scipy are
written against, while pyjax.numpy is still growing.

`from pyjax._src.scipy import jnp_pending as jnp` gives a module whose
attributes are pyjax.numpy's own functions where pyjax.numpy has them, and
for a name it does not export yet, a stand-in registered below that stages
exactly the equations JAX's function stages (so jaxprs already print as
JAX's). Once pyjax.numpy gains a function, the lookup finds it there first
and the stand-in is no longer used; a stand-in can then be deleted.
"""

from __future__ import annotations

from collections.abc import Callable

from pyjax._src.numpy.util import aval_of

_STANDINS: dict[str, Callable] = {}


def __getattr__(name: str):
    import pyjax.numpy as jnp

    found = getattr(jnp, name, None)
    if found is not None:
        return found
    if name in _STANDINS:
        return _STANDINS[name]
    raise AttributeError(f"pyjax.numpy has no attribute {name!r} (and no stand-in is defined)")


def standin(fn: Callable) -> Callable:
    """Registers `fn` as the stand-in for the jax.numpy function of its name."""
    _STANDINS[fn.__name__] = fn
    return fn


# ---- polyval (JAX evaluates it with a scan, from zero)


@standin
def polyval(p, x, *, unroll: int = 16):
    """The polynomial with coefficients `p` (highest degree first) at `x`, by Horner's rule."""
    import pyjax.numpy as jnp

    p = jnp.asarray(p)
    x = jnp.asarray(x)
    # From zero, as JAX's scan does (so 0 * inf gives its NaN too).
    y = jnp.zeros_like(x)
    for i in range(aval_of(p).shape[0]):
        y = y * x + p[i]
    return y


# The stand-ins must not be module attributes, or they would shadow
# pyjax.numpy's own functions: they are reached through __getattr__ only.
for _name in _STANDINS:
    globals().pop(_name, None)
del _name
