"""Tokens: the values that order side effects in JAX's programs
(`jax.extend.core.AbstractToken`, `Token`; made by `lax.create_token`).

A token carries no data. Its aval, `AbstractToken`, prints `Tok` in a
jaxpr. On the NumPy backend its buffer is one read-only boolean scalar: the
backend runs a program's equations in order, so a token has nothing to
order (its primitives are in lax/tokens.py).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.avals import AbstractValue

__all__ = ["AbstractToken", "Token", "abstract_token", "TOKEN_BUFFER"]


class AbstractToken(AbstractValue):
    """The abstract value of a token: no shape and no dtype, printed `Tok`."""

    __slots__ = ()
    # What the tracing machinery and the NumPy backend read off any aval: a
    # token's buffer is one boolean scalar, never placed, weakly typed or too
    # big to allocate. (JAX's has no shape or dtype; only its printing shows.)
    shape = ()
    dtype = np.dtype(np.bool_)
    ndim = 0
    size = 1
    sharding = None
    memory_space = None
    weak_type = False
    too_big = False
    vma = ()

    def str_short(self, short_dtypes: bool = True) -> str:
        return "Tok"

    def __repr__(self) -> str:
        return "AbstractToken()"

    __str__ = __repr__

    # One kind of token: every AbstractToken is equal (caches key on avals).
    def __eq__(self, other) -> bool:
        return type(other) is AbstractToken

    def __hash__(self) -> int:
        return hash(AbstractToken)

    def __reduce__(self):
        return AbstractToken, ()

    # A token is its own tangent and cotangent type, as in JAX.
    def update(self, **changes) -> AbstractToken:
        return self

    def strip_weak_type(self) -> AbstractToken:
        return self

    def at_least_vspace(self) -> AbstractToken:
        return self

    to_tangent_aval = to_ct_aval = at_least_vspace


abstract_token = AbstractToken()

# The NumPy backend's buffer of every token.
TOKEN_BUFFER = np.zeros((), np.bool_)
TOKEN_BUFFER.flags.writeable = False


class Token:
    """A concrete token (JAX's `jax.extend.core.Token`): returned by
    `lax.create_token` and `lax.after_all`, accepted and returned by jitted
    functions. It is not an array: jax.numpy refuses it."""

    __slots__ = ("_buf",)

    def __init__(self, buf=TOKEN_BUFFER):
        self._buf = buf

    aval = property(lambda self: abstract_token)
    # (what compiled code receives for it)
    _value = property(lambda self: self._buf)

    def block_until_ready(self) -> None:
        """Nothing to wait for (JAX's returns None too)."""
        return None
