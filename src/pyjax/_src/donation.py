"""Which donated arguments a jitted call takes, as JAX 0.11 on CPU decides.

JAX matches donated inputs to outputs when it lowers: each output takes
the first donated input of its exact type (shape and dtype, weak type
ignored), aliased. A donated input left over is handed to XLA as a donor
when some output not yet aliased has as many elements; XLA then reuses it
(and the caller's Array is deleted) only for an output of the same size in
bytes. Inputs left with neither are "not usable": JAX warns once, when it
compiles, and leaves them alive. An input the computation never reads is
pruned before any of this (neither taken nor warned about) unless
`keep_unused`.

With several devices (an argument or a result split over a mesh) JAX hands
every donor to XLA and warns about none; the sizes compared are then the
per-device shards'.
"""

from __future__ import annotations

import warnings
from typing import Sequence

from pyjax._src import core, errors
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.tokens import AbstractToken

__all__ = ["Plan", "check_donated_once", "delete_donated", "for_call", "plan", "read_inputs", "warn_unusable"]

_EXPLANATION = "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation."


class Plan:
    """`taken[i]`: flat input i's buffer is reused (its Array is deleted);
    `unusable`: the avals JAX's warning lists."""

    __slots__ = ("taken", "unusable", "warned")

    def __init__(self, taken: list, unusable: list) -> None:
        self.taken, self.unusable, self.warned = taken, unusable, False


def _type(aval) -> tuple:
    return (tuple(aval.shape), aval.dtype)


def _nbytes(aval) -> int:
    return int(aval.size) * aval.dtype.itemsize


def plan(in_avals: Sequence, out_avals: Sequence, donated: Sequence[bool], *, several_devices: bool = False) -> Plan:
    """The donation of one compiled call: `donated` says which inputs are
    donated (and read by the computation)."""
    n = len(in_avals)
    taken, xla_donor = [False] * n, [False] * n
    aliased_outs: set = set()
    pending = [i for i in range(n) if donated[i] and not isinstance(in_avals[i], AbstractToken)]
    if not several_devices:
        for j, out in enumerate(out_avals):  # JAX: exact types, outputs in order, first donor first
            if isinstance(out, AbstractToken):
                continue
            match = next((i for i in pending if _type(in_avals[i]) == _type(out)), None)
            if match is not None:
                pending.remove(match)
                taken[match] = True
                aliased_outs.add(j)
        free_counts = [out.size for j, out in enumerate(out_avals)
                       if j not in aliased_outs and not isinstance(out, AbstractToken)]
        unusable = []
        for i in pending:  # JAX: a donor to XLA when an output has as many elements
            if in_avals[i].size in free_counts:
                free_counts.remove(in_avals[i].size)
                xla_donor[i] = True
            else:
                unusable.append(in_avals[i])
    else:
        xla_donor = [i in pending for i in range(n)]
        unusable = []
    free = [j for j, out in enumerate(out_avals) if j not in aliased_outs and not isinstance(out, AbstractToken)]
    for i in range(n):  # XLA: a donor reused by an output of its size in bytes
        if xla_donor[i]:
            j = next((j for j in free if _nbytes(out_avals[j]) == _nbytes(in_avals[i])), None)
            if j is not None:
                free.remove(j)
                taken[i] = True
    return Plan(taken, unusable)


def read_inputs(jaxpr) -> list[bool]:
    """Per invar of `jaxpr`: whether the computation reads it once dead code
    is removed (JAX prunes the others when it lowers)."""
    from pyjax._src.interpreters.dce import dce_jaxpr

    return list(dce_jaxpr(jaxpr)[1])


def warn_unusable(donation: Plan) -> None:
    """JAX's warning, once per compiled call, about the donated buffers
    nothing could reuse."""
    if donation.unusable and not donation.warned:
        donation.warned = True
        # (JAX lists the avals as the call saw them: a weak type shows as `~`.)
        listed = ", ".join(("~" if a.weak_type else "") + str(ShapedArray(a.shape, a.dtype)) for a in donation.unusable)
        warnings.warn(f"Some donated buffers were not usable: {listed}.\n{_EXPLANATION}", stacklevel=4)


def _donated_twice_message(argument: int, first_use: int, donated_first: bool) -> str:
    """XLA's message for a buffer donated and passed again in one call."""
    where = f"(flattened argument {argument}, replica 0, partition 0, first use: {first_use})"
    if donated_first:
        return ("INVALID_ARGUMENT: Attempt to use a buffer that was previously donated in the same call to Execute() "
                f"{where}. Toy example for this bug: `f(donate(a), a)`.")
    return ("INVALID_ARGUMENT: Attempt to donate a buffer which is also used by the same call to Execute() "
            f"{where}. Toy example for this bug: `f(a, donate(a))`.")


# --- a jitted call's donation (jit.py calls these with its cache entry)


def for_call(entry, flat_args: list, outs: list | None, donated: tuple, keep_unused: bool) -> Plan:
    """The donation of an eager call of `entry` (a jit cache entry) on
    `flat_args`; on one device, planned (and warned about) once per entry
    and donated flags."""
    if not keep_unused:
        donated = tuple(d and r for d, r in zip(donated, read_inputs(entry.jaxpr)))
    if outs is not None and any(_on_several_devices(x) for x in (*flat_args, *outs)):
        return plan([_shard_aval(x) for x in flat_args], [_shard_aval(o) for o in outs], donated,
                    several_devices=True)
    found = entry.donations.get(donated)
    if found is None:
        found = entry.donations[donated] = plan(entry.jaxpr.in_avals, entry.out_avals, donated)
    warn_unusable(found)
    return found


def check_donated_once(entry, flat_args: list, donated: tuple, keep_unused: bool) -> None:
    """XLA's refusal, before running, of a buffer taken by donation and
    passed again (its indices count the arguments the computation reads)."""
    if any(_on_several_devices(x) for x in flat_args):
        return
    kept = read_inputs(entry.jaxpr) if not keep_unused else [True] * len(flat_args)
    taken = for_call(entry, flat_args, None, donated, keep_unused).taken
    first: dict = {}
    for k, i in enumerate(i for i in range(len(flat_args)) if kept[i]):
        x = flat_args[i]
        if not isinstance(x, Array):
            continue
        if id(x) not in first:
            first[id(x)] = (k, taken[i])
            continue
        at, was_taken = first[id(x)]
        if was_taken or taken[i]:
            raise errors.JaxRuntimeError(_donated_twice_message(k, at, was_taken))


def delete_donated(entry, flat_args: list, outs: list, donated: tuple, keep_unused: bool) -> None:
    """Deletes the donated Arrays whose buffers the call took. (An Array
    kept on another platform's device, IREE's, stays: the next call there
    reuses its buffer without reading it back.)"""
    taken = for_call(entry, flat_args, outs, donated, keep_unused).taken
    for x, took in zip(flat_args, taken):
        if took and isinstance(x, Array) and not hasattr(x, "device_buffer") and not x.is_deleted():
            x.delete()


def _on_several_devices(x) -> bool:
    devices = getattr(x, "devices", None)
    return type(x) is not Array and callable(devices) and len(devices()) > 1


def _shard_aval(x):
    aval = core.get_aval(x)
    return aval.update(shape=x.sharding.shard_shape(aval.shape)) if _on_several_devices(x) else aval
