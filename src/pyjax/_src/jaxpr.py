"""The IR: variables, literals, equations and jaxprs; evaluation and checking.

A jaxpr is an immutable, typed, first-order program:

    { lambda c:f32[3]; a:f32[3]. let b:f32[3] = add a c in (b,) }
      constvars  ;  invars   .     eqns                  outvars

As in JAX 0.11 there is one class: a `Jaxpr` may carry the values of its
constvars (`consts`), which makes it closed; `ClosedJaxpr` is the same class.
Variables are compared by identity; names are given only when printing.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src.avals import ShapedArray


class Var:
    """A variable of a jaxpr: a typed name, compared by identity."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Var(id={id(self)}):{self.aval.str_short(short_dtypes=False)}"


class DropVar(Var):
    """An output nobody reads, printed as `_`."""

    __slots__ = ()

    def __repr__(self):
        return "_"


class Literal:
    """A scalar constant written inline in the jaxpr text (`2.0:f32[]`).
    `zero`: a scalar zero autodiff instantiated (partial evaluation takes it
    as a known value, a residual where an unknown equation reads it, as JAX's)."""

    __slots__ = ("val", "aval", "zero")

    def __init__(self, val: Any, aval: ShapedArray, zero: bool = False):
        self.val = val
        self.aval = aval
        self.zero = zero

    def __repr__(self):
        return f"{format_literal(self.val, self.aval.dtype)}:{self.aval.str_short()}"


def format_literal(val, dtype=None) -> str:
    """`str` of the value as a Python scalar. A NumPy value is read in its
    dtype (a float32 literal 0.1 prints 0.10000000149011612, as in JAX); a
    Python scalar kept weakly typed prints as the Python value it is."""
    if dtype is not None and type(val) not in (bool, int, float, complex):
        val = np.asarray(val, dtype)
    item = getattr(val, "item", None)
    return str(item() if item is not None else val)


class JaxprEqn:
    """One equation: `outvars = primitive[params] invars`."""

    __slots__ = ("primitive", "invars", "outvars", "params", "effects", "source_info", "ctx")

    def __init__(self, primitive, invars, outvars, params, effects=frozenset(), source_info=None):
        self.primitive = primitive
        self.invars = invars
        self.outvars = outvars
        self.params = params
        self.effects = effects
        self.source_info = source_info
        self.ctx = None

    def replace(self, **changes) -> JaxprEqn:
        fields = {s: getattr(self, s) for s in self.__slots__ if s != "ctx"}
        fields.update(changes)
        return JaxprEqn(**fields)

    def __repr__(self):
        from pyjax._src import pretty

        return pretty.pp_eqn_str(self)


class Jaxpr:
    """A typed first-order program, optionally closed over constant values."""

    __slots__ = ("constvars", "invars", "outvars", "eqns", "consts", "effects", "debug_info")

    def __init__(
        self,
        constvars: Sequence[Var],
        invars: Sequence[Var] | None = None,
        outvars: Sequence[Var | Literal] = (),
        eqns: Sequence[JaxprEqn] = (),
        consts: Sequence[Any] = (),
        effects=frozenset(),
        debug_info=None,
    ):
        if isinstance(constvars, Jaxpr):  # JAX's ClosedJaxpr(jaxpr, consts)
            source, consts = constvars, (constvars.consts if invars is None else invars)
            constvars, invars, outvars, eqns = source.constvars, source.invars, source.outvars, source.eqns
            effects, debug_info = source.effects, source.debug_info
        elif isinstance(consts, (set, frozenset)):  # JAX's order: Jaxpr(constvars, invars, outvars, eqns, effects)
            consts, effects = (), consts
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)
        self.consts = list(consts)
        self.effects = effects
        self.debug_info = debug_info

    jaxpr = property(lambda self: self)  # ClosedJaxpr compatibility: j.jaxpr.eqns
    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])
    all_invars = property(lambda self: self.constvars + self.invars)
    literals = property(lambda self: [v for e in self.eqns for v in e.invars if type(v) is Literal])

    def replace(self, **changes) -> Jaxpr:
        fields = {s: getattr(self, s) for s in self.__slots__}
        fields.update(changes)
        return Jaxpr(**fields)

    def with_consts(self, consts) -> Jaxpr:
        return self.replace(consts=list(consts))

    def __str__(self):
        from pyjax._src import pretty

        return pretty.pp_jaxpr_str(self)

    __repr__ = __str__

    def pretty_print(self, *, print_effects: bool = False, **kwargs) -> str:
        """The jaxpr's text; `print_effects` adds its effects after its outputs
        (JAX's ` : { IO }`). Other JAX settings (colors, shapes) are ignored."""
        from pyjax._src import pretty

        return pretty.pp_jaxpr_str(self, print_effects=print_effects)

    def __call__(self, *args):
        return eval_jaxpr(self, self.consts, *args)


