"""The NumPy backend's allocation check for compiled programs.

XLA fails a program that would allocate a buffer the machine cannot hold
when it runs; NumPy would instead hand out zero-stride views of such shapes
(a broadcast of a scalar to 10**12 elements) and spin for minutes in the
first reduction over one. So a jaxpr is checked once, when it is compiled
(a jit's first call, an eager program's build): any value of a type whose
element count overflows int64 or whose bytes exceed the machine's memory
raises XLA's error. Tracing such shapes (make_jaxpr, eval_shape, `.trace()`)
stays fine, as in JAX.
"""

from __future__ import annotations

from pyjax._src.avals import allocation_error
from pyjax._src.jaxpr import Jaxpr, subjaxprs


def check_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Returns `jaxpr` if every value it computes can be allocated, else
    raises XLA's error for the first that cannot."""
    _check(jaxpr, set())
    return jaxpr


def _check(jaxpr: Jaxpr, seen: set) -> None:
    if id(jaxpr) in seen:
        return
    seen.add(id(jaxpr))
    for v in (*jaxpr.constvars, *jaxpr.outvars):
        if getattr(v.aval, "too_big", False):
            raise allocation_error(v.aval)
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if getattr(v.aval, "too_big", False):
                raise allocation_error(v.aval)
        if eqn.params:
            for sub in subjaxprs(eqn.params):
                _check(sub, seen)
