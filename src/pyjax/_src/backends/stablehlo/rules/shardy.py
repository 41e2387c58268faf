"""Sharding annotations inside a program: `with_sharding_constraint` as
JAX's `sdy.sharding_constraint` of the given NamedSharding (any mesh: on an
Auto mesh it is the only annotation the body gets; `P.UNCONSTRAINED`
dimensions print `{?}`). Without Shardy (the IREE backend) it is the
identity."""

from __future__ import annotations

from pyjax._src.backends.stablehlo.lowering import register_lowering
from pyjax._src.backends.stablehlo.sharding import constrain


def _sharding_constraint(ctx, x, *, sharding, **params):
    from pyjax._src.sharding.named import NamedSharding

    if not isinstance(sharding, NamedSharding):
        return [x]
    return [constrain(ctx.mod, ctx.b, x, None, sharding)]


def register(prims: dict) -> None:
    if "sharding_constraint" in prims:
        register_lowering(prims["sharding_constraint"], _sharding_constraint)
