"""Jaxpr rewrites the NumPy backend applies before compiling.

These are layout decisions XLA would make for itself; NumPy cannot, so the
backend makes them on the jaxpr:

- `transpose[(1, 0)](dot_general(a, b))` of matrices becomes one
  `dot_general(b, a)` with the contracting dimensions swapped: BLAS writes
  the transposed product directly, and later elementwise work sees a
  C-ordered array instead of a strided view (reverse-mode matmuls produce
  this pattern once per weight matrix).

- `div(x, y)` of floats (float16/32/64) whose divisor is broadcast (a
  scalar, size-1 axes, or the result of a `broadcast_in_dim`) or a
  constant becomes `mul(x, div(1, y'))`, with the reciprocal of the small
  operand `y'` rounded in the dtype and broadcast after: XLA's algebraic
  simplifier does the same (`A / broadcast(B) -> A * broadcast(1 / B)`,
  and with constants folded), so results match JAX's to the last bit.
  Eager division makes the same choice in the impl for the first case
  (impls.py `_div`); bfloat16 and complex numbers keep the division, as
  XLA does.

Rewrites recurse into `jit` bodies, which the compiler inlines, and into
the bodies of `cond`, `while` and `scan`, which it compiles into the loop
(a reverse-mode scan's body is where such transposed products appear).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal, Var


def _use_counts(jaxpr: Jaxpr) -> dict:
    counts: dict = {}
    for eqn in jaxpr.eqns:
        for v in eqn.invars:
            if type(v) is not Literal:
                counts[v] = counts.get(v, 0) + 1
    for v in jaxpr.outvars:
        if type(v) is not Literal:
            counts[v] = counts.get(v, 0) + 2  # an output is never rewritten away
    return counts


def _swappable(eqn: JaxprEqn) -> bool:
    if eqn.primitive.name != "dot_general":
        return False
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    return not lb and len(lc) == 1 and lhs.aval.ndim == 2 and rhs.aval.ndim == 2


def simplify(jaxpr: Jaxpr, *, fused: bool = True) -> Jaxpr:
    """The jaxpr with the backend's rewrites applied (a new jaxpr).

    `fused=False`: the top-level equations are dispatched one by one (as
    JAX runs eager jax.numpy code), so a rewrite looking across equations
    (a division by a constant or by another equation's broadcast) applies
    only inside the bodies, each of which XLA compiles whole."""
    counts = _use_counts(jaxpr)
    producers = {}
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            producers[v] = eqn
    dropped, replaced = set(), {}
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "transpose" and eqn.params["permutation"] == (1, 0):
            (source,) = eqn.invars
            producer = producers.get(source) if type(source) is not Literal else None
            if producer is not None and counts.get(source) == 1 and _swappable(producer):
                from pyjax._src.lax.dot import DotDimensionNumbers

                (lc, rc), _ = producer.params["dimension_numbers"]
                params = dict(producer.params, dimension_numbers=DotDimensionNumbers(((rc, lc), ((), ()))))
                replaced[id(eqn)] = producer.replace(invars=producer.invars[::-1], outvars=eqn.outvars, params=params)
                dropped.add(id(producer))
    eqns = []
    constvars = set(jaxpr.constvars)
    for eqn in jaxpr.eqns:
        if id(eqn) in dropped:
            continue
        eqn = replaced.get(id(eqn), eqn)
        eqn = _simplify_bodies(eqn)
        reciprocal = _reciprocal_division(eqn, producers, constvars, fused)
        if reciprocal is None:
            eqns.append(eqn)
        else:
            eqns.extend(reciprocal)
    if len(eqns) == len(jaxpr.eqns) and all(e is o for e, o in zip(eqns, jaxpr.eqns)):
        return jaxpr
    return jaxpr.replace(eqns=eqns)


def _reciprocal_division(eqn: JaxprEqn, producers: dict, constvars: set, fused: bool) -> list | None:
    """`div(x, y)` as XLA computes it when `y` is broadcast or constant:
    the equations of `x * broadcast(1 / b)` (see the module docstring), or
    None to keep the division. Outside a fused computation (`fused`) only
    a broadcast within the equation itself counts."""
    if eqn.primitive.name != "div":
        return None
    x, y = eqn.invars
    out = eqn.outvars[0].aval
    if not isinstance(out.dtype, np.dtype) or out.dtype.kind != "f":
        return None
    constant = fused and (type(y) is Literal or y in constvars)
    if not out.shape and not constant:
        return None  # a scalar by a scalar computed at run time: a division
    from pyjax._src.lax import elementwise as ew

    producer = producers.get(y) if fused and type(y) is not Literal else None
    if producer is not None and producer.primitive.name == "broadcast_in_dim" and y.aval.shape == out.shape:
        (small,) = producer.invars  # 1 / b, then the same broadcast
        if type(small) is Literal:
            return None
        inverse = _reciprocal_eqn(ew.div_p, small, out.dtype)
        broadcast = producer.replace(invars=[inverse.outvars[0]], outvars=[Var(y.aval)])
        product = JaxprEqn(ew.mul_p, [x, broadcast.outvars[0]], eqn.outvars, {}, eqn.effects, eqn.source_info)
        return [inverse, broadcast, product]
    if y.aval.shape == out.shape and not constant:
        return None  # an elementwise division
    inverse = _reciprocal_eqn(ew.div_p, y, out.dtype)
    product = JaxprEqn(ew.mul_p, [x, inverse.outvars[0]], eqn.outvars, {}, eqn.effects, eqn.source_info)
    return [inverse, product]


def _reciprocal_eqn(div_p, y, dtype) -> JaxprEqn:
    one = Literal(np.ones((), dtype)[()], ShapedArray((), dtype))
    aval = y.aval if type(y) is not Literal else ShapedArray((), dtype)
    return JaxprEqn(div_p, [one, y], [Var(ShapedArray(aval.shape, dtype))], {})


# The params holding the bodies the compiler splices in, per primitive.
_BODY_PARAMS = {"jit": ("jaxpr",), "scan": ("jaxpr",), "while": ("cond_jaxpr", "body_jaxpr"), "cond": ("branches",)}


def _simplify_bodies(eqn: JaxprEqn) -> JaxprEqn:
    changed = {}
    for name in _BODY_PARAMS.get(eqn.primitive.name, ()):
        value = eqn.params[name]
        if type(value) is tuple:  # cond's branches
            new = tuple(simplify(b) for b in value)
            if all(n is v for n, v in zip(new, value, strict=True)):
                continue
        else:
            new = simplify(value)
            if new is value:
                continue
        changed[name] = new
    return eqn.replace(params=dict(eqn.params, **changed)) if changed else eqn
