"""The collectives that change a value's layout (`Context.reshard`'s plan).

A layout names, per dimension, the mesh axes splitting it, major first.
Three moves change it, each on the minor end of a dimension's axes:

- ("slice", dim, names): `names` (on no dimension yet) split `dim`
  further, each device keeping its part: local, the block shrinks;
- ("all_gather", dim, names): `dim`'s minor axes `names` dropped, the
  block grows by their size;
- ("all_to_all", concat_dim, split_dim, names): `concat_dim`'s minor axes
  `names` move to the minor end of `split_dim`; each device sends every
  peer over `names` the part of its block that peer will own, and the
  block keeps its size.

`plan` finds the sequence whose largest block is smallest (then the
fewest moves, then the least memory in all), by a shortest-path search
over the layouts in between, so a device never holds more than it must:
moving an axis from one dimension to another is one all_to_all instead of
a gather of the whole dimension, and a swap of two dimensions' axes goes
through a third layout by all_to_alls. The layouts are few (a handful of
axes over a handful of dimensions), and each plan is cached.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math

Layout = tuple  # one tuple of axis names per dimension, major first

# Layouts the search may expand before settling for the direct plan (a few
# axes over a few dimensions take tens to hundreds; each expansion is ~20us).
_SEARCH_LIMIT = 5000


@functools.lru_cache(maxsize=4096)
def plan(src: Layout, dst: Layout, shape: tuple, sizes: tuple) -> tuple:
    """The moves from layout `src` to `dst` of a value of global `shape` on
    a mesh of axis `sizes` ((name, size) pairs)."""
    src, dst = tuple(map(tuple, src)), tuple(map(tuple, dst))
    if src == dst:
        return ()
    size = dict(sizes)
    names = sorted({n for s in src + dst for n in s}, key=str)

    def block(layout) -> int:
        return math.prod(d // math.prod(size[n] for n in s) for d, s in zip(shape, layout))

    def fits(layout) -> bool:
        return all(d % math.prod(size[n] for n in s) == 0 for d, s in zip(shape, layout))

    start = block(src)
    quick = _direct(src, dst)
    bound = max(block(l) for _, l in quick) if all(fits(l) for _, l in quick) else math.inf
    if bound <= max(start, block(dst)):
        return tuple(m for m, _ in quick)  # (no plan can do better than the two blocks themselves)
    best = {src: (start, 0, start)}
    heap = [((start, 0, start), 0, src, ())]
    tie = itertools.count(1)
    budget = _SEARCH_LIMIT
    while heap and budget:
        cost, _, layout, moves = heapq.heappop(heap)
        if layout == dst:
            return moves
        if best.get(layout, cost) < cost:
            continue
        budget -= 1
        for move, nxt in _moves(layout, names):
            if not fits(nxt):
                continue
            b = block(nxt)
            if b > bound:  # (the direct plan does no worse)
                continue
            c = (max(cost[0], b), cost[1] + 1, cost[2] + b)
            if nxt not in best or c < best[nxt]:
                best[nxt] = c
                heapq.heappush(heap, (c, next(tie), nxt, moves + (move,)))
    if bound == math.inf:  # (unreachable: gathering every axis, then slicing, always fits)
        raise ValueError(f"no resharding from {src} to {dst}")
    return tuple(m for m, _ in quick)  # (a search too wide for tracing: the direct plan)


def _direct(src: Layout, dst: Layout):
    """The moves (each with the layout it gives) that take each axis
    straight where it goes, slices first: an axis leaving one dimension's
    minor end for the next place of another moves by all_to_all (the
    longest such run at once), one with nowhere to go yet is gathered
    (which may cost more than a plan through other layouts: two
    dimensions swapping axes)."""
    cur: list = list(src)
    out: list = []
    while tuple(cur) != dst:
        # a dimension whose axes are a proper prefix of its target's takes more; any other drops some
        done = [len(cur[d]) <= len(dst[d]) and cur[d] == dst[d][:len(cur[d])] for d in range(len(cur))]
        used = {n for s in cur for n in s}
        open_ = [b for b in range(len(cur)) if done[b] and cur[b] != dst[b]]
        free = [b for b in open_ if dst[b][len(cur[b])] not in used]
        if free:
            b = free[0]
            new = tuple(itertools.takewhile(lambda n: n not in used, dst[b][len(cur[b]):]))
            cur[b] += new
            out.append((("slice", b, new), tuple(cur)))
            continue
        moved = [(len(cur[a]) - j, a, b) for a in range(len(cur)) if not done[a] for j in range(len(cur[a]))
                 for b in open_ if b != a and dst[b][len(cur[b]):len(cur[b]) + len(cur[a]) - j] == cur[a][j:]]
        if moved:
            k, a, b = max(moved, key=lambda m: m[0])
            names = cur[a][len(cur[a]) - k:]
            cur[a], cur[b] = cur[a][:len(cur[a]) - k], cur[b] + names
            out.append((("all_to_all", a, b, names), tuple(cur)))
            continue
        a = done.index(False)
        cur[a], gone = cur[a][:-1], cur[a][-1:]
        if out and out[-1][0][:2] == ("all_gather", a):  # (one gather of both)
            gone += out.pop()[0][2]
        out.append((("all_gather", a, gone), tuple(cur)))
    return out


def _moves(layout: Layout, names: list):
    """Each move from `layout` and the layout it gives."""
    used = {n for s in layout for n in s}
    free = [n for n in names if n not in used]
    for a, s in enumerate(layout):
        for j in range(len(s)):
            minor = s[j:]
            gathered = layout[:a] + (s[:j],) + layout[a + 1:]
            yield ("all_gather", a, minor), gathered
            for b, t in enumerate(layout):
                if b != a:
                    yield ("all_to_all", a, b, minor), gathered[:b] + (t + minor,) + gathered[b + 1:]
    for k in range(1, len(free) + 1):
        for new in itertools.permutations(free, k):
            for b, t in enumerate(layout):
                yield ("slice", b, new), layout[:b] + (t + new,) + layout[b + 1:]
