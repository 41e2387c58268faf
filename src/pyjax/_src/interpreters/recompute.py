"""Cheap elementwise values recomputed past a barrier instead of kept.

A reverse-mode program computes a forward elementwise run (a GELU, a
softmax) and, after the matmuls between them, a backward run that reads
the forward run's intermediate values: `1 - tanh(u)`, `0.5 * (1 + t)`,
`c * x * x`. A backend that fuses each run into one loop (the NumPy
backend's row loops, native/rows.py) stores what later equations read and
loads it back, so every such residual costs a write and a read of the
whole array. XLA's fusion duplicates cheap producers into their consumers'
fusions instead: the backward fusion recomputes `1 - t` from `t`, which it
reads anyway.

`recompute_past_barriers` does the same to a jaxpr: an equation whose
primitive declares itself cheap (`Primitive.cost`, as XLA's IsExpensive),
elementwise, with one output the caller's `sized` accepts, read across a
barrier (an equation the caller's `fusible` rejects: a matmul, a
convolution) only by fusible equations, is written again just before its
first reader past each barrier, from operands live there anyway (read at or
after that point by the original program) or recomputed so themselves.
The forward run then stores fewer values and the backward one loads fewer.
The recomputed equation is the same equation on the same operands, so its
results are the same bits.

Only worth it where runs are fused: in whole-array calls a recomputed
value is one more pass, not one fewer (the rows tier calls it when native
row loops run: its `prepare`, tiers.py).
"""

from __future__ import annotations

import bisect
import math

from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, Literal, Var

# Equations that recompute for nothing (layout only: views, a fused loop's spreads).
_VIEWS = frozenset({"broadcast_in_dim", "reshape"})
# How many equations deep a recomputed value's operands may be recomputed too.
_MAX_DEPTH = 3


def _cheap(eqn: JaxprEqn) -> bool:
    p = eqn.primitive
    return (p.elementwise and p.cost == "cheap" and not p.multiple_results and not eqn.effects
            and len(eqn.outvars) == 1 and type(eqn.outvars[0]) is not DropVar)


def recompute_past_barriers(jaxpr: Jaxpr, fusible, sized) -> Jaxpr:
    """`jaxpr` with cheap values recomputed past barriers (module docstring),
    or `jaxpr` itself when nothing moves.

    `fusible(eqn)`: whether a fused run may take `eqn` (else it is a
    barrier); `sized(var)`: whether a value is worth not storing."""
    eqns = jaxpr.eqns
    if len(eqns) < 3:
        return jaxpr
    barriers = [i for i, e in enumerate(eqns) if not fusible(e)]
    if not barriers:
        return jaxpr
    producer: dict = {}
    readers: dict = {}
    for i, e in enumerate(eqns):
        for v in e.invars:
            if type(v) is not Literal:
                readers.setdefault(v, []).append(i)
        for v in e.outvars:
            producer[v] = i
    outputs = {v for v in jaxpr.outvars if type(v) is not Literal}
    last = {v: (math.inf if v in outputs else r[-1]) for v, r in readers.items()}

    def segment(i: int) -> int:  # barriers before equation i
        return bisect.bisect_left(barriers, i)

    # (segment, var) -> the recomputed var; segment -> its first reader's index.
    dup: dict = {}
    new_eqns: dict = {}  # segment -> [recomputed equations, in order]
    at: dict = {}

    def available(u, s: int, p: int, depth: int, made: list) -> bool:
        if type(u) is Literal or (s, u) in dup:
            return True
        i = producer.get(u)
        if i is None or last.get(u, -1) >= p:
            return True  # an input of the jaxpr, or live there anyway
        if depth >= _MAX_DEPTH or not (_cheap(eqns[i]) or eqns[i].primitive.name in _VIEWS):
            return False
        return _recompute(i, s, p, depth + 1, made)

    def _recompute(i: int, s: int, p: int, depth: int, made: list) -> bool:
        e = eqns[i]
        if not all(available(u, s, p, depth, made) for u in e.invars):
            return False
        v = e.outvars[0]
        w = Var(v.aval)
        dup[(s, v)] = w
        made.append((s, v, e.replace(invars=[u if type(u) is Literal else dup.get((s, u), u) for u in e.invars],
                                     outvars=[w])))
        return True

    for i, e in enumerate(eqns):
        if not _cheap(e):
            continue
        v = e.outvars[0]
        if v in outputs or not sized(v):
            continue
        late = [c for c in readers.get(v, ()) if segment(c) > segment(i + 1)]  # (a barrier between)
        if not late or any(not fusible(eqns[c]) for c in readers[v]):
            continue  # (a barrier reads it: it is stored anyway)
        groups: dict = {}
        for c in late:
            groups.setdefault(segment(c), []).append(c)
        made: list = []
        saved = dict(dup)
        if all(_recompute(i, s, min(cs), 0, made) if (s, v) not in dup else True for s, cs in groups.items()):
            for s, _, eqn in made:
                new_eqns.setdefault(s, []).append(eqn)
            for s, cs in groups.items():
                at[s] = min(at.get(s, math.inf), min(cs))
        else:
            dup.clear()
            dup.update(saved)
    if not dup:
        return jaxpr

    # Rewrite: each segment's recomputed equations go before its first
    # reader of one; that segment's readers read the recomputed values.
    insert_at: dict = {}
    for s, p in at.items():
        insert_at.setdefault(p, []).extend(new_eqns[s])
    out = []
    for i, e in enumerate(eqns):
        out.extend(insert_at.get(i, ()))
        s = segment(i)
        if s in at and i >= at[s] and fusible(e):
            invars = [u if type(u) is Literal else dup.get((s, u), u) for u in e.invars]
            if any(a is not b for a, b in zip(invars, e.invars)):
                e = e.replace(invars=invars)
        out.append(e)
    rewritten, _ = dce_jaxpr(jaxpr.replace(eqns=out))
    return rewritten
