"""Row regions: a run of row-wise equations over a large array, run row by row in native code.

A softmax, a log-softmax or a layer norm over the last axis of a large
array is a run of equations that each act on every row alone: elementwise
operations, reductions over the last axis, and broadcasts of one value per
row back along it. The NumPy backend runs each equation over the whole
array, one pass through memory per equation (attention's softmax over 4
heads of 512 x 512: six passes over 4 MB). XLA fuses such a run into one
loop over rows; so does this module, in native code (native.py): the run
becomes a C loop over rows that calls, on each row, the very kernels the
Python code calls on the whole array (NumPy's ufunc loops; a reduction's
loop once per row, as `ufunc.reduce` calls it), so the row stays in L1
between equations. Measured on the 2-core machine: attention's softmax on
2048 rows of 512 (one core's 4 heads), 1.29 -> 1.0 ms on one core, and the
whole `attention` benchmark 4.9 -> 4.3-4.5 ms.

Once live, the loop writes its first output into a dead input buffer the
function allocated itself (attention's scores, as the Python code's
in-place ufuncs do): a fresh 4 MB output a call cost more in page faults
than the fusion saved.

The Python code of the run stays as it was (whole-array NumPy calls) and
is what runs until the native loop is built and has matched it bitwise on
one call (native.py's tiering); without a C compiler nothing changes.

A region is found only where it pays: at least `MIN_ELEMENTS` elements,
rows of at least `MIN_ROW`, and, outside a tiled region's block (tile.py),
below split.py's threshold for sharing one call among the cores (larger
runs are tiled regions' work). Outside a tiled block the loop's rows are
shared among the cores by threads.py's runtime, each chunk of rows
computed as the whole loop computes it; inside one (a core's block) it
runs on its thread.

Batch norm over NHWC activations is the same kind of run the other way
round: rows of 8 to 64 features, per-feature columns (a mean, a scale)
spread over them, and sums over every row (the statistics and their
gradients). A region over short rows runs in chunks of whole rows, each
column spread over a chunk once a call, and keeps such sums itself: each
chunk's rows are added in order into them from +0, as the impl adds them,
so the loop runs on one thread. What reads a sum (the mean, the variance,
their cotangents) waits for the whole loop: it is written after the region,
and the row equations after it in the program stay in the region.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from pyjax._src.backends.numpy import native as native_lib
from pyjax._src.backends.numpy.parallel import split as split_lib
from pyjax._src.backends.numpy.parallel import tile as tile_lib
from pyjax._src.backends.numpy.codegen.control_flow import emit_native_region
from pyjax._src.interpreters.recompute import recompute_past_barriers
from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, Literal, Var

MIN_ELEMENTS = 1 << 16
MIN_ROW = 16
# A run without row values (elementwise, over rows shorter than a chunk) is
# cut into chunks from this many elements on.
MIN_FLAT_ELEMENTS = 1 << 12
_MIN_EQNS = 3
_MIN_COLUMN_EQNS = 2
_MIN_PASSES = 6  # (a run without a reduction)
# Independent work amid a run goes before it when its values are at most
# this share of the run's (a causal mask amid attention's scores).
_HOISTED_SHARE = 4

# The four kinds of value in a region over arrays of shape (*R, L), and the
# shape each has for one row.
_ROW, _ROW_VALUE, _KEPT_ROW_VALUE, _SCALAR = "row", "row value", "kept row value", "scalar"
# A fifth, read but never computed by a region: a column, one value per
# position along the row, the same for every row ((L,) or (1, ..., 1, L):
# a layer norm's scale, a bias), passed to the row loop whole, like a scalar.
_COLUMN = "column"
_CONSTANT_KINDS = frozenset({_SCALAR, _COLUMN})
# A sixth, computed but never read by a region: a column sum, the sum over
# every row of a row value (batch norm's statistics over N, H and W of an
# NHWC activation, and their gradients). The loop adds each row into it in
# the rows' order onto +0 (the impl's order: impls/standard.py
# `_sum_leading_rows`); what reads it (a mean, a variance) waits for the
# whole loop, so it is written after the region (`_sinkable`).
_COLUMN_SUM = "column sum"
_LAYOUT_PRIMITIVES = frozenset({"broadcast_in_dim", "reshape"})
_REDUCTIONS = frozenset({"reduce_sum", "reduce_max", "reduce_min", "reduce_prod"})


class RowRegion:
    """Equations `eqns[start:stop]` of a jaxpr, run as a loop over `rows`
    rows: `jaxpr` is the run itself (inputs `invars`, the values later
    equations read as outputs), `native` its native tier."""

    def __init__(self, start: int, stop: int, jaxpr: Jaxpr, rows: int, native: native_lib.NativeLoop,
                 after: tuple = (), before: tuple = (), sunk: tuple = (), sums: frozenset = frozenset()):
        self.start, self.stop, self.jaxpr, self.rows, self.native = start, stop, jaxpr, rows, native
        # Equations amid the run that are not its own (`_hoistable`): written before it.
        self.before = before
        # Broadcasts of scalars in the run that later equations read: written
        # after the region as views, not stored by it (`_spread`).
        self.after = after
        # Equations amid the run that read its column sums: written after it.
        self.sunk = sunk
        self.sums = sums  # (its outputs that are column sums)
        self.steps = rows

    @property
    def invars(self) -> list:
        """The values the region reads (as every tier's regions name them)."""
        return self.jaxpr.invars


class RowsTier:
    """The region tier (tiers.py) of row regions: after tiling, a row region
    is taken where none of its equations is in a tiled region."""

    name = "rows"

    def prepare(self, builder, jaxpr: Jaxpr) -> Jaxpr:
        """`jaxpr` with cheap values recomputed where later regions read them
        (interpreters/recompute.py)."""
        if builder.tiers.in_block or not native_lib.available():
            return jaxpr
        return recompute_past_barriers(jaxpr, _row_wise, _region_sized)

    def plan(self, builder, jaxpr: Jaxpr, items: list) -> list | None:
        row_regions = plan(jaxpr, builder.impls, builder.tiers.in_block)
        if not row_regions:
            return None
        untiled = {i for i in items if type(i) is int}
        planned, skip_to = [], 0
        for item in items:
            if type(item) is not int:
                planned.append(item)
                continue
            if item < skip_to:
                continue
            region = row_regions.get(item)
            if region is not None and untiled.issuperset(range(item, region.stop)):
                planned.extend(region.before)
                planned.append((self, region))
                planned.extend(region.after)
                planned.extend(region.sunk)
                skip_to = region.stop
                continue
            planned.append(item)
        return _drop_unread_spreads(jaxpr, planned, self)

    def emit(self, builder, region: RowRegion, env: dict) -> None:
        emit(builder, region, env)


def _drop_unread_spreads(jaxpr: Jaxpr, planned: list, tier: RowsTier) -> list:
    # A scalar broadcast a region leaves to be written after it may be read
    # only by later regions, which make their own: unread, it is not written.
    if any(type(item) is not int and item[0] is not tier for item in planned):
        return planned  # (another tier's regions: their reads are their own)
    after = {i for item in planned if type(item) is not int for i in item[1].after}
    read = {v for item in planned if item not in after
            for v in (jaxpr.eqns[item].invars if type(item) is int else item[1].invars)}
    read.update(jaxpr.outvars)
    return [item for item in planned if item not in after or jaxpr.eqns[item].outvars[0] in read]


def plan(jaxpr: Jaxpr, impls: dict, in_block: bool = False) -> dict[int, RowRegion]:
    """The row regions of `jaxpr`'s equations, by first equation (`in_block`:
    of a tiled region's block, which has one core)."""
    if not native_lib.available():
        return {}
    last_read = functools.cache(lambda: tile_lib.last_uses(jaxpr))  # only once a run is found
    spreads = functools.cache(lambda: _spreads(jaxpr))
    regions, i = {}, 0
    while i < len(jaxpr.eqns):
        region, stop = _grow(jaxpr, i, last_read, spreads, impls, in_block)
        if region is not None:
            regions[i] = region
        i = max(stop, i + 1)
    return regions


def _row_wise(eqn: JaxprEqn) -> bool:
    # Whether a row region may take `eqn` (recompute.py's barriers are the others).
    return _anchor_shape(eqn) is not None or eqn.primitive.name in _LAYOUT_PRIMITIVES


def _region_sized(v: Var) -> bool:
    # Whether a value is of the size a row region outside a tiled block takes.
    shape = v.aval.shape
    return len(shape) >= 2 and MIN_ELEMENTS <= math.prod(shape) < split_lib.MIN_ELEMENTS


def _anchor_shape(eqn: JaxprEqn) -> tuple | None:
    name = eqn.primitive.name
    if name in _REDUCTIONS:
        return tuple(eqn.invars[0].aval.shape)
    if tile_lib.elementwise(eqn.primitive):
        return tuple(eqn.outvars[0].aval.shape)
    return None


def _grow(jaxpr: Jaxpr, start: int, last_read: Callable[[], dict], spreads: Callable[[], dict], impls: dict,
          in_block: bool, columns: bool = True) -> tuple:
    """(the region starting at equation `start`, or None; where to look
    next). A run that does not qualify is skipped whole: any run starting
    inside it ends where it ends, with fewer equations and reductions."""
    shape = _anchor_shape(jaxpr.eqns[start])
    if shape is None or not shape or (len(shape) < 2 and not in_block):
        return None, start + 1
    if len(shape) == 1:
        # A tiled block's 1-D elementwise run (a Newton step over a vector):
        # its values cut into chunks that act as rows, so the run goes
        # through the cache once instead of once an equation.
        length = _chunk(shape[0])
        if length is None:
            return None, start + 1
        outer = [shape[0] // length]
    else:
        *outer, length = shape
    rows = math.prod(outer)
    elements = rows * length
    # Short rows are cut into chunks when the run turns out to have no row
    # values (below): the checks for them come after growing.
    short = len(shape) > 1 and length < _CHUNK_RANGE[0]
    if (rows < 2 or elements < (MIN_FLAT_ELEMENTS if short else MIN_ELEMENTS)
            or (not short and length < MIN_ROW) or (not in_block and elements >= split_lib.MIN_ELEMENTS)):
        return None, start + 1
    kinds = ({tuple(shape): _ROW, (): _SCALAR} if len(shape) == 1 else
             {tuple(shape): _ROW, tuple(outer): _ROW_VALUE, (*outer, 1): _KEPT_ROW_VALUE, (): _SCALAR})
    if len(shape) > 1 and columns:
        kinds.update({(length,): _COLUMN, (1,) * (len(shape) - 1) + (length,): _COLUMN})
    defined, stop, hoisted, sunk = _run(jaxpr, start, kinds, length, impls, in_block, elements)
    own = [e for i, e in enumerate(jaxpr.eqns[start:stop], start) if i not in hoisted and i not in sunk]
    # Over short rows, an op with a column is one NumPy kernel call a row
    # (a batch norm's `x - mean`): two such equations are worth a loop.
    spreads_columns = short and not in_block and any(kinds.get(tuple(v.aval.shape)) == _COLUMN
                                    for e in own for v in e.invars if type(v) is not Literal)
    if len(own) < (_MIN_COLUMN_EQNS if spreads_columns else _MIN_EQNS) or not (
            in_block or spreads_columns or _worth_fusing(own)):
        return None, stop
    steps, per_chunk = rows, 1
    eqns, after = _spread(own, start, stop, defined, kinds, spreads(), last_read(), jaxpr)
    inputs = list(dict.fromkeys(v for e in eqns for v in e.invars if type(v) is not Literal and v not in defined))
    if short:
        # A run of short rows (a CNN's NHWC activations, rows of 8-64
        # features) costs a kernel call per row and equation; elementwise
        # alone, its rows need not be rows: chunks of whole rows go through
        # each kernel in one call (the same elements, in the same order).
        used = {*defined.values(), *(kinds[tuple(v.aval.shape)] for v in inputs)}
        if used <= {_ROW, _SCALAR}:
            chunk = _chunk(elements)
        elif not in_block and used <= {_ROW, _SCALAR, _COLUMN, _COLUMN_SUM}:
            # Columns and column sums too: chunks of whole rows, each column
            # spread over a chunk's rows once a call (emit.py `tiles`). (A
            # tiled block's values are in the caches already: its elementwise
            # run stops before the columns, below, and goes in long chunks.)
            chunk = _row_chunk(rows, length)
            if chunk is not None:
                per_chunk = chunk // length
        else:
            chunk = None
        if chunk is None and _COLUMN in used and not used & {_ROW_VALUE, _KEPT_ROW_VALUE}:
            # Elementwise but for its columns: without them the run stops
            # before the first and goes in chunks (a CNN's relu derivative
            # after its batch norm), a kernel call a chunk instead of a row.
            return _grow(jaxpr, start, last_read, spreads, impls, in_block, columns=False)
        if chunk is None:
            if length < MIN_ROW or elements < MIN_ELEMENTS:
                return None, stop
        else:
            steps, length, rows = rows, chunk, elements // chunk
    # Scalars and columns first: they are the row loop's constants, the others its xs.
    inputs.sort(key=lambda v: kinds[tuple(v.aval.shape)] not in _CONSTANT_KINDS)
    spread = {jaxpr.eqns[i].outvars[0] for i in after}
    read_by_sunk = {v for i in sunk for v in jaxpr.eqns[i].invars if type(v) is not Literal}
    outputs = [v for e in own for v in e.outvars
               if type(v) is not DropVar and v not in spread and (last_read().get(v, -1) >= stop or v in read_by_sunk)]
    # Rows first, column sums last (the loop's ys, then its sums).
    outputs.sort(key=lambda v: defined[v] == _COLUMN_SUM)
    sums = sum(defined[v] == _COLUMN_SUM for v in outputs)
    if not outputs:
        return None, stop
    region = Jaxpr([], inputs, outputs, eqns)
    body = _row_jaxpr(region, kinds, length, defined)
    consts = sum(kinds[tuple(v.aval.shape)] in _CONSTANT_KINDS for v in inputs)
    tiles = {j: per_chunk for j, v in enumerate(inputs[:consts])
             if kinds[tuple(v.aval.shape)] == _COLUMN and per_chunk > 1}
    # Outside a tiled block (which has one core), the loop's rows are shared
    # among the cores (threads.py).
    native = native_lib.native_rows(body, consts, rows, region, impls, parallel=not in_block, tiles=tiles,
                                    sums=sums, sum_rows=per_chunk)
    if native is None:
        return None, stop
    region = RowRegion(start, stop, region, rows, native, after, hoisted, sunk,
                       frozenset(v for v in outputs if defined[v] == _COLUMN_SUM))
    region.steps = steps  # (what tiers up is the work: the array's own rows, chunked or not)
    return region, stop


def _run(jaxpr: Jaxpr, start: int, kinds: dict, length: int, impls: dict, in_block: bool, elements: int) -> tuple:
    """(the kind of each value the run from equation `start` defines, where
    it stops, the indices of the equations amid it written before it and of
    those written after it). A tiled block's rows are some of the array's:
    no column sums there. `elements`: the size of the run's arrays."""
    small = max(length, elements // _HOISTED_SHARE)
    defined: dict[Var, str] = {}
    stop, hoisted, sunk, late = start, [], [], set()  # (late: column sums and what sunk equations make)
    for i in range(start, len(jaxpr.eqns)):
        eqn = jaxpr.eqns[i]
        reads_late = any(type(v) is not Literal and v in late for v in eqn.invars)
        out_kind = None if reads_late else _out_kind(eqn, kinds, length)
        if out_kind == _COLUMN_SUM and in_block:
            out_kind = None
        if out_kind is not None and native_lib.plausible_eqn(eqn, impls):
            for v in eqn.outvars:
                defined[v] = out_kind
                if out_kind == _COLUMN_SUM:
                    late.add(v)
            stop = i + 1
        elif not reads_late and _hoistable(eqn, defined, small):
            hoisted.append(i)
        elif reads_late and _sinkable(eqn, defined, length):
            sunk.append(i)
            late.update(eqn.outvars)
        else:
            break
    return defined, stop, tuple(i for i in hoisted if i < stop), tuple(i for i in sunk if i < stop)


def _spreads(jaxpr: Jaxpr) -> dict:
    """Index of each equation that broadcasts a scalar (a literal or a 0-d
    value) to an array, or a vector along an array's last axis (a column
    spread over the rows: batch norm's mean), by its result."""
    return {eqn.outvars[0]: i for i, eqn in enumerate(jaxpr.eqns)
            if eqn.primitive.name == "broadcast_in_dim" and type(eqn.outvars[0]) is not DropVar
            and (not eqn.invars[0].aval.shape or _column_spread(eqn))}


def _column_spread(eqn: JaxprEqn) -> bool:
    # A 1-D value (or (1, ..., 1, L)) along the result's last axis.
    shape, out = eqn.invars[0].aval.shape, eqn.outvars[0].aval.shape
    dims = eqn.params["broadcast_dimensions"]
    return (len(out) >= 2 and shape[-1:] == out[-1:] and math.prod(shape) == out[-1]
            and dims[-1] == len(out) - 1)


def _spread(own: list, start: int, stop: int, defined: dict, kinds: dict, spreads: dict,
            last_read: dict, jaxpr: Jaxpr) -> tuple:
    """(the region's equations, the indices of its broadcasts read after it;
    `own`: its equations in `jaxpr.eqns[start:stop]`). A broadcast scalar (a
    max's derivative's ones and zeros) or column (batch norm's mean) is a
    view to NumPy but a full array to native code, which copies its inputs
    contiguous and stores its outputs: the region computes the broadcasts
    it reads itself (one made before it is made again inside, from its
    scalar or column), and those read after it are written after it, as
    views."""
    eqns = list(own)
    inputs = dict.fromkeys(v for e in eqns for v in e.invars if type(v) is not Literal and v not in defined)
    again = [jaxpr.eqns[spreads[v]] for v in inputs
             if spreads.get(v, stop) < start and kinds.get(tuple(v.aval.shape)) == _ROW
             and kinds.get(tuple(jaxpr.eqns[spreads[v]].invars[0].aval.shape)) in _CONSTANT_KINDS]
    for eqn in again:
        defined[eqn.outvars[0]] = _ROW
    after = tuple(spreads[v] for v in defined if start <= spreads.get(v, -1) < stop and last_read.get(v, -1) >= stop)
    return again + eqns, after


def _hoistable(eqn: JaxprEqn, defined: dict, small: int) -> bool:
    """Whether an equation amid a run, not row-wise itself, may run before
    the region instead: it reads nothing the region computes and makes
    values of at most `small` elements (a scalar's arithmetic, a layer
    norm's scale broadcast to a column, a causal mask over one head's
    scores), so it neither ends the run nor is some other region's work;
    or it only spreads such a value (the mask's broadcast over batch and
    heads: a NumPy view)."""
    if eqn.effects or any(type(v) is not Literal and v in defined for v in eqn.invars):
        return False
    if eqn.primitive.name == "broadcast_in_dim":
        return True
    return all(math.prod(v.aval.shape) <= small for v in eqn.outvars)


def _sinkable(eqn: JaxprEqn, defined: dict, length: int) -> bool:
    """Whether an equation amid a run that reads its column sums (or what
    such equations make) may run after the region instead: it reads no other
    value of the region and makes small values (a mean, a variance, their
    reshapes), so the run goes on past it."""
    return (not eqn.effects
            and all(defined[v] == _COLUMN_SUM for v in eqn.invars if type(v) is not Literal and v in defined)
            and all(math.prod(v.aval.shape) <= length for v in eqn.outvars))


def _worth_fusing(eqns: list) -> bool:
    # Outside a tiled block, a run with a reduction, or of many passes over
    # its values (a max's derivative: compares, selects and a divide); a
    # short run without one is left to NumPy, its passes staying in the
    # caches. A tiled block's values are larger than the caches.
    passes = sum(e.primitive.name not in _LAYOUT_PRIMITIVES for e in eqns)
    return passes >= _MIN_PASSES or any(e.primitive.name in _REDUCTIONS for e in eqns)


# The length of the chunks a 1-D run is cut into: a divisor of its size in
# this range (the largest), so that a chunk's values stay in L1.
_CHUNK_RANGE = (256, 2048)


# A run over short rows with columns keeps more values a chunk (the spread
# columns, the column sums' operands): its chunks are at most this long, so
# that they stay in L1 (docs/performance.md, session 16).
_COLUMN_CHUNK_MAX = 512


def _row_chunk(rows: int, length: int) -> int | None:
    """The chunk length of a run of `rows` short rows of `length` with
    columns: the most whole rows from `_CHUNK_RANGE`'s least up to
    `_COLUMN_CHUNK_MAX` elements (a divisor of `rows`), or None."""
    low, high = _CHUNK_RANGE[0], _COLUMN_CHUNK_MAX
    return next((m * length for m in range(min(high // length, rows // 2), 0, -1)
                 if rows % m == 0 and m * length >= low), None)


def _chunk(size: int) -> int | None:
    """The chunk length of a 1-D run of `size` elements, or None when no
    length in `_CHUNK_RANGE` divides it."""
    low, high = _CHUNK_RANGE
    return next((n for n in range(min(high, size // 2), low - 1, -1) if size % n == 0), None)


def _out_kind(eqn: JaxprEqn, kinds: dict, length: int) -> str | None:
    """The kind of `eqn`'s result when it acts row by row, else None."""
    if eqn.effects or eqn.primitive.multiple_results or len(eqn.outvars) != 1:
        return None
    ins = [kinds.get(tuple(v.aval.shape)) for v in eqn.invars]
    out = kinds.get(tuple(eqn.outvars[0].aval.shape))
    name = eqn.primitive.name
    if (name == "reduce_sum" and out == _COLUMN and ins == [_ROW] and eqn.outvars[0].aval.dtype in _SUM_DTYPES
            and length >= 2  # (a single column the impl sums its own way)
            and tuple(eqn.params["axes"]) == tuple(range(len(eqn.invars[0].aval.shape) - 1))):
        return _COLUMN_SUM  # (over every row: one value a column, the loop's running sum)
    if out in (None, _SCALAR, _COLUMN) or None in ins:
        return None  # (a scalar or column result would be computed once a row, and has no rows to store)
    if name in _REDUCTIONS:
        # Over the row, or over the length-1 axis of a kept row value (reverse
        # mode's transpose of the broadcast that kept it: one value a row).
        ndim = len(eqn.invars[0].aval.shape)
        return _ROW_VALUE if ins in ([_ROW], [_KEPT_ROW_VALUE]) and tuple(eqn.params["axes"]) == (ndim - 1,) else None
    if name == "broadcast_in_dim":
        # A row value (or a scalar) spread along its row: dims keep the leading
        # axes; a column spread over the rows: its last axis stays the last.
        (kind,) = ins
        if kind == _COLUMN:
            dims = eqn.params["broadcast_dimensions"]
            return out if out == _ROW and dims[-1] == len(eqn.outvars[0].aval.shape) - 1 else None
        keep = len(eqn.invars[0].aval.shape) if kind != _SCALAR else 0
        if tuple(eqn.params["broadcast_dimensions"]) != tuple(range(keep)) or out not in (_ROW, _KEPT_ROW_VALUE):
            return None
        return out
    if name == "reshape":
        return out if ins == [_ROW_VALUE] and out == _KEPT_ROW_VALUE and eqn.params.get("dimensions") is None else None
    if tile_lib.elementwise(eqn.primitive):
        # Operands of the result's kind, or broadcast along the row (a kept
        # row value next to rows), or across the rows (a column), or scalars.
        allowed = {out, _SCALAR} | ({_KEPT_ROW_VALUE, _COLUMN} if out == _ROW else set())
        return out if set(ins) <= allowed else None
    return None


# Column sums the loop keeps (emit.py `_column_sum_lines`): the impl's
# einsum order for these dtypes.
_SUM_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64)})

_ROW_SHAPES = {_SCALAR: lambda length: (), _ROW_VALUE: lambda length: (), _KEPT_ROW_VALUE: lambda length: (1,),
               _ROW: lambda length: (length,), _COLUMN: lambda length: (length,)}


def _row_jaxpr(region: Jaxpr, kinds: dict, length: int, defined: dict) -> Jaxpr:
    """`region` as it acts on one row (or chunk of rows): a column sum is
    not computed by it, its operand is an output (the loop adds it up)."""
    new: dict[Var, Var] = {}

    def row_var(v: Var) -> Var:
        if v not in new:
            kind = kinds[tuple(v.aval.shape)]
            new[v] = Var(v.aval.update(shape=_ROW_SHAPES[kind](length)))
        return new[v]

    def operand(v):
        return v if type(v) is Literal else row_var(v)

    eqns, summed = [], {}
    for eqn in region.eqns:
        if defined.get(eqn.outvars[0]) == _COLUMN_SUM:
            summed[eqn.outvars[0]] = operand(eqn.invars[0])
            continue
        params = dict(eqn.params)
        name = eqn.primitive.name
        out = row_var(eqn.outvars[0])
        if name in _REDUCTIONS:
            params["axes"] = (0,)
        elif name == "broadcast_in_dim":
            row_in = operand(eqn.invars[0])
            params.update(shape=out.aval.shape, broadcast_dimensions=tuple(range(len(row_in.aval.shape))))
        elif name == "reshape":
            params["new_sizes"] = out.aval.shape
        eqns.append(JaxprEqn(eqn.primitive, [operand(v) for v in eqn.invars], [out], params, eqn.effects,
                             eqn.source_info))
    outs = [summed[v] if v in summed else row_var(v) for v in region.outvars]
    return Jaxpr([], [row_var(v) for v in region.invars], outs, eqns)


def emit(builder, region: RowRegion, env: dict) -> None:
    """Emits `region` into `builder` (compile.py): its native tier first,
    else its equations' Python code, which then reports to the tier."""
    # Once live, the loop writes its first output into a dead input
    # (attention's scores: no fresh 4 MB, and its page faults, a call); not
    # with column sums: the loop adds a row into them after writing the
    # row's outputs, and a sum of an input's rows (a bias's gradient) would
    # add the output written over them.
    emit_native_region(builder, region.jaxpr, region.native, env, name="native_rows", tag="r",
                       what=f"{region.stop - region.start} row-wise equations over {region.rows} rows",
                       steps=region.steps, tiers=builder.tiers.without("rows"),  # (no regions in it)
                       writes_input=not region.sums)
