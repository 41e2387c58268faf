"""Jaxpr rewrites the NumPy backend applies before compiling.

These are layout decisions XLA would make for itself; NumPy cannot, so the
backend makes them on the jaxpr:

- `transpose[(1, 0)](dot_general(a, b))` of matrices becomes one
  `dot_general(b, a)` with the contracting dimensions swapped: BLAS writes
  the transposed product directly, and later elementwise work sees a
  C-ordered array instead of a strided view (reverse-mode matmuls produce
  this pattern once per weight matrix).

Rewrites recurse into `jit` bodies, which the compiler inlines, and into
the bodies of `cond`, `while` and `scan`, which it compiles into the loop
(a reverse-mode scan's body is where such transposed products appear).
"""

from __future__ import annotations

from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal


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


def simplify(jaxpr: Jaxpr) -> Jaxpr:
    """The jaxpr with the backend's rewrites applied (a new jaxpr)."""
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
    for eqn in jaxpr.eqns:
        if id(eqn) in dropped:
            continue
        eqn = replaced.get(id(eqn), eqn)
        eqn = _simplify_bodies(eqn)
        eqns.append(eqn)
    if not dropped and all(e is o for e, o in zip(eqns, jaxpr.eqns)):
        return jaxpr
    return jaxpr.replace(eqns=eqns)


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
