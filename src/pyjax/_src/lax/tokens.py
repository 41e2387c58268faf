"""Token primitives: `create_token` and `after_all` (JAX's `lax.create_token`,
`lax.after_all`).

A token (tokens.py) is a value with no data that JAX threads through a
computation to order its side effects. Both primitives return the token
type; they carry no effect of their own (JAX prints `{  }` for them). A
token is never mapped by vmap and is its own (zero) tangent: its
primitives have no derivative, and dead-code elimination drops an unused
one.
"""

from __future__ import annotations

from typing import Any

from pyjax._src import ad_util, core
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.jvp import defjvp_zero
from pyjax._src.tokens import AbstractToken, Token, abstract_token

__all__ = ["after_all", "after_all_p", "create_token", "create_token_p"]

create_token_p = Primitive("create_token")
after_all_p = Primitive("after_all")


@create_token_p.def_abstract_eval
def _create_token_abstract_eval() -> AbstractToken:
    return abstract_token


@after_all_p.def_abstract_eval
def _after_all_abstract_eval(*avals) -> AbstractToken:
    if any(type(a) is not AbstractToken for a in avals):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


def _bind_making_token(primitive: Primitive):
    plain = primitive.bind

    def bind(*args, **params):
        if core.trace_state_clean():
            # Eagerly there is nothing to run: type-check the operands, make a Token.
            primitive.out_avals(tuple(core.get_aval(x) for x in args), params)
            return Token()
        return plain(*args, **params)

    return bind


create_token_p.bind = _bind_making_token(create_token_p)
after_all_p.bind = _bind_making_token(after_all_p)


def create_token(_: Any = None) -> Token:
    """A new token (the argument, if any, is ignored, as in JAX).

    Example:
      >>> jax.make_jaxpr(lax.create_token)()
      { lambda ; . let a:Tok = create_token  in (a,) }
    """
    return create_token_p.bind()


def after_all(*operands) -> Token:
    """A token ordered after every token in `operands` (tokens only:
    anything else is a TypeError, as in JAX)."""
    return after_all_p.bind(*operands)


# A token has no derivative: the JVP of either primitive is a zero token.
defjvp_zero(create_token_p)
defjvp_zero(after_all_p)


def _create_token_batch(axis_data, args, dims):
    return create_token_p.bind(), batching.not_mapped


def _after_all_batch(axis_data, args, dims):
    # Tokens are never mapped (vmap cannot map one: it has no axis).
    return after_all_p.bind(*args), batching.not_mapped


create_token_p.def_batch(_create_token_batch)
after_all_p.def_batch(_after_all_batch)


def _token_sharding_rule(out, *avals, **params):
    return out  # a token has no placement


create_token_p.def_sharding_rule(_token_sharding_rule)
after_all_p.def_sharding_rule(_token_sharding_rule)

# A zero of a token's tangent type (a token is its own tangent) is a token.
ad_util.aval_zeros_likers[AbstractToken] = lambda aval: create_token_p.bind()
