"""The SPMD partitioner: a jaxpr over global, Explicit-sharded types as one
per-device program.

`partition(jaxpr, axis_sizes)` returns a function of each device's local
values (its shard of every input, laid out as the input's type says) that,
traced inside a shard_map body (where the mesh axes are named axes), binds
each equation's per-shard form and keeps every value laid out as its type
says. Where the types demand communication the rule inserts the collective:
a contraction or reduction over a sharded dimension is local and then
psum/pmax/pmin'ed, a change of placement slices, moves axes between
dimensions by all_to_all and gathers only what it must. A primitive with no
rule is computed on gathered (replicated) operands and its result
sliced back: correct, and as slow as it sounds.

This module knows no library: the collectives (`OPS`) and the per-primitive
rules (`partition_rules`) are registered by lax (lax/spmd_rules.py), the way
ad_util's zeros registry is. docs/spmd.md describes the rules.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src.interpreters import spmd_reshard
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal

Spec = tuple  # one tuple of mesh-axis names per dimension, major first

# Collectives and helpers the rules bind, registered by lax/spmd_rules.py:
# all_gather(x, names, dim), psum/pmax/pmin(x, names), psum_scatter(x, name, dim),
# all_to_all(x, names, split_dim, concat_dim) (tiled),
# axis_index(names) (the devices' row-major index over `names`),
# ppermute(x, names, perm) (zeros where no device sends),
# slice_in_dim(x, start, size, dim).
OPS: dict[str, Callable] = {}

# primitive -> rule(ctx, eqn, args) -> list of local outputs, each laid out
# as its outvar's type says (args are laid out as their invars' types say).
partition_rules: dict = {}


class Unpartitionable(Exception):
    """This jaxpr cannot run per device (the caller computes it globally)."""


def register_rule(primitive, rule: Callable) -> None:
    """Registers `rule(ctx, eqn, args) -> outs` as `primitive`'s partition rule."""
    partition_rules[primitive] = rule


def spec_of(aval) -> Spec:
    """The aval's placement as one tuple of mesh-axis names per dimension."""
    ndim = len(getattr(aval, "shape", ()))
    sharding = getattr(aval, "sharding", None)
    entries = tuple(getattr(sharding, "spec", ())) if sharding is not None else ()
    out = []
    for i in range(ndim):
        e = entries[i] if i < len(entries) else None
        out.append(() if e is None else (tuple(e) if isinstance(e, tuple) else (e,)))
    return tuple(out)


def names_any(specs: Sequence[Spec]) -> bool:
    """Whether any of `specs` splits a dimension."""
    return any(entry for spec in specs for entry in spec)


