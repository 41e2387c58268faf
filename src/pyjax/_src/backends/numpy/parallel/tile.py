"""Tiled regions: a run of equations executed block by block along a leading axis.

XLA fuses a chain like attention's softmax, or the body of a Newton
iteration, into loops that run on every core. The NumPy backend calls one
NumPy function per equation, on one core; split.py shares single large
calls among the cores, but a memory-bound op (an add, a multiply) gains
little that way, one hand-off per equation. When a run of consecutive
equations all map the leading axis of their operands to the leading axis
of their results (elementwise operations, reductions over other axes,
batched matmuls over that axis, broadcasts and transposes that keep it),
the whole run can instead execute on blocks of that axis, each core
taking its share of the blocks, with one hand-off for the run.

Every equation computes, on a slab, exactly what it computes on the whole
array restricted to that slab (the same NumPy calls over the same rows), so
results are bitwise the same as without tiling; tests/backends/test_tile.py
checks it, and `PYJAX_TILE_MIN_ELEMENTS=1` tiles every region it can find:
the whole test suite passes so, but for the tests that read the generated
source of op-by-op code. A reduction over the leading axis
itself ends a region: `max`, `min`, `and` and `or` (exact in any order) are
reduced per block and then across blocks; a sum is not (the order of its
additions would change).

`plan(jaxpr)` finds the regions of one jaxpr (linear in its equations);
the compiler (compile.py) runs each as one call of a `TiledRegion`, whose
per-block code is compiled once per block size, at compile time.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, Literal, Var

# A region is tiled when its equations produce at least this many elements
# in all (below it, one pass per equation stays in cache anyway, and the
# hand-off to a second core costs more than it saves).
MIN_ELEMENTS = int(os.environ.get("PYJAX_TILE_MIN_ELEMENTS") or 1 << 20)
# Each block's largest intermediate is at most about this big. Measured on
# the 2-core machine: small, cache-sized blocks (128-512 KB) lose to big ones
# (a Newton step on 1M float32 values: 8.8 ms with 128 KB blocks, 4.9 with
# 512 KB, 4.3 with one 2 MB block per core), since every block costs a trip
# through the interpreter per equation, contended for by the other core;
# the gain is the parallel run, not the cache.
BLOCK_BYTES = 1 << 22
# A region with a product (attention's heads) has few equations, each a
# long native call (a BLAS product, a row loop), so a block's Python costs
# little next to them: its blocks are cut smaller, to stay in a core's L2
# cache from the product that writes them to the one that reads them
# (OpenBLAS zeroes and writes its output, the row loop reads and rewrites
# it, the next product packs it), and so that a core the other leaves
# waiting (a busy machine) takes more of the blocks.
PRODUCT_BLOCK_BYTES = 1 << 20

# Which primitives act elementwise (every output element depends only on the
# operands' element at its index; operands of the result's shape, or rank-0)
# and which of those broadcast size-1 axes as lax's n-ary ops do is declared
# on each primitive (`primitive.elementwise`, `primitive.broadcasting`). Of
# the elementwise ones, these are left out of tiled regions and of rows.py's
# row loops: they were never measured there (special functions computed by
# SciPy, the total-order comparisons, complex, mulhi, reduce_precision).
_UNTILED = frozenset({
    "bessel_i0e", "bessel_i1e", "complex", "eq_to", "erf_inv", "igamma", "igamma_grad_a", "igammac", "le_to",
    "lt_to", "mulhi", "polygamma", "random_gamma_grad", "reduce_precision", "regularized_incomplete_beta", "zeta",
})


def elementwise(primitive) -> bool:
    """Whether a tiled region (or a row loop) runs `primitive` as an
    elementwise operation: declared elementwise, and not left out here."""
    return primitive.elementwise and primitive.name not in _UNTILED


# Reductions whose result does not depend on the order of the reduction: a
# reduction over the leading axis is done per block, then across blocks.
_ORDER_FREE = frozenset({"reduce_max", "reduce_min", "reduce_and", "reduce_or"})

# Equations that only change the layout (NumPy views): no work of their own.
_LAYOUT = frozenset({"transpose", "reshape", "broadcast_in_dim", "squeeze"})

_TILED, _WHOLE, _PARTIAL = "tiled", "whole", "partial"


def enabled() -> bool:
    """Whether the compiler looks for regions: only with more than one core
    to share them (a block's own code is compiled without this tier)."""
    return split_lib.num_workers() > 1


class TileTier:
    """The region tier (tiers.py) of tiled regions."""

    name = "tile"

    def plan(self, builder, jaxpr: Jaxpr, items: list) -> list | None:
        if not enabled() or items != list(range(len(jaxpr.eqns))):
            return None  # (the first region tier: it plans over every equation)
        planned = plan(jaxpr)
        return None if planned is None else [i if type(i) is int else (self, i) for i in planned]

    def emit(self, builder, region: Region, env: dict) -> None:
        # One call computes every value the region exports, block by block.
        runner = compile_region(region, builder.impls, builder.compile_block)
        builder.emit_region_call(runner, region.invars, region.outvars, env, "tiled region")


class Region:
    """Equations `eqns` of a jaxpr (in order) tiled along a leading axis of
    size `size`: `invars` (roles `in_roles`: tiled, or used whole) and
    `outvars` (roles `out_roles`: tiled, or partial reductions)."""

    __slots__ = ("size", "eqns", "invars", "in_roles", "outvars", "out_roles")

    def __init__(self, size, eqns, invars, in_roles, outvars, out_roles):
        self.size, self.eqns = size, eqns
        self.invars, self.in_roles = invars, in_roles
        self.outvars, self.out_roles = outvars, out_roles


def plan(jaxpr: Jaxpr) -> list | None:
    """The equations of `jaxpr` as a list of equation indices and `Region`s,
    in an order that computes the same values; None when there is no region
    worth tiling."""
    eqns = jaxpr.eqns
    if not any(_big(v.aval) for e in eqns for v in e.outvars):
        return None
    last_use = last_uses(jaxpr)
    items: list = []
    found = False
    i = 0
    while i < len(eqns):
        region, hoisted, end = _grow(eqns, i, last_use)
        if region is None:
            items.extend(range(i, end))  # equation by equation
        else:
            items.extend(hoisted)
            items.append(region)
            items.extend(_spreads_after(region, eqns, i, end, last_use))
            found = True
        i = end
    return items if found else None


def _big(aval) -> bool:
    shape = getattr(aval, "shape", ())
    return bool(shape) and math.prod(shape) * 2 >= MIN_ELEMENTS


def last_uses(jaxpr: Jaxpr) -> dict:
    """Each variable's last reader: an equation index, or past the last
    equation for an output."""
    last = {}
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if type(v) is not Literal:
                last[v] = i
    for v in jaxpr.outvars:
        if type(v) is not Literal:
            last[v] = len(jaxpr.eqns)
    return last


def _grow(eqns: list, start: int, last_use: dict):
    """The region starting at `eqns[start]`, the indices of the equations
    hoisted above it (independent scalar work met on the way) and the index
    after it; or (None, (), index) when no region worth tiling starts there
    or at any equation before that index (a later start in the same run
    would only make a smaller run: looking again from each would take time
    quadratic in the run's length)."""
    size = _leading_size(eqns[start])
    if size is None or size < split_lib.num_workers():
        return None, (), start + 1
    members, hoisted = _scan(eqns, start, size)
    refused = (None, (), max(start + 1, members[-1] + 1 if members else start + 1))
    # Layout changes at the end are views of the whole result, free after the
    # region; inside it they would cost a copy into the result.
    while members and eqns[members[-1]].primitive.name in _LAYOUT:
        members.pop()
    compute = [eqns[i] for i in members if eqns[i].primitive.name not in _LAYOUT]
    work = sum(math.prod(v.aval.shape) for e in compute for v in e.outvars if v.aval.shape)
    if len(compute) < 2 or work < MIN_ELEMENTS:
        return refused
    roles: dict = {}
    defined: dict = {}
    for i in members:
        for v, role in zip(eqns[i].outvars, _roles(eqns[i], size, roles, defined), strict=True):
            if type(v) is not DropVar:
                defined[v] = role
    end = members[-1] + 1
    spreads = {eqns[i].outvars[0] for i in members if _scalar_spread(eqns[i])}
    outs = [v for v in defined if last_use.get(v, -1) >= end and v not in spreads]
    if not outs:
        return refused
    invars = list(roles)
    region = Region(size, [eqns[i] for i in members], invars, [roles[v] for v in invars], outs,
                    [defined[v] for v in outs])
    return region, [i for i in hoisted if i < end], end


def _scalar_spread(eqn: JaxprEqn) -> bool:
    # One value broadcast (the zeros a select masks with): a NumPy view
    # where it stands alone, but a whole array written when a region exports it.
    return eqn.primitive.name == "broadcast_in_dim" and not eqn.invars[0].aval.shape


def _spreads_after(region: Region, eqns: list, start: int, end: int, last_use: dict) -> list:
    """The indices of the region's scalar broadcasts read after it: run
    again after the region, as views, instead of exported by it."""
    members = {id(e) for e in region.eqns}
    return [i for i in range(start, end) if id(eqns[i]) in members and _scalar_spread(eqns[i])
            and last_use.get(eqns[i].outvars[0], -1) >= end]


def _scan(eqns: list, start: int, size: int) -> tuple[list, list]:
    # The indices of the equations that can join a region of leading size
    # `size` from `start` on, and of the scalar ones met among them.
    roles: dict = {}  # region inputs -> tiled/whole
    defined: dict = {}  # values the region computes -> tiled/partial
    members, hoisted = [], []
    for j in range(start, len(eqns)):
        eqn = eqns[j]
        if eqn.effects:
            break
        uses_region = any(type(v) is not Literal and v in defined for v in eqn.invars)
        out_roles = _roles(eqn, size, roles, defined) if not any(
            type(v) is not Literal and defined.get(v) == _PARTIAL for v in eqn.invars) else None
        if out_roles is None:
            if not uses_region and all(not getattr(v.aval, "shape", ()) for v in (*eqn.invars, *eqn.outvars)):
                hoisted.append(j)  # scalar bookkeeping (a loop counter): runs before the region
                continue
            break
        members.append(j)
        for v, role in zip(eqn.outvars, out_roles, strict=True):
            if type(v) is not DropVar:
                defined[v] = role
    return members, hoisted


def _leading_size(eqn: JaxprEqn) -> int | None:
    if not elementwise(eqn.primitive) and _shape_rule(eqn.primitive) is None:
        return None
    outs = [v.aval for v in eqn.outvars]
    if not outs or not all(isinstance(a, ShapedArray) and a.shape and isinstance(a.dtype, np.dtype)
                           for a in outs):
        return None
    return outs[0].shape[0]


def _roles(eqn: JaxprEqn, size: int, roles: dict, defined: dict) -> list | None:
    """The roles of `eqn`'s outputs inside a region of leading size `size`
    (recording the roles it gives region inputs), or None when `eqn` cannot
    run on blocks there."""
    name = eqn.primitive.name
    if not all(isinstance(v.aval, ShapedArray) and isinstance(v.aval.dtype, np.dtype)
               for v in (*eqn.invars, *eqn.outvars)):
        return None
    if elementwise(eqn.primitive):
        out = eqn.outvars[0].aval
        if len(eqn.outvars) != 1 or not out.shape or out.shape[0] != size:
            return None
        wanted = {}
        for v in eqn.invars:
            shape = v.aval.shape
            if shape == out.shape:
                wanted[v] = _TILED
            elif not shape:
                wanted[v] = _WHOLE
            elif eqn.primitive.broadcasting and len(shape) == len(out.shape) and all(
                    d in (1, o) for d, o in zip(shape, out.shape, strict=True)):
                # Size-1 axes broadcast (lax allows them since vmap makes them):
                # an operand of leading size 1 serves every block whole.
                wanted[v] = _TILED if shape[0] == size else _WHOLE
            else:
                return None
        return [_TILED] if _assign(wanted, roles, defined) else None
    rule = _shape_rule(eqn.primitive)
    return None if rule is None else rule(eqn, size, roles, defined)


def _assign(wanted: dict, roles: dict, defined: dict) -> bool:
    # Gives region inputs their roles; False when a value would need two, or
    # a value the region computes (always tiled, or partial) is wanted whole.
    for v, role in wanted.items():
        if type(v) is Literal:
            if role != _WHOLE:
                return False
            continue
        have = defined.get(v) or roles.get(v)
        if have is not None and have != role:
            return False
    for v, role in wanted.items():
        if type(v) is not Literal and v not in defined:
            roles[v] = role
    return True


def _reduction_rule(eqn, size, roles, defined):
    (x,) = eqn.invars
    axes = eqn.params["axes"]
    if not x.aval.shape or x.aval.shape[0] != size or not _assign({x: _TILED}, roles, defined):
        return None
    if 0 not in axes:
        return [_TILED]
    return [_PARTIAL] if eqn.primitive.name in _ORDER_FREE else None


def _broadcast_rule(eqn, size, roles, defined):
    (x,), (out,) = eqn.invars, eqn.outvars
    if not out.aval.shape or out.aval.shape[0] != size:
        return None
    if not x.aval.shape:
        return [_TILED] if _assign({x: _WHOLE}, roles, defined) else None
    dims = eqn.params["broadcast_dimensions"]
    if dims[0] != 0 or x.aval.shape[0] != size:
        return None
    return [_TILED] if _assign({x: _TILED}, roles, defined) else None


def _keeps_leading(eqn, size, roles, defined, keeps: bool):
    (x,), (out,) = eqn.invars, eqn.outvars
    if not keeps or not x.aval.shape or x.aval.shape[0] != size or not out.aval.shape or out.aval.shape[0] != size:
        return None
    return [_TILED] if _assign({x: _TILED}, roles, defined) else None


def _dot_rule(eqn, size, roles, defined):
    lhs, rhs = eqn.invars
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    # Only products batched over the leading axis of both operands: each
    # block is the same per-matrix BLAS calls the whole product makes.
    if not lb or lb[0] != 0 or rb[0] != 0 or lhs.aval.shape[0] != size or rhs.aval.shape[0] != size:
        return None
    return [_TILED] if _assign({lhs: _TILED, rhs: _TILED}, roles, defined) else None


_SHAPE_RULES = {
    "broadcast_in_dim": _broadcast_rule,
    "transpose": lambda e, n, r, d: _keeps_leading(e, n, r, d, e.params["permutation"][0] == 0),
    "reshape": lambda e, n, r, d: _keeps_leading(
        e, n, r, d, e.params.get("dimensions") is None and tuple(e.params["new_sizes"])[:1] == (n,)),
    "squeeze": lambda e, n, r, d: _keeps_leading(e, n, r, d, 0 not in e.params["dimensions"]),
    "dot_general": _dot_rule,
}


def _shape_rule(primitive):
    # Reductions (declared: `primitive.reduction`) share one rule.
    return _reduction_rule if primitive.reduction else _SHAPE_RULES.get(primitive.name)


# Params holding the result's shape, rewritten for a block's size.
_SHAPE_PARAMS = {"broadcast_in_dim": "shape", "reshape": "new_sizes"}


# ---------------------------------------------------------------------------
# Running a region


class TiledRegion:
    """A region's runner: `region(*inputs) -> list of outputs` computes its
    outputs by blocks of the leading axis, in parallel on split.py's pool."""

    def __init__(self, region: Region, impls: dict, compile_block):
        self.region = region
        self.tiled_in = [role == _TILED for role in region.in_roles]
        self.out_specs = [(v.aval.shape, v.aval.dtype, role) for v, role in zip(region.outvars, region.out_roles,
                                                                               strict=True)]
        partial_eqns = {v: e for e in region.eqns for v in e.outvars}
        self.combine = [
            None if role != _PARTIAL else functools.partial(
                impls[partial_eqns[v].primitive], **dict(partial_eqns[v].params, axes=(0,)))
            for v, role in zip(region.outvars, region.out_roles, strict=True)
        ]
        row_bytes = max(math.prod(v.aval.shape[1:]) * v.aval.dtype.itemsize
                        for e in region.eqns for v in (*e.invars, *e.outvars)
                        if type(v) is not Literal and v.aval.shape and v.aval.shape[0] == region.size)
        products = any(e.primitive.name == "dot_general" for e in region.eqns)
        rows = max(1, (PRODUCT_BLOCK_BYTES if products else BLOCK_BYTES) // max(row_bytes, 1))
        # One contiguous range of rows per core, cut into blocks (lo, hi) of
        # `rows`; each core claims the next block when it is done with one.
        ranges = split_lib.ranges(region.size)
        self.blocks = [(b, min(b + rows, hi)) for lo, hi in ranges for b in range(lo, hi, rows)]
        self.num_blocks = len(self.blocks)
        self.workers = min(len(ranges), self.num_blocks)
        sizes = {hi - lo for lo, hi in self.blocks}
        tiled_outputs = [role == _TILED for role in region.out_roles]
        self.programs = {n: compile_block(_block_jaxpr(region, n), tiled_outputs) for n in sizes}

    def __call__(self, *args):
        outs = [np.empty(shape, dtype) if role == _TILED else [None] * self.num_blocks
                for shape, dtype, role in self.out_specs]
        claim = itertools.count().__next__  # (atomic under the GIL: each block runs once)
        split_lib.run_all([functools.partial(self._run_blocks, claim, args, outs)] * self.workers)
        for k, combine in enumerate(self.combine):
            if combine is not None:
                outs[k] = combine(np.stack(outs[k]))
        return outs

    def _run_blocks(self, claim, args, outs):
        tiled_in, specs, blocks = self.tiled_in, self.out_specs, self.blocks
        with split_lib.unsplit():  # each block runs whole on its core
            while (index := claim()) < len(blocks):
                lo, hi = blocks[index]
                program, written = self.programs[hi - lo]
                block_args = [x[lo:hi] if t else x for x, t in zip(args, tiled_in, strict=True)]
                targets = [out[lo:hi] if spec[2] == _TILED else None for out, spec in zip(outs, specs, strict=True)]
                results = program(*block_args, *[t for t in targets if t is not None])
                for k, (result, spec) in enumerate(zip(results, specs, strict=True)):
                    if spec[2] == _PARTIAL:
                        outs[k][index] = result
                    elif k not in written:
                        targets[k][...] = result


def _block_jaxpr(region: Region, rows: int) -> Jaxpr:
    # The region's equations on blocks of `rows` rows: tiled values get a
    # leading axis of `rows`, shape params follow.
    env: dict = {}

    def block_var(v, role):
        aval = v.aval
        if role == _TILED:
            aval = ShapedArray((rows, *aval.shape[1:]), aval.dtype, aval.weak_type)
        env[v] = Var(aval)
        return env[v]

    invars = [block_var(v, role) for v, role in zip(region.invars, region.in_roles, strict=True)]
    eqns = []
    for eqn in region.eqns:
        ins = [v if type(v) is Literal else env[v] for v in eqn.invars]
        outs = []
        for v in eqn.outvars:
            if type(v) is DropVar:
                outs.append(DropVar(v.aval))
                continue
            is_tiled = bool(v.aval.shape) and v.aval.shape[0] == region.size and _tiled_result(eqn)
            outs.append(block_var(v, _TILED if is_tiled else _PARTIAL))
        params = eqn.params
        key = _SHAPE_PARAMS.get(eqn.primitive.name)
        if key is not None:
            params = dict(params, **{key: (rows, *tuple(params[key])[1:])})
        eqns.append(JaxprEqn(eqn.primitive, ins, outs, params, eqn.effects, eqn.source_info))
    return Jaxpr([], invars, [env[v] for v in region.outvars], eqns)


def _tiled_result(eqn: JaxprEqn) -> bool:
    # A result is tiled unless it is a reduction over the leading axis.
    if eqn.primitive.reduction:
        return 0 not in eqn.params["axes"]
    return True


def compile_region(region: Region, impls: dict, compile_block) -> TiledRegion:
    """The runner of `region`, its blocks compiled by `compile_block(jaxpr,
    tiled_outputs)` (which returns `(function, written)`: see compile.py)
    with the block's tiers: no regions, no splits."""
    return TiledRegion(region, impls, compile_block)
