"""A sort for IREE as a bitonic sorting network in one `while` loop.

IREE 3.13 compiles `stablehlo.sort` for the CPU into a sort whose time grows
with the square of the row's length (docs/iree.md, "Benchmark workloads"). The network sorts a row of n (padded to P, a power of two) in
log2(P) (log2(P) + 1) / 2 passes over the whole array, each pass one loop
turn: every element is compared with its partner, the element whose
position differs in bit j, and the pair is put in order, ascending where
bit k of the position is 0 and descending where it is 1 ((k, j) the pass's
stage, read from a table). Positions are carried as the last operand and
break ties, so equal keys keep their order (the sort is stable whatever
`is_stable` says) and the padding, the positions from n on, goes last.
The loop body is one program however long the row, so the compile time
does not grow with it."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import print_with_attr
from pyjax._src.backends.stablehlo.ir import TensorType, int_list

# Rows at least this long are sorted by the network on IREE; shorter ones by IREE's sort.
NETWORK_MIN = 512


def bitonic_sort(b, operands, num_keys: int, dimension: int):
    from pyjax._src.backends.stablehlo.rules.control_flow import emit_while

    n = operands[0].shape[dimension]
    size = 1 << max(n - 1, 1).bit_length()
    ops = [_pad(b, x, dimension, size) for x in operands]
    ops.append(b.iota(ops[0].shape, np.int32, dimension))
    stages = [(k, j) for e in range(1, size.bit_length()) for k in [1 << e] for j in _halves(k)]
    table = np.array(stages, np.int32)

    def cond_fn(cb, vals):
        return cb.compare("LT", vals[0], cb.constant(np.array(len(stages), np.int32)))

    def body_fn(bb, vals):
        step, current = vals[0], list(vals[1:])
        k, j = (_entry(bb, bb.constant(np.ascontiguousarray(table[:, c])), step) for c in range(2))
        shape = current[0].shape
        position = bb.iota(shape, np.int32, dimension)
        lower = _bit_clear(bb, position, j)
        ascending = _bit_clear(bb, position, k)
        partners = [_partner(bb, x, dimension, j, lower) for x in current]
        partner_first = _less(bb, partners, current, num_keys, n)
        self_first = _less(bb, current, partners, num_keys, n)
        want_min = bb.compare("EQ", lower, ascending)
        take = bb.select(want_min, partner_first, self_first)
        nxt = bb.elementwise("stablehlo.add", [step, bb.constant(np.array(1, np.int32))])
        return [nxt] + [bb.select(take, p, x) for p, x in zip(partners, current)]

    outs = emit_while(_Ctx(b), [b.constant(np.array(0, np.int32))] + ops, cond_fn, body_fn)[1:-1]
    if size == n:
        return list(outs)
    limit = list(outs[0].shape)
    limit[dimension] = n
    return [b.slice(x, [0] * len(limit), limit) for x in outs]


class _Ctx:
    # (emit_while takes a lowering context; it uses only its builder)
    def __init__(self, b):
        self.b = b


def _halves(k: int):
    j = k // 2
    while j:
        yield j
        j //= 2


def _pad(b, x, dimension: int, size: int):
    n = x.shape[dimension]
    if n == size:
        return x
    shape = list(x.shape)
    shape[dimension] = size - n
    fill = b.broadcast_in_dim(b.constant(np.zeros((), x.dtype)), shape, [])
    whole = list(x.shape)
    whole[dimension] = size
    return b.emit1("stablehlo.concatenate", [x, fill], [TensorType(whole, x.dtype)], print_with_attr,
                   text=f"dim = {dimension}")


def _entry(b, table, step):
    piece = b.emit1("stablehlo.dynamic_slice", [table, step], [TensorType((1,), table.dtype)], print_with_attr,
                    text="sizes = [1]")
    return b.reshape(piece, ())


def _bit_clear(b, position, bit):
    masked = b.elementwise("stablehlo.and", [position, b.broadcast_to(bit, position.shape)])
    return b.compare("EQ", masked, b.broadcast_to(b.constant(np.array(0, np.int32)), position.shape))


def _partner(b, x, dimension: int, j, lower):
    """x at each position's partner (the position xor j): from x twice over,
    j on where the position is the pair's lower one, j back where it is not."""
    size = x.shape[dimension]
    twice = list(x.shape)
    twice[dimension] = 2 * size
    both = b.emit1("stablehlo.concatenate", [x, x], [TensorType(twice, x.dtype)], print_with_attr,
                   text=f"dim = {dimension}")
    zero = b.constant(np.array(0, np.int32))
    back = b.elementwise("stablehlo.subtract", [b.constant(np.array(size, np.int32)), j])
    moved = []
    for start in (j, back):
        starts = [start if d == dimension else zero for d in range(len(x.shape))]
        moved.append(b.emit1("stablehlo.dynamic_slice", [both, *starts], [x.type], print_with_attr,
                             text=f"sizes = {int_list(x.shape)}"))
    return b.select(lower, moved[0], moved[1])


def _less(b, xs, ys, num_keys: int, n: int):
    """xs before ys: a position before n (not padding) against padding, else
    the keys' order, equal keys by position."""
    from pyjax._src.backends.stablehlo.rules.sorting import keys_less

    px, py = xs[-1], ys[-1]
    limit = b.broadcast_to(b.constant(np.array(n, np.int32)), px.shape)
    real = b.compare("LT", px, limit)
    padding = b.compare("GE", py, limit)
    after = keys_less(b, list(zip(ys[:num_keys], xs[:num_keys])))
    tie = b.elementwise("stablehlo.and", [b.elementwise("stablehlo.not", [after]), b.compare("LT", px, py)])
    first = b.elementwise("stablehlo.or", [keys_less(b, list(zip(xs[:num_keys], ys[:num_keys]))), tie])
    return b.elementwise("stablehlo.and", [real, b.elementwise("stablehlo.or", [padding, first])])