class Context:
    """What a rule needs: the mesh's axis sizes and the resharding helpers."""

    def __init__(self, axis_sizes: dict):
        self.axis_sizes = dict(axis_sizes)

    def count(self, names: Sequence[str]) -> int:
        return math.prod(self.axis_sizes[n] for n in names)

    def local_shape(self, shape: Sequence[int], spec: Spec) -> tuple:
        """The per-device shape of a global `shape` laid out as `spec`."""
        return tuple(d // self.count(s) for d, s in zip(shape, spec))

    def reshard(self, x, src: Spec, dst: Spec):
        """`x` (laid out as `src`) laid out as `dst`, by the moves whose
        largest block is smallest (spmd_reshard.plan): new axes sliced out
        locally, an axis changing dimensions moved by `all_to_all` (each
        device sends every peer the block that peer will own), and only
        the axes a dimension must drop for good all-gathered."""
        src, dst = tuple(map(tuple, src)), tuple(map(tuple, dst))
        if src == dst:
            return x
        shape = tuple(n * self.count(s) for n, s in zip(x.shape, src))
        sizes = tuple(sorted((n, self.axis_sizes[n]) for s in src + dst for n in s))
        for step in spmd_reshard.plan(src, dst, shape, sizes):
            if step[0] == "slice":
                x = self.slice_names(x, step[1], step[2])
            elif step[0] == "all_to_all":
                x = OPS["all_to_all"](x, step[3], step[2], step[1])
            else:
                x = OPS["all_gather"](x, step[2], step[1])
        return x

    def slice_names(self, x, dim: int, names: tuple):
        """This device's part of dimension `dim` split further over `names`."""
        size = x.shape[dim] // self.count(names)
        return OPS["slice_in_dim"](x, OPS["axis_index"](names) * size, size, dim)

    def reduce_partial(self, x, partial: Sequence[str], src: Spec, dst: Spec, kind: str = "sum"):
        """`x` holds partial results over the axes `partial` (laid out as
        `src`): combined (a sum scattered straight into a dimension whose
        new axes in `dst` are all summed ones: `psum_scatter` over them,
        each device keeping only its block), then laid out as `dst`."""
        src, partial = list(src), [n for n in partial]
        if kind == "sum":
            for d, (s, t) in enumerate(zip(src, dst)):
                s, t = tuple(s), tuple(t)
                new = t[len(s):]
                if new and t[:len(s)] == s and all(n in partial for n in new):
                    x = OPS["psum_scatter"](x, new if len(new) > 1 else new[0], d)
                    src[d] = t
                    partial = [n for n in partial if n not in new]
        if partial:
            x = OPS["p" + kind](x, tuple(partial))
        return self.reshard(x, tuple(src), dst)

    def run(self, jaxpr: Jaxpr, args: Sequence[Any]) -> list:
        """Runs a (closed) jaxpr's per-device form on local `args`."""
        return _run(self, jaxpr, list(args))


def _read(env: dict, v):
    return v.val if type(v) is Literal else env[v]


def _run(ctx: Context, jaxpr: Jaxpr, args: list) -> list:
    env: dict = {}
    for var, const in zip(jaxpr.constvars, jaxpr.consts, strict=True):
        # A closed-over global constant (a placed Array's value, untyped:
        # inside the body nothing is typed on the mesh): each device keeps its part.
        if getattr(getattr(const, "aval", None), "sharding", None) is not None:
            const = np.asarray(const)
        env[var] = ctx.reshard(const, tuple(() for _ in spec_of(var.aval)), spec_of(var.aval))
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in jaxpr.eqns:
        outs = partition_eqn(ctx, eqn, [_read(env, v) for v in eqn.invars])
        env.update(zip(eqn.outvars, outs, strict=True))
    return [_read(env, v) for v in jaxpr.outvars]


def partition_eqn(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    """The local outputs of one equation, by its rule (or the generic ones)."""
    primitive = eqn.primitive
    if eqn.effects:  # (a per-device program would repeat the effect on every device)
        raise Unpartitionable(f"{primitive.name} has effects")
    rule = partition_rules.get(primitive)
    if rule is not None:
        return rule(ctx, eqn, args)
    body = getattr(primitive, "call_body", None)
    if body is not None and isinstance(eqn.params.get(body), Jaxpr) \
            and len(eqn.params[body].invars) == len(args):
        return ctx.run(eqn.params[body], args)  # a call: its body inlined, partitioned too
    if primitive.body_params:
        raise Unpartitionable(f"{primitive.name} holds typed bodies")
    if getattr(primitive, "elementwise", False) and not primitive.multiple_results:
        return [elementwise_rule(ctx, eqn, args)]
    return replicated_rule(ctx, eqn, args)


def local_params(params: dict, **updates) -> dict:
    """`params` with placements dropped (inside the body nothing is typed
    on the mesh) and `updates` applied."""
    out = {k: (None if k in ("sharding", "out_sharding") else v) for k, v in params.items()}
    out.update(updates)
    return out


def bind(eqn: JaxprEqn, args: Sequence[Any], **updates) -> list:
    outs = eqn.primitive.bind(*args, **local_params(eqn.params, **updates))
    return list(outs) if eqn.primitive.multiple_results else [outs]


def elementwise_rule(ctx: Context, eqn: JaxprEqn, args: list):
    """An elementwise op: operands laid out as the result (a size-1 or
    rank-0 operand broadcasts and stays whole), computed locally."""
    out_aval = eqn.outvars[0].aval
    if tuple(getattr(out_aval, "shape", ())) != tuple(getattr(eqn.invars[0].aval, "shape", out_aval.shape)) \
            and len(eqn.invars) == 1:  # (bitcast_convert_type to another width changes the shape)
        return replicated_rule(ctx, eqn, args)[0]
    out_spec = spec_of(out_aval)
    fixed = []
    for v, x in zip(eqn.invars, args):
        shape = getattr(v.aval, "shape", ())
        if len(shape) != len(out_spec):
            fixed.append(x)
            continue
        want = tuple(s if d == n else () for s, d, n in zip(out_spec, shape, out_aval.shape))
        fixed.append(ctx.reshard(x, spec_of(v.aval), want))
    return bind(eqn, fixed)[0]


def replicated_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    """No rule: the operands gathered whole, the equation computed as it
    is on every device, each result sliced back to its type."""
    whole = [ctx.reshard(x, spec_of(v.aval), tuple(() for _ in spec_of(v.aval))) for v, x in zip(eqn.invars, args)]
    outs = bind(eqn, whole)
    return [ctx.reshard(x, tuple(() for _ in spec_of(v.aval)), spec_of(v.aval)) for v, x in zip(eqn.outvars, outs)]


def partition(jaxpr: Jaxpr, axis_sizes: dict) -> Callable[..., list]:
    """The per-device form of `jaxpr` (over global types whose placements
    name axes of a mesh of `axis_sizes`): a function of the local inputs,
    to be traced where the mesh axes are named (a shard_map body)."""
    ctx = Context(axis_sizes)
    return lambda *local_args: ctx.run(jaxpr, local_args)
