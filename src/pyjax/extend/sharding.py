"""pyjax.extend.sharding: JAX 0.11's XLA-level sharding names.

They name XLA's HloSharding/OpSharding protos, which pyjax does not have:
it never lowers to HLO (shardings are NamedSharding on a Mesh, carried in
the types; docs/sharding.md). Each name exists and raises saying so.
"""

from __future__ import annotations

_WHY = ("{name} works on XLA's HloSharding/OpSharding protos; pyjax has no XLA and no HLO shardings "
        "(use pyjax.sharding.NamedSharding on a Mesh)")


class GSPMDSharding:
    """XLA's GSPMD sharding (devices + an HloSharding). Cannot be made here."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_WHY.format(name="GSPMDSharding"))


def get_hlo_sharding_from_serialized_proto(sharding: bytes):
    raise NotImplementedError(_WHY.format(name="get_hlo_sharding_from_serialized_proto"))


def get_op_sharding_from_serialized_proto(sharding: bytes):
    raise NotImplementedError(_WHY.format(name="get_op_sharding_from_serialized_proto"))


def get_serialized_proto_from_hlo_sharding(sharding) -> bytes:
    raise NotImplementedError(_WHY.format(name="get_serialized_proto_from_hlo_sharding"))


__all__ = ["GSPMDSharding", "get_hlo_sharding_from_serialized_proto", "get_op_sharding_from_serialized_proto",
           "get_serialized_proto_from_hlo_sharding"]
