"""A direct interpreter of jaxprs over NumPy buffers.

The reference executor for the NumPy backend: a loop over equations calling
the impl table. jit uses the compiler (compile.py) instead; this stays as the
simple, obviously-correct path that the compiler is tested against and that
the `jit` primitive's eager impl uses for bodies it runs only once.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pyjax._src.jaxpr import Jaxpr, Literal
from pyjax._src.rules import missing_rule_error


def run_jaxpr(jaxpr: Jaxpr, impls: dict, args: Sequence) -> list:
    env: dict = dict(zip(jaxpr.constvars, [_raw(c) for c in jaxpr.consts], strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    for v, a in zip(jaxpr.invars, args):
        if type(a) in _PYTHON_SCALARS:
            # A Python scalar bound beside arrays (`jnp.where(c, 1.0, 0.0)`
            # under a transformation): JAX converts it to its weak dtype
            # before the body runs; left as it is, NumPy computes in 64 bits.
            env[v] = np.asarray(a, v.aval.dtype)[()]
    for eqn in jaxpr.eqns:
        impl = impls.get(eqn.primitive)
        if impl is None:
            raise missing_rule_error("impl", eqn.primitive.name)
        ins = [v.val if type(v) is Literal else env[v] for v in eqn.invars]
        out = impl(*ins, **eqn.params)
        if eqn.primitive.multiple_results:
            env.update(zip(eqn.outvars, out, strict=True))
        else:
            env[eqn.outvars[0]] = out
    return [v.val if type(v) is Literal else env[v] for v in jaxpr.outvars]


_PYTHON_SCALARS = (bool, int, float, complex)


def _raw(value):
    return getattr(value, "_value", value)
