"""Sharding annotations inside a program: `with_sharding_constraint` as
JAX's `sdy.sharding_constraint` of the given NamedSharding (any mesh: on an
Auto mesh it is the only annotation the body gets; `P.UNCONSTRAINED`
dimensions print `{?}`; on a value typed with Explicit axes the type's axes
lead each dimension). Without Shardy (the IREE backend) it is the
identity."""

from __future__ import annotations

from pyjax._src.backends.stablehlo.lowering import register_lowering
from pyjax._src.backends.stablehlo.sharding import constrain, typed_sharding


def _sharding_constraint(ctx, x, *, sharding, **params):
    from pyjax._src.sharding.named import NamedSharding

    if not isinstance(sharding, NamedSharding):
        return [x]
    return [constrain(ctx.mod, ctx.b, x, None, _merged(sharding, ctx.avals_out[0]))]


def _merged(sharding, aval):
    """On a value typed with Explicit axes, each dimension's type axes come
    first, then the constraint's (JAX's rule)."""
    from types import SimpleNamespace

    typed = typed_sharding(aval)
    if typed is None or all(p is None for p in typed.spec):
        return sharding
    user = tuple(sharding.spec) + (None,) * (len(aval.shape) - len(sharding.spec))
    spec = []
    for mine, have in zip(user, tuple(typed.spec) + (None,) * (len(aval.shape) - len(typed.spec))):
        have = () if have is None else (have if isinstance(have, tuple) else (have,))
        mine = () if mine is None else (mine if isinstance(mine, tuple) else (mine,))
        both = have + mine
        spec.append(None if not both else both[0] if len(both) == 1 else both)
    return SimpleNamespace(mesh=sharding.mesh, spec=tuple(spec))


def register(prims: dict) -> None:
    if "sharding_constraint" in prims:
        register_lowering(prims["sharding_constraint"], _sharding_constraint)