ClosedJaxpr = Jaxpr


def closed_call(jaxpr: Jaxpr) -> Callable:
    return lambda *args: eval_jaxpr(jaxpr, jaxpr.consts, *args)


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args) -> list:
    """Evaluates a jaxpr under the current trace, binding each equation.

    Running this under a staging trace re-traces (inlines) the jaxpr; under a
    JVP or batching trace it transforms it; under the eval trace it executes.
    """
    env: dict = {}
    for var, value in zip(jaxpr.constvars, consts, strict=True):
        env[var] = value
    for var, value in zip(jaxpr.invars, args, strict=True):
        env[var] = value
    for eqn in jaxpr.eqns:
        ins = [env[v] if type(v) is not Literal else v.val for v in eqn.invars]
        outs = eqn.primitive.bind(*ins, **eqn.params)
        if eqn.primitive.multiple_results:
            for var, value in zip(eqn.outvars, outs, strict=True):
                env[var] = value
        else:
            env[eqn.outvars[0]] = outs
    return [env[v] if type(v) is not Literal else v.val for v in jaxpr.outvars]


class Effect:
    """The base of effects: what an equation does besides computing its
    outputs (a debug callback, an ordered I/O). Equations carry a frozenset
    of them; dead-code elimination keeps effectful equations."""


no_effects: frozenset = frozenset()


class JaxprTypeError(TypeError):
    """A jaxpr whose equations disagree with their primitives' type rules."""


def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Re-derives every equation's output types with the abstract-eval rules.

    The type rules of the primitives are the checker: each equation's outvars
    must have exactly the avals abstract evaluation gives for its invars.
    """
    defined = set(jaxpr.constvars) | set(jaxpr.invars)
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if type(v) is not Literal and v not in defined:
                raise JaxprTypeError(f"Variable {v} used before definition in equation {i}: {eqn}")
        out = eqn.primitive.out_avals(tuple(v.aval for v in eqn.invars), eqn.params)
        outs = out if eqn.primitive.multiple_results else [out]
        got = [v.aval for v in eqn.outvars]
        if [_type_key(a) for a in outs] != [_type_key(a) for a in got]:
            raise JaxprTypeError(
                f"Equation {i} ({eqn.primitive.name}) declares outputs {got} "
                f"but its abstract evaluation gives {list(outs)}"
            )
        defined.update(eqn.outvars)
    for v in jaxpr.outvars:
        if type(v) is not Literal and v not in defined:
            raise JaxprTypeError(f"Output variable {v} is not defined")


def _type_key(aval):
    return (aval.shape, aval.dtype, aval.weak_type)


def subjaxprs(params: dict):
    """The jaxprs hanging on an equation's params (bodies, branches, calls)."""
    for value in params.values():
        if type(value) is Jaxpr:
            yield value
        elif type(value) is tuple:
            for item in value:
                if type(item) is Jaxpr:
                    yield item


def body_effects(*param_names: str) -> Callable[[dict], frozenset]:
    """An `effects_of` rule for a primitive whose params hold jaxprs (a jit
    body, cond branches, loop bodies): the equation has its bodies' effects."""

    def effects_of(params: dict) -> frozenset:
        found: frozenset = frozenset()
        for name in param_names:
            value = params.get(name)
            for jaxpr in value if isinstance(value, (tuple, list)) else (value,):
                found |= getattr(jaxpr, "effects", frozenset())
        return found

    return effects_of
